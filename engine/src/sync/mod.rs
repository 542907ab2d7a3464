//! Several hosts on one timeline. Each host's trace has its own clock;
//! TCP packets one host sent and another received pair their times, and
//! per host pair the convex-hull algorithm turns those pairs into a linear
//! correction (`hull`) with a quality; a spanning tree chains the pairs to
//! one reference host (`tree`). Corrections map times, never durations:
//! a duration measured on one host stays in that host's clock.

mod arrivals;
mod correction;
mod hull;
mod matching;
mod packets;
mod senders;
pub mod stored;
mod tree;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use arrivals::received_by;
pub use correction::Correction;
pub use hull::{Hull, Quality};
pub use matching::{messages, Message, Packet};

use crate::analysis::executions::Execution;
use crate::hosts::{self, HostPick};
use crate::reader::OpenOptions;
use crate::run::{Pass, RunError, Work};

/// One host of a synchronisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncHost {
    pub name: String,
    /// What orders hosts and names the reference: the clock's UUID, else
    /// the name.
    pub id: String,
    /// The trace path it was read from.
    pub trace: PathBuf,
    /// TCP packet events found.
    pub packets: usize,
    /// Its times onto the reference's clock; `None` when no usable pair
    /// links it to the reference.
    pub correction: Option<Correction>,
}

/// The result for one pair of hosts that exchanged packets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// Position of the pair's reference host (the smaller identifier).
    pub reference: usize,
    pub other: usize,
    pub quality: Quality,
    /// Packets matched between the two.
    pub messages: usize,
    /// Of those, the ones that moved a bounding line.
    pub accurate_messages: usize,
    /// The other host's times onto the pair reference's.
    pub correction: Correction,
    /// Difference of the bounding lines' slopes (0 while not bounded).
    pub accuracy: f64,
}

/// Hosts, pairs and the timeline they share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Synchronization {
    pub hosts: Vec<SyncHost>,
    /// Pairs of hosts that exchanged at least one packet.
    pub pairs: Vec<Pair>,
    /// Position of the host whose clock is the shared timeline.
    pub reference: Option<usize>,
    /// Packets matched on a single host (loopback), not used.
    pub local_messages: usize,
    /// The packets matched between two different hosts, in the order
    /// found: what explain names a waking packet's host from. Kept in the
    /// store (`stored`), not in the result printed.
    #[serde(skip)]
    pub exchanged: Vec<Message>,
}

impl Synchronization {
    /// The correction of the host named `name`.
    pub fn correction_of(&self, name: &str) -> Option<Correction> {
        self.hosts
            .iter()
            .find(|h| h.name == name)
            .and_then(|h| h.correction)
    }

    /// The name of the host whose clock is the shared timeline (`?` when
    /// no host is).
    pub fn reference_name(&self) -> &str {
        self.reference.map_or("?", |r| self.hosts[r].name.as_str())
    }
}

/// Puts an execution, and those nested in it, on the shared timeline: its
/// start and end move by `c`; its durations (total, running, blocked...)
/// were measured on its host's clock and stay so.
pub fn retime(e: &mut Execution, c: &Correction) {
    e.start = c.apply(e.start);
    e.end = c.apply(e.end);
    for n in &mut e.nested {
        retime(n, c);
    }
}

/// Why the hosts could not be synchronised.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("{}: {source}", path.display())]
    Hosts {
        path: PathBuf,
        source: crate::ctf::CtfError,
    },
    #[error("reading host {host}: {source}")]
    Read { host: String, source: RunError },
    #[error("{0} host(s) found: synchronising needs at least two (give a folder holding several hosts' traces, or several traces)")]
    TooFew(usize),
}

/// Finds the hosts under `paths`, matches their packets and puts them on
/// one timeline.
pub fn synchronize(paths: &[PathBuf]) -> Result<Synchronization, SyncError> {
    let (mut hosts, packets) = read_hosts(paths)?;
    if hosts.len() < 2 {
        return Err(SyncError::TooFew(hosts.len()));
    }
    let ids: Vec<String> = hosts.iter().map(|h| h.id.clone()).collect();
    let mut found = messages(&packets);
    let (pairs, local_messages) = pairs(&ids, &found);
    found.retain(|m| ids[m.sender] != ids[m.receiver]);
    let (reference, placed) = tree::chain(&ids, &pairs);
    for (h, c) in hosts.iter_mut().zip(placed) {
        h.correction = c;
    }
    Ok(Synchronization {
        hosts,
        pairs,
        reference,
        local_messages,
        exchanged: found,
    })
}

/// Every host under `paths` (not yet placed) and its packets, in time
/// order.
fn read_hosts(paths: &[PathBuf]) -> Result<(Vec<SyncHost>, Vec<Vec<Packet>>), SyncError> {
    let mut hosts = Vec::new();
    let mut packets = Vec::new();
    for path in paths {
        let found = hosts::of(path).map_err(|source| SyncError::Hosts {
            path: path.clone(),
            source,
        })?;
        let several = found.len() > 1;
        for (i, h) in found.into_iter().enumerate() {
            let pick = if several {
                HostPick::Nth(i)
            } else {
                HostPick::Sole
            };
            let read = read_packets(path, pick).map_err(|source| SyncError::Read {
                host: h.name.clone(),
                source,
            })?;
            hosts.push(SyncHost {
                id: h.boot.clone().unwrap_or_else(|| h.name.clone()),
                name: h.name,
                trace: path.clone(),
                packets: read.len(),
                correction: None,
            });
            packets.push(read);
        }
    }
    Ok((hosts, packets))
}

/// The host's packets, read in a pass of its kernel model, which names
/// who sent each where the emission does not.
fn read_packets(path: &Path, pick: HostPick) -> Result<Vec<Packet>, RunError> {
    let options = OpenOptions {
        host: pick,
        ..OpenOptions::default()
    };
    let mut packets = packets::Packets::default();
    let ran = Pass::new(&mut [])
        .tap(&mut packets)
        .options(options)
        .read(path, &Work::none())?;
    Ok(packets.into_packets(&ran.summary.losses))
}

/// Feeds each message to its pair's hull (hosts ordered by `ids`), in the
/// order found; returns the pairs and how many messages stayed on one host.
pub fn pairs(ids: &[String], found: &[Message]) -> (Vec<Pair>, usize) {
    let mut hulls: Vec<((usize, usize), Hull)> = Vec::new();
    let mut local = 0;
    for m in found {
        if m.sender == m.receiver || ids[m.sender] == ids[m.receiver] {
            local += 1;
            continue;
        }
        let sent_by_reference = ids[m.sender] < ids[m.receiver];
        let key = if sent_by_reference {
            (m.sender, m.receiver)
        } else {
            (m.receiver, m.sender)
        };
        let at = match hulls.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                hulls.push((key, Hull::default()));
                hulls.len() - 1
            }
        };
        let (reference, other) = if sent_by_reference {
            (m.sent, m.received)
        } else {
            (m.received, m.sent)
        };
        hulls[at].1.add(sent_by_reference, reference, other);
    }
    let pairs = hulls
        .into_iter()
        .map(|((reference, other), h)| Pair {
            reference,
            other,
            quality: h.quality,
            messages: h.matches,
            accurate_messages: h.accurate_matches,
            correction: h.correction(),
            accuracy: h.accuracy,
        })
        .collect();
    (pairs, local)
}

#[cfg(test)]
mod tests;
