//! Errors of the CTF reader, each naming the file and where in it.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum CtfError {
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}:{line}: {message}", path.display())]
    Metadata {
        path: PathBuf,
        line: u32,
        message: String,
    },
    /// CTF 2 metadata: the fragment (from 1) and the JSON pointer in it.
    #[error("{}: fragment {fragment}, at `{pointer}`: {message}", path.display())]
    JsonMetadata {
        path: PathBuf,
        fragment: usize,
        pointer: String,
        message: String,
    },
    #[error("{}: {message}", path.display())]
    Trace { path: PathBuf, message: String },
    #[error("{}: byte {offset}: {message}", path.display())]
    Data {
        path: PathBuf,
        offset: u64,
        message: String,
    },
    /// A stream file cut short while read (`mapped`): not the trace's
    /// damage, so never skipped by `--lenient`.
    #[error(transparent)]
    Shrank(#[from] crate::mapped::Shrank),
}

impl CtfError {
    pub fn io(path: &Path, error: std::io::Error) -> Self {
        CtfError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}
