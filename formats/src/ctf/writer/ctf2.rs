//! A CTF 1.8 trace rewritten as CTF 2: the metadata translated, the data
//! stream files copied unchanged (CTF 2 describes the same bits).

use std::path::{Path, PathBuf};

use super::WriteError;
use crate::ctf::json_metadata::is_json_sequence;
use crate::ctf::json_metadata::write::to_json_sequence;
use crate::ctf::trace::{find_traces, CtfTrace};
use crate::ctf::{metadata, CtfError};

#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    #[error(transparent)]
    Read(#[from] CtfError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{}: cannot be described in CTF 2: {message}", path.display())]
    Translate { path: PathBuf, message: String },
    #[error("{}: the trace is in CTF 2 already", path.display())]
    AlreadyCtf2 { path: PathBuf },
}

/// Writes every CTF 1.8 trace at or under `src` as CTF 2 under `dst` (which
/// must not exist or be empty), keeping the relative layout of a session
/// (`kernel/`, `ust/...`). Returns how many traces were written.
pub fn rewrite_as_ctf2(src: &Path, dst: &Path) -> Result<usize, RewriteError> {
    if dst.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        return Err(WriteError::io(
            dst,
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "the output directory exists and is not empty",
            ),
        )
        .into());
    }
    let traces = find_traces(src)?;
    for dir in &traces {
        // Opening checks the whole metadata, as reading it would.
        let trace = CtfTrace::open(dir)?;
        let meta_path = dir.join("metadata");
        let bytes = std::fs::read(&meta_path).map_err(|e| CtfError::io(&meta_path, e))?;
        let translate = |message: String| RewriteError::Translate {
            path: meta_path.clone(),
            message,
        };
        let text = metadata::metadata_text(&bytes).map_err(|e| translate(e.message))?;
        if is_json_sequence(text.as_bytes()) {
            return Err(RewriteError::AlreadyCtf2 { path: meta_path });
        }
        let decl = metadata::parse_text(&text).map_err(|e| translate(e.to_string()))?;
        let json = to_json_sequence(&decl).map_err(|e| translate(e.to_string()))?;
        let out = dst.join(dir.strip_prefix(src).unwrap_or(Path::new("")));
        std::fs::create_dir_all(&out).map_err(|e| WriteError::io(&out, e))?;
        let out_meta = out.join("metadata");
        std::fs::write(&out_meta, json).map_err(|e| WriteError::io(&out_meta, e))?;
        for stream in &trace.streams {
            let to = out.join(stream.file_name().unwrap_or_default());
            std::fs::copy(stream, &to).map_err(|e| WriteError::io(&to, e))?;
        }
    }
    Ok(traces.len())
}
