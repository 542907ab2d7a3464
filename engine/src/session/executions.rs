//! A model's executions in a trace: read from the trace's store when it
//! holds them, else found by a pass and stored; over one host, or each of
//! several on its own and then merged, on the timeline `sextant sync`
//! stored when there is one. What `analyze`, `explain`, `export`, the
//! TSP service's executions output, SQL and Python all ask.

use std::path::PathBuf;

use arrow_array::RecordBatch;

use super::hosts::{self, HostsOf};
use super::timeline::Timeline;
use super::{Error, InHost, Session};
use crate::analysis::executions::{Execution, Executions, Merged};
use crate::analysis::model::census::TraceFacts;
use crate::analysis::model::request::{self, FindError, Request};
use crate::analysis::model::ExecutionModel;
use crate::export;
use crate::hosts::HostPick;
use crate::reader::OpenOptions;
use crate::run::{Ran, Work};
// What a client names a stored answer, and where an answer came from.
use crate::store::results::{labelled, load_or_find, Key, StoredExecutions};
pub use crate::store::results::{Label, Source};

/// A model's executions over one host.
#[derive(Debug)]
pub struct HostExecutions {
    pub executions: Executions,
    pub ran: Ran,
    /// What the trace holds: known when the trace was read (not when the
    /// store answered).
    pub facts: Option<TraceFacts>,
    /// Where they came from: the store, or a pass (and where it kept them).
    pub source: Source,
    /// What the store could not do (a stored answer unusable, a label not
    /// kept): for the user's eyes, not errors.
    pub notes: Vec<String>,
}

/// A model's executions over one host or each of several.
#[derive(Debug)]
pub struct Found {
    pub executions: Executions,
    pub ran: Ran,
    /// What the trace holds (one host read from the trace, not the store).
    pub facts: Option<TraceFacts>,
    pub hosts: HostsOf,
    /// How to open each host again (by position in `hosts.names`).
    pub picks: Vec<HostPick>,
    /// The store's notes (see [`HostExecutions::notes`]).
    pub notes: Vec<String>,
    /// Where a pass kept what it found, when it did.
    pub kept: Option<PathBuf>,
}

impl Session {
    /// `asked`'s executions on host `pick`. With a store, they are read
    /// from it when it has them and stored when it has not, under `label`
    /// when given (the name a client gave the model). A `--tid` the trace
    /// does not have is an error; an answer emptied by what the trace lacks
    /// comes with warnings saying what (kept in the store with the
    /// executions, so that reading them again says it again).
    pub fn host_executions(
        &self,
        asked: &Request,
        pick: HostPick,
        label: Option<&Label>,
        work: &Work<'_>,
    ) -> Result<HostExecutions, Error> {
        let options = OpenOptions {
            host: pick,
            ..self.options
        };
        let mut facts = None;
        let pass = || -> Result<StoredExecutions, Error> {
            // A cancelled pass stays a `RunError` (see `is_cancelled`).
            let found = request::find(&self.trace, options, asked, work).map_err(|e| match e {
                FindError::Run(run) => Error::from(run),
                other => Error::from(other),
            })?;
            facts = Some(found.facts);
            Ok(StoredExecutions {
                executions: found.executions,
                summary: found.ran.summary,
                warnings: found.ran.warnings,
                labels: Vec::new(),
            })
        };
        // The store is kept per trace folder: one host of several is not
        // stored.
        let store = self.store().filter(|_| pick == HostPick::Sole);
        let key = Key::of(&asked.target);
        let (found, source, notes) =
            load_or_find(store.as_ref(), &key, self.options.lenient, label, pass)?;
        Ok(HostExecutions {
            executions: found.executions,
            ran: Ran {
                summary: found.summary,
                warnings: found.warnings,
            },
            facts,
            source,
            notes,
        })
    }

