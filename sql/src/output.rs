//! Where a query's answer goes: a table for people, CSV (the engine's CSV
//! writer, as `analyze --format csv` and `export` write), one JSON array of
//! row objects (times and durations integer ns, lists as arrays) or a
//! Parquet file (the engine's table file).

use std::io::Write;
use std::path::Path;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::json::writer::{JsonArray, WriterBuilder};
use datafusion::arrow::json::ArrayWriter;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use sextant_engine::export::{self, Format, TableFile};

use crate::SqlError;

/// Takes an answer: its schema, then its batches as they come.
pub trait Sink {
    fn start(&mut self, schema: &SchemaRef) -> Result<(), SqlError>;
    fn batch(&mut self, batch: &RecordBatch) -> Result<(), SqlError>;
    fn finish(&mut self) -> Result<(), SqlError>;
}

fn failed(what: &str) -> impl Fn(&dyn std::fmt::Display) -> SqlError + '_ {
    move |e| SqlError::Output(format!("{what}: {e}"))
}

/// Every batch kept.
#[derive(Default)]
pub struct Collect {
    pub schema: Option<SchemaRef>,
    pub batches: Vec<RecordBatch>,
}

impl Sink for Collect {
    fn start(&mut self, schema: &SchemaRef) -> Result<(), SqlError> {
        self.schema = Some(schema.clone());
        Ok(())
    }
    fn batch(&mut self, batch: &RecordBatch) -> Result<(), SqlError> {
        self.batches.push(batch.clone());
        Ok(())
    }
    fn finish(&mut self) -> Result<(), SqlError> {
        Ok(())
    }
}

/// A table with borders, drawn once the answer is complete.
pub struct Table<W: Write> {
    out: W,
    rows: Collect,
}

impl<W: Write> Table<W> {
    pub fn new(out: W) -> Self {
        Table {
            out,
            rows: Collect::default(),
        }
    }
}

impl<W: Write> Sink for Table<W> {
    fn start(&mut self, schema: &SchemaRef) -> Result<(), SqlError> {
        self.rows.start(schema)
    }
    fn batch(&mut self, batch: &RecordBatch) -> Result<(), SqlError> {
        self.rows.batch(batch)
    }
    fn finish(&mut self) -> Result<(), SqlError> {
        let mut batches = std::mem::take(&mut self.rows.batches);
        if batches.is_empty() {
            // The header of an empty answer.
            let schema = self.rows.schema.clone().expect("started");
            batches.push(RecordBatch::new_empty(schema));
        }
        let n: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let table = pretty_format_batches(&batches).map_err(|e| failed("drawing the table")(&e))?;
        writeln!(self.out, "{table}\n({n} rows)")
            .and_then(|()| self.out.flush())
            .map_err(|e| failed("writing the table")(&e))
    }
}

/// CSV with one header line.
pub struct Csv<W: Write> {
    out: W,
}

impl<W: Write> Csv<W> {
    pub fn new(out: W) -> Self {
        Csv { out }
    }
}

impl<W: Write> Sink for Csv<W> {
    fn start(&mut self, schema: &SchemaRef) -> Result<(), SqlError> {
        // The header line, written even for an empty answer.
        let mut text = Vec::new();
        let empty = RecordBatch::new_empty(schema.clone());
        export::write_csv(&mut text, &empty).map_err(|e| failed("writing CSV")(&e))?;
        self.out
            .write_all(&text)
            .map_err(|e| failed("writing CSV")(&e))
    }
    fn batch(&mut self, batch: &RecordBatch) -> Result<(), SqlError> {
        let mut text = Vec::new();
        export::write_csv(&mut text, batch).map_err(|e| failed("writing CSV")(&e))?;
        // Each call writes a header line: the answer's was written first.
        let body = match text.iter().position(|&b| b == b'\n') {
            Some(end) => &text[end + 1..],
            None => &text[..],
        };
        self.out
            .write_all(body)
            .map_err(|e| failed("writing CSV")(&e))
    }
    fn finish(&mut self) -> Result<(), SqlError> {
        self.out.flush().map_err(|e| failed("writing CSV")(&e))
    }
}

/// One JSON array of row objects.
pub struct Json<W: Write> {
    writer: Option<ArrayWriter<W>>,
}

impl<W: Write> Json<W> {
    pub fn new(out: W) -> Self {
        // Every row has every column: a null is written as null.
        let writer = WriterBuilder::new()
            .with_explicit_nulls(true)
            .build::<_, JsonArray>(out);
        Json {
            writer: Some(writer),
        }
    }
}

impl<W: Write> Sink for Json<W> {
    fn start(&mut self, _schema: &SchemaRef) -> Result<(), SqlError> {
        Ok(())
    }
    fn batch(&mut self, batch: &RecordBatch) -> Result<(), SqlError> {
        let w = self.writer.as_mut().expect("until finish");
        w.write(batch).map_err(|e| failed("writing JSON")(&e))
    }
    fn finish(&mut self) -> Result<(), SqlError> {
        let mut w = self.writer.take().expect("finished once");
        w.finish().map_err(|e| failed("writing JSON")(&e))?;
        let mut out = w.into_inner();
        // `[]` for no rows; a line end as every command's output has.
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .map_err(|e| failed("writing JSON")(&e))
    }
}

/// A Parquet file (or any of the engine's table formats), replaced whole
/// once complete.
pub struct File {
    path: std::path::PathBuf,
    format: Format,
    table: Option<TableFile>,
}

impl File {
    pub fn new(path: &Path, format: Format) -> Self {
        File {
            path: path.to_path_buf(),
            format,
            table: None,
        }
    }
}

impl Sink for File {
    fn start(&mut self, schema: &SchemaRef) -> Result<(), SqlError> {
        let table = TableFile::create(&self.path, self.format, schema.clone())
            .map_err(|e| failed("writing the answer")(&e))?;
        self.table = Some(table);
        Ok(())
    }
    fn batch(&mut self, batch: &RecordBatch) -> Result<(), SqlError> {
        let table = self.table.as_mut().expect("started");
        table
            .write(batch)
            .map_err(|e| failed("writing the answer")(&e))
    }
    fn finish(&mut self) -> Result<(), SqlError> {
        let table = self.table.take().expect("started");
        table.finish().map_err(|e| failed("writing the answer")(&e))
    }
}
