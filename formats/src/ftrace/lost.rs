//! Where ftrace lost events. The kernel prints `CPU:N [LOST n EVENTS]` just
//! before the first event of CPU N read after the loss, so the loss lies
//! between that CPU's last event before the marker and its next one after
//! it: the window closes when that next line is read.

use crate::event::Loss;

#[derive(Debug, Default)]
pub struct Gaps {
    /// Per CPU (`cpu_slot`), the time of its last event line read.
    last: Vec<i64>,
    /// Markers read whose CPU printed no event since: (CPU, from, count).
    open: Vec<(u32, i64, Option<u64>)>,
    /// Windows closed and not yet taken by the reader.
    pub windows: Vec<Loss>,
}

impl Gaps {
    /// A `[LOST]` marker of `cpu`; the window opens at that CPU's last
    /// event (at the last event read when the CPU printed none yet).
    pub fn marker(&mut self, cpu: u32, events: Option<u64>, last_read: i64) {
        let from = self
            .last
            .get(crate::event::cpu_slot(cpu))
            .copied()
            .filter(|t| *t != i64::MIN)
            .unwrap_or(last_read);
        self.open.push((cpu, from, events));
    }

    /// An event line of `cpu` at `ts` (in file order).
    pub fn event(&mut self, cpu: u32, ts: i64) {
        let i = crate::event::cpu_slot(cpu);
        if self.last.len() <= i {
            self.last.resize(i + 1, i64::MIN);
        }
        self.last[i] = ts;
        if self.open.is_empty() {
            return;
        }
        let windows = &mut self.windows;
        self.open.retain(|&(c, from, events)| {
            if c != cpu {
                return true;
            }
            windows.push(Loss {
                cpu: Some(c),
                from: from.min(ts),
                to: ts,
                events,
            });
            false
        });
    }

    /// The end of the input at `ts`: markers never followed by an event of
    /// their CPU lost the rest of it.
    pub fn end(&mut self, ts: i64) {
        for (c, from, events) in self.open.drain(..) {
            self.windows.push(Loss {
                cpu: Some(c),
                from: from.min(ts),
                to: ts.max(from),
                events,
            });
        }
    }

    /// A seek: the lines before are read again.
    pub fn forget(&mut self) {
        *self = Gaps::default();
    }
}
