//! Engine errors as the package's Python exceptions (`sextant.errors`):
//! a trace that cannot be read is a `TraceError` (the file and byte offset
//! or line the engine's message names become its attributes), a model that
//! cannot be used a `ModelError` (its field path in the message), a query
//! that cannot be planned or run a `QueryError` (DataFusion names the table
//! or column).

use pyo3::prelude::*;

fn raise(kind: &str, message: String, trace: Option<&str>) -> PyErr {
    Python::attach(|py| {
        let made = py
            .import("sextant.errors")
            .and_then(|m| m.getattr(kind))
            .and_then(|class| class.call1((message, trace)));
        match made {
            Ok(error) => PyErr::from_value(error),
            Err(e) => e,
        }
    })
}

/// A trace that could not be read; `message` is the engine's, which names
/// the file and where in it.
pub fn trace_error(message: impl std::fmt::Display, trace: &str) -> PyErr {
    raise("TraceError", message.to_string(), Some(trace))
}

/// A model or preset the engine refused.
pub fn model_error(message: impl std::fmt::Display) -> PyErr {
    raise("ModelError", message.to_string(), None)
}

/// A SQL query that cannot be planned or run.
pub fn query_error(message: impl std::fmt::Display) -> PyErr {
    raise("QueryError", message.to_string(), None)
}