    /// `asked`'s executions on each host (the one `only` names, else all of
    /// them) on its own, merged in start order with each execution's host.
    /// A single host is read (and stored) as [`Session::host_executions`]
    /// does; several are not stored.
    pub fn executions_each(
        &self,
        asked: &Request,
        only: Option<&str>,
        work: &Work<'_>,
    ) -> Result<Found, Error> {
        let each = hosts::each(&self.trace, only)?;
        if let [(pick, _)] = each[..] {
            let one = self.host_executions(asked, pick, None, work)?;
            let kept = match one.source {
                Source::Pass { kept } => kept,
                Source::Store => None,
            };
            return Ok(Found {
                executions: one.executions,
                ran: one.ran,
                facts: one.facts,
                hosts: HostsOf::default(),
                picks: vec![pick],
                notes: one.notes,
                kept,
            });
        }
        let (mut parts, mut summaries, mut warnings) = (Vec::new(), Vec::new(), Vec::new());
        for (pick, name) in &each {
            let one = self
                .host_executions(asked, *pick, None, work)
                .map_err(|e| InHost::boxed(name, e))?;
            parts.push(one.executions);
            summaries.push(one.ran.summary);
            warnings.extend(one.ran.warnings.into_iter().map(|w| format!("{name}: {w}")));
        }
        let names: Vec<String> = each.iter().map(|(_, n)| n.clone()).collect();
        warnings.extend(hosts::apart(&names, &summaries));
        let merged = Merged::of(&asked.target, parts);
        Ok(Found {
            executions: merged.executions,
            ran: Ran {
                summary: hosts::summed(&summaries),
                warnings,
            },
            facts: None,
            hosts: HostsOf {
                names,
                of: merged.trace_of,
                origins: summaries.iter().map(|s| s.first_ts).collect(),
            },
            picks: each.into_iter().map(|(p, _)| p).collect(),
            notes: Vec::new(),
            kept: None,
        })
    }

    /// [`Session::executions_each`], with every host's executions then put
    /// on the timeline `sextant sync` stored for the trace, if any (a
    /// warning says so, or why it could not be used): what `analyze` and
    /// `export` show.
    pub fn executions(
        &self,
        asked: &Request,
        only: Option<&str>,
        work: &Work<'_>,
    ) -> Result<Found, Error> {
        let mut found = self.executions_each(asked, only, work)?;
        if let Some(places) = &self.places {
            let warnings = &mut found.ran.warnings;
            match hosts::on_shared_timeline(
                &self.trace,
                places,
                &mut found.executions,
                &mut found.hosts,
            )? {
                Some(Ok(note)) => {
                    // Their times are now comparable.
                    warnings.retain(|w| !w.starts_with(hosts::APART));
                    warnings.push(note);
                }
                Some(Err(why)) => warnings.push(why),
                None => {}
            }
        }
        Ok(found)
    }
}

/// A model's executions as the executions table (`export::executions`,
/// `schemas/exports.md`).
#[derive(Debug)]
pub struct Table {
    pub batches: Vec<RecordBatch>,
    /// The pass's warnings (kept in the store with the executions).
    pub warnings: Vec<String>,
    pub source: Source,
    /// The store's notes (see [`HostExecutions::notes`]).
    pub notes: Vec<String>,
}

impl Session {
    /// [`Session::host_executions`] as the executions table. Executions the
    /// store keeps are handed on as its arrays, never read into
    /// executions: what SQL and Python ask of many traces or many rows.
    pub fn host_executions_table(
        &self,
        asked: &Request,
        pick: HostPick,
        work: &Work<'_>,
    ) -> Result<Table, Error> {
        if let Some(store) = self.store().filter(|_| pick == HostPick::Sole) {
            let key = Key::of(&asked.target);
            // A stored answer that cannot be used is noted by the pass
            // below, which meets it again.
            if let Ok(Some(stored)) =
                StoredExecutions::load_table(&store, &key, self.options.lenient)
            {
                return Ok(Table {
                    batches: stored.batches,
                    warnings: stored.warnings,
                    source: Source::Store,
                    notes: Vec::new(),
                });
            }
        }
        let found = self.host_executions(asked, pick, None, work)?;
        let rows: Vec<&Execution> = found.executions.executions.iter().collect();
        Ok(Table {
            batches: vec![export::executions::table(&found.executions, &rows, None)?],
            warnings: found.ran.warnings,
            source: found.source,
            notes: found.notes,
        })
    }

