//! `sextant sql` on a distributed engine, datafusion-contrib's
//! datafusion-distributed: `sextant worker` serves Arrow Flight, and
//! `sextant sql --cluster URL,...` plans the query there, each worker
//! executing the scans of its share of the traces (`TraceScanExec`, sent
//! in its wire form by `ScanCodec`) and the operators above them that the
//! engine places on it. Traces are read from their paths, which every
//! worker must see. A crate of its own so that nothing else compiles the
//! engine and its gRPC stack.

mod channels;
mod codec;
pub mod coordinator;
mod placement;
mod reports;
pub mod urls;
pub mod worker;

pub use coordinator::run;

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A `--cluster` list that does not parse.
    #[error("--cluster: {0}")]
    Urls(String),
    #[error("worker {url} cannot be reached: {message}")]
    Unreachable { url: String, message: String },
    #[error(transparent)]
    Sql(#[from] sextant_sql::SqlError),
    #[error("{what}: {error}")]
    Io { what: String, error: std::io::Error },
}
