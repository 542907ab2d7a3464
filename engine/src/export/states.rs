//! The thread states table: one row per state interval of a thread (what a
//! thread status view draws), with the thread's life (one row of the view)
//! on each.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::{ExportError, TableFile, BATCH_ROWS};
use crate::analysis::states::ThreadRow;

/// The thread states table's columns.
pub fn schema() -> SchemaRef {
    let ns = |name: &str| Field::new(name, DataType::Int64, false);
    let fields = vec![
        ns("tid"),
        Field::new("pid", DataType::Int64, true),
        Field::new("comm", DataType::Utf8, false),
        ns("thread_start"),
        ns("thread_end"),
        ns("start"),
        ns("end"),
        Field::new("state", DataType::Utf8, false),
    ];
    Arc::new(Schema::new_with_metadata(
        fields,
        super::metadata("thread_states"),
    ))
}

/// Builders of one batch of rows.
#[derive(Default)]
struct Columns {
    tid: Int64Builder,
    pid: Int64Builder,
    comm: StringBuilder,
    thread_start: Int64Builder,
    thread_end: Int64Builder,
    start: Int64Builder,
    end: Int64Builder,
    state: StringBuilder,
    rows: usize,
}

impl Columns {
    fn batch(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.tid.finish()),
            Arc::new(self.pid.finish()),
            Arc::new(self.comm.finish()),
            Arc::new(self.thread_start.finish()),
            Arc::new(self.thread_end.finish()),
            Arc::new(self.start.finish()),
            Arc::new(self.end.finish()),
            Arc::new(self.state.finish()),
        ];
        RecordBatch::try_new(schema(), columns)
    }
}

/// Writes every interval of `rows` (thread by thread, in time order) into
/// `file`; returns the number of rows written.
pub fn write(rows: &[ThreadRow], file: &mut TableFile) -> Result<u64, ExportError> {
    let mut c = Columns::default();
    let mut written = 0;
    let flush = |c: &mut Columns, file: &mut TableFile| -> Result<(), ExportError> {
        let batch = c.batch().map_err(ExportError::Batch)?;
        file.write(&batch)
    };
    for row in rows {
        for i in &row.intervals {
            c.tid.append_value(row.tid);
            c.pid.append_option(row.pid);
            c.comm.append_value(&row.comm);
            c.thread_start.append_value(row.start);
            c.thread_end.append_value(row.end);
            c.start.append_value(i.start);
            c.end.append_value(i.end);
            c.state.append_value(i.state.as_str());
            c.rows += 1;
            written += 1;
            if c.rows == BATCH_ROWS {
                flush(&mut c, file)?;
            }
        }
    }
    if c.rows > 0 || written == 0 {
        flush(&mut c, file)?;
    }
    Ok(written)
}
