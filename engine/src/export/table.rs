//! One table file written batch by batch in one of three formats, under a
//! unique temporary name renamed to its own on `finish`: a reader never sees
//! half a file, and a failed export leaves nothing behind.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use super::shedding::Shedding;
use super::ExportError;

/// A file format for tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Arrow IPC file format (Feather v2): `pyarrow.ipc.open_file`.
    Arrow,
    /// Parquet, uncompressed.
    Parquet,
    /// CSV with a header line; nested columns (lists) written as `[0, 1]`.
    Csv,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "arrow" => Ok(Format::Arrow),
            "parquet" => Ok(Format::Parquet),
            "csv" => Ok(Format::Csv),
            _ => Err(format!("unknown format `{s}` (arrow, parquet, csv)")),
        }
    }
}

enum Writer {
    Arrow(arrow_ipc::writer::FileWriter<BufWriter<Shedding>>),
    Parquet(parquet::arrow::ArrowWriter<File>),
    Csv(arrow_csv::Writer<BufWriter<File>>),
}

/// A table being written to `path`.
pub struct TableFile {
    /// Taken by `finish`.
    writer: Option<Writer>,
    path: PathBuf,
    temporary: PathBuf,
}

impl TableFile {
    /// Starts a table of `schema` that `finish` puts at `path`.
    pub fn create(path: &Path, format: Format, schema: SchemaRef) -> Result<Self, ExportError> {
        Self::create_shedding(path, format, schema, Vec::new())
    }

    /// A table as `create`'s, whose Arrow writer gives back the pages of
    /// `maps` (mapped files its batches' arrays are slices of) once it has
    /// written them.
    pub fn create_shedding(
        path: &Path,
        format: Format,
        schema: SchemaRef,
        maps: Vec<Arc<crate::mapped::Mapped>>,
    ) -> Result<Self, ExportError> {
        let temporary = temporary_name(path);
        let file = File::create(&temporary).map_err(|source| ExportError::Io {
            path: temporary.display().to_string(),
            source,
        })?;
        let mut table = TableFile {
            writer: None,
            path: path.to_path_buf(),
            temporary,
        };
        let writer = match format {
            Format::Arrow => {
                let out = BufWriter::new(Shedding { file, maps });
                arrow_ipc::writer::FileWriter::try_new(out, &schema)
                    .map(Writer::Arrow)
                    .map_err(|e| arrow_error(path, e))?
            }
            Format::Parquet => parquet::arrow::ArrowWriter::try_new(file, schema, None)
                .map(Writer::Parquet)
                .map_err(|e| parquet_error(path, e))?,
            Format::Csv => Writer::Csv(arrow_csv::Writer::new(BufWriter::new(file))),
        };
        table.writer = Some(writer);
        Ok(table)
    }

    /// Appends the rows of `batch`.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ExportError> {
        let path = &self.path;
        match self.writer.as_mut().expect("set until finish") {
            Writer::Arrow(w) => w.write(batch).map_err(|e| arrow_error(path, e)),
            Writer::Parquet(w) => w.write(batch).map_err(|e| parquet_error(path, e)),
            Writer::Csv(w) => text_columns(batch)
                .and_then(|b| w.write(&b))
                .map_err(|e| arrow_error(path, e)),
        }
    }

    /// Ends the file and gives it its name.
    pub fn finish(mut self) -> Result<(), ExportError> {
        let io = |path: &Path, source| ExportError::Io {
            path: path.display().to_string(),
            source,
        };
        match self.writer.take().expect("set until finish") {
            Writer::Arrow(mut w) => {
                w.finish().map_err(|e| arrow_error(&self.path, e))?;
                w.get_mut().flush().map_err(|e| io(&self.temporary, e))?;
            }
            Writer::Parquet(w) => {
                w.close().map_err(|e| parquet_error(&self.path, e))?;
            }
            Writer::Csv(w) => w.into_inner().flush().map_err(|e| io(&self.temporary, e))?,
        }
        std::fs::rename(&self.temporary, &self.path).map_err(|e| io(&self.path, e))
    }
}

impl Drop for TableFile {
    /// An export that did not finish leaves no file.
    fn drop(&mut self) {
        // After `finish` the name is gone already.
        let _ = std::fs::remove_file(&self.temporary);
    }
}

fn arrow_error(path: &Path, source: ArrowError) -> ExportError {
    ExportError::Arrow {
        path: path.display().to_string(),
        source,
    }
}

fn parquet_error(path: &Path, source: parquet::errors::ParquetError) -> ExportError {
    ExportError::Parquet {
        path: path.display().to_string(),
        source,
    }
}

/// `DIR/.NAME.PID-N.tmp`: unique among the processes and the tables of this
/// one that write beside each other.
fn temporary_name(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// `batch` as CSV with a header line, as `TableFile` writes a CSV file:
/// what `analyze --format csv` prints is what `export` writes.
pub fn write_csv(out: &mut impl Write, batch: &RecordBatch) -> Result<(), ArrowError> {
    arrow_csv::Writer::new(out).write(&text_columns(batch)?)
}

/// The batch with each nested column (a list) as text, which CSV can hold.
fn text_columns(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    if !batch.columns().iter().any(|c| c.data_type().is_nested()) {
        return Ok(batch.clone());
    }
    let options = FormatOptions::default();
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns());
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if !column.data_type().is_nested() {
            fields.push(field.clone());
            columns.push(column.clone());
            continue;
        }
        let formatter = ArrayFormatter::try_new(column.as_ref(), &options)?;
        let text: StringArray = (0..column.len())
            .map(|i| (!column.is_null(i)).then(|| formatter.value(i).to_string()))
            .collect();
        fields.push(Arc::new(Field::new(
            field.name(),
            DataType::Utf8,
            field.is_nullable(),
        )));
        columns.push(Arc::new(text));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}
