//! The TCP segments a host's trace saw leave and arrive: LTTng's
//! `inet_sock_local_out` / `inet_sock_local_in` (the lttng-modules addons
//! Trace Compass's TCP matching reads: `seq`, `ack_seq`, `flags` at the
//! top of the payload), or `net_dev_queue` / `netif_receive_skb` with the
//! TCP header LTTng 2.7+ decodes (under `transport_fields.thtype_tcp`),
//! and who sent each (`senders`).

use rustc_hash::FxHashMap as HashMap;

use super::matching::Packet;
use super::senders::{Contexts, Role, Sender};
use crate::event::{Event, Loss, ReadError};
use crate::kernel::model::KernelModel;
use crate::kernel::vocabulary::{canonical_event, names};
use crate::run::{Flow, Tap};
use crate::value::{Scalar, Sink};

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

/// How an event class matters here: its direction when it is a TCP
/// packet's, its role in its CPU's context otherwise.
#[derive(Debug, Clone, Copy)]
struct Class {
    sent: Option<bool>,
    role: Role,
    softirq: bool,
}

/// Reads every TCP packet event of a trace, in time order, beside the
/// sending host's kernel model (a tap on its pass): an emission is given
/// the thread that sent it where the trace tells (`senders`).
#[derive(Default)]
pub struct Packets {
    found: Vec<Packet>,
    classes: HashMap<u64, Class>,
    contexts: Contexts,
    /// Emissions whose sender the model named, by position in `found`: to
    /// check against the whole trace once read.
    named: Vec<(usize, Sender)>,
}

impl Tap for Packets {
    fn event<'s, E: Event<'s>>(&mut self, e: &E, model: &KernelModel) -> Result<Flow, ReadError> {
        let class = *self.classes.entry(e.class()).or_insert_with(|| {
            let canonical = canonical_event(e.name());
            Class {
                sent: direction(e.name()),
                role: Role::of(&canonical),
                softirq: canonical == names::SOFTIRQ_ENTRY,
            }
        });
        let (ts, cpu) = (e.ts(), e.cpu());
        self.contexts.see(class.role, cpu, ts, class.softirq);
        let Some(sent) = class.sent else {
            return Ok(Flow::Apply);
        };
        let mut fields = TcpFields::default();
        e.visit_fields(&mut fields)?;
        // A packet that is not TCP (or an event without its header)
        // cannot be matched.
        let (Some(seq), Some(ack), Some(flags)) = (fields.seq, fields.ack, fields.flags) else {
            return Ok(Flow::Apply);
        };
        let thread = match (sent, e.thread()) {
            (false, framed) => framed,
            (true, _) if self.contexts.in_interrupt(cpu) => None,
            (true, Some(framed)) => Some(framed),
            (true, None) => {
                let current = cpu.and_then(|c| model.current(c));
                let s = self.contexts.sender(cpu, ts, current);
                if let Some(s) = s {
                    self.named.push((self.found.len(), s));
                }
                s.map(|s| s.tid)
            }
        };
        let comm = thread
            .and_then(|t| model.thread(t))
            .map(|t| t.comm.as_str())
            .filter(|c| !c.is_empty());
        self.found.push(Packet {
            ts,
            sent,
            key: (seq, ack, flags),
            cpu,
            thread,
            comm: comm.map(Into::into),
        });
        Ok(Flow::Apply)
    }
}

impl Packets {
    /// The packets found, the pass over (`losses`: what it lost): a
    /// sender the model named is taken back where the whole trace shows it
    /// could not tell.
    pub fn into_packets(mut self, losses: &[Loss]) -> Vec<Packet> {
        for (i, s) in &self.named {
            if !self.contexts.holds(s, losses) {
                self.found[*i].thread = None;
                self.found[*i].comm = None;
            }
        }
        self.found
    }
}
