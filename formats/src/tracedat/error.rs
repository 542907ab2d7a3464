//! Errors of the trace.dat reader, each naming the file and a byte offset.

use std::path::{Path, PathBuf};

use super::bytes::Bad;

#[derive(Debug, thiserror::Error)]
pub enum TracedatError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Damage or an unsupported feature at a byte offset (`path: byte N: message`).
    #[error("{}: byte {offset}: {message}", path.display())]
    At {
        path: PathBuf,
        offset: u64,
        message: String,
    },
    /// The file was cut short while read (`mapped`).
    #[error(transparent)]
    Shrank(#[from] crate::mapped::Shrank),
}

impl TracedatError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        TracedatError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn at(path: &Path, bad: Bad) -> Self {
        TracedatError::At {
            path: path.to_path_buf(),
            offset: bad.offset,
            message: bad.message,
        }
    }
}
