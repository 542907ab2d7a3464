//! Units of a store: a directory of Arrow IPC files with a manifest,
//! written under a unique temporary name and renamed into place whole.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_schema::SchemaRef;
use serde::{Deserialize, Serialize};

use super::{mapped, TraceIdentity, TraceStore, FORMAT_VERSION};
use crate::export::{ExportError, Format, TableFile};
use crate::mapped::Mapped;

pub(super) const MANIFEST: &str = "manifest.json";

/// Why a stored unit is not used (it is then computed and written again).
#[derive(Debug, thiserror::Error)]
pub enum Unusable {
    #[error("{dir}: written by another version of sextant (format {found}, this one reads {FORMAT_VERSION})")]
    ForeignVersion { dir: String, found: String },
    /// Its own layout (within its details) is not this version's.
    #[error("{dir}: written by another version of sextant: {what}")]
    Outdated { dir: String, what: String },
    #[error("{dir}: the trace changed since it was stored ({what})")]
    Stale { dir: String, what: String },
    #[error("{dir}: {file} is {found} bytes, {expected} were written (truncated or overwritten)")]
    Truncated {
        dir: String,
        file: String,
        found: u64,
        expected: u64,
    },
    #[error("{dir}: {file} is corrupt: {reason}")]
    Corrupt {
        dir: String,
        file: String,
        reason: String,
    },
}

/// A unit's description, written last.
#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    format_version: u32,
    identity: TraceIdentity,
    files: Vec<Stamp>,
    /// What the unit keeps beside its tables (small values).
    details: serde_json::Value,
}

/// A table file as written: Arrow IPC has no checksum of its own.
#[derive(Debug, Serialize, Deserialize)]
struct Stamp {
    name: String,
    size: u64,
    /// `checksum` of its bytes, hex.
    checksum: String,
}

/// A table to write: its file name, schema and rows.
pub(crate) struct Table {
    pub name: &'static str,
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
    /// Mapped files the batches' arrays are slices of, whose pages are
    /// given back as they are written (`export::shedding`).
    pub maps: Vec<Arc<Mapped>>,
}

/// A stored unit found usable: its files checked and mapped (a concurrent
/// writer that replaces the unit afterwards renames new files into place and
/// does not change what is mapped) and its details.
pub(crate) struct Found {
    dir: PathBuf,
    files: HashMap<String, Buffer>,
    pub details: serde_json::Value,
}

impl Found {
    /// Every batch of the table `name`.
    pub fn table(&mut self, name: &str) -> Result<Vec<RecordBatch>, Unusable> {
        let corrupt = |reason: String| Unusable::Corrupt {
            dir: self.dir.display().to_string(),
            file: name.to_string(),
            reason,
        };
        let bytes = self
            .files
            .remove(name)
            .ok_or_else(|| corrupt("not in the manifest".to_string()))?;
        mapped::batches(&bytes).map_err(corrupt)
    }

    /// Every batch of the table `name`, checked to have `schema`'s columns.
    pub fn table_of(
        &mut self,
        name: &str,
        schema: SchemaRef,
    ) -> Result<Vec<RecordBatch>, Unusable> {
        let batches = self.table(name)?;
        if batches
            .iter()
            .any(|b| b.schema().fields() != schema.fields())
        {
            return Err(self.corrupt(name, "its columns are not the ones sextant writes there"));
        }
        Ok(batches)
    }

    /// A unit whose details are laid out as another version wrote them;
    /// `what` says what they lack and what to run again.
    pub fn outdated(&self, what: impl Into<String>) -> Unusable {
        Unusable::Outdated {
            dir: self.dir.display().to_string(),
            what: what.into(),
        }
    }

    /// A table whose contents do not hold together.
    pub fn corrupt(&self, name: &str, reason: impl Into<String>) -> Unusable {
        Unusable::Corrupt {
            dir: self.dir.display().to_string(),
            file: name.to_string(),
            reason: reason.into(),
        }
    }
}

