//! The packets one host of a stored synchronisation received from the
//! other hosts, for explain to name the host behind a wake-up. The stored
//! synchronisation keeps only its result, so the hosts' packets are read
//! again and paired by the very matching that synchronised them
//! (`matching::messages`, same hosts, same order): every host's trace is
//! read once more, and only its TCP events are decoded.

use std::path::PathBuf;

use super::{messages, read_hosts, SyncError, Synchronization};
use crate::analysis::explain::remote::Arrival;

/// The packets the host `id` (as `SyncHost::id`) received from another
/// host of `sync`, in reception order, with their emission on the shared
/// timeline. Empty when that host is not on the timeline; a packet whose
/// sender is not on it, or whose reception names no CPU, is left out.
pub fn received_by(sync: &Synchronization, id: &str) -> Result<Vec<Arrival>, SyncError> {
    let Some(mine) = sync
        .hosts
        .iter()
        .find(|h| h.id == id)
        .and_then(|h| h.correction)
    else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for h in &sync.hosts {
        if !paths.contains(&h.trace) {
            paths.push(h.trace.clone());
        }
    }
    let (read, packets) = read_hosts(&paths)?;
    // Positions in `read` to the stored hosts, by identity: the traces'
    // hosts are those the synchronisation was made of.
    let stored: Vec<_> = read
        .iter()
        .map(|r| sync.hosts.iter().find(|h| h.id == r.id))
        .collect();
    let mut found = Vec::new();
    for m in messages(&packets) {
        let (Some(to), Some(from)) = (stored[m.receiver], stored[m.sender]) else {
            continue;
        };
        if to.id != id || from.id == id {
            continue;
        }
        let (Some(cpu), Some(sender)) = (m.received_on, from.correction) else {
            continue;
        };
        let sent = sender.apply(m.sent);
        found.push(Arrival {
            cpu,
            received: m.received,
            from: from.name.clone(),
            sent_by: m.sent_by,
            sent,
            transit: mine.apply(m.received) - sent,
        });
    }
    found.sort_by_key(|a| a.received);
    Ok(found)
}
