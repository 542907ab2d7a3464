//! From "execution K of a model" to an explanation, one code path for the
//! command line and the service: which execution (`pick`), what to read for
//! it (`request_for`), and the read of its range (`explain_trace`).

use std::path::Path;

use super::{explain_graph, Explanation, Request};
use crate::analysis::executions::{Execution, Executions, SortKey};
use crate::analysis::facilities::{FacilitiesAnalysis, Range};
use crate::run::{Pass, RunError, Work};

use super::graph::GraphBuilder;

/// Which execution of a model to explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// By index in start order (as `analyze` lists them).
    Index(usize),
    /// By rank in duration order: 0 is the longest.
    Rank(usize),
}

/// The execution `which` names, or why there is none.
pub fn pick(executions: &Executions, which: Which) -> Result<&Execution, String> {
    let found = executions.executions.len();
    let chosen = match which {
        Which::Index(k) => executions.executions.get(k),
        Which::Rank(k) => executions.sorted(SortKey::Duration).get(k).copied(),
    };
    chosen.ok_or_else(|| {
        let (what, range) = match which {
            Which::Index(k) => (format!("no execution {k}"), "indices"),
            Which::Rank(0) => ("no execution to explain".to_string(), "ranks"),
            Which::Rank(k) => (format!("no execution of rank {k}"), "ranks"),
        };
        match found {
            0 => format!(
                "{what}: the model `{}` found none in this trace",
                executions.name
            ),
            n => format!(
                "{what}: the model `{}` found {n} ({range} 0 to {})",
                executions.name,
                n - 1
            ),
        }
    })
}

/// What to read for `x`: its thread over its range, after `replay_ns`.
pub fn request_for(x: &Execution, cpus: Option<Vec<u32>>, replay_ns: i64) -> Request {
    Request {
        tid: x.tid,
        start: x.start,
        end: x.end,
        replay_ns,
        cpus,
        prio: x.prio,
    }
}

/// Reads `req`'s range of the trace at `path` — from a seek to its start
/// minus the replay, up to its end — and explains it.
pub fn explain_trace(path: &Path, req: &Request, work: &Work<'_>) -> Result<Explanation, RunError> {
    let mut builder = GraphBuilder::new(req.start, req.end);
    let mut facilities = FacilitiesAnalysis::new(Range {
        start: req.start,
        end: req.end,
    });
    let ran = Pass::new(&mut [&mut builder, &mut facilities])
        .from(req.start.saturating_sub(req.replay_ns.max(0)))
        .until(req.end)
        .read(path, work)?;
    Ok(explain_graph(
        builder.into_graph(),
        facilities.into_facilities(),
        req,
        ran.summary,
    ))
}
