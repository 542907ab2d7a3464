//! Where a stream's tracer lost events. `events_discarded` is a cumulative
//! counter written when a packet closes; LTTng drops events while no
//! sub-buffer is free, that is between one packet's end and the next one's
//! beginning, so an increase is a window from the previous packet's end to
//! this packet's beginning (as Trace Compass places its "Lost event"
//! records), on the packet's CPU.

use crate::event::Loss;

use super::{Layout, PacketInfo};

#[derive(Debug, Default)]
pub struct Lost {
    /// Highest `events_discarded` seen.
    pub discarded: u64,
    /// End (ns) of the last packet met.
    last_end: Option<i64>,
    /// Windows found and not yet taken by the reader.
    pub windows: Vec<Loss>,
}

impl Lost {
    /// A packet met in file order; `read`: its events will be read (a
    /// packet skipped by a seek only moves the counter on).
    pub fn packet(&mut self, info: &PacketInfo, layout: &Layout, read: bool) {
        let clock = layout.streams.get(info.stream).and_then(|s| s.clock);
        let ns = |v: u64| match clock {
            Some(c) => layout.clocks[c].ns_from_origin(v),
            None => v as i64,
        };
        let begin = info.ts_begin.map(ns);
        if let Some(d) = info.events_discarded {
            if d > self.discarded && read {
                let to = begin.or(self.last_end).unwrap_or(i64::MIN);
                self.windows.push(Loss {
                    cpu: info.cpu,
                    from: self.last_end.unwrap_or(to).min(to),
                    to,
                    events: Some(d - self.discarded),
                });
            }
            self.discarded = self.discarded.max(d);
        }
        self.last_end = info.ts_end.map(ns).or(begin).or(self.last_end);
    }

    /// After a seek the previous packet is not the one read before.
    pub fn forget(&mut self) {
        self.last_end = None;
        self.windows.clear();
    }
}
