//! From "execution K of a model" to an explanation, one code path for the
//! command line and the service: which execution (`pick`), what to read for
//! it (`request_for`), and the read of its range (`explain_trace`).

use std::path::Path;

use super::{explain_graph, Explanation, Request};
use crate::analysis::executions::{Execution, Executions, SortKey};
use crate::analysis::facilities::{FacilitiesAnalysis, Range};
use crate::reader::OpenOptions;
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

/// What to read for `x`: its range, after `replay_ns`. The path is walked
/// back from the thread the execution ends on; the thread it started on
/// (another one for different-TIDs executions) is tied to it.
pub fn request_for(x: &Execution, cpus: Option<Vec<u32>>, replay_ns: i64) -> Request {
    Request {
        tid: x.end_tid,
        start_tid: Some(x.start_tid),
        start: x.start,
        end: x.end,
        replay_ns,
        cpus,
        prio: if x.tid == x.end_tid { x.prio } else { None },
    }
}

/// Reads `req`'s range of the trace at `path` (opened with `options`) —
/// from a seek to its start minus the replay, up to its end — and explains
/// it.
pub fn explain_trace(
    path: &Path,
    options: OpenOptions,
    req: &Request,
    work: &Work<'_>,
) -> Result<Explanation, RunError> {
    let mut builder = GraphBuilder::new(req.start, req.end);
    let mut facilities = FacilitiesAnalysis::new(Range {
        start: req.start,
        end: req.end,
    });
    let ran = Pass::new(&mut [&mut builder, &mut facilities])
        .from(req.start.saturating_sub(req.replay_ns.max(0)))
        .until(req.end)
        .options(options)
        .read(path, work)?;
    Ok(explain_graph(
        builder.into_graph(),
        facilities.into_facilities(),
        req,
        ran.summary,
    ))
}