impl TraceStore {
    /// The store units are written to, created if need be.
    pub(crate) fn writing_store(&self) -> Result<PathBuf, (PathBuf, std::io::Error)> {
        let store = self.places.for_writing(&self.canonical);
        match std::fs::create_dir_all(&store) {
            Ok(()) => Ok(store),
            // A folder the mode said was writable that is not (another
            // user's, a read-only mount): the cache.
            Err(_) => {
                let cached = self.places.cached(&self.canonical);
                std::fs::create_dir_all(&cached).map_err(|e| (cached.clone(), e))?;
                Ok(cached)
            }
        }
    }

    /// The stored unit `name` of this trace: `Ok(None)` when none is stored,
    /// `Err` when one is but cannot be used.
    pub(crate) fn find(&self, name: &str) -> Result<Option<Found>, Unusable> {
        for store in self.places.candidates(&self.canonical) {
            let dir = store.join(name);
            let mut result = None;
            // A writer may replace the unit while it is read (its files
            // vanish): the unit now in place is read again, twice at most.
            for _ in 0..3 {
                let Ok(text) = std::fs::read(dir.join(MANIFEST)) else {
                    // None here, or none at this moment.
                    result = None;
                    break;
                };
                match check(&dir, &text, &self.identity) {
                    Ok(found) => return Ok(Some(found)),
                    Err(e) => result = Some(e),
                }
            }
            if let Some(e) = result {
                return Err(e);
            }
        }
        Ok(None)
    }

    /// Writes the unit `name` (replacing any stored one); returns its
    /// directory.
    pub(crate) fn write(
        &self,
        name: &str,
        tables: Vec<Table>,
        details: serde_json::Value,
    ) -> Result<PathBuf, ExportError> {
        let store = self.writing_store().map_err(|(p, e)| io(&p, e))?;
        let temporary = store.join(unique(name, "tmp"));
        std::fs::create_dir(&temporary).map_err(|e| io(&temporary, e))?;
        let result = write_into(&temporary, tables, &self.identity, details)
            .and_then(|()| publish(&temporary, &store.join(name), name));
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&temporary);
        }
        result.map(|()| store.join(name))
    }
}

/// The unit at `dir`, checked against `identity` (see `check`).
pub(crate) fn read_dir(dir: &Path, identity: &TraceIdentity) -> Result<Found, Unusable> {
    let text = std::fs::read(dir.join(MANIFEST)).map_err(|e| Unusable::Corrupt {
        dir: dir.display().to_string(),
        file: MANIFEST.to_string(),
        reason: e.to_string(),
    })?;
    check(dir, &text, identity)
}

/// The path of the trace whose unit is at `dir`, as its manifest says.
pub(crate) fn trace_of(dir: &Path) -> Option<String> {
    let text = std::fs::read(dir.join(MANIFEST)).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    Some(v.get("identity")?.get("path")?.as_str()?.to_string())
}

/// The process that writes the temporary or moved-aside unit named `name`
/// (`unique`'s names), if it is one.
pub(crate) fn writer_of(name: &str) -> Option<u32> {
    let (_, tail) = name
        .rsplit_once(".tmp-")
        .or_else(|| name.rsplit_once(".old-"))
        .or_else(|| name.rsplit_once(".spill-"))?;
    tail.split('-').next()?.parse().ok()
}

