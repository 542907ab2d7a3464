//! A synchronisation kept in the store of each trace it read (unit
//! `sync/`, no tables: the result is small and lives in the manifest's
//! details), so that analyses of those traces put their hosts on the
//! shared timeline without matching packets again. The unit carries the
//! trace's identity like every unit: a trace that changed drops it.

use std::path::PathBuf;

use super::Synchronization;
use crate::export::ExportError;
use crate::store::{TraceStore, Unusable};

const UNIT: &str = "sync";

/// Writes `sync` into `store`; returns the unit's directory.
pub fn save(sync: &Synchronization, store: &TraceStore) -> Result<PathBuf, ExportError> {
    let details = serde_json::to_value(sync).expect("a synchronisation is plain data");
    store.write(UNIT, Vec::new(), details)
}

/// The synchronisation stored for the trace: `Ok(None)` when there is
/// none, `Err` when one is stored but cannot be used.
pub fn load(store: &TraceStore) -> Result<Option<Synchronization>, Unusable> {
    let Some(found) = store.find(UNIT)? else {
        return Ok(None);
    };
    serde_json::from_value(found.details.clone())
        .map(Some)
        .map_err(|e| found.corrupt("manifest.json", e.to_string()))
}
