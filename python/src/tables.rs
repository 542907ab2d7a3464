//! The tables a session offers, each the engine's answer (`engine::session`)
//! in its export schema (`schemas/exports.md`): executions of a model or
//! preset, thread state intervals, events, real-time tasks.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::RecordBatch;
use pyo3::prelude::*;
use sextant_engine::analysis::model::request::{FindError, Request};
use sextant_engine::analysis::model::{parse_model, Preset, ThreadFilter};
use sextant_engine::analysis::tasks::{Deadline, Options};
use sextant_engine::export::{self, ExportError, Format, TableFile};
use sextant_engine::hosts::HostPick;
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::{self, Session};
use sextant_engine::store::{Placement, Places};

use crate::errors::{model_error, trace_error};
use crate::stream::Stream;
use crate::work::detached;

/// Every preset: its name and what it measures, as the engine says it.
#[pyfunction]
pub fn presets() -> Vec<(&'static str, &'static str)> {
    Preset::all().to_vec()
}

/// The executions of a model (its JSON text) or of a preset (with its
/// threads: `tids`, `process`) in the trace at `trace`, in the order found,
/// with the columns of `sextant export --model` (times in ns): of a folder
/// of several hosts, every host's, with a `host` column, as export writes
/// them. With `store`, read from the trace's store in the cache directory
/// when it holds them, and kept there when found by a pass (as the
/// command line does by default); else nothing is stored (`--no-store`).
#[pyfunction]
#[pyo3(signature = (trace, model = None, preset = None, tids = Vec::new(), process = None, lenient = false, store = false, progress = None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub fn executions(
    py: Python<'_>,
    trace: PathBuf,
    model: Option<&str>,
    preset: Option<&str>,
    tids: Vec<i64>,
    process: Option<&str>,
    lenient: bool,
    store: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Stream, Vec<String>)> {
    let asked = request(model, preset, tids, process)?;
    let options = OpenOptions {
        lenient,
        ..OpenOptions::default()
    };
    let session = Session::open(&trace, options, cache(store));
    let table = detached(py, progress, |work| session.executions_table(&asked, work))?
        .map_err(|e| session_error(e, &trace))?;
    let schema = match table.batches.first() {
        Some(b) => b.schema(),
        None => export::executions::schema(""),
    };
    Ok((Stream::new(schema, table.batches), table.warnings))
}

/// The cache directory's stores (`sextant analyze`'s default), or none.
pub fn cache(store: bool) -> Option<Places> {
    store.then(|| Places::new(None, Placement::Cache))
}

/// Every event of the trace: time, name, CPU, thread, payload as JSON.
#[pyfunction]
#[pyo3(signature = (trace, lenient = false, progress = None))]
pub fn events(
    py: Python<'_>,
    trace: PathBuf,
    lenient: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Stream, Vec<String>)> {
    let options = OpenOptions {
        lenient,
        ..OpenOptions::default()
    };
    let (batches, warnings) = detached(py, progress, |work| {
        through_file(export::events::schema(), |file| {
            Session::open(&trace, options, None)
                .events_table(&Default::default(), file, work)
                .map(|ran| ran.warnings)
        })
    })?
    .map_err(|e| export_error(e, &trace))?;
    Ok((Stream::new(export::events::schema(), batches), warnings))
}

/// Every thread's state intervals, thread by thread in time order.
#[pyfunction]
#[pyo3(signature = (trace, lenient = false, progress = None))]
pub fn thread_states(
    py: Python<'_>,
    trace: PathBuf,
    lenient: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Stream, Vec<String>)> {
    let options = OpenOptions {
        lenient,
        ..OpenOptions::default()
    };
    let session = Session::open(&trace, options, None);
    let (rows, ran) = detached(py, progress, |work| {
        session.thread_states(HostPick::Sole, work)
    })?
    .map_err(|e| session_error(e, &trace))?;
    let (batches, warnings) = through_file(export::states::schema(), |file| {
        export::states::write(&rows, file).map(|_| ran.warnings)
    })
    .map_err(|e| export_error(e, &trace))?;
    Ok((Stream::new(export::states::schema(), batches), warnings))
}

