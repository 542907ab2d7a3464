//! Pairing each packet a host sent with its reception on another host, as
//! Trace Compass's event matching does, so that both feed the same
//! messages to the hull: packets are taken in time order across hosts, a
//! TCP segment is known by its (sequence, acknowledgement, flags), a
//! reception is paired with a pending emission of the same key (and the
//! other way round: clocks may put a reception first), and pending packets
//! older than the latest pairing with every other host are dropped.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// What identifies a TCP segment on both ends.
pub type Key = (u64, u64, u64);

/// One network event of a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Nanoseconds, in the host's own clock.
    pub ts: i64,
    pub sent: bool,
    pub key: Key,
    /// The CPU the event was recorded on, when the trace says: a
    /// reception's is where the wake-ups it causes happen.
    pub cpu: Option<u32>,
    /// An emission's: the thread that sent the packet, when the trace
    /// tells (`senders`).
    pub thread: Option<i64>,
    /// That thread's name then, when the kernel model knows it.
    pub comm: Option<String>,
}

/// A packet seen leaving one host and arriving at another (or the same:
/// loopback traffic is matched, and not used to synchronise). Hosts by
/// position, times in each host's own clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub key: Key,
    pub sender: usize,
    pub sent: i64,
    /// The thread that sent it, when the trace tells (`senders`).
    pub sent_by: Option<i64>,
    /// That thread's name then.
    pub sent_by_comm: Option<String>,
    /// The CPU the emission was recorded on.
    pub sent_on: Option<u32>,
    pub receiver: usize,
    pub received: i64,
    /// The CPU the reception was recorded on.
    pub received_on: Option<u32>,
}

/// The messages among the hosts' packets (each host's in time order), in
/// the order they are found.
pub fn messages(hosts: &[Vec<Packet>]) -> Vec<Message> {
    let mut order: Vec<(i64, usize, usize)> = hosts
        .iter()
        .enumerate()
        .flat_map(|(h, ps)| ps.iter().enumerate().map(move |(i, p)| (p.ts, h, i)))
        .collect();
    order.sort_unstable();
    let mut m = Matcher::new(hosts.len());
    for (_, h, i) in order {
        m.take(h, hosts[h][i].clone());
    }
    m.found
}

struct Matcher {
    /// Per host: emissions waiting for their reception, by key.
    out: Vec<HashMap<Key, Packet>>,
    /// Per host: receptions (time, CPU) waiting for their emission.
    into: Vec<HashMap<Key, (i64, Option<u32>)>>,
    /// The latest message from each sender to each receiver.
    last: HashMap<(usize, usize), Message>,
    found: Vec<Message>,
}

impl Matcher {
    fn new(hosts: usize) -> Matcher {
        Matcher {
            out: vec![HashMap::new(); hosts],
            into: vec![HashMap::new(); hosts],
            last: HashMap::new(),
            found: Vec::new(),
        }
    }

    fn take(&mut self, host: usize, p: Packet) {
        let mut message = None;
        if p.sent {
            for (other, pending) in self.into.iter_mut().enumerate() {
                // A host's own reception of its own emission is loopback
                // traffic seen twice: left for a remote emission.
                if other == host {
                    continue;
                }
                if let Some((received, received_on)) = pending.remove(&p.key) {
                    message = Some(Message {
                        key: p.key,
                        sender: host,
                        sent: p.ts,
                        sent_by: p.thread,
                        sent_by_comm: p.comm.clone(),
                        sent_on: p.cpu,
                        receiver: other,
                        received,
                        received_on,
                    });
                }
            }
        } else {
            for (other, pending) in self.out.iter_mut().enumerate() {
                if let Some(out) = pending.remove(&p.key) {
                    message = Some(Message {
                        key: p.key,
                        sender: other,
                        sent: out.ts,
                        sent_by: out.thread,
                        sent_by_comm: out.comm,
                        sent_on: out.cpu,
                        receiver: host,
                        received: p.ts,
                        received_on: p.cpu,
                    });
                }
            }
        }
        match message {
            Some(m) => self.found(m),
            None if p.sent => {
                self.out[host].entry(p.key).or_insert(p);
            }
            None => {
                self.into[host].entry(p.key).or_insert((p.ts, p.cpu));
            }
        }
    }

    fn found(&mut self, m: Message) {
        let (sender, receiver) = (m.sender, m.receiver);
        self.last.insert((sender, receiver), m.clone());
        self.found.push(m);
        let hosts = self.out.len();
        // Once a host has exchanged with every other, what it sent (or
        // received) before the oldest of those latest exchanges would have
        // been paired already: it never will be.
        let oldest = |pick: &dyn Fn(&Message) -> Option<(usize, i64)>, me: usize| {
            let mine: Vec<(usize, i64)> = self.last.values().filter_map(pick).collect();
            let others = mine.iter().filter(|(o, _)| *o != me).count();
            (others + 1 == hosts)
                .then(|| mine.iter().map(|(_, t)| *t).min())
                .flatten()
        };
        if let Some(t) = oldest(
            &|x| (x.sender == sender).then_some((x.receiver, x.sent)),
            sender,
        ) {
            self.out[sender].retain(|_, p| p.ts >= t);
        }
        if let Some(t) = oldest(
            &|x| (x.receiver == receiver).then_some((x.sender, x.received)),
            receiver,
        ) {
            self.into[receiver].retain(|_, (ts, _)| *ts >= t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ts: i64, sent: bool, seq: u64) -> Packet {
        Packet {
            ts,
            sent,
            key: (seq, 0, 0x18),
            cpu: Some(0),
            thread: None,
            comm: None,
        }
    }

    #[test]
    fn receptions_pair_with_emissions_either_way_round() {
        // Host 1's clock is behind: its reception of 7 comes "before" the
        // emission.
        let a = vec![p(100, true, 7), p(300, false, 8)];
        let b = vec![p(50, false, 7), p(250, true, 8), p(400, true, 9)];
        let found = messages(&[a, b]);
        assert_eq!(
            found,
            [
                Message {
                    key: (7, 0, 0x18),
                    sender: 0,
                    sent: 100,
                    sent_by: None,
                    sent_by_comm: None,
                    sent_on: Some(0),
                    receiver: 1,
                    received: 50,
                    received_on: Some(0),
                },
                Message {
                    key: (8, 0, 0x18),
                    sender: 1,
                    sent: 250,
                    sent_by: None,
                    sent_by_comm: None,
                    sent_on: Some(0),
                    receiver: 0,
                    received: 300,
                    received_on: Some(0),
                },
            ]
        );
    }

    #[test]
    fn loopback_is_not_taken_for_a_remote_emission() {
        let a = vec![p(10, false, 5), p(20, true, 5)];
        let b = vec![p(30, false, 5)];
        let found = messages(&[a, b]);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].sender, found[0].receiver), (0, 1));
    }
}