/// The unit at `dir` checked against `identity` (version, the trace's
/// identity, every file's size), its files opened.
fn check(dir: &Path, manifest: &[u8], identity: &TraceIdentity) -> Result<Found, Unusable> {
    let shown = dir.display().to_string();
    let corrupt = |reason: String| Unusable::Corrupt {
        dir: shown.clone(),
        file: MANIFEST.to_string(),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_slice(manifest).map_err(|e| corrupt(e.to_string()))?;
    let version = value.get("format_version");
    if version != Some(&serde_json::Value::from(FORMAT_VERSION)) {
        return Err(Unusable::ForeignVersion {
            dir: shown,
            found: version.map_or("none".to_string(), |v| v.to_string()),
        });
    }
    let manifest: Manifest = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
    if let Some(what) = manifest.identity.difference(identity) {
        return Err(Unusable::Stale { dir: shown, what });
    }
    let mut files = HashMap::new();
    for stamp in manifest.files {
        let path = dir.join(&stamp.name);
        let unreadable = |e: std::io::Error| Unusable::Corrupt {
            dir: shown.clone(),
            file: stamp.name.clone(),
            reason: e.to_string(),
        };
        // Checked by reading the very file that is then mapped.
        let file = std::fs::File::open(&path).map_err(unreadable)?;
        let (size, sum) = mapped::checksum(&file).map_err(unreadable)?;
        if size != stamp.size {
            return Err(Unusable::Truncated {
                dir: shown,
                file: stamp.name,
                found: size,
                expected: stamp.size,
            });
        }
        if sum != stamp.checksum {
            return Err(Unusable::Corrupt {
                dir: shown,
                file: stamp.name,
                reason: "its checksum does not match the manifest's".to_string(),
            });
        }
        let bytes = mapped::map(&file, &path).map_err(unreadable)?;
        files.insert(stamp.name, bytes);
    }
    Ok(Found {
        dir: dir.to_path_buf(),
        files,
        details: manifest.details,
    })
}

fn write_into(
    dir: &Path,
    tables: Vec<Table>,
    identity: &TraceIdentity,
    details: serde_json::Value,
) -> Result<(), ExportError> {
    let mut files = Vec::with_capacity(tables.len());
    for t in tables {
        let path = dir.join(t.name);
        let mut file = TableFile::create_shedding(&path, Format::Arrow, t.schema, t.maps)?;
        for b in &t.batches {
            file.write(b)?;
        }
        file.finish()?;
        let (size, checksum) = std::fs::File::open(&path)
            .and_then(|f| mapped::checksum(&f))
            .map_err(|e| io(&path, e))?;
        files.push(Stamp {
            name: t.name.to_string(),
            size,
            checksum,
        });
    }
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        identity: identity.clone(),
        files,
        details,
    };
    let path = dir.join(MANIFEST);
    let text = serde_json::to_vec_pretty(&manifest).expect("a manifest is JSON");
    std::fs::write(&path, text).map_err(|e| io(&path, e))
}

/// Renames the finished unit `temporary` to `unit`, replacing a stored one;
/// when another writer published at the same moment, its unit stays.
fn publish(temporary: &Path, unit: &Path, name: &str) -> Result<(), ExportError> {
    // Each failed rename means a unit is there (a rename does not replace a
    // directory that has files). The first one may be stale and is moved
    // aside whole, so that no reader sees it half removed; one there on a
    // later try was published by a concurrent writer since, and is as good
    // as ours. Bounded: writers that keep moving each other's units aside
    // end with an error rather than a hang.
    const TRIES: usize = 8;
    let store = unit.parent().expect("a unit is in a store");
    let mut failed = None;
    for attempt in 0..TRIES {
        match std::fs::rename(temporary, unit) {
            Ok(()) => return Ok(()),
            Err(e) => failed = Some(e),
        }
        if attempt > 0 && unit.join(MANIFEST).exists() {
            let _ = std::fs::remove_dir_all(temporary);
            return Ok(());
        }
        let old = store.join(unique(name, "old"));
        if std::fs::rename(unit, &old).is_ok() {
            let _ = std::fs::remove_dir_all(&old);
        }
    }
    let e = failed.expect("every try failed");
    Err(io(unit, e))
}

/// `.NAME.KIND-PID-N`: a name no other process or thread uses.
pub(crate) fn unique(name: &str, kind: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(".{name}.{kind}-{}-{n}", std::process::id())
}

fn io(path: &Path, source: std::io::Error) -> ExportError {
    ExportError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The units of a store: its subdirectories not starting with a dot.
pub(crate) fn unit_dirs(store: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(store) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}
