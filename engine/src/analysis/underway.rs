//! Executions under way, kept in two parts by how often they are touched.
//! A scheduling event reads or writes an execution's step and CPU set (the
//! hot part, a few words by thread); its start, names, time snapshot and
//! nested executions (the cold part, over 100 bytes) are touched only when
//! it starts or ends. Whole executions in one map (168 bytes a bucket, 2.7
//! MB for 10,000 threads under way) left the L2 cache, and every switch of
//! a measured thread paid for a miss that the hot map alone does not.

use rustc_hash::FxHashMap as HashMap;

use crate::analysis::execution::Execution;
use crate::kernel::model::Totals;

/// An execution under way.
#[derive(Debug, Clone)]
pub(super) struct Active {
    /// Next event expected (same-TID mode).
    pub step: usize,
    /// CPUs the measured thread ran on so far (`execution::cpu_bit`).
    pub cpus: u64,
    pub rest: Started,
}

/// What an execution under way keeps until it ends.
#[derive(Debug, Clone)]
pub(super) struct Started {
    pub start: i64,
    pub start_tid: i64,
    pub start_comm: String,
    /// The thread measured.
    pub tid: i64,
    pub snapshot: Totals,
    pub prio: Option<i32>,
    pub nested: Vec<Execution>,
    pub nested_active: Option<Box<Active>>,
}

/// An execution's hot part.
#[derive(Debug, Clone, Copy)]
struct Hot {
    step: usize,
    cpus: u64,
    /// Its cold part's place in `Underway::started`.
    slot: usize,
}

/// Executions under way: by thread (a keyed model's, one per thread, which
/// is the thread it measures), and the one execution of a model with no
/// `$tid` (key `None`).
#[derive(Debug, Default)]
pub(super) struct Underway {
    by_thread: HashMap<i64, Hot>,
    /// Cold parts, with the thread each belongs to, packed: a removal moves
    /// the last one into the hole.
    started: Vec<(i64, Started)>,
    unkeyed: Option<Active>,
}

impl Underway {
    pub fn len(&self) -> usize {
        self.by_thread.len() + usize::from(self.unkeyed.is_some())
    }

    /// The step `tid`'s execution expects next.
    pub fn step(&self, tid: i64) -> Option<usize> {
        self.by_thread.get(&tid).map(|h| h.step)
    }

    pub fn set_step(&mut self, tid: i64, step: usize) {
        if let Some(h) = self.by_thread.get_mut(&tid) {
            h.step = step;
        }
    }

    /// `tid` went running on the CPU of `bit`: it joins the CPU set of the
    /// executions that measure it.
    pub fn ran(&mut self, tid: i64, bit: u64) {
        if let Some(h) = self.by_thread.get_mut(&tid) {
            h.cpus |= bit;
        }
        if let Some(a) = self.unkeyed.as_mut().filter(|a| a.rest.tid == tid) {
            a.cpus |= bit;
        }
    }

    /// The cold part of `tid`'s execution (its nested executions).
    pub fn started(&self, tid: i64) -> Option<&Started> {
        let h = self.by_thread.get(&tid)?;
        self.started.get(h.slot).map(|(_, s)| s)
    }

    pub fn started_mut(&mut self, tid: i64) -> Option<&mut Started> {
        let h = self.by_thread.get(&tid)?;
        self.started.get_mut(h.slot).map(|(_, s)| s)
    }

    /// Puts `a` under `key`; answers the execution it replaces. Under a
    /// thread, `a` must measure that thread.
    pub fn insert(&mut self, key: Option<i64>, a: Active) -> Option<Active> {
        let Some(tid) = key else {
            return self.unkeyed.replace(a);
        };
        let Active { step, cpus, rest } = a;
        if let Some(h) = self.by_thread.get_mut(&tid) {
            if let Some((_, cold)) = self.started.get_mut(h.slot) {
                let old = Active {
                    step: h.step,
                    cpus: h.cpus,
                    rest: std::mem::replace(cold, rest),
                };
                h.step = step;
                h.cpus = cpus;
                return Some(old);
            }
        }
        let slot = self.started.len();
        self.started.push((tid, rest));
        self.by_thread.insert(tid, Hot { step, cpus, slot });
        None
    }

    pub fn remove(&mut self, key: Option<i64>) -> Option<Active> {
        let Some(tid) = key else {
            return self.unkeyed.take();
        };
        let h = self.by_thread.remove(&tid)?;
        if h.slot >= self.started.len() {
            return None;
        }
        let (_, rest) = self.started.swap_remove(h.slot);
        if let Some((moved, _)) = self.started.get(h.slot) {
            if let Some(m) = self.by_thread.get_mut(moved) {
                m.slot = h.slot;
            }
        }
        Some(Active {
            step: h.step,
            cpus: h.cpus,
            rest,
        })
    }
}
