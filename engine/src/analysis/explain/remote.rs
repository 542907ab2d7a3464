//! Wake-ups caused by another host. When the explained trace is one host
//! of a synchronised set, the packets it received that the sync matched to
//! another host's emissions (`Arrival`s, given by the session: this layer
//! reads no other host) tell which interrupt-context wake-ups a remote
//! host caused: a wake-up in an interrupt context (the net rx softirq)
//! that follows, in that same context run and on its CPU, the reception of
//! such a packet. Nothing is said of a wake-up without one.

use super::graph::Wakeup;

/// A packet this host received that another host sent, as the sync's
/// matching paired them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival {
    /// The CPU the reception was recorded on.
    pub cpu: u32,
    /// When it was received, in this host's own clock (the graph's).
    pub received: i64,
    /// The host that sent it.
    pub from: String,
    /// The thread that sent it, when the sending host's trace tells (a
    /// tid of that host).
    pub sent_by: Option<i64>,
    /// That thread's name then, as the sending host's trace has it.
    pub sent_by_comm: Option<String>,
    /// When it was sent, on the shared timeline (ns).
    pub sent: i64,
    /// From its emission to its reception, on the shared timeline (ns).
    pub transit: i64,
}

/// The packet that caused `w`: the last matched reception on the waking
/// CPU between the opening of the waker's interrupt context and the
/// wake-up. `arrivals` in reception order.
pub fn cause_of<'a>(arrivals: &'a [Arrival], w: &Wakeup) -> Option<&'a Arrival> {
    let (since, cpu) = (w.since?, w.cpu?);
    let end = arrivals.partition_point(|a| a.received <= w.ts);
    arrivals[..end]
        .iter()
        .rev()
        .take_while(|a| a.received >= since)
        .find(|a| a.cpu == cpu)
}