    /// [`Session::executions`] as the executions table: of a trace of
    /// several hosts, every host's, with a `host` column, as `export`
    /// writes them.
    pub fn executions_table(&self, asked: &Request, work: &Work<'_>) -> Result<Table, Error> {
        if let [(pick, _)] = hosts::each(&self.trace, None)?[..] {
            return self.host_executions_table(asked, pick, work);
        }
        let found = self.executions(asked, None, work)?;
        let rows: Vec<&Execution> = found.executions.executions.iter().collect();
        let names: Vec<&str> = rows
            .iter()
            .map(|e| found.hosts.of(e).unwrap_or_default())
            .collect();
        Ok(Table {
            batches: vec![export::executions::table(
                &found.executions,
                &rows,
                Some(&names),
            )?],
            warnings: found.ran.warnings,
            source: Source::Pass { kept: None },
            notes: found.notes,
        })
    }
}

/// A model's executions in several traces (a TSP experiment's), merged.
#[derive(Debug)]
pub struct InTraces {
    pub merged: Merged,
    /// Where each trace's executions came from, by trace.
    pub sources: Vec<Source>,
    /// The stores' notes, with the trace each is about.
    pub notes: Vec<(usize, String)>,
}

/// Why one trace of several gave no executions.
#[derive(Debug)]
pub struct TraceFailure {
    /// Its position among the sessions given.
    pub trace: usize,
    pub error: Error,
}

/// `asked`'s executions in each session's trace (the sole host of each),
/// each read from its store or found by a pass and stored there under
/// `label`, each pass an equal share of `work`; put on `timeline` (the
/// store keeps each trace's own times), merged in start order (ties by
/// end, then thread) and numbered again.
pub fn in_traces(
    sessions: &[Session],
    timeline: &Timeline,
    asked: &Request,
    label: Option<&Label>,
    work: &Work<'_>,
) -> Result<InTraces, TraceFailure> {
    let (mut parts, mut sources, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    for (trace, session) in sessions.iter().enumerate() {
        let one = work
            .part(trace, sessions.len(), |w| {
                session.host_executions(asked, HostPick::Sole, label, w)
            })
            .map_err(|error| TraceFailure { trace, error })?;
        let mut executions = one.executions;
        timeline.retime(trace, &mut executions);
        parts.push(executions);
        sources.push(one.source);
        notes.extend(one.notes.into_iter().map(|n| (trace, n)));
    }
    Ok(InTraces {
        merged: Merged::of(&asked.target, parts),
        sources,
        notes,
    })
}

impl Session {
    /// The executions of `asked` the trace's store keeps under `label`
    /// (a client's name for a model), without reading the trace; `None`
    /// when it keeps none, or not under that label.
    pub fn kept_executions(&self, asked: &Request, label: &Label) -> Option<Executions> {
        let store = self.store()?;
        let kept = StoredExecutions::load(&store, &Key::of(&asked.target), self.options.lenient)
            .ok()??;
        kept.labels.contains(label).then_some(kept.executions)
    }

    /// Takes `label` off the executions of `model` the store keeps (they
    /// stay for the command line); nothing without a store.
    pub fn unlabel(&self, model: &ExecutionModel, label: &Label) -> Result<(), String> {
        let Some(store) = self.store() else {
            return Ok(());
        };
        StoredExecutions::unlabel(&store, model, label)
    }

    /// The models a server's client posted to an experiment named
    /// `experiment`, as the trace's store keeps them: each once, with its
    /// label and executions (units that cannot be used are passed over;
    /// `sextant store ls` says why).
    pub fn labelled(&self, experiment: &str) -> Vec<(ExecutionModel, Label, Executions)> {
        let Some(store) = self.store() else {
            return Vec::new();
        };
        labelled(&store, experiment)
            .into_iter()
            .map(|(model, label, kept)| (model, label, kept.executions))
            .collect()
    }
}
