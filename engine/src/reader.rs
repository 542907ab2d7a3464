//! Opening a trace whatever its format: a CTF directory (or a directory of
//! CTF traces), or an ftrace text file.

use std::io::Read;
use std::path::Path;

use crate::ctf::CtfReader;
use crate::event::{EventSource, ReadError};
use crate::ftrace::FtraceReader;

/// A reader of any supported format.
pub enum AnyReader {
    Ctf(CtfReader),
    Ftrace(Box<FtraceReader>),
}

/// Work to do with a reader, whatever its concrete type.
pub trait WithSource {
    type Output;
    fn run<S: EventSource>(self, source: S) -> Self::Output;
}

#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct UnknownFormat {
    path: std::path::PathBuf,
    message: String,
}

impl AnyReader {
    pub fn open(path: &Path) -> Result<AnyReader, ReadError> {
        if path.is_dir() {
            return Ok(AnyReader::Ctf(
                CtfReader::open(path).map_err(ReadError::new)?,
            ));
        }
        if path.file_name().is_some_and(|n| n == "metadata") {
            let dir = path.parent().unwrap_or(Path::new("."));
            return Ok(AnyReader::Ctf(
                CtfReader::open(dir).map_err(ReadError::new)?,
            ));
        }
        let mut head = [0u8; 4096];
        let n = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut head))
            .map_err(|e| ReadError::new(crate::ctf::CtfError::io(path, e)))?;
        if looks_like_ftrace(&head[..n]) {
            return Ok(AnyReader::Ftrace(Box::new(
                FtraceReader::open(path).map_err(ReadError::new)?,
            )));
        }
        Err(ReadError::new(UnknownFormat {
            path: path.to_path_buf(),
            message: "not a trace sextant reads: expected a CTF trace directory or an ftrace text file (/sys/kernel/tracing/trace)".into(),
        }))
    }

    pub fn with<W: WithSource>(self, work: W) -> W::Output {
        match self {
            AnyReader::Ctf(r) => work.run(r),
            AnyReader::Ftrace(r) => work.run(*r),
        }
    }
}

/// ftrace text starts with `# tracer:` or has event lines `TASK-PID [CPU] ... TS: name:`.
fn looks_like_ftrace(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    text.starts_with("# tracer:")
        || text.lines().take(20).any(|l| {
            let l = l.trim_start();
            !l.starts_with('#') && l.contains("] ") && l.contains(": ") && l.contains('-')
        })
}
