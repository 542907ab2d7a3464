//! `sextant._native`: the engine's passes as Python functions, each table
//! handed to Python as an Arrow C stream (`__arrow_c_stream__`), which
//! pyarrow takes over without copying a buffer. The Python package
//! (`python/sextant/`) is the API people use; this module is its engine.

mod answers;
mod errors;
mod query;
mod stream;
mod tables;
mod work;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<stream::Stream>()?;
    m.add_function(wrap_pyfunction!(tables::executions, m)?)?;
    m.add_function(wrap_pyfunction!(tables::events, m)?)?;
    m.add_function(wrap_pyfunction!(tables::thread_states, m)?)?;
    m.add_function(wrap_pyfunction!(tables::presets, m)?)?;
    m.add_function(wrap_pyfunction!(answers::explain, m)?)?;
    m.add_function(wrap_pyfunction!(tables::tasks, m)?)?;
    m.add_function(wrap_pyfunction!(query::sql, m)?)?;
    Ok(())
}
