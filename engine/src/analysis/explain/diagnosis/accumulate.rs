//! Pieces of the path merged into causes: one line per kind and per names
//! of the threads involved (28 short-lived workers all named `rt_worker`
//! make one line, with the count, the total and the longest), then the
//! inversion threshold, then the words.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::words::{self, Naming};
use super::{Cause, Party, Ranked, Threads, INVERSION_NS};
use crate::analysis::explain::graph::Context;

/// What makes two pieces the same cause: the kind, the threads involved
/// (by name and priority: the same words) and the flags that change the
/// sentence.
type Key = (u8, String, String, i64);

/// The threads one cause stands for: `by` (or the one that ran) and `of`.
#[derive(Default)]
struct Tids {
    by: HashSet<i64>,
    of: HashSet<i64>,
}

#[derive(Default)]
pub(super) struct Accumulator {
    causes: Vec<Ranked>,
    tids: Vec<Tids>,
    index: HashMap<Key, usize>,
}

fn side(p: &Party) -> String {
    format!("{}\u{1f}{}", p.name(), p.priority)
}

fn key(c: &Cause) -> Key {
    let none = String::new;
    match c {
        Cause::Preemption { by, of, waiting } => (0, side(by), side(of), *waiting as i64),
        Cause::Inversion { by, of, .. } => (1, side(by), side(of), 0),
        Cause::SamePriority { by, of } => (2, side(by), side(of), 0),
        Cause::Latency { by, of, long, .. } => (3, side(by), side(of), *long as i64),
        Cause::IdleCpu { of, cpu, long } => (
            4,
            cpu.map_or(none(), |c| c.to_string()),
            side(of),
            *long as i64,
        ),
        Cause::LateTimer {
            of,
            armed_late,
            ran,
            ..
        } => (
            5,
            ran.as_ref().map_or_else(none, side),
            side(of),
            *armed_late as i64,
        ),
        Cause::Interrupt { of, context } => {
            let c = match context {
                Context::Irq { irq } => *irq,
                Context::Softirq { vec } => 1000 + vec,
                _ => -1,
            };
            (6, none(), side(of), c)
        }
        Cause::Blocked { of } => (7, none(), side(of), 0),
        Cause::Timer { of } => (8, none(), side(of), 0),
        Cause::Work { of } => (9, none(), side(of), 0),
        Cause::Serving { of, waiter } => (10, side(waiter), side(of), 0),
        Cause::Creating { of, child, .. } => (11, side(child), side(of), 0),
        Cause::Unknown { of } => (12, none(), side(of), 0),
        Cause::Lost { of, window, .. } => (13, none(), side(of), *window as i64),
        // Each packet its own line: the sentence gives its emission time.
        Cause::Packet { of, from, sent, .. } => (14, from.clone(), side(of), *sent),
    }
}

/// The threads on each side of a cause.
fn parties(c: &Cause) -> (Option<&Party>, &Party) {
    match c {
        Cause::Preemption { by, of, .. }
        | Cause::Inversion { by, of, .. }
        | Cause::SamePriority { by, of }
        | Cause::Latency { by, of, .. } => (Some(by), of),
        Cause::LateTimer { of, ran, .. } => (ran.as_ref(), of),
        Cause::IdleCpu { of, .. }
        | Cause::Interrupt { of, .. }
        | Cause::Packet { of, .. }
        | Cause::Blocked { of }
        | Cause::Timer { of }
        | Cause::Work { of }
        | Cause::Serving { of, .. }
        | Cause::Creating { of, .. }
        | Cause::Unknown { of }
        | Cause::Lost { of, .. } => (None, of),
    }
}

impl Accumulator {
    pub(super) fn add(&mut self, cause: Cause, cost: i64, interference: bool, inferred: bool) {
        if cost <= 0 {
            return;
        }
        let mut tids = Tids::default();
        let (by, of) = parties(&cause);
        tids.by.extend(by.map(|p| p.tid));
        tids.of.insert(of.tid);
        let ranked = Ranked {
            cause,
            cost,
            interference,
            text: String::new(),
            count: 1,
            longest: cost,
            threads: Threads::default(),
            inferred,
        };
        self.merge(ranked, tids);
    }

    fn merge(&mut self, more: Ranked, tids: Tids) {
        let k = key(&more.cause);
        let Some(&i) = self.index.get(&k) else {
            self.index.insert(k, self.causes.len());
            self.causes.push(more);
            self.tids.push(tids);
            return;
        };
        let r = &mut self.causes[i];
        r.cost += more.cost;
        r.count += more.count;
        r.longest = r.longest.max(more.longest);
        r.inferred |= more.inferred;
        r.interference |= more.interference;
        match (&mut r.cause, &more.cause) {
            // The late timer's lateness is the largest seen.
            (Cause::LateTimer { late, .. }, Cause::LateTimer { late: m, .. }) => {
                *late = (*late).max(*m)
            }
            (Cause::Creating { others, .. }, Cause::Creating { others: m, .. }) => *others += m,
            _ => {}
        }
        let t = &mut self.tids[i];
        t.by.extend(tids.by);
        t.of.extend(tids.of);
    }

    /// The causes, longest first, in words. An inversion that cost less
    /// than `INVERSION_NS` in all is told as the preemption it was.
    pub(super) fn finish(self, rtos: bool) -> Vec<Ranked> {
        let mut out = Accumulator::default();
        for (mut r, tids) in self.causes.into_iter().zip(self.tids) {
            if r.cost < INVERSION_NS {
                if let Cause::Inversion { by, of, .. } = r.cause {
                    r.cause = if by.prio.is_some() && by.prio == of.prio {
                        Cause::SamePriority { by, of }
                    } else {
                        Cause::Preemption {
                            by,
                            of,
                            waiting: false,
                        }
                    };
                }
            }
            out.merge(r, tids);
        }
        // A name shared by threads in different lines gets its TIDs.
        let mut by_name: HashMap<String, HashSet<i64>> = HashMap::default();
        for (r, t) in out.causes.iter().zip(&out.tids) {
            let (by, of) = parties(&r.cause);
            if let Some(b) = by {
                by_name.entry(b.name()).or_default().extend(&t.by);
            }
            by_name.entry(of.name()).or_default().extend(&t.of);
        }
        let repeated: HashSet<String> = by_name
            .into_iter()
            .filter(|(_, t)| t.len() > 1)
            .map(|(n, _)| n)
            .collect();
        let mut causes: Vec<Ranked> = out
            .causes
            .into_iter()
            .zip(out.tids)
            .map(|(mut r, t)| {
                r.threads = Threads {
                    by: t.by.len(),
                    of: t.of.len(),
                };
                let naming = Naming {
                    rtos,
                    repeated: &repeated,
                    threads: r.threads,
                };
                r.text = words::sentence(&r, &naming);
                r
            })
            .collect();
        causes.sort_by(|a, b| b.cost.cmp(&a.cost).then_with(|| a.text.cmp(&b.text)));
        causes
    }
}
