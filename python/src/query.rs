//! SQL over the session's traces: `sextant sql`'s embedded DataFusion
//! (`sextant_sql`), its answer handed to Python as an Arrow stream.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use sextant_engine::reader::OpenOptions;
use sextant_sql::{Log, Query, SqlError};

use crate::errors::{query_error, trace_error};
use crate::stream::Stream;
use crate::tables::cache;

/// The answer of `query` over `traces` (each a trace or a folder of them,
/// as `sextant sql` takes them), with the query's warnings. Executions
/// come from and go to the cache directory's stores with `store`, else
/// nothing is stored (as `--no-store`). The GIL is released while the
/// query runs.
#[pyfunction]
#[pyo3(signature = (query, traces, lenient = false, store = false))]
pub fn sql(
    py: Python<'_>,
    query: String,
    traces: Vec<PathBuf>,
    lenient: bool,
    store: bool,
) -> PyResult<(Stream, Vec<String>)> {
    let log = Arc::new(Log::default());
    let asked = Query {
        sql: query,
        traces,
        places: cache(store),
        options: OpenOptions {
            lenient,
            ..OpenOptions::default()
        },
    };
    let answer = py.detach(|| sextant_sql::collect(asked, log.clone()));
    let (schema, batches) = answer.map_err(raised)?;
    Ok((Stream::new(schema, batches), log.warnings()))
}

/// A trace that could not be read is the trace's error, whichever table
/// read it; the rest is the query's.
fn raised(e: SqlError) -> PyErr {
    if let Some(pass) = e.pass() {
        // The engine's message first: it starts with the file and where
        // in it, which `TraceError` takes apart.
        let message = format!("{} (table {})", pass.message, pass.table);
        return trace_error(message, &pass.trace.display().to_string());
    }
    match &e {
        SqlError::Trace { trace, .. } => trace_error(&e, trace),
        _ => query_error(e),
    }
}
