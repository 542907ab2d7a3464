//! A synchronisation kept in the store of each trace it read (unit
//! `sync/`, no tables: the result and its matched packets live in the
//! manifest's details), so that analyses of those traces put their hosts
//! on the shared timeline, and explain names a waking packet's host,
//! without reading any trace again. The unit carries the trace's identity
//! like every unit: a trace that changed drops it. Its details carry a
//! version of their own, so that a sync stored by an earlier sextant (its
//! result only) is reported, not read as if it had no packets.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Message, Synchronization};
use crate::export::ExportError;
use crate::store::{Places, TraceStore, UnitStamp, Unusable};

const UNIT: &str = "sync";

/// The layout of the unit's details. 2: with the matched packets and the
/// store's own hosts (1, unnumbered, was the result alone); 3: with the
/// sender the sending host's kernel model names.
const VERSION: u64 = 3;

/// A stored synchronisation, as one trace's store holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// With its matched packets (`exchanged`).
    pub sync: Synchronization,
    /// Positions in `sync.hosts` of the hosts of the trace whose store this
    /// is, in the order `hosts::of` lists that trace's hosts.
    pub own: Vec<usize>,
}

#[derive(Serialize, Deserialize)]
struct Details {
    version: u64,
    sync: Synchronization,
    exchanged: Vec<Message>,
    own: Vec<usize>,
}

/// Writes `sync` into the store of `trace` (one of the paths `sync` read);
/// returns the unit's directory.
pub fn save(
    sync: &Synchronization,
    trace: &Path,
    store: &TraceStore,
) -> Result<PathBuf, ExportError> {
    let details = Details {
        version: VERSION,
        sync: sync.clone(),
        exchanged: sync.exchanged.clone(),
        own: (0..sync.hosts.len())
            .filter(|&i| sync.hosts[i].trace == trace)
            .collect(),
    };
    let details = serde_json::to_value(details).expect("a synchronisation is plain data");
    store.write(UNIT, Vec::new(), details)
}

/// The sync unit of `trace` as it is on disk now (`Places::unit_stamp`).
pub fn stamp(places: &Places, trace: &Path) -> UnitStamp {
    places.unit_stamp(trace, UNIT)
}

/// The synchronisation stored for the trace: `Ok(None)` when there is
/// none, `Err` when one is stored but cannot be used.
pub fn load(store: &TraceStore) -> Result<Option<Stored>, Unusable> {
    let Some(found) = store.find(UNIT)? else {
        return Ok(None);
    };
    match found.details.get("version").and_then(|v| v.as_u64()) {
        Some(VERSION) => {}
        None => {
            return Err(found.outdated(
                "a synchronisation without the packets it matched; run `sextant sync` again",
            ))
        }
        Some(other) => {
            return Err(found.outdated(format!(
                "synchronisation details of version {other}, this one reads {VERSION}; run \
                 `sextant sync` again"
            )))
        }
    }
    let details: Details = serde_json::from_value(found.details.clone())
        .map_err(|e| found.corrupt("manifest.json", e.to_string()))?;
    let mut sync = details.sync;
    sync.exchanged = details.exchanged;
    let (hosts, messages) = (sync.hosts.len(), &sync.exchanged);
    let outside = |&i: &usize| i >= hosts;
    if details.own.iter().any(outside)
        || sync.reference.iter().any(outside)
        || messages
            .iter()
            .any(|m| outside(&m.sender) || outside(&m.receiver))
    {
        return Err(found.corrupt("manifest.json", "a host position beyond its hosts"));
    }
    Ok(Some(Stored {
        sync,
        own: details.own,
    }))
}
