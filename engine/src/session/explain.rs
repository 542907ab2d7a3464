//! Why one execution was late: a second pass over only its range (after a
//! seek, with a short replay before it), and the report `explain --format
//! json`, the Python package and scripts read (its critical path, the
//! path's complement with the priority inversions, the related threads,
//! the kernel facilities and the diagnosis).

use serde::Serialize;

use super::{Error, Session};
use crate::analysis::executions::Execution;
use crate::analysis::explain::path::{Link, PathState};
use crate::analysis::explain::{self, explain_trace, request_for, Diagnosis, Explanation};
use crate::analysis::facilities::Facilities;
use crate::hosts::HostPick;
use crate::reader::OpenOptions;
use crate::run::{RunError, Work};

/// What an explanation reads around an execution.
#[derive(Debug, Clone, Default)]
pub struct Around {
    /// Only these CPUs' threads in "who ran" (`None`: every CPU).
    pub cpus: Option<Vec<u32>>,
    /// Read this long before the execution, so each thread's state (and
    /// each futex's, queue's and timer's) is known at its start.
    pub replay_ns: i64,
}

impl Session {
    /// The explanation of `execution`, found on host `pick`.
    pub fn explain(
        &self,
        execution: &Execution,
        pick: HostPick,
        around: &Around,
        work: &Work<'_>,
    ) -> Result<Explanation, Error> {
        let request = request_for(execution, around.cpus.clone(), around.replay_ns);
        Ok(self.explain_range(&request, pick, work)?)
    }

    /// The explanation `request` asks for (a thread over a range), on host
    /// `pick`.
    pub fn explain_range(
        &self,
        request: &explain::Request,
        pick: HostPick,
        work: &Work<'_>,
    ) -> Result<Explanation, RunError> {
        let options = OpenOptions {
            host: pick,
            ..self.options
        };
        explain_trace(&self.trace, options, request, work)
    }
}

/// One piece of the critical path.
#[derive(Debug, Serialize)]
pub struct Piece<'a> {
    pub tid: i64,
    pub comm: &'a str,
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub woken_by: Option<explain::graph::Context>,
    #[serde(flatten)]
    pub link: Link,
    pub start: i64,
    pub end: i64,
}

/// What the second pass read.
#[derive(Debug, Serialize)]
pub struct Read {
    pub events: u64,
    pub decoded: u64,
    pub start: Option<i64>,
    pub end: i64,
}

/// The report of one explanation, as `explain --format json` writes it.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// The execution's host, when the trace holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<&'a str>,
    pub execution: &'a Execution,
    pub prio: Option<i32>,
    pub priority: String,
    pub critical_path: Vec<Piece<'a>>,
    /// Each thread of the path with its part of the time, per state.
    pub by_thread: Vec<explain::shares::Share>,
    pub complement: &'a [explain::complement::Held],
    pub culprits: &'a [explain::complement::Culprit],
    pub relations: &'a explain::relations::Relations,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie: Option<&'a [explain::relations::Edge]>,
    pub facilities: &'a Facilities,
    pub diagnosis: String,
    pub inversion: bool,
    pub causes: Vec<explain::diagnosis::Ranked>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contradictions: Vec<String>,
    pub read: Read,
}

/// The report of `e`, the explanation of `execution` (on `host` when the
/// trace holds several), with its diagnosis.
pub fn report<'a>(
    execution: &'a Execution,
    host: Option<&'a str>,
    e: &'a Explanation,
    diagnosis: Diagnosis,
) -> Report<'a> {
    let tid = execution.end_tid;
    Report {
        host,
        execution,
        prio: e.prio,
        priority: e.graph.priority(tid, e.prio),
        critical_path: e
            .path
            .iter()
            .map(|p| Piece {
                tid: p.tid,
                comm: e.graph.comm(p.tid),
                state: p.state.name(),
                woken_by: match p.state {
                    PathState::Blocked { woken_by } => woken_by,
                    _ => None,
                },
                link: p.link,
                start: p.start,
                end: p.end,
            })
            .collect(),
        by_thread: explain::shares::by_thread(&e.path, &e.graph),
        complement: &e.complement.intervals,
        culprits: &e.complement.culprits,
        relations: &e.relations,
        tie: e.tie.as_deref(),
        facilities: &e.facilities,
        diagnosis: diagnosis.text,
        inversion: diagnosis.inversion,
        causes: diagnosis.causes,
        contradictions: diagnosis.contradictions,
        read: Read {
            events: e.pass.events,
            decoded: e.pass.decoded,
            start: e.pass.first_ts,
            end: e.pass.last_ts,
        },
    }
}
