//! Tables for the ecosystem: executions, thread states, events and tasks as
//! Arrow IPC files, Parquet or CSV, for pyarrow, pandas, DuckDB and the like.
//! Column names and types are a contract, described in `schemas/exports.md`;
//! each table's schema carries its name and version in its metadata.

pub mod events;
pub mod executions;
mod shedding;
pub mod states;
mod table;
pub mod tasks;

pub use table::{write_csv, Format, TableFile};

use crate::run::RunError;

/// The version of the exported tables' columns, in every schema's metadata
/// (`sextant.version`). Raised when a column changes meaning or type.
pub const TABLES_VERSION: &str = "1";

/// Rows gathered before they are handed to the file as one batch.
pub(crate) const BATCH_ROWS: usize = 65_536;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Arrow {
        path: String,
        source: arrow_schema::ArrowError,
    },
    #[error("{path}: {source}")]
    Parquet {
        path: String,
        source: parquet::errors::ParquetError,
    },
    /// Columns that do not make a batch of the table's schema (a bug).
    #[error("building a batch of rows: {0}")]
    Batch(arrow_schema::ArrowError),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// Schema metadata naming a table and the version of its columns.
fn metadata(table: &str) -> std::collections::HashMap<String, String> {
    [
        ("sextant.table".to_string(), table.to_string()),
        ("sextant.version".to_string(), TABLES_VERSION.to_string()),
    ]
    .into_iter()
    .collect()
}
