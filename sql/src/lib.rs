//! SQL over many traces: `sextant sql`. Each trace (or every trace below a
//! folder) is one partition of the tables `events`, `thread_states`,
//! `threads` and of the table functions `executions('MODEL.json' |
//! 'preset:NAME')` and `tasks()`, all with `host` and `trace` columns before the engine's
//! own (`schemas/exports.md`), queried by an embedded Apache DataFusion.
//! Kept out of the engine and the protocol crate so that the fuzz targets
//! and the other tests do not compile DataFusion.

mod carried;
pub mod dataset;
mod executions;
mod explain;
pub mod fleet;
mod log;
mod narrowing;
pub mod output;
mod partition;
pub mod scan;
mod tables;
mod tasks;
pub mod wire;

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::context::SessionContext;
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::physical_plan::{execute_stream, ExecutionPlan};
use datafusion::prelude::SessionConfig;
use futures::StreamExt;
use sextant_engine::reader::OpenOptions;
use sextant_engine::store::Places;

pub use fleet::Trace;
pub use log::Log;
pub use partition::PassError;

use partition::{Kind, Scratch};

#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// A trace argument that cannot be read.
    #[error("{trace}: {message}")]
    Trace { trace: String, message: String },
    /// The query (DataFusion says which table or column), or a trace's
    /// pass inside it (the message names the table and the trace).
    /// Not a `source`: the innermost message is the whole story, and a
    /// chain printed after it would repeat it.
    #[error("{}", innermost(.0))]
    Query(datafusion::error::DataFusionError),
    #[error("{0}")]
    Output(String),
    #[error("starting the query engine: {0}")]
    Runtime(std::io::Error),
}

impl SqlError {
    /// The trace whose pass failed, when that is what stopped the query.
    pub fn pass(&self) -> Option<&PassError> {
        match self {
            SqlError::Query(e) => match e.find_root() {
                datafusion::error::DataFusionError::External(inner) => inner.downcast_ref(),
                _ => None,
            },
            _ => None,
        }
    }
}

impl From<datafusion::error::DataFusionError> for SqlError {
    fn from(e: datafusion::error::DataFusionError) -> Self {
        SqlError::Query(e)
    }
}

/// What went wrong, once: DataFusion wraps a partition's error again at
/// each operator it passes through ("External error: ... External error:").
fn innermost(e: &datafusion::error::DataFusionError) -> String {
    match e.find_root() {
        datafusion::error::DataFusionError::External(inner) => inner.to_string(),
        root => root.to_string(),
    }
}

/// What every table of one query reads: its traces, and how.
pub(crate) struct Fleet {
    pub(crate) traces: Vec<Trace>,
    pub(crate) reading: Arc<Reading>,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} traces", self.traces.len())
    }
}

/// How a process reads the traces of its partitions: apart from the
/// trace list so that a worker of a distributed engine, given partitions
/// in their wire form (`wire`), reads them as the embedded engine does.
pub struct Reading {
    pub(crate) places: Option<Places>,
    pub(crate) options: OpenOptions,
    /// Passes running at once.
    pub(crate) gate: Arc<tokio::sync::Semaphore>,
    pub(crate) log: Arc<Log>,
    pub(crate) scratch: Scratch,
}

impl Reading {
    /// `gate` is shared by every query of a process that serves several.
    pub fn new(
        places: Option<Places>,
        options: OpenOptions,
        gate: Arc<tokio::sync::Semaphore>,
        log: Arc<Log>,
    ) -> Reading {
        Reading {
            places,
            options,
            gate,
            log,
            scratch: Scratch::new(),
        }
    }
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "reading {:?}", self.options)
    }
}

/// A query over the traces the arguments name.
pub struct Query {
    pub sql: String,
    pub traces: Vec<PathBuf>,
    /// Where executions are kept (`None`: neither read nor stored).
    pub places: Option<Places>,
    pub options: OpenOptions,
}

/// Passes at once, and the query's target partitions: one per core.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs the query with the embedded engine, handing each batch of its
/// answer to `sink` as it comes; the answer's schema first. Warnings and
/// what was read are in `log`.
pub fn run(query: Query, sink: &mut dyn output::Sink, log: Arc<Log>) -> Result<(), SqlError> {
    let session = |config| {
        Ok(SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .build())
    };
    // Every scan ran here, with `log`.
    run_in(query, sink, log, session, async |plan| Ok(plan))
}

/// Runs the query in the session `session` makes of the fleet's
/// configuration: the embedded engine's (`run`) or a distributed engine's
/// planner over the same tables. Once the answer is out, `reported` gives
/// the executed plan with the metrics of the operators that ran elsewhere
/// (a distributed engine's workers), where their scans carry what they
/// said (`carried`), or why it cannot.
pub fn run_in(
    query: Query,
    sink: &mut dyn output::Sink,
    log: Arc<Log>,
    session: impl FnOnce(SessionConfig) -> Result<SessionState, SqlError>,
    reported: impl AsyncFnOnce(Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>, String>,
) -> Result<(), SqlError> {
    let traces = fleet::traces(&query.traces)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores())
        .enable_all()
        .build()
        .map_err(SqlError::Runtime)?;
    let gate = Arc::new(tokio::sync::Semaphore::new(cores()));
    let reading = Reading::new(query.places, query.options, gate, log.clone());
    let fleet = Arc::new(Fleet {
        traces,
        reading: Arc::new(reading),
    });
    runtime.block_on(async {
        let config = SessionConfig::new().with_target_partitions(cores());
        let ctx = SessionContext::new_with_state(session(config)?);
        register(&ctx, fleet.clone()).await?;
        let frame = ctx.sql(&query.sql).await?;
        let plan = frame.create_physical_plan().await?;
        let mut stream = execute_stream(plan.clone(), ctx.task_ctx())?;
        sink.start(&stream.schema())?;
        while let Some(batch) = stream.next().await {
            sink.batch(&batch?)?;
        }
        drop(stream);
        match reported(plan).await {
            Ok(plan) => carried::said_again(&plan, &fleet.traces, &log)?,
            Err(why) => log.warn_query(format!(
                "what the workers said of the traces may be missing: {why}"
            )),
        }
        sink.finish()
    })
}

/// The fleet's tables in the session.
async fn register(ctx: &SessionContext, fleet: Arc<Fleet>) -> Result<(), SqlError> {
    for kind in [Kind::Events(Default::default()), Kind::ThreadStates] {
        let table = tables::TraceTable::new(kind.clone(), fleet.clone());
        ctx.register_table(kind.table(), Arc::new(table))?;
    }
    ctx.register_udtf(
        "executions",
        Arc::new(executions::ExecutionsFn {
            fleet: fleet.clone(),
        }),
    );
    ctx.register_udtf(
        "explain",
        Arc::new(explain::ExplainFn {
            fleet: fleet.clone(),
        }),
    );
    ctx.register_udtf(
        "tasks",
        Arc::new(tasks::TasksFn {
            fleet: fleet.clone(),
        }),
    );
    // A thread's life is on each of its state intervals: no second pass.
    ctx.sql(
        "CREATE VIEW threads AS SELECT DISTINCT host, trace, tid, pid, comm, \
         thread_start AS start, thread_end AS \"end\" FROM thread_states",
    )
    .await?;
    Ok(())
}

/// The schema of a query's answer with the batches collected (tests, and
/// the table printed on a terminal).
pub fn collect(query: Query, log: Arc<Log>) -> Result<(SchemaRef, Vec<RecordBatch>), SqlError> {
    let mut sink = output::Collect::default();
    run(query, &mut sink, log)?;
    Ok((sink.schema.expect("started"), sink.batches))
}
