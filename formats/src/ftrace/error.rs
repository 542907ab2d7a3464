//! Errors of the ftrace text reader, each naming the file and the line.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum FtraceError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line that is neither a comment, a blank line, a lost-events marker
    /// nor a parsable event (`path:line: message`).
    #[error("{}:{line}: {message}", path.display())]
    Line {
        path: PathBuf,
        line: u64,
        message: String,
    },
    /// The same, after a seek: the line number is not known there, its byte
    /// offset is (`path: byte N: message`).
    #[error("{}: byte {offset}: {message}", path.display())]
    At {
        path: PathBuf,
        offset: u64,
        message: String,
    },
}

impl FtraceError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        FtraceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
