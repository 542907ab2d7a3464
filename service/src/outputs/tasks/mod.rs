//! Real-time tasks, found with no configuration (`Session::tasks`, the
//! detection `sextant tasks` runs): a table of the tasks (`table.rs`) and,
//! per task, Tracealyzer's instance series as XY outputs, one per measure
//! (`instances.rs`). Every experiment has them; a trace with no recurring
//! thread has an empty table.
//!
//! The detection is one pass per trace: it runs on the first request of an
//! experiment and its tasks are kept until the experiment is deleted, so
//! that the table and the series number the tasks alike.

pub mod instances;
pub mod table;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sextant_engine::analysis::tasks::{Options, Task};
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::Work;
use sextant_engine::session::Session;
use uuid::Uuid;

use crate::params::Result;
use crate::traces::{cannot_run, ExperimentEntry};

/// The tasks of one experiment, each with its host's name when the
/// experiment holds several traces (one host each), in trace order. A
/// task's position is its id in every output.
pub struct Found {
    pub tasks: Vec<(Option<String>, Task)>,
    /// Whether any task has a host (the trees add a column for it).
    pub hosts: bool,
}

impl Found {
    pub fn task(&self, id: i64) -> Option<&Task> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.tasks.get(i))
            .map(|(_, t)| t)
    }
}

/// One experiment's slot: locked while its pass runs, so that requests
/// arriving meanwhile wait for it instead of reading the traces again.
type Slot = Arc<Mutex<Option<Arc<Found>>>>;

/// The tasks found per experiment, shared by the table and the series.
#[derive(Default)]
pub struct Detection {
    slots: Mutex<HashMap<Uuid, Slot>>,
}

impl Detection {
    /// The experiment's tasks: found by a pass over each trace the first
    /// time, kept afterwards (a failed pass is not kept: asked again, it
    /// runs again).
    pub fn of(&self, exp: &ExperimentEntry) -> Result<Arc<Found>> {
        let slot = self
            .slots
            .lock()
            .expect("not poisoned")
            .entry(exp.uuid)
            .or_default()
            .clone();
        let mut kept = slot.lock().expect("not poisoned");
        if let Some(found) = kept.as_ref() {
            return Ok(found.clone());
        }
        let found = Arc::new(detect(exp)?);
        *kept = Some(found.clone());
        Ok(found)
    }

    pub fn forget(&self, exp: Uuid) {
        self.slots.lock().expect("not poisoned").remove(&exp);
    }
}

/// The tasks of every trace of `exp`, with `sextant tasks`'s defaults.
fn detect(exp: &ExperimentEntry) -> Result<Found> {
    let several = exp.traces.len() > 1;
    let mut tasks = Vec::new();
    for t in &exp.traces {
        let session = Session::open(&t.path, OpenOptions::default(), None);
        let (found, warnings) = session
            .tasks(None, &Options::default(), &Work::none())
            .map_err(|e| cannot_run(format!("{}: finding its tasks: {e}", t.name)))?;
        for w in warnings {
            eprintln!("sextant: warning: {}: {w}", t.path.display());
        }
        // A served trace holds one host: named only when the experiment
        // mixes several, as the command line names hosts of a folder.
        let host = several.then(|| t.host.name.clone());
        tasks.extend(
            found
                .into_iter()
                .map(|(h, task)| (h.or(host.clone()), task)),
        );
    }
    Ok(Found {
        hosts: several,
        tasks,
    })
}
