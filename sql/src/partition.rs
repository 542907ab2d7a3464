//! One trace's rows of one table, computed on a blocking thread when
//! DataFusion first polls the partition: the engine's own writers
//! (`export::events`, `export::states`, `export::executions::table`,
//! `export::tasks`), so the columns are the exports', `analyze`'s and
//! `tasks`'. Events and thread states go
//! through a temporary Arrow file read back a batch at a time, so that
//! memory does not grow with the trace; a partition dropped early (a
//! `LIMIT` met) cancels its pass.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::FileReader;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use sextant_engine::analysis::tasks::Options;
use sextant_engine::export::events::Only;
use sextant_engine::export::{self, Format, TableFile};
use sextant_engine::hosts::HostPick;
use sextant_engine::run::Work;
use sextant_engine::session::Session;
use tokio::sync::mpsc;

use crate::executions::{self, Asked};
use crate::explain::{self, Explained};
use crate::fleet::Trace;
use crate::{tasks, Reading};

/// Which table.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// With the rows the query's filters keep (pushed down).
    Events(Arc<Only>),
    ThreadStates,
    Executions(Arc<Asked>),
    Tasks(Options),
    Explain(Arc<Explained>),
}

impl Kind {
    /// The engine's columns of the table.
    pub(crate) fn schema(&self) -> SchemaRef {
        match self {
            Kind::Events(_) => export::events::schema(),
            Kind::ThreadStates => export::states::schema(),
            Kind::Executions(asked) => export::executions::schema(&asked.name),
            Kind::Tasks(_) => tasks::schema(),
            Kind::Explain(_) => explain::schema(),
        }
    }

    pub(crate) fn table(&self) -> &'static str {
        match self {
            Kind::Events(_) => "events",
            Kind::ThreadStates => "thread_states",
            Kind::Executions(_) => "executions",
            Kind::Tasks(_) => "tasks",
            Kind::Explain(_) => "explain",
        }
    }
}

/// Batches in flight between the pass's thread and the query.
const QUEUED: usize = 2;

pub(crate) struct TracePartition {
    kind: Kind,
    trace: Arc<Trace>,
    reading: Arc<Reading>,
    schema: SchemaRef,
}

impl fmt::Debug for TracePartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.kind.table(), self.trace.name)
    }
}

impl TracePartition {
    pub(crate) fn new(
        kind: Kind,
        trace: Arc<Trace>,
        reading: Arc<Reading>,
        schema: SchemaRef,
    ) -> Self {
        TracePartition {
            kind,
            trace,
            reading,
            schema,
        }
    }
}

/// Set when the partition's stream is dropped: the pass stops.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl PartitionStream for TracePartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(QUEUED);
        let cancel = Arc::new(AtomicBool::new(false));
        let (kind, trace, reading, schema) = (
            self.kind.clone(),
            self.trace.clone(),
            self.reading.clone(),
            self.schema.clone(),
        );
        let flag = cancel.clone();
        // Started now, so that its batches flow while the query reads them
        // (the channel holds only `QUEUED`).
        tokio::spawn(async move {
            // At most one pass per core at once, however many traces.
            let Ok(_permit) = reading.gate.clone().acquire_owned().await else {
                return;
            };
            let failure = PassError::at(kind.table(), &trace.path);
            let (failed, label) = (tx.clone(), failure.clone());
            let pass = tokio::task::spawn_blocking(move || {
                let send = |batch: Result<RecordBatch>| tx.blocking_send(batch).is_ok();
                let place = Place::new(&trace, &schema);
                let rows = |core: RecordBatch| place.batch(&core);
                if let Err(e) = produce(&kind, &trace, &reading, &flag, &mut |b| send(rows(b))) {
                    send(Err(failure.of(e.to_string())));
                }
            });
            // A pass that panicked ends its partition with an error, not
            // with fewer rows.
            if let Err(e) = pass.await {
                let _ = failed.send(Err(label.of(e.to_string()))).await;
            }
        });
        let guard = CancelOnDrop(cancel);
        let stream = futures::stream::unfold((rx, guard), |(mut rx, guard)| async move {
            let batch = rx.recv().await?;
            Some((batch, (rx, guard)))
        });
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
    }
}

/// The trace's `host` and `trace` columns put before a batch of the
/// engine's.
struct Place<'a> {
    trace: &'a Trace,
    schema: &'a SchemaRef,
}

impl<'a> Place<'a> {
    fn new(trace: &'a Trace, schema: &'a SchemaRef) -> Self {
        Place { trace, schema }
    }

