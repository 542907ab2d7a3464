//! The events table: every event of a trace in time order, its thread as the
//! kernel model knows it, its payload as a JSON object. Written while the
//! trace is read, a batch at a time: memory does not grow with the trace.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::{ExportError, TableFile, BATCH_ROWS};
use crate::event::{Event, ReadError};
use crate::jsonl::JsonSink;
use crate::kernel::checkpoint::{Checkpoint, Recorder};
use crate::kernel::model::{KEvent, KernelModel};
use crate::kernel::pass::Analysis;
use crate::reader::OpenOptions;
use crate::run::{Flow, Pass, Ran, Tap, Work};

/// The events table's columns.
pub fn schema() -> SchemaRef {
    let fields = vec![
        Field::new("ts", DataType::Int64, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("cpu", DataType::UInt32, true),
        Field::new("tid", DataType::Int64, true),
        Field::new("payload", DataType::Utf8, false),
    ];
    Arc::new(Schema::new_with_metadata(fields, super::metadata("events")))
}

/// Which events become rows (a SQL query's filters on `name` and `ts`,
/// pushed down). Every event read still goes through the kernel model, so
/// each row's thread is the one a whole export gives it; the read stops
/// after `until`, starts at a checkpoint before `from` when one is given,
/// and no payload is written for an event left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Only {
    /// Event names kept (`None`: every name).
    pub names: Option<BTreeSet<String>>,
    /// First and last timestamps kept, inclusive (ns, as the `ts` column).
    pub from: Option<i64>,
    pub until: Option<i64>,
}

impl Only {
    fn keeps<'s, E: Event<'s>>(&self, ev: &E) -> bool {
        self.from.is_none_or(|from| ev.ts() >= from)
            && self.names.as_ref().is_none_or(|n| n.contains(ev.name()))
    }
}

/// What a write of the events table read.
#[derive(Debug)]
pub struct Written {
    pub ran: Ran,
    /// The checkpoints of a read from the trace's start (none when it
    /// resumed at a checkpoint).
    pub checkpoints: Vec<Checkpoint>,
}

/// Reads the trace at `trace` and writes each event `only` keeps into
/// `file`: from its start, or resumed at `start` (which must be before
/// `only.from`: `checkpoint::before`). A format that cannot seek fails
/// with `RunError::CannotSeek`.
pub fn write(
    trace: &Path,
    options: OpenOptions,
    only: &Only,
    start: Option<&Checkpoint>,
    file: &mut TableFile,
    work: &Work<'_>,
) -> Result<Written, ExportError> {
    let columns = RefCell::new(Columns::default());
    let mut rows = Rows {
        file,
        columns: &columns,
        payload: Vec::with_capacity(256),
        failed: None,
        only,
        recorder: start.is_none().then(Recorder::default),
    };
    let mut attribution = Attribution {
        columns: &columns,
        snapshot: start.map(|s| &*s.cpus).unwrap_or_default(),
    };
    let mut analyses: [&mut dyn Analysis; 1] = [&mut attribution];
    let pass = Pass::new(&mut analyses)
        .options(options)
        .until(only.until.unwrap_or(i64::MAX));
    let pass = match start {
        Some(checkpoint) => pass.from(checkpoint.ts),
        None => pass,
    };
    let ran = pass.tap(&mut rows).read(trace, work);
    if let Some(e) = rows.failed.take() {
        return Err(e);
    }
    let ran = ran?;
    rows.flush()?;
    Ok(Written {
        ran,
        checkpoints: rows
            .recorder
            .take()
            .map(Recorder::into_checkpoints)
            .unwrap_or_default(),
    })
}

#[derive(Default)]
struct Columns {
    ts: Int64Builder,
    name: StringBuilder,
    cpu: UInt32Builder,
    tid: Int64Builder,
    payload: StringBuilder,
    rows: usize,
    /// The last row still waits for its thread.
    pending: bool,
}

impl Columns {
    /// Ends the last row: an event the model did not attribute has no thread.
    fn complete(&mut self) {
        if self.pending {
            self.tid.append_null();
            self.pending = false;
        }
    }
}

/// Writes each event's row, its thread left to `Attribution`.
struct Rows<'f, 'c> {
    file: &'f mut TableFile,
    only: &'f Only,
    columns: &'c RefCell<Columns>,
    /// The payload being written, reused from event to event.
    payload: Vec<u8>,
    /// The first write that failed: the read stops there.
    failed: Option<ExportError>,
    /// Records checkpoints on a read from the trace's start.
    recorder: Option<Recorder>,
}

impl Rows<'_, '_> {
    fn flush(&mut self) -> Result<(), ExportError> {
        let mut c = self.columns.borrow_mut();
        c.complete();
        c.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(c.ts.finish()),
            Arc::new(c.name.finish()),
            Arc::new(c.cpu.finish()),
            Arc::new(c.tid.finish()),
            Arc::new(c.payload.finish()),
        ];
        drop(c);
        let batch = RecordBatch::try_new(schema(), columns).map_err(ExportError::Batch)?;
        self.file.write(&batch)
    }
}

impl Tap for Rows<'_, '_> {
    fn event<'s, E: Event<'s>>(&mut self, ev: &E, model: &KernelModel) -> Result<Flow, ReadError> {
        if let Some(recorder) = &mut self.recorder {
            recorder.see(ev.ts(), model);
        }
        if !self.only.keeps(ev) {
            return Ok(Flow::Apply);
        }
        let full = self.columns.borrow().rows == BATCH_ROWS;
        if full {
            if let Err(e) = self.flush() {
                self.failed = Some(e);
                return Ok(Flow::Stop);
            }
        }
        self.payload.clear();
        ev.visit_fields(&mut JsonSink::new(&mut self.payload))?;
        let mut c = self.columns.borrow_mut();
        c.complete();
        c.ts.append_value(ev.ts());
        c.name.append_value(ev.name());
        c.cpu.append_option(ev.cpu());
        c.payload
            .append_value(String::from_utf8_lossy(&self.payload));
        c.rows += 1;
        c.pending = true;
        Ok(Flow::Apply)
    }
}

/// Gives the row of each event its thread as the kernel model knows it
/// before the event (the tracer's attribution, else the CPU's current
/// thread; a switch belongs to the thread switched out). On a read resumed
/// at a checkpoint, a CPU not yet switched since has the checkpoint's thread
/// (the model's until then, on a read from the start).
struct Attribution<'c> {
    columns: &'c RefCell<Columns>,
    snapshot: &'c [Option<i64>],
}

impl Analysis for Attribution<'_> {
    fn wants(&self, _canonical: &str) -> bool {
        true
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, _model: &KernelModel) {
        let mut c = self.columns.borrow_mut();
        if c.pending {
            let known = || {
                ev.cpu.and_then(|cpu| {
                    self.snapshot
                        .get(crate::event::cpu_slot(cpu))
                        .copied()
                        .flatten()
                })
            };
            c.tid.append_option(thread.or_else(known));
            c.pending = false;
        }
    }

    fn finish(&mut self, _model: &KernelModel, _end: i64) {}
}
