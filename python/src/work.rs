//! A pass run with the GIL released, its progress reported to a Python
//! callable and its cancellation asked by Python (Ctrl-C, or a callback that
//! raised).

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Mutex;

use pyo3::prelude::*;
use sextant_engine::run::Work;

/// Runs `pass` (given the engine's `Work`) without the GIL. `progress` is
/// called with each new per cent from the pass's thread (taking the GIL for
/// the call); an exception it raises, or a signal such as Ctrl-C, cancels
/// the pass and is raised here when it returns.
pub fn detached<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    pass: impl FnOnce(&Work<'_>) -> T + Send,
) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    let last = AtomicU8::new(u8::MAX);
    let failed: Mutex<Option<PyErr>> = Mutex::new(None);
    let report = |p: u8| {
        if last.swap(p, Ordering::Relaxed) == p {
            return;
        }
        // Each change of per cent is a chance to hear Ctrl-C, with or
        // without a callback.
        let outcome = Python::attach(|py| {
            py.check_signals()?;
            match &progress {
                Some(f) => f.call1(py, (p,)).map(drop),
                None => Ok(()),
            }
        });
        if let Err(e) = outcome {
            failed.lock().unwrap().get_or_insert(e);
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let out = py.detach(|| {
        pass(&Work {
            progress: &report,
            cancel: &cancel,
        })
    });
    match failed.into_inner().unwrap() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
