//! The traces a query reads: each argument a trace, or a folder whose every
//! trace below it is one (one partition each), with the name the `trace`
//! column gives it (its path relative to the argument) and its host.

use std::path::{Path, PathBuf};

use sextant_engine::hosts;
use sextant_engine::reader::{AnyReader, OpenOptions};

use crate::SqlError;

/// One trace of the fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub path: PathBuf,
    /// Its path relative to the argument that named it (the argument's own
    /// name when it is the trace).
    pub name: String,
    /// The machine its metadata names (a CTF trace's `hostname`), else its
    /// file or folder name, as `sextant analyze` calls hosts.
    pub host: String,
}

/// Every trace the arguments name, in argument order, each folder's sorted
/// by path. A folder with no trace below it is an error naming it.
pub fn traces(args: &[PathBuf]) -> Result<Vec<Trace>, SqlError> {
    let mut all = Vec::new();
    for arg in args {
        let meta = std::fs::metadata(arg).map_err(|e| SqlError::Trace {
            trace: arg.display().to_string(),
            message: e.to_string(),
        })?;
        if !meta.is_dir() || is_ctf(arg) {
            let name = arg.file_name().map_or_else(
                || arg.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            all.push(trace(arg, name));
            continue;
        }
        let mut found = Vec::new();
        walk(arg, arg, &mut found)?;
        let before = all.len();
        all.extend(told(found));
        if all.len() == before {
            return Err(SqlError::Trace {
                trace: arg.display().to_string(),
                message: "no trace below this folder (CTF folders, ftrace text, trace.dat, BTF)"
                    .into(),
            });
        }
    }
    Ok(all)
}

/// A CTF trace's folder: its `metadata` is in it.
fn is_ctf(dir: &Path) -> bool {
    dir.join("metadata").is_file()
}

/// What a folder's walk found: a CTF folder, or a file that may be a trace.
struct Candidate {
    path: PathBuf,
    name: String,
    ctf: bool,
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<Candidate>) -> Result<(), SqlError> {
    let listing = std::fs::read_dir(dir).map_err(|e| SqlError::Trace {
        trace: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let mut entries: Vec<PathBuf> = listing.filter_map(|e| Some(e.ok()?.path())).collect();
    entries.sort();
    for path in entries {
        let file_name = path.file_name().unwrap_or_default().to_string_lossy();
        // Hidden files, stores kept beside traces (NAME.sextant/) and JSON
        // (models, notes) are never traces.
        if file_name.starts_with('.')
            || file_name.ends_with(".sextant")
            || file_name.ends_with(".json")
        {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let name = relative.to_string_lossy().replace('\\', "/");
        if path.is_dir() && !is_ctf(&path) {
            walk(root, &path, out)?;
        } else {
            let ctf = path.is_dir();
            out.push(Candidate { path, name, ctf });
        }
    }
    Ok(())
}

/// The candidates that are traces, in their order, each with its host.
// Telling a file's format and naming a CTF trace's host read its head and
// parse its metadata: most of a repeated query's time over hundreds of
// small traces, done on every core.
fn told(found: Vec<Candidate>) -> Vec<Trace> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = found.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = found
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().filter_map(one).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("telling a trace does not panic"))
            .collect()
    })
}

fn one(c: &Candidate) -> Option<Trace> {
    // A file is told by content, as every command tells a trace's format.
    let is_trace = c.ctf || AnyReader::open_with(&c.path, OpenOptions::default()).is_ok();
    is_trace.then(|| trace(&c.path, c.name.clone()))
}

fn trace(path: &Path, name: String) -> Trace {
    let host = match hosts::of(path).as_deref() {
        Ok([only]) => only.name.clone(),
        // Several machines (a reading error is said when the trace is read).
        _ => name.clone(),
    };
    Trace {
        path: path.to_path_buf(),
        name,
        host,
    }
}
