//! The packets one host of a synchronisation received from the other
//! hosts, for explain to name the host behind a wake-up: the messages the
//! sync's matching paired (`Synchronization::exchanged`, kept in its
//! stored unit), so that no other host's trace is read again.

use super::Synchronization;
use crate::analysis::explain::remote::Arrival;

/// The packets the host at position `host` of `sync` received from
/// another host, in reception order, with their emission on the shared
/// timeline. Empty when that host is not on the timeline; a packet whose
/// sender is not on it, or whose reception names no CPU, is left out.
pub fn received_by(sync: &Synchronization, host: usize) -> Vec<Arrival> {
    let Some(me) = sync.hosts.get(host) else {
        return Vec::new();
    };
    let Some(mine) = me.correction else {
        return Vec::new();
    };
    let mut found: Vec<Arrival> = sync
        .exchanged
        .iter()
        .filter(|m| m.receiver == host)
        .filter_map(|m| {
            let from = sync.hosts.get(m.sender).filter(|f| f.id != me.id)?;
            let (cpu, sender) = (m.received_on?, from.correction?);
            let sent = sender.apply(m.sent);
            Some(Arrival {
                cpu,
                received: m.received,
                from: from.name.clone(),
                sent_by: m.sent_by,
                sent_by_comm: m.sent_by_comm.clone(),
                sent,
                transit: mine.apply(m.received) - sent,
            })
        })
        .collect();
    found.sort_by_key(|a| a.received);
    found
}
