//! Each thread's states over the trace, as intervals: the rows of a thread
//! status time graph, built from the kernel model's transitions. Memory grows
//! with the number of state changes (one `Interval` each), unless the
//! intervals are spilled to run files as the pass goes (`spilling`): then it
//! grows with the number of thread lives only.

use std::collections::HashMap;

pub use super::intervals::{Interval, ThreadRow};
use super::spill::Runs;
use crate::kernel::model::{KEvent, KernelModel, ThreadState};
use crate::kernel::pass::Analysis;

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
    /// Where finished intervals go when `waiting` reaches the budget.
    runs: Option<Runs>,
    /// Intervals in `rows` now.
    waiting: usize,
    /// `waiting` at which the next run is written: the budget, or twice
    /// what a run leaves (each row's latest), so that a trace with more
    /// rows than the budget does not write a run at every interval.
    spill_at: usize,
    /// Intervals of each row (by creation) written to `runs`.
    spilled: Vec<u64>,
}

/// A pass's thread lives, with their intervals spilled to runs (`Runs`)
/// but the latest few of each life.
pub struct Spilled {
    /// By creation, each with the intervals not written to a run.
    pub rows: Vec<ThreadRow>,
    /// Indices in `rows` by TID, then start (the table's order).
    pub order: Vec<usize>,
    /// Each row's intervals in all, runs and `rows` together.
    pub counts: Vec<u64>,
    pub runs: Runs,
}

impl Spilled {
    /// Every interval, lives in `order`: `emit` gets the life's place in
    /// `order` and the interval.
    pub fn merge(
        &self,
        emit: impl FnMut(usize, Interval) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.runs.merge(&self.rows, &self.order, emit)
    }
}

impl ThreadStates {
    /// States whose finished intervals are written to `runs` as the pass
    /// goes, whenever `runs.budget()` of them wait in memory.
    pub fn spilling(runs: Runs) -> ThreadStates {
        ThreadStates {
            spill_at: runs.budget(),
            runs: Some(runs),
            ..ThreadStates::default()
        }
    }

    fn push(&mut self, row: usize, start: i64, end: i64, state: ThreadState) {
        let r = &mut self.rows[row];
        r.end = r.end.max(end);
        if state == ThreadState::Unknown || end <= start {
            return;
        }
        match r.intervals.last_mut() {
            Some(last) if last.state == state && last.end == start => last.end = end,
            _ => {
                r.intervals.push(Interval { start, end, state });
                self.waiting += 1;
                if self.runs.is_some() && self.waiting >= self.spill_at {
                    self.spill();
                }
            }
        }
    }

    /// Rows by TID then start, ties by creation (as a stable sort of the
    /// rows by TID then start leaves them).
    fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by_key(|&i| (self.rows[i].tid, self.rows[i].start, i));
        order
    }

    /// Writes the waiting intervals but each row's latest as one run.
    fn spill(&mut self) {
        let order = self.order();
        self.spilled.resize(self.rows.len(), 0);
        let runs = self.runs.as_mut().expect("spilling");
        runs.write_run(&mut self.rows, &order, &mut self.spilled);
        self.waiting = self.rows.iter().map(|r| r.intervals.len()).sum();
        self.spill_at = runs.budget().max(2 * self.waiting);
    }

    /// The rows, by TID then start.
    pub fn into_rows(self) -> Vec<ThreadRow> {
        let mut rows = self.rows;
        rows.sort_by_key(|r| (r.tid, r.start));
        rows
    }

    /// The rows of a spilling pass, in the order `into_rows` gives them,
    /// their intervals read back with `Spilled::merge`; `Err` when a run
    /// could not be written. `None` for states that do not spill.
    pub fn into_spilled(mut self) -> Option<std::io::Result<Spilled>> {
        let mut runs = self.runs.take()?;
        if let Some(e) = runs.take_error() {
            return Some(Err(e));
        }
        let order = self.order();
        self.spilled.resize(self.rows.len(), 0);
        let counts = self
            .rows
            .iter()
            .zip(&self.spilled)
            .map(|(r, &s)| s + r.intervals.len() as u64)
            .collect();
        Some(Ok(Spilled {
            order,
            counts,
            rows: self.rows,
            runs,
        }))
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
