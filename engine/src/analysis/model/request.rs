//! A request for executions as a user makes it — a model, or a preset with
//! its `--tid`s — read in one pass that also takes the trace's census, so
//! that an impossible request is refused and an empty answer says why
//! (`unmatched`). What `sextant analyze`, `explain` and `export` run.

use std::path::Path;

use super::census::{Headers, Threads, TraceFacts};
use super::{unmatched, ExecutionModel, Preset, ThreadFilter};
use crate::analysis::executions::{ExecutionAnalysis, Executions, Target};
use crate::reader::OpenOptions;
use crate::run::{Pass, Ran, RunError, Work};

/// What to find.
#[derive(Debug, Clone)]
pub struct Request {
    pub target: Target,
    /// The preset `target` was made from: an empty answer gives its advice.
    pub preset: Option<Preset>,
    /// Threads asked for by id (`--tid`): each must be in the trace.
    pub tids: Vec<i64>,
}

impl Request {
    /// A model's executions (its threads are in its own `threads`).
    pub fn model(model: ExecutionModel) -> Request {
        Request {
            target: Target::Model(Box::new(model)),
            preset: None,
            tids: Vec::new(),
        }
    }

    /// A preset on `threads`: a model where the preset is one, else the
    /// threads' states; `tids` (as the user gave them) must each be in the
    /// trace.
    pub fn preset(preset: Preset, threads: ThreadFilter, tids: Vec<i64>) -> Request {
        let target = match preset.model(threads.clone()) {
            Some(model) => Target::Model(Box::new(model)),
            None => Target::States(preset, threads),
        };
        Request {
            target,
            preset: Some(preset),
            tids,
        }
    }
}

/// Why a request found nothing at all.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Run(#[from] RunError),
    /// A `--tid` names no thread of the trace (the message names those it has).
    #[error("{0}")]
    UnknownThreads(String),
}

/// What `find` found.
#[derive(Debug)]
pub struct Found {
    pub executions: Executions,
    /// The reader's warnings followed by those on what the trace lacks for
    /// the request.
    pub ran: Ran,
    /// What the trace holds, for the checks of what is asked next (`explain
    /// --cpus`).
    pub facts: TraceFacts,
}

/// `req`'s executions in the trace at `path`.
pub fn find(
    path: &Path,
    options: OpenOptions,
    req: &Request,
    work: &Work<'_>,
) -> Result<Found, FindError> {
    let mut analysis = ExecutionAnalysis::new(req.target.clone());
    let (mut headers, mut threads) = (Headers::default(), Threads::default());
    let mut ran = Pass::new(&mut [&mut analysis, &mut threads])
        .tap(&mut headers)
        .options(options)
        .read(path, work)?;
    let facts = TraceFacts::new(headers, threads, &ran.summary);
    let name = path.display().to_string();
    if let Some(e) = unmatched::unknown_tids(&req.tids, &facts, &name) {
        return Err(FindError::UnknownThreads(e));
    }
    let executions = analysis.into_executions();
    ran.warnings.extend(unmatched::warnings(
        &req.target,
        req.preset,
        &executions,
        &facts,
        &name,
    ));
    Ok(Found {
        executions,
        ran,
        facts,
    })
}
