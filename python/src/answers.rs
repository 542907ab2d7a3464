//! The session's answers that are documents rather than tables: an
//! execution's explanation (the JSON `sextant explain --format json`
//! writes).

use std::path::PathBuf;

use pyo3::prelude::*;
use sextant_engine::analysis::explain::{pick, Which};
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::explain::{report, Around};
use sextant_engine::session::{Error, Session};

use crate::tables::{request, session_error};
use crate::work::detached;

/// Why execution `execution` (its index, as `analyze` lists them) or the
/// longest one was late: the JSON text of `sextant explain --format json`,
/// and the passes' warnings. The executions are found host by host (as
/// explain finds them), the explanation read on the execution's host.
#[pyfunction]
#[pyo3(signature = (trace, model = None, preset = None, tids = Vec::new(), process = None, execution = None, cpus = None, replay_ms = 100.0, lenient = false, progress = None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub fn explain(
    py: Python<'_>,
    trace: PathBuf,
    model: Option<&str>,
    preset: Option<&str>,
    tids: Vec<i64>,
    process: Option<&str>,
    execution: Option<usize>,
    cpus: Option<Vec<u32>>,
    replay_ms: f64,
    lenient: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    if !(replay_ms.is_finite() && replay_ms >= 0.0) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "replay_ms must be a number of milliseconds, 0 or more",
        ));
    }
    let asked = request(model, preset, tids, process)?;
    let options = OpenOptions {
        lenient,
        ..OpenOptions::default()
    };
    let session = Session::open(&trace, options, None);
    let around = Around {
        cpus,
        replay_ns: (replay_ms * 1e6) as i64,
    };
    let which = match execution {
        Some(k) => Which::Index(k),
        None => Which::Rank(0),
    };
    let outcome = detached(
        py,
        progress,
        |work| -> Result<Result<(String, Vec<String>), Refused>, Error> {
            let found = session.executions_each(&asked, None, work)?;
            if let Err(why) = around.check_cpus("cpus", found.facts.as_ref(), &trace) {
                return Ok(Err(Refused::Cpu(why)));
            }
            let chosen = match pick(&found.executions, which) {
                Ok(e) => e,
                Err(why) => return Ok(Err(Refused::Execution(why))),
            };
            let explanation = session.explain(
                chosen,
                found.picks[found.hosts.part(chosen).unwrap_or(0)],
                &around,
                work,
            )?;
            let diagnosis = explanation.diagnosis(chosen.end_tid);
            let mut warnings = found.ran.warnings.clone();
            warnings.extend(found.notes.iter().cloned());
            warnings.extend(around.idle_cpus("cpus", &explanation, &|t| format!("{t} ns")));
            warnings.extend(diagnosis.contradictions.iter().map(|c| {
                format!("this explanation contradicts the trace (a bug; please report it): {c}")
            }));
            let text = serde_json::to_string(&report(
                chosen,
                found.hosts.of(chosen),
                &explanation,
                diagnosis,
            ))
            .map_err(|e| -> Error { Box::new(e) })?;
            Ok(Ok((text, warnings)))
        },
    )?;
    match outcome {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(Refused::Execution(why))) => Err(pyo3::exceptions::PyIndexError::new_err(why)),
        Ok(Err(Refused::Cpu(why))) => Err(pyo3::exceptions::PyValueError::new_err(why)),
        Err(e) => Err(session_error(e, &trace)),
    }
}

/// What `explain` refuses before reading a range: an execution the model
/// did not find (IndexError), a CPU the trace does not have (ValueError).
enum Refused {
    Execution(String),
    Cpu(String),
}
