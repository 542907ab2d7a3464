//! A table as the Arrow PyCapsule interface hands it over: an object with
//! `__arrow_c_stream__`, whose capsule holds an `ArrowArrayStream` over the
//! batches the engine built. The consumer (pyarrow, polars, DuckDB) moves
//! the stream out of the capsule and reads the batches' buffers in place.

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// One table's batches, handed over once.
#[pyclass(module = "sextant._native")]
pub struct Stream {
    table: Option<(SchemaRef, Vec<RecordBatch>)>,
}

impl Stream {
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        Stream {
            table: Some((schema, batches)),
        }
    }
}

#[pymethods]
impl Stream {
    /// The Arrow PyCapsule interface: a capsule named `arrow_array_stream`.
    /// The batches move into the stream: a second call is an error.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The table has one schema; a consumer asking for another casts it
        // itself (the interface allows ignoring the request).
        let _ = requested_schema;
        let (schema, batches) = self
            .table
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this table was already handed over"))?;
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}
