//! Errors of the BTF reader, each naming the file and, for its content, the
//! line and column.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum BtfError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Something wrong at a place in the file (`path:line:column: message`).
    #[error("{}:{line}:{column}: {message}", path.display())]
    At {
        path: PathBuf,
        line: u64,
        column: usize,
        message: String,
    },
    /// Something wrong with the file as a whole (`path: message`).
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    /// The file was cut short while read (`mapped`).
    #[error(transparent)]
    Shrank(#[from] crate::mapped::Shrank),
}

impl BtfError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        BtfError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
