//! Why an execution was late: the execution graph of its range (`graph`),
//! the critical path walked back from its end (`path`), the path's
//! complement — who ran while it waited, and the priority inversions
//! (`complement`) —, the threads related to it (`relations`), the kernel
//! facilities of the range (`crate::analysis::facilities`), and the causes
//! ranked by what they cost on the path (`diagnosis`), with the packets
//! from other hosts that woke the path up (`remote`) when the trace is one
//! host of a synchronised set.
//!
//! `explain_trace` (`run`) reads only the range: the reader seeks to a little
//! before it (the replay, so the model knows each thread's state at the
//! start) and the pass stops at its end.

pub mod complement;
pub mod diagnosis;
pub mod graph;
mod lost;
pub mod path;
pub mod relations;
pub mod remote;
mod run;
pub mod shares;

use crate::analysis::facilities::Facilities;
use crate::kernel::pass::PassSummary;
use complement::{Complement, CpuRuns};
pub use diagnosis::Diagnosis;
use graph::Graph;
use path::PathPiece;
use relations::{Edge, Relations};
pub use run::{explain_trace, pick, request_for, Which};

/// What to explain.
#[derive(Debug, Clone)]
pub struct Request {
    /// The analysed thread: the one the execution ends on, where the
    /// critical path is walked back from.
    pub tid: i64,
    /// The thread the execution started on, when another one (a
    /// different-TIDs execution): it is tied to `tid` through creations and
    /// wake-ups.
    pub start_tid: Option<i64>,
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
    /// Who ran on each CPU in the range.
    pub runs: CpuRuns,
    pub path: Vec<PathPiece>,
    pub complement: Complement,
    pub relations: Relations,
    /// How the start thread leads to the analysed one (creations and
    /// wake-ups, in order), when the execution started on another thread
    /// and the trace connects them.
    pub tie: Option<Vec<Edge>>,
    pub facilities: Facilities,
    /// The analysed thread's priority used for inversions.
    pub prio: Option<i32>,
    /// What the range's pass read.
    pub pass: PassSummary,
    /// Packets this host received from other hosts, in reception order:
    /// empty unless the session found a synchronisation stored for the
    /// trace (`remote`).
    pub arrivals: Vec<remote::Arrival>,
    /// What the explanation could not use and the user should know (a
    /// stored synchronisation of an earlier sextant: no host is named).
    pub notes: Vec<String>,
}

/// The path, complement and relations of a graph already built.
pub fn explain_graph(
    graph: Graph,
    facilities: Facilities,
    req: &Request,
    pass: PassSummary,
) -> Explanation {
    let path = path::critical_path(&graph, req.tid, req.start, req.end);
    let prio = req.prio.or_else(|| graph.last_prio(req.tid));
    let runs = CpuRuns::new(&graph);
    let mut complement =
        complement::complement(&graph, &runs, &path, req.tid, prio, req.cpus.as_deref());
    let tie = req
        .start_tid
        .filter(|s| *s != req.tid)
        .and_then(|s| relations::tie(&graph, s, req.tid));
    // The analysed thread's creation (from the replay, maybe) and the tie
    // relate threads as well as the range's own interactions.
    let mut extra: Vec<Edge> = tie.clone().unwrap_or_default();
    if let Some(c) = graph.creations.get(&req.tid) {
        extra.push(Edge {
            ts: c.ts,
            from: c.parent,
            to: c.child,
            how: relations::How::Created,
        });
    }
    let relations = relations::relations(&graph, req.tid, &extra);
    for c in &mut complement.culprits {
        c.related = relations.direct.contains(&c.tid) || relations.indirect.contains(&c.tid);
    }
    Explanation {
        graph,
        runs,
        path,
        complement,
        relations,
        tie,
        facilities,
        prio,
        pass,
        arrivals: Vec::new(),
        notes: Vec::new(),
    }
}

impl Explanation {
    /// The causes ranked by what they cost on the path, and the line that
    /// names the main one (`tid`: the analysed thread).
    pub fn diagnosis(&self, tid: i64) -> Diagnosis {
        diagnosis::diagnose(&diagnosis::Inputs {
            graph: &self.graph,
            runs: &self.runs,
            path: &self.path,
            relations: &self.relations,
            analysed: tid,
            prio: self.prio,
            arrivals: &self.arrivals,
        })
    }
}