    fn batch(&self, core: &RecordBatch) -> Result<RecordBatch> {
        let n = core.num_rows();
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec![self.trace.host.as_str(); n])),
            Arc::new(StringArray::from(vec![self.trace.name.as_str(); n])),
        ];
        columns.extend(core.columns().iter().cloned());
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// A trace's pass that failed inside a query: which table of which trace,
/// and the engine's message (which names the file and where in it). Kept
/// typed through DataFusion (`SqlError::pass`) so that a front end can say
/// "this trace" rather than "this query".
#[derive(Debug, Clone)]
pub struct PassError {
    pub table: &'static str,
    pub trace: PathBuf,
    pub message: String,
}

impl PassError {
    fn at(table: &'static str, trace: &Path) -> Self {
        PassError {
            table,
            trace: trace.to_path_buf(),
            message: String::new(),
        }
    }

    /// This partition's failure with `message`, as DataFusion carries it.
    fn of(&self, message: String) -> DataFusionError {
        DataFusionError::External(Box::new(PassError {
            message,
            ..self.clone()
        }))
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {}: {}",
            self.table,
            self.trace.display(),
            self.message
        )
    }
}

impl std::error::Error for PassError {}

/// What a pass of one partition failed with, said with its table and trace
/// by the caller.
pub(crate) type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Computes the trace's rows of `kind`, handing each batch to `emit`
/// (which says `false` once nobody wants more).
pub(crate) fn produce(
    kind: &Kind,
    trace: &Trace,
    reading: &Reading,
    cancel: &AtomicBool,
    emit: &mut dyn FnMut(RecordBatch) -> bool,
) -> Result<(), Failure> {
    let work = Work {
        progress: &|_| {},
        cancel,
    };
    match kind {
        Kind::Events(only) => {
            let file = reading.scratch.file("events")?;
            let mut table = TableFile::create(&file, Format::Arrow, export::events::schema())?;
            let session = Session::open(&trace.path, reading.options, reading.places.clone());
            let ran = session.events_table(only, &mut table, &work)?;
            table.finish()?;
            reading.log.warn_all(trace, &ran.warnings);
            read_back(&file, emit)
        }
        Kind::ThreadStates => {
            let session = Session::open(&trace.path, reading.options, None);
            let (rows, ran) = session.thread_states(HostPick::Sole, &work)?;
            reading.log.warn_all(trace, &ran.warnings);
            let file = reading.scratch.file("states")?;
            let mut table = TableFile::create(&file, Format::Arrow, export::states::schema())?;
            export::states::write(&rows, &mut table)?;
            table.finish()?;
            read_back(&file, emit)
        }
        Kind::Executions(asked) => {
            for batch in executions::of_trace(asked, trace, reading, &work)? {
                if !emit(batch) {
                    break;
                }
            }
            Ok(())
        }
        Kind::Tasks(options) => {
            emit(tasks::of_trace(options, trace, reading, &work)?);
            Ok(())
        }
        Kind::Explain(asked) => {
            emit(explain::of_trace(asked, trace, reading, &work)?);
            Ok(())
        }
    }
}

/// Hands out the batches of an Arrow file written for the query, removing
/// it first (an open file stays readable).
fn read_back(file: &Path, emit: &mut dyn FnMut(RecordBatch) -> bool) -> Result<(), Failure> {
    let opened = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let _ = std::fs::remove_file(file);
    for batch in FileReader::try_new(opened, None)? {
        if !emit(batch?) {
            break;
        }
    }
    Ok(())
}

/// A folder of the query's temporary files, made when the first is (most
/// queries write none: stored executions, tasks) and removed when the query
/// ends. A process that is killed (a worker stopped) leaves only what a
/// pass under way had written.
#[derive(Debug)]
pub(crate) struct Scratch {
    dir: PathBuf,
    next: std::sync::atomic::AtomicU64,
}

impl Scratch {
    pub(crate) fn new() -> Scratch {
        use std::sync::atomic::AtomicU64;
        static QUERIES: AtomicU64 = AtomicU64::new(0);
        let n = QUERIES.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sextant-sql-{}-{n}", std::process::id()));
        Scratch {
            dir,
            next: AtomicU64::new(0),
        }
    }

    fn file(&self, what: &str) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", self.dir.display())))?;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        Ok(self.dir.join(format!("{what}-{n}.arrow")))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query that writes no temporary file leaves no folder, even when
    /// its process is killed before the query ends (nothing is dropped).
    #[test]
    fn the_scratch_folder_exists_only_while_it_holds_files() {
        let scratch = Scratch::new();
        assert!(!scratch.dir.exists(), "made before any file");
        let file = scratch.file("events").unwrap();
        assert!(scratch.dir.is_dir());
        std::fs::write(&file, b"rows").unwrap();
        let dir = scratch.dir.clone();
        drop(scratch);
        assert!(!dir.exists(), "{} left behind", dir.display());
        let unused = Scratch::new();
        let dir = unused.dir.clone();
        std::mem::forget(unused);
        assert!(!dir.exists());
    }
}
