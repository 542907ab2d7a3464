//! What a trace holds that a request can name — its event types, CPUs and
//! threads — taken in the same pass as the executions, so that an answer
//! that is empty can say why (`unmatched`) without reading the trace again.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashSet as HashSet;

use crate::event::{Event, ReadError};
use crate::kernel::model::{KEvent, KernelModel};
use crate::kernel::pass::{Analysis, PassSummary};
use crate::kernel::vocabulary::canonical_event;
use crate::run::{Flow, Tap};

/// What the events' headers say: the trace's event types, under their
/// canonical names, and its CPUs. A tap, since the pass hands analyses only
/// the events they asked for.
#[derive(Default)]
pub struct Headers {
    classes: HashSet<u64>,
    /// Events of one class, and of one CPU, come in runs: a run costs one
    /// comparison.
    last: Option<u64>,
    names: BTreeSet<String>,
    last_cpu: Option<u32>,
    cpus: BTreeSet<u32>,
}

impl Tap for Headers {
    fn event<'s, E: Event<'s>>(&mut self, ev: &E, _: &KernelModel) -> Result<Flow, ReadError> {
        let class = ev.class();
        if self.last != Some(class) {
            self.last = Some(class);
            if self.classes.insert(class) {
                self.names.insert(canonical_event(ev.name()).into_owned());
            }
        }
        let cpu = ev.cpu();
        if cpu != self.last_cpu {
            self.last_cpu = cpu;
            self.cpus.extend(cpu);
        }
        Ok(Flow::Apply)
    }
}

/// Every thread the kernel model knew during the pass, with its last name:
/// those freed on the way and those alive at the end.
#[derive(Default)]
pub struct Threads {
    names: BTreeMap<i64, String>,
}

impl Analysis for Threads {
    fn wants(&self, _: &str) -> bool {
        false
    }

    fn on_event(&mut self, _: &KEvent<'_>, _: Option<i64>, model: &KernelModel) {
        for t in model.freed() {
            self.names.insert(t.tid, t.comm.clone());
        }
    }

    fn finish(&mut self, model: &KernelModel, _: i64) {
        for t in model.threads() {
            self.names.insert(t.tid, t.comm.clone());
        }
    }

    /// It never keeps the pass going: a model that has all the executions
    /// it wants (`max_executions`) still ends the read early.
    fn done(&self) -> bool {
        true
    }
}

/// What the pass found in the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceFacts {
    /// Canonical names of the event types read.
    pub events: BTreeSet<String>,
    /// CPUs named by the events' headers (empty when none says: CPUs unknown).
    pub cpus: BTreeSet<u32>,
    /// Thread id to its last name (empty when the trace never named it).
    pub threads: BTreeMap<i64, String>,
    /// Time of the first and last events read (ns on the trace clock).
    pub span: Option<(i64, i64)>,
    /// The whole trace was read: what it lacks is known to be absent (a
    /// pass that stopped early, e.g. at `max_executions`, says nothing of
    /// what lies after).
    pub complete: bool,
}

impl TraceFacts {
    /// What `headers` and `threads` collected in the pass that `summary`
    /// describes.
    pub fn new(headers: Headers, threads: Threads, summary: &PassSummary) -> TraceFacts {
        TraceFacts {
            events: headers.names,
            cpus: headers.cpus,
            threads: threads.names,
            span: summary.first_ts.map(|first| (first, summary.last_ts)),
            complete: !summary.stopped_early,
        }
    }
}
