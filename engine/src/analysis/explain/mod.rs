//! Why an execution was late: the execution graph of its range (`graph`),
//! the critical path of its thread (`path`), the path's complement —
//! who ran while it waited, and the priority inversions (`complement`) —,
//! the threads related to it (`relations`), and the kernel facilities of the
//! range (`crate::analysis::facilities`).
//!
//! `explain_trace` (`run`) reads only the range: the reader seeks to a little
//! before it (the replay, so the model knows each thread's state at the
//! start) and the pass stops at its end.

pub mod complement;
pub mod graph;
pub mod path;
pub mod relations;
mod run;

use serde::Serialize;

use crate::analysis::facilities::Facilities;
use crate::duration::human;
use crate::kernel::pass::PassSummary;
use complement::Complement;
use graph::Graph;
use path::PathPiece;
use relations::Relations;
pub use run::{explain_trace, pick, request_for, Which};

/// What to explain.
#[derive(Debug, Clone)]
pub struct Request {
    /// The analysed thread.
    pub tid: i64,
    pub start: i64,
    pub end: i64,
    /// Read from this long before `start` (ns), so the model and the
    /// facilities know the state at `start`.
    pub replay_ns: i64,
    /// CPUs the complement looks at (all when `None`).
    pub cpus: Option<Vec<u32>>,
    /// The analysed thread's priority (kernel order), when known otherwise
    /// (e.g. from the execution); else taken from the graph.
    pub prio: Option<i32>,
}

/// The answer.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub graph: Graph,
    pub path: Vec<PathPiece>,
    pub complement: Complement,
    pub relations: Relations,
    pub facilities: Facilities,
    /// The analysed thread's priority used for inversions.
    pub prio: Option<i32>,
    /// What the range's pass read.
    pub pass: PassSummary,
}

/// The path, complement and relations of a graph already built.
pub fn explain_graph(
    graph: Graph,
    facilities: Facilities,
    req: &Request,
    pass: PassSummary,
) -> Explanation {
    let path = path::critical_path(&graph, req.tid, req.start, req.end);
    let prio = req.prio.or_else(|| {
        graph
            .line(req.tid)
            .and_then(|l| l.segments.iter().rev().find_map(|s| s.prio))
    });
    let mut complement = complement::complement(&graph, &path, req.tid, prio, req.cpus.as_deref());
    let relations = relations::relations(&graph, req.tid);
    for c in &mut complement.culprits {
        c.related = relations.direct.contains(&c.tid) || relations.indirect.contains(&c.tid);
    }
    Explanation {
        graph,
        path,
        complement,
        relations,
        facilities,
        prio,
        pass,
    }
}

/// One line saying what held the execution back the most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub text: String,
    pub inversion: bool,
}

impl Explanation {
    /// The main reason, in one line: the longest priority inversion by a
    /// thread unrelated to the analysed one if there is one, else the
    /// unrelated thread that held the path back longest (interference comes
    /// before the job's own threads: its creator or waker running is its own
    /// work), else the longest of all, else how the path spent its time.
    pub fn diagnosis(&self, tid: i64) -> Diagnosis {
        let me = self.graph.comm(tid);
        let prio = |p: Option<i32>| p.map_or("?".to_string(), |p| p.to_string());
        let c = &self.complement;
        let worst = c
            .culprits
            .iter()
            .find(|x| x.inversion && !x.related)
            .or_else(|| c.culprits.iter().find(|x| !x.related))
            .or(c.culprits.first());
        if let Some(w) = worst {
            // The path thread it held back longest.
            let held = c
                .intervals
                .iter()
                .filter(|h| h.running.iter().any(|r| r.tid == w.tid))
                .max_by_key(|h| {
                    h.running
                        .iter()
                        .filter(|r| r.tid == w.tid)
                        .map(|r| r.duration)
                        .sum::<i64>()
                });
            if let Some(h) = held {
                let how = if h.state == "preempted" {
                    "preempted"
                } else {
                    "kept waiting for a CPU"
                };
                let text = if w.inversion {
                    format!(
                        "{} (prio {}) {how} {} by {} (prio {}, lower than {me}'s {}): priority inversion",
                        h.path_comm,
                        prio(h.path_prio),
                        human(w.duration),
                        w.comm,
                        prio(w.prio),
                        prio(self.prio),
                    )
                } else {
                    format!(
                        "{} (prio {}) {how} {} by {} (prio {}, higher than or equal to {me}'s {}{})",
                        h.path_comm,
                        prio(h.path_prio),
                        human(w.duration),
                        w.comm,
                        prio(w.prio),
                        prio(self.prio),
                        if w.related {
                            ""
                        } else {
                            ", and unrelated to it"
                        }
                    )
                };
                return Diagnosis {
                    text,
                    inversion: w.inversion,
                };
            }
        }
        let mut per_state: Vec<(&'static str, i64)> = Vec::new();
        for p in &self.path {
            match per_state.iter_mut().find(|(s, _)| *s == p.state.name()) {
                Some(x) => x.1 += p.end - p.start,
                None => per_state.push((p.state.name(), p.end - p.start)),
            }
        }
        per_state.sort_by_key(|x| std::cmp::Reverse(x.1));
        let text = match per_state.first() {
            Some((s, d)) => format!(
                "{me}: nothing else held it back; its critical path was mostly {s} ({})",
                human(*d)
            ),
            None => format!("{me}: empty range"),
        };
        Diagnosis {
            text,
            inversion: false,
        }
    }
}
