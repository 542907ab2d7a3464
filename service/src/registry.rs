//! The one list of outputs and configuration types. An output every
//! experiment has is one line in `Registry::new`'s outputs; a configuration
//! type (whose configurations derive outputs) one line in its kinds. Every
//! request on an output goes through `resolve`: there is no other place that
//! knows which outputs exist.

use std::sync::Arc;

use serde_json::Value;
use sextant_engine::analysis::tasks::instances::Measure;
use uuid::Uuid;

use super::configs::Store;
use super::executions::ExecutionModels;
use super::explain::Explanations;
use super::outputs::btf_events::BTF_EVENTS;
use super::outputs::btf_semaphores::BTF_SEMAPHORES;
use super::outputs::btf_signals::BtfSignals;
use super::outputs::btf_tasks::BTF_TASKS;
use super::outputs::event_types::EventTypes;
use super::outputs::events::EventsTable;
use super::outputs::histogram::Histogram;
use super::outputs::tasks::instances::Instances;
use super::outputs::tasks::table::Table as TasksTable;
use super::outputs::tasks::Detection;
use super::outputs::thread_status::ThreadStatus;
use super::provider::{ConfigKind, Configuration, Output, Parent};
use super::traces::ExperimentEntry;

pub struct Registry {
    /// The outputs every experiment has, by id, in the order they are
    /// listed: the fixed ones, then the parents of the configuration kinds.
    fixed: Vec<(String, Arc<dyn Output>)>,
    kinds: Vec<Arc<dyn ConfigKind>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

impl Registry {
    pub fn new() -> Registry {
        // The tasks table and their instance series share one detection.
        let tasks = Arc::new(Detection::default());
        let instances = Measure::ALL.map(|measure| {
            Arc::new(Instances {
                measure,
                detection: tasks.clone(),
            }) as Arc<dyn Output>
        });
        let mut outputs: Vec<Arc<dyn Output>> = vec![
            Arc::new(ThreadStatus),
            Arc::new(Histogram),
            Arc::new(EventsTable::default()),
            Arc::new(EventTypes),
            Arc::new(TasksTable(tasks)),
        ];
        outputs.extend(instances);
        outputs.extend([
            Arc::new(BTF_TASKS) as Arc<dyn Output>,
            Arc::new(BTF_SEMAPHORES),
            Arc::new(BTF_EVENTS),
            Arc::new(BtfSignals),
        ]);
        let kinds: Vec<Arc<dyn ConfigKind>> =
            vec![Arc::new(ExecutionModels), Arc::new(Explanations)];
        let parents = kinds
            .iter()
            .map(|k| Arc::new(Parent(k.clone())) as Arc<dyn Output>);
        let fixed = outputs
            .into_iter()
            .chain(parents)
            .map(|o| {
                let id = o.descriptor()["id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                (id, o)
            })
            .collect();
        Registry { fixed, kinds }
    }

    /// The output `id` of experiment `exp`: a fixed one, or one derived from
    /// a configuration posted to it (`<prefix>:<configuration id>`).
    pub fn resolve(
        &self,
        configs: &Store<dyn Configuration>,
        exp: Uuid,
        id: &str,
    ) -> Option<Arc<dyn Output>> {
        if let Some((_, o)) = self.fixed.iter().find(|(i, _)| i == id) {
            return Some(o.clone());
        }
        let (prefix, config) = id.split_once(':')?;
        configs.find(exp, config)?.output(prefix)
    }

    /// The descriptors of the experiment's outputs: the fixed ones that
    /// apply to its traces, then each kind's derived ones in the order
    /// posted.
    pub fn descriptors(
        &self,
        configs: &Store<dyn Configuration>,
        exp: &ExperimentEntry,
    ) -> Vec<Value> {
        self.outputs(configs, exp)
            .iter()
            .map(|o| o.descriptor())
            .collect()
    }

    /// The experiment's outputs, in the order listed.
    pub fn outputs(
        &self,
        configs: &Store<dyn Configuration>,
        exp: &ExperimentEntry,
    ) -> Vec<Arc<dyn Output>> {
        let mut all: Vec<Arc<dyn Output>> = self
            .fixed
            .iter()
            .filter(|(_, o)| o.applies_to(exp))
            .map(|(_, o)| o.clone())
            .collect();
        for k in &self.kinds {
            for c in configs.of(exp.uuid, k.type_id()) {
                all.extend(c.outputs());
            }
        }
        all
    }

    /// Tells every output that the experiment `exp` was deleted.
    pub fn forget(&self, exp: Uuid) {
        for (_, o) in &self.fixed {
            o.forget(exp);
        }
    }

    /// The configuration kind whose parent output is `output`.
    pub fn kind_of_parent(&self, output: &str) -> Option<&dyn ConfigKind> {
        self.kinds
            .iter()
            .find(|k| k.parent_id() == output)
            .map(|k| k.as_ref())
    }

    pub fn kind(&self, type_id: &str) -> Option<&dyn ConfigKind> {
        self.kinds
            .iter()
            .find(|k| k.type_id() == type_id)
            .map(|k| k.as_ref())
    }

    pub fn kinds(&self) -> impl Iterator<Item = &dyn ConfigKind> {
        self.kinds.iter().map(|k| k.as_ref())
    }

    /// The parents' ids, for errors: "a, b".
    pub fn parent_ids(&self) -> String {
        self.kinds
            .iter()
            .map(|k| k.parent_id())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The configuration types' ids, for errors: "a, b".
    pub fn type_ids(&self) -> String {
        self.kinds
            .iter()
            .map(|k| k.type_id())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
