//! The store: what sextant computed from a trace, kept on disk as Arrow IPC
//! files so that opening the trace again costs a read, not a pass.
//!
//! A trace's store is `NAME-HASH.sextant` under the cache directory
//! (`--cache-dir`, else `$XDG_CACHE_HOME/sextant`, else `~/.cache/sextant`),
//! HASH of the trace's canonical path: pointing sextant at a shared trace
//! archive leaves the archive as it was. Asked for (`Placement::Beside`), it
//! is the directory `NAME.sextant` beside the trace instead, or the cache
//! when the trace's folder grants no write permission. Both places are read
//! (the preferred one first), so that a store beside a trace from earlier
//! versions, which wrote there by default, still saves a pass. Inside a
//! store, each *unit* (the index: `index/`) is a directory of Arrow files
//! and a `manifest.json` (format version, the trace's identity, each file's
//! size). A unit is written under a unique temporary name and renamed into
//! place whole, so readers and concurrent writers never see half of one; a
//! unit whose manifest does not match (other version, trace changed, file
//! truncated, unreadable) is not used.

pub mod checkpoints;
mod execution_table;
pub mod identity;
pub mod index;
mod manage;
mod mapped;
pub mod results;
pub mod scratch;
pub mod sequences;
mod unit;

use std::path::{Path, PathBuf};

pub use identity::TraceIdentity;
pub use manage::{collect_cache_garbage, UnitInfo};
pub use unit::Unusable;

/// The layout version of every unit; a unit of another version is rebuilt.
/// Also raised when what is stored changes meaning (3: thread states with
/// switches inferred from the tracer's thread context; 4: executions with
/// their nested ones and BTF instance times; 5: the trace identity's
/// metadata hash taken over words).
pub const FORMAT_VERSION: u32 = 5;

/// The ending of a store's directory name.
const SUFFIX: &str = ".sextant";

/// Where a trace's store is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// In the cache directory (the default).
    #[default]
    Cache,
    /// `NAME.sextant` beside the trace, when its folder is writable.
    Beside,
}

/// Where stores live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// The cache directory.
    pub cache: PathBuf,
    pub placement: Placement,
}

impl Places {
    /// Stores placed by `placement`, the cache being `cache_dir`, else
    /// `$XDG_CACHE_HOME/sextant`, else `$HOME/.cache/sextant`, else
    /// `sextant-cache` in the temporary directory.
    pub fn new(cache_dir: Option<PathBuf>, placement: Placement) -> Places {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let cache = cache_dir
            .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("sextant")))
            .or_else(|| env("HOME").map(|d| d.join(".cache").join("sextant")))
            .unwrap_or_else(|| std::env::temp_dir().join("sextant-cache"));
        Places { cache, placement }
    }

    /// The store beside the trace at `canonical` (`None` for `/`).
    fn beside(&self, canonical: &Path) -> Option<PathBuf> {
        let name = canonical.file_name()?;
        let mut dir = name.to_os_string();
        dir.push(SUFFIX);
        Some(canonical.with_file_name(dir))
    }

    /// The store of the trace at `canonical` in the cache directory.
    fn cached(&self, canonical: &Path) -> PathBuf {
        let mut hash = identity::Fnv::default();
        hash.add(canonical.as_os_str().as_encoded_bytes());
        let name = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.cache.join(format!("{name}-{:016x}{SUFFIX}", hash.0))
    }

    /// The stores that may hold the trace's units, in the order looked at:
    /// the placement's first, then the other (a store beside the trace
    /// written by an earlier version is still read).
    fn candidates(&self, canonical: &Path) -> Vec<PathBuf> {
        let cached = self.cached(canonical);
        let beside = self.beside(canonical);
        match self.placement {
            Placement::Cache => std::iter::once(cached).chain(beside).collect(),
            Placement::Beside => beside.into_iter().chain(std::iter::once(cached)).collect(),
        }
    }

    /// Where to write: the cache directory, or, placed beside, beside the
    /// trace when its folder's permissions allow writing (checked on the
    /// mode, so that root too leaves a read-only folder alone), else the
    /// cache directory.
    fn for_writing(&self, canonical: &Path) -> PathBuf {
        let beside = match self.placement {
            Placement::Cache => None,
            Placement::Beside => self.beside(canonical).filter(|b| {
                b.parent()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .is_some_and(|m| !m.permissions().readonly())
            }),
        };
        beside.unwrap_or_else(|| self.cached(canonical))
    }
}

impl Places {
    /// The unit `name` of the trace at `trace` as it is on disk now, in
    /// each store it may be in: its manifest's modification time and size,
    /// or none. Read from directory entries alone (neither the unit nor
    /// the trace's files are opened): what tells a holder of something
    /// computed from the unit that it was written again (or removed) since.
    pub fn unit_stamp(&self, trace: &Path, name: &str) -> UnitStamp {
        let Ok(canonical) = trace.canonicalize() else {
            return UnitStamp::default();
        };
        let manifest = |store: &PathBuf| {
            let m = std::fs::metadata(store.join(name).join(unit::MANIFEST)).ok()?;
            Some((m.modified().ok()?, m.len()))
        };
        UnitStamp(self.candidates(&canonical).iter().map(manifest).collect())
    }
}

/// A unit's manifest in each store it may be in (`Places::unit_stamp`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitStamp(Vec<Option<(std::time::SystemTime, u64)>>);

/// Where stores go, in words for a log.
impl std::fmt::Display for Places {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.placement {
            Placement::Cache => write!(f, "stores in {}", self.cache.display()),
            Placement::Beside => write!(
                f,
                "stores beside the traces (NAME.sextant), in {} for read-only folders",
                self.cache.display()
            ),
        }
    }
}

/// The store of one trace, with the trace's identity now.
pub struct TraceStore {
    places: Places,
    canonical: PathBuf,
    identity: TraceIdentity,
}

impl TraceStore {
    /// The store of the trace at `trace` (its identity is read now).
    pub fn open(places: &Places, trace: &Path) -> std::io::Result<TraceStore> {
        let identity = TraceIdentity::of(trace)?;
        Ok(TraceStore {
            places: places.clone(),
            canonical: PathBuf::from(&identity.path),
            identity,
        })
    }

    pub fn identity(&self) -> &TraceIdentity {
        &self.identity
    }
}

#[cfg(test)]
mod tests;
