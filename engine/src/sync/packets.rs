//! The TCP segments a host's trace saw leave and arrive: LTTng's
//! `inet_sock_local_out` / `inet_sock_local_in` (the lttng-modules addons
//! Trace Compass's TCP matching reads: `seq`, `ack_seq`, `flags` at the
//! top of the payload), or `net_dev_queue` / `netif_receive_skb` with the
//! TCP header LTTng 2.7+ decodes (under `transport_fields.thtype_tcp`).

use crate::event::{Event, EventSource, ReadError};
use crate::reader::WithSource;
use crate::value::{Scalar, Sink};

use super::matching::Packet;

/// Whether an event is an emission (true) or a reception (false) of a
/// packet; `None` for any other event.
fn direction(name: &str) -> Option<bool> {
    // Readers of other formats prefix the subsystem (`net:net_dev_queue`).
    let bare = name.rsplit(':').next().unwrap_or(name);
    match bare {
        "inet_sock_local_out" | "net_dev_queue" => Some(true),
        "inet_sock_local_in" | "netif_receive_skb" | "net_if_receive_skb" => Some(false),
        _ => None,
    }
}

/// Collects `seq`, `ack_seq` and `flags` from the top of a payload or from
/// a TCP header structure within it.
#[derive(Default)]
struct TcpFields {
    /// Names of the structures entered, outermost first.
    path: Vec<Option<String>>,
    seq: Option<u64>,
    ack: Option<u64>,
    flags: Option<u64>,
}

impl TcpFields {
    fn in_tcp_header(&self) -> bool {
        // The payload itself is the first structure opened.
        self.path.len() == 1
            || self
                .path
                .iter()
                .any(|n| matches!(n.as_deref(), Some("thtype_tcp" | "tcp")))
    }
}

impl<'d> Sink<'d> for TcpFields {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
        if !self.in_tcp_header() {
            return;
        }
        let value = match v {
            Scalar::Unsigned(u) => u,
            Scalar::Signed(i) => i as u64,
            _ => return,
        };
        match name {
            Some("seq") => self.seq = Some(value),
            Some("ack_seq") => self.ack = Some(value),
            Some("flags") => self.flags = Some(value),
            _ => {}
        }
    }
    fn open(&mut self, name: Option<&str>, _list: bool) {
        self.path.push(name.map(str::to_string));
    }
    fn close(&mut self, _list: bool) {
        self.path.pop();
    }
}

/// Reads every TCP packet event of a trace, in time order.
pub struct ReadPackets;

impl WithSource for ReadPackets {
    type Output = Result<Vec<Packet>, ReadError>;

    fn run<S: EventSource>(self, mut source: S) -> Self::Output {
        let mut found = Vec::new();
        while source.advance()? {
            let Some(e) = source.event() else { break };
            let Some(sent) = direction(e.name()) else {
                continue;
            };
            let mut fields = TcpFields::default();
            e.visit_fields(&mut fields)?;
            // A packet that is not TCP (or an event without its header)
            // cannot be matched.
            if let (Some(seq), Some(ack), Some(flags)) = (fields.seq, fields.ack, fields.flags) {
                found.push(Packet {
                    ts: e.ts(),
                    sent,
                    key: (seq, ack, flags),
                    cpu: e.cpu(),
                    thread: e.thread(),
                });
            }
        }
        Ok(found)
    }
}
