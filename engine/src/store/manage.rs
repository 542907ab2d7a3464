//! Looking after stores (`sextant store ls|rm|gc`): what a trace's stores
//! hold, removing them, and removing what can no longer be used.

use std::path::{Path, PathBuf};

use super::unit::{self, Unusable};
use super::{Places, TraceStore, SUFFIX};

/// A unit found in one of a trace's stores.
#[derive(Debug)]
pub struct UnitInfo {
    /// The unit's directory.
    pub dir: PathBuf,
    /// Bytes of its files.
    pub bytes: u64,
    /// Its name as its manifest gives it (a model's name), when usable.
    pub state: Result<Option<String>, Unusable>,
    /// For a model's executions: the configurations a server offers them
    /// as, `(experiment, configuration name)`.
    pub offered: Vec<(String, String)>,
}

impl TraceStore {
    /// Every unit in the trace's stores, in the order they are read.
    pub fn units(&self) -> Vec<UnitInfo> {
        let mut out = Vec::new();
        for store in self.places.candidates(&self.canonical) {
            for dir in unit::unit_dirs(&store) {
                let found = unit::read_dir(&dir, &self.identity);
                let offered = found
                    .as_ref()
                    .map(|f| super::results::offered(&f.details))
                    .unwrap_or_default();
                let state = found.map(|found| {
                    found
                        .details
                        .get("name")
                        .and_then(|n| n.as_str())
                        .map(str::to_string)
                });
                out.push(UnitInfo {
                    bytes: size_of(&dir),
                    dir,
                    state,
                    offered,
                });
            }
        }
        out
    }

    /// Removes the trace's stores; returns the directories removed.
    pub fn remove(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut removed = Vec::new();
        for store in self.places.candidates(&self.canonical) {
            if store.is_dir() {
                std::fs::remove_dir_all(&store)?;
                removed.push(store);
            }
        }
        Ok(removed)
    }

    /// Removes the units that cannot be used any more (trace changed,
    /// another version, damaged) and what interrupted writers left.
    pub fn collect_garbage(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut removed = Vec::new();
        for store in self.places.candidates(&self.canonical) {
            removed.extend(leftovers(&store)?);
            for dir in unit::unit_dirs(&store) {
                if unit::read_dir(&dir, &self.identity).is_err() {
                    std::fs::remove_dir_all(&dir)?;
                    removed.push(dir);
                }
            }
        }
        Ok(removed)
    }
}

/// In the cache directory: removes the stores of traces that no longer
/// exist, and collects the garbage of the others.
pub fn collect_cache_garbage(places: &Places) -> std::io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(&places.cache) else {
        return Ok(removed);
    };
    for entry in entries {
        let store = entry?.path();
        if !store.to_string_lossy().ends_with(SUFFIX) || !store.is_dir() {
            continue;
        }
        let trace = unit::unit_dirs(&store)
            .iter()
            .find_map(|d| unit::trace_of(d));
        match trace.map(|t| TraceStore::open(places, Path::new(&t))) {
            Some(Ok(s)) => removed.extend(s.collect_garbage()?),
            // The trace is gone, or nothing in the store says whose it is.
            _ => {
                std::fs::remove_dir_all(&store)?;
                removed.push(store);
            }
        }
    }
    Ok(removed)
}

/// Removes the temporary and moved-aside units and the scratch directories
/// of writers that were interrupted (their process is gone).
pub(super) fn leftovers(store: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(store) else {
        return Ok(removed);
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = unit::writer_of(&name) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            std::fs::remove_dir_all(entry.path())?;
            removed.push(entry.path());
        }
    }
    Ok(removed)
}

fn size_of(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
