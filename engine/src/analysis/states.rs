//! Each thread's states over the trace, as intervals: the rows of a thread
//! status time graph, built from the kernel model's transitions. Memory grows
//! with the number of state changes (one `Interval` each).

use std::collections::HashMap;

use crate::kernel::model::{KEvent, KernelModel, ThreadState};
use crate::kernel::pass::Analysis;

/// A thread in one state from `start` to `end` (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: i64,
    pub end: i64,
    pub state: ThreadState,
}

/// One thread's life in the trace (a TID reused after `sched_process_free`
/// gets a new row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRow {
    pub tid: i64,
    pub pid: Option<i64>,
    pub comm: String,
    pub start: i64,
    pub end: i64,
    /// In time order, contiguous except where the state was unknown.
    pub intervals: Vec<Interval>,
}

struct OpenRow {
    row: usize,
    state: ThreadState,
    since: i64,
}

/// Collects every thread's state intervals in the pass.
#[derive(Default)]
pub struct ThreadStates {
    rows: Vec<ThreadRow>,
    open: HashMap<i64, OpenRow>,
}

impl ThreadStates {
    fn push(&mut self, row: usize, start: i64, end: i64, state: ThreadState) {
        let r = &mut self.rows[row];
        r.end = r.end.max(end);
        if state == ThreadState::Unknown || end <= start {
            return;
        }
        match r.intervals.last_mut() {
            Some(last) if last.state == state && last.end == start => last.end = end,
            _ => r.intervals.push(Interval { start, end, state }),
        }
    }

    /// The rows, by TID then start.
    pub fn into_rows(self) -> Vec<ThreadRow> {
        let mut rows = self.rows;
        rows.sort_by_key(|r| (r.tid, r.start));
        rows
    }

    fn transitions(&mut self, ev: &KEvent<'_>, model: &KernelModel) {
        for tr in model.transitions() {
            if !self.open.contains_key(&tr.tid) {
                self.rows.push(ThreadRow {
                    tid: tr.tid,
                    pid: None,
                    comm: String::new(),
                    start: tr.from_since,
                    end: tr.ts,
                    intervals: Vec::new(),
                });
                self.open.insert(
                    tr.tid,
                    OpenRow {
                        row: self.rows.len() - 1,
                        state: tr.from,
                        since: tr.from_since,
                    },
                );
            }
            let open = self.open.get_mut(&tr.tid).expect("inserted above");
            let (row, from_since) = (open.row, open.since);
            open.state = tr.to;
            open.since = tr.ts;
            self.push(row, from_since, tr.ts, tr.from);
        }
        for t in model.freed() {
            if let Some(o) = self.open.remove(&t.tid) {
                self.push(o.row, o.since, ev.ts, o.state);
                let r = &mut self.rows[o.row];
                r.comm.clone_from(&t.comm);
                r.pid = t.pid;
            }
        }
    }

    fn close_all(&mut self, model: &KernelModel, end: i64) {
        let open: Vec<(i64, OpenRow)> = self.open.drain().collect();
        for (tid, o) in open {
            self.push(o.row, o.since, end, o.state);
            if let Some(t) = model.thread(tid) {
                let r = &mut self.rows[o.row];
                r.comm.clone_from(&t.comm);
                r.pid = t.pid;
            }
        }
    }
}

impl Analysis for ThreadStates {
    fn wants(&self, _canonical: &str) -> bool {
        // The model's scheduling events are decoded anyway.
        false
    }

    fn on_event(&mut self, ev: &KEvent<'_>, _thread: Option<i64>, model: &KernelModel) {
        self.transitions(ev, model);
    }

    fn finish(&mut self, model: &KernelModel, end: i64) {
        self.close_all(model, end);
    }
}
