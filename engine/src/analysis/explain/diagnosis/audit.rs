//! The diagnosis checked against the trace before it is said. Each piece
//! of the path given to a thread that held a CPU, or to a CPU that ran
//! nothing, is a claim; every claim is checked against the graph's states
//! directly (not through the runs the diagnosis read them from):
//!
//! - the waiting thread was waiting then, at the priority stated, and that
//!   is the priority the trace gave it the CPU with when it got it (a
//!   stale value — a creator's — makes orders the scheduler forbids);
//! - the holder ran then on a CPU the waiting thread could have had, at
//!   the priority stated, and the kind of cause fits the two priorities
//!   (a preemption by a higher one, never a lower one);
//! - "no thread ran" only where no thread's running state covers any of
//!   those CPUs, and no event there was in a thread's context.
//!
//! What fails is returned in words: the command line prints it as a
//! warning, and every test of explain fails on it.

use std::cmp::Ordering;

use crate::analysis::explain::graph::{Graph, Segment};
use crate::kernel::model::ThreadState;
use crate::kernel::priority::Priority;

/// What the diagnosis said of one piece of the path.
#[derive(Debug, Clone)]
pub(super) struct Claim {
    pub start: i64,
    pub end: i64,
    /// The waiting thread and the priority stated for it.
    pub of: (i64, Option<i32>),
    /// The CPUs it could have had.
    pub cpus: Vec<u32>,
    pub what: Said,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Said {
    /// `by` (tid, stated priority) held a CPU, with this order to `of`:
    /// `Greater` for a preemption, `Equal`, `Less` (told as an anomaly),
    /// or `None` when a priority is unknown.
    Held {
        by: (i64, Option<i32>),
        order: Option<Ordering>,
    },
    /// No thread ran on any of the CPUs.
    NoThread,
}

/// `tid`'s segments over [start, end), when they cover it without a gap.
fn covering(graph: &Graph, tid: i64, start: i64, end: i64) -> Option<Vec<&Segment>> {
    let segs: Vec<&Segment> = graph
        .line(tid)?
        .segments
        .iter()
        .filter(|s| s.start < end && s.end > start)
        .collect();
    let mut reached = start;
    for s in &segs {
        if s.start > reached {
            return None;
        }
        reached = reached.max(s.end);
    }
    (reached >= end).then_some(segs)
}

/// The one priority of `segs`, or why not.
fn one_prio(segs: &[&Segment]) -> Result<Option<i32>, String> {
    let first = segs.first().and_then(|s| s.prio);
    match segs.iter().find(|s| s.prio != first) {
        None => Ok(first),
        Some(s) => Err(format!("{first:?} then {:?}", s.prio)),
    }
}

/// The claims the graph contradicts, in words.
pub(super) fn audit(graph: &Graph, claims: &[Claim]) -> Vec<String> {
    let mut wrong = Vec::new();
    for c in claims {
        let at = format!("[{}, {}]", c.start, c.end);
        let (of, of_prio) = c.of;
        let waiting = covering(graph, of, c.start, c.end).filter(|segs| {
            segs.iter()
                .all(|s| matches!(s.state, ThreadState::WaitingCpu | ThreadState::Preempted))
        });
        let Some(w) = waiting else {
            wrong.push(format!("{at}: thread {of} was not waiting for a CPU then"));
            continue;
        };
        let w_prio = match one_prio(&w) {
            Ok(p) => p,
            Err(e) => {
                wrong.push(format!(
                    "{at}: thread {of}'s priority changed while said one: {e}"
                ));
                continue;
            }
        };
        if w_prio != of_prio {
            wrong.push(format!(
                "{at}: thread {of} stated at priority {of_prio:?}, the trace says {w_prio:?}"
            ));
        }
        // The priority it was given the CPU with, when it got it at the
        // end of this wait.
        let w_end = w.last().map_or(c.end, |s| s.end);
        let given = graph.line(of).and_then(|l| {
            l.segments
                .iter()
                .find(|s| s.start == w_end && s.state == ThreadState::Running)
        });
        if let Some(g) = given.filter(|g| g.prio.is_some() && g.prio != w_prio) {
            wrong.push(format!(
                "{at}: thread {of} waited at priority {w_prio:?} but was given the CPU at {:?}",
                g.prio
            ));
        }
        match c.what {
            Said::Held { by, order } => {
                let (tid, prio) = by;
                let ran = covering(graph, tid, c.start, c.end).filter(|segs| {
                    segs.iter().all(|s| {
                        s.state == ThreadState::Running
                            && s.cpu.is_some_and(|x| c.cpus.contains(&x))
                    })
                });
                let Some(r) = ran else {
                    wrong.push(format!(
                        "{at}: thread {tid} said to hold CPU {:?}, but did not run there then",
                        c.cpus
                    ));
                    continue;
                };
                let r_prio = match one_prio(&r) {
                    Ok(p) => p,
                    Err(e) => {
                        wrong.push(format!(
                            "{at}: thread {tid}'s priority changed while said one: {e}"
                        ));
                        continue;
                    }
                };
                if r_prio != prio {
                    wrong.push(format!(
                        "{at}: thread {tid} stated at priority {prio:?}, the trace says {r_prio:?}"
                    ));
                }
                let truth = match (r_prio, w_prio) {
                    (Some(b), Some(o)) => Some(Priority(b).urgency(Priority(o))),
                    _ => None,
                };
                if truth != order {
                    wrong.push(format!(
                        "{at}: thread {tid} said to be {order:?} than thread {of} in priority, the trace says {truth:?}"
                    ));
                }
            }
            Said::NoThread => {
                for (tid, line) in &graph.lines {
                    let ran = line.segments.iter().find(|s| {
                        s.state == ThreadState::Running
                            && s.start < c.end
                            && s.end > c.start
                            && s.cpu.is_some_and(|x| c.cpus.contains(&x))
                    });
                    if let Some(s) = ran {
                        wrong.push(format!(
                            "{at}: said no thread ran on CPU {:?}, but thread {tid} ran there over [{}, {}]",
                            c.cpus, s.start, s.end
                        ));
                    }
                }
                let seen = graph.evidence.iter().find(|e| {
                    e.ts > c.start && e.ts < c.end && c.cpus.contains(&e.cpu) && e.tid > 0
                });
                if let Some(e) = seen {
                    wrong.push(format!(
                        "{at}: said no thread ran on CPU {}, but an event at {} there is in thread {}'s context",
                        e.cpu, e.ts, e.tid
                    ));
                }
            }
        }
    }
    wrong
}
