//! A CTF trace on disk: a directory with a `metadata` file and data stream
//! files; and finding every trace under a directory (an LTTng session holds a
//! kernel trace and per-user traces side by side).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::CtfError;
use super::json_metadata;
use super::layout::{self, Layout};
use super::metadata;

#[derive(Debug, Clone)]
pub struct CtfTrace {
    pub dir: PathBuf,
    pub layout: Arc<Layout>,
    /// Data stream files, sorted by name.
    pub streams: Vec<PathBuf>,
}

impl CtfTrace {
    pub fn open(dir: &Path) -> Result<CtfTrace, CtfError> {
        let (meta_path, text) = metadata_of(dir)?;
        let ctf2 = json_metadata::is_json_sequence(text.as_bytes());
        let decl = if ctf2 {
            parse_json(&meta_path, &text)?
        } else {
            metadata::parse_text(&text).map_err(|e| CtfError::Metadata {
                path: meta_path.clone(),
                line: e.line,
                message: e.message,
            })?
        };
        let layout = layout::build(&decl).map_err(|e| match e.line {
            // CTF 2 event classes carry their fragment's number.
            Some(fragment) if ctf2 => CtfError::JsonMetadata {
                path: meta_path.clone(),
                fragment: fragment as usize,
                pointer: String::new(),
                message: e.message,
            },
            Some(line) => CtfError::Metadata {
                path: meta_path.clone(),
                line,
                message: e.message,
            },
            None => CtfError::Trace {
                path: meta_path.clone(),
                message: e.message,
            },
        })?;
        let mut streams = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|e| CtfError::io(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| CtfError::io(dir, e))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == "metadata" || name.starts_with('.') {
                continue;
            }
            let ft = entry
                .file_type()
                .map_err(|e| CtfError::io(&entry.path(), e))?;
            let len = entry
                .metadata()
                .map_err(|e| CtfError::io(&entry.path(), e))?
                .len();
            // Empty files are streams whose tracer wrote nothing (LTTng leaves them).
            if ft.is_file() && len > 0 {
                streams.push(entry.path());
            }
        }
        streams.sort();
        Ok(CtfTrace {
            dir: dir.to_path_buf(),
            layout: Arc::new(layout),
            streams,
        })
    }

    /// Environment value (`env` block) as text.
    pub fn env(&self, key: &str) -> Option<String> {
        self.layout
            .env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.to_string())
    }
}

/// Where the trace in `dir` says it was recorded, without reading its
/// types (a CTF 2 trace's JSON is parsed whole: it is quick to).
pub fn origin_of(dir: &Path) -> Result<metadata::Origin, CtfError> {
    let (meta_path, text) = metadata_of(dir)?;
    if json_metadata::is_json_sequence(text.as_bytes()) {
        let decl = parse_json(&meta_path, &text)?;
        let hostname = decl.env.iter().find(|(k, _)| k == "hostname");
        return Ok(metadata::Origin {
            hostname: hostname.map(|(_, v)| v.to_string()),
            boot: decl.clocks.iter().find_map(|c| c.uuid.clone()),
        });
    }
    metadata::origin(&text).map_err(|e| CtfError::Metadata {
        path: meta_path,
        line: e.line,
        message: e.message,
    })
}

/// The path of `dir`'s metadata file and its text (packets unwrapped).
fn metadata_of(dir: &Path) -> Result<(PathBuf, String), CtfError> {
    let meta_path = dir.join("metadata");
    let bytes = std::fs::read(&meta_path).map_err(|e| CtfError::io(&meta_path, e))?;
    let text = metadata::metadata_text(&bytes).map_err(|e| CtfError::Data {
        path: meta_path.clone(),
        offset: e.offset,
        message: e.message,
    })?;
    Ok((meta_path, text))
}

fn parse_json(meta_path: &Path, text: &str) -> Result<metadata::ast::MetadataDecl, CtfError> {
    json_metadata::parse(text).map_err(|e| CtfError::JsonMetadata {
        path: meta_path.to_path_buf(),
        fragment: e.fragment,
        pointer: e.pointer,
        message: e.message,
    })
}

/// Every trace directory at or under `root` (a directory holding `metadata`).
pub fn find_traces(root: &Path) -> Result<Vec<PathBuf>, CtfError> {
    if root.join("metadata").is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    if !root.is_dir() {
        return Err(CtfError::Trace {
            path: root.to_path_buf(),
            message: "not a CTF trace directory (no `metadata` file) and not a directory".into(),
        });
    }
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| CtfError::io(root, e))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for d in dirs {
        out.extend(find_traces(&d)?);
    }
    Ok(out)
}

/// Every trace at or under `root`, opened; none is an error.
pub fn open_traces(root: &Path) -> Result<Vec<CtfTrace>, CtfError> {
    let dirs = find_traces(root)?;
    if dirs.is_empty() {
        return Err(CtfError::Trace {
            path: root.to_path_buf(),
            message: "no CTF trace here (no directory with a `metadata` file)".into(),
        });
    }
    dirs.iter().map(|d| CtfTrace::open(d)).collect()
}