/// The trace's periodic and sporadic tasks, host by host: one row per task
/// with the keys of `sextant tasks --format json`'s as columns (`model` the
/// model's JSON text). `deadline_ratio` is a share of the period,
/// `deadline_ns` a time; at most one.
#[pyfunction]
#[pyo3(signature = (trace, min_jobs = 10, deadline_ratio = None, deadline_ns = None, lenient = false, progress = None))]
pub fn tasks(
    py: Python<'_>,
    trace: PathBuf,
    min_jobs: usize,
    deadline_ratio: Option<f64>,
    deadline_ns: Option<i64>,
    lenient: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Stream, Vec<String>)> {
    let deadline =
        match (deadline_ratio, deadline_ns) {
            (None, None) => Deadline::Ratio(1.0),
            (Some(r), None) if r > 0.0 && r.is_finite() => Deadline::Ratio(r),
            (None, Some(ns)) if ns > 0 => Deadline::Time(ns),
            _ => return Err(model_error(
                "deadline: a positive share of the period (float) or a positive time in ns (int)",
            )),
        };
    let asked = Options::new(min_jobs, deadline)
        .map_err(|e| model_error(format!("min_jobs {min_jobs}: {e}")))?;
    let options = OpenOptions {
        lenient,
        ..OpenOptions::default()
    };
    let session = Session::open(&trace, options, None);
    let (found, warnings) = detached(py, progress, |work| session.tasks(None, &asked, work))?
        .map_err(|e| session_error(e, &trace))?;
    let batch = export::tasks::table(&found)
        .map_err(|e| trace_error(format!("building the tasks table: {e}"), &name(&trace)))?;
    Ok((Stream::new(batch.schema(), vec![batch]), warnings))
}

/// What to find, as `sextant analyze` is asked it: a model's JSON, or a
/// preset on the threads chosen by id and by name.
pub fn request(
    model: Option<&str>,
    preset: Option<&str>,
    tids: Vec<i64>,
    process: Option<&str>,
) -> PyResult<Request> {
    match (model, preset) {
        (Some(json), None) => {
            if !tids.is_empty() || process.is_some() {
                return Err(model_error(
                    "tids and process go with a preset; a model says its threads in `threads`",
                ));
            }
            Ok(Request::model(parse_model(json).map_err(model_error)?))
        }
        (None, Some(name)) => {
            let preset: Preset = name.parse().map_err(model_error)?;
            let process = process.map(regex::Regex::new).transpose().map_err(|e| {
                model_error(format!("process is not a valid regular expression: {e}"))
            })?;
            let threads = ThreadFilter {
                tids: (!tids.is_empty()).then(|| tids.iter().copied().collect()),
                process,
            };
            Ok(Request::preset(preset, threads, tids))
        }
        _ => Err(model_error("give exactly one of a model and a preset")),
    }
}

/// The batches an engine writer writes into a table file.
// The engine's event and state writers write only into a `TableFile`:
// they write an Arrow IPC file in the temp directory, read back here.
// An engine writer handing batches to a closure would save this copy.
fn through_file<T>(
    schema: arrow_schema::SchemaRef,
    write: impl FnOnce(&mut TableFile) -> Result<T, ExportError>,
) -> Result<(Vec<RecordBatch>, T), ExportError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "sextant-python-{}-{}.arrow",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = TableFile::create(&path, Format::Arrow, schema)?;
    let written = write(&mut file).and_then(|out| file.finish().map(|()| out));
    let read = written.and_then(|out| read_batches(&path).map(|batches| (batches, out)));
    let _ = std::fs::remove_file(&path);
    read
}

fn read_batches(path: &Path) -> Result<Vec<RecordBatch>, ExportError> {
    let arrow = |source| ExportError::Arrow {
        path: path.display().to_string(),
        source,
    };
    let file = File::open(path).map_err(|source| ExportError::Io {
        path: path.display().to_string(),
        source,
    })?;
    arrow_ipc::reader::FileReader::try_new(file, None)
        .map_err(arrow)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(arrow)
}

fn name(trace: &Path) -> String {
    trace.display().to_string()
}

/// The session's error as the command line prints it (each cause after a
/// colon); a `--tid` the trace lacks is the request's fault, not the trace's.
pub fn session_error(e: session::Error, trace: &Path) -> PyErr {
    if let Some(FindError::UnknownThreads(message)) = e.downcast_ref::<FindError>() {
        return model_error(message);
    }
    let mut message = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        message = format!("{message}: {c}");
        cause = c.source();
    }
    trace_error(message, &name(trace))
}

fn export_error(e: ExportError, trace: &Path) -> PyErr {
    trace_error(e, &name(trace))
}
