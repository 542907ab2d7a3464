//! Executions of a model kept in a trace's store (the unit `model-HASH`,
//! HASH of the model's canonical JSON, or of a preset defined by thread
//! states with its threads, and of the reading options): asking for the same
//! model on the same trace again reads them instead of a pass. Nested
//! executions and BTF instance times are kept with them
//! (`execution_table`).
//!
//! A model posted to the server is kept with a `Label` per experiment it
//! was posted to (the experiment's name, and the configuration's name,
//! description and parameters as the client gave them), so that a server
//! started later offers the same configuration in the same experiment again
//! without a pass (`labelled`).

use std::path::PathBuf;

use arrow_array::RecordBatch;
use serde::{Deserialize, Serialize};

use super::execution_table;
use super::identity::Fnv;
use super::unit::{Found, Table};
use super::{TraceStore, Unusable};
use crate::analysis::executions::{Executions, Target};
use crate::analysis::model::{model_from_value, ExecutionModel};
use crate::export::ExportError;
use crate::kernel::pass::PassSummary;

const TABLE: &str = "executions.arrow";

/// The prefix of a stored model's unit name.
pub const PREFIX: &str = "model-";

/// A model's executions as one pass over the trace found them.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredExecutions {
    pub executions: Executions,
    pub summary: PassSummary,
    pub warnings: Vec<String>,
    /// How servers' clients named the model, one label per experiment and
    /// configuration name.
    pub labels: Vec<Label>,
}

/// A model as a client posted it to the server: the experiment, and the
/// configuration's name, description and parameters (the model as the
/// client wrote it, which the client compares when it posts it again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Label {
    pub experiment: String,
    pub name: String,
    pub description: Option<String>,
    pub parameters: serde_json::Value,
}

/// Where executions came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Store,
    /// A pass, its executions kept in this unit (`None`: not kept).
    Pass {
        kept: Option<PathBuf>,
    },
}

/// What executions are kept for: a model's canonical JSON, or a preset
/// defined by thread states with its threads (which no model describes).
#[derive(Debug, Clone, PartialEq)]
pub struct Key(serde_json::Value);

impl Key {
    pub fn model(model: &ExecutionModel) -> Key {
        Key(model.to_json())
    }

    pub fn of(target: &Target) -> Key {
        match target {
            Target::Model(m) => Key::model(m),
            Target::States(preset, threads) => Key(serde_json::json!({
                "preset": preset.name(),
                "tids": threads.tids,
                "process": threads.process.as_ref().map(|r| r.as_str()),
            })),
        }
    }
}

/// What a unit was kept for.
struct Kept {
    key: Key,
    lenient: bool,
}

/// What the manifest keeps beside the table.
#[derive(Serialize, Deserialize)]
struct Details {
    /// The key's JSON.
    model: serde_json::Value,
    lenient: bool,
    name: String,
    incomplete: u64,
    deadline: Option<i64>,
    events: u64,
    decoded: u64,
    first_ts: Option<i64>,
    last_ts: i64,
    repairs: u64,
    stopped_early: bool,
    warnings: Vec<String>,
    /// Absent in units written before labels were kept.
    #[serde(default)]
    labels: Vec<Label>,
}

/// The unit name of the executions of `key` read with `lenient`.
pub fn unit(key: &Key, lenient: bool) -> String {
    let mut h = Fnv::default();
    h.add(key.0.to_string().as_bytes());
    h.add(&[u8::from(lenient)]);
    format!("{PREFIX}{:016x}", h.0)
}

/// Stored executions as the executions table ([`StoredExecutions::load_table`]).
#[derive(Debug)]
pub struct StoredTable {
    pub batches: Vec<RecordBatch>,
    /// The warnings they were kept with.
    pub warnings: Vec<String>,
}

impl StoredExecutions {
    /// Stores them for `key`; returns the unit's directory.
    pub fn save(
        &self,
        store: &TraceStore,
        key: &Key,
        lenient: bool,
    ) -> Result<PathBuf, ExportError> {
        let x = &self.executions;
        let batch = execution_table::batch(&x.executions).map_err(ExportError::Batch)?;
        let s = &self.summary;
        let details = Details {
            model: key.0.clone(),
            lenient,
            name: x.name.clone(),
            incomplete: x.incomplete,
            deadline: x.deadline,
            events: s.events,
            decoded: s.decoded,
            first_ts: s.first_ts,
            last_ts: s.last_ts,
            repairs: s.repairs,
            stopped_early: s.stopped_early,
            warnings: self.warnings.clone(),
            labels: self.labels.clone(),
        };
        let table = Table {
            name: TABLE,
            schema: batch.schema(),
            batches: vec![batch],
            maps: Vec::new(),
        };
        store.write(
            &unit(key, lenient),
            vec![table],
            serde_json::to_value(details).expect("details are JSON"),
        )
    }

    /// The stored executions of `key`: `Ok(None)` when none are stored.
    pub fn load(
        store: &TraceStore,
        key: &Key,
        lenient: bool,
    ) -> Result<Option<StoredExecutions>, Unusable> {
        let Some(found) = store.find(&unit(key, lenient))? else {
            return Ok(None);
        };
        let (d, stored) = Self::read(found)?;
        // Two keys whose hashes collide.
        Ok((d.key == *key && d.lenient == lenient).then_some(stored))
    }

    /// The stored executions of `key` as the executions table of one host
    /// (`export::executions::table`), the stored arrays handed on without
    /// reading them into executions, with the warnings they were kept
    /// with: `Ok(None)` when none are stored or some are nested (then
    /// [`StoredExecutions::load`] reads them).
    pub fn load_table(
        store: &TraceStore,
        key: &Key,
        lenient: bool,
    ) -> Result<Option<StoredTable>, Unusable> {
        let Some(mut found) = store.find(&unit(key, lenient))? else {
            return Ok(None);
        };
        let d: Details = serde_json::from_value(found.details.clone())
            .map_err(|e| found.corrupt("manifest.json", e.to_string()))?;
        // Two keys whose hashes collide.
        if d.model != key.0 || d.lenient != lenient {
            return Ok(None);
        }
        let batches = found.table(TABLE)?;
        let table =
            execution_table::as_exported(&batches, &d.name).map_err(|e| found.corrupt(TABLE, e))?;
        Ok(table.map(|batches| StoredTable {
            batches,
            warnings: d.warnings,
        }))
    }

    /// A unit's executions, with the details they were kept with.
    fn read(mut found: Found) -> Result<(Kept, StoredExecutions), Unusable> {
        let d: Details = serde_json::from_value(found.details.clone())
            .map_err(|e| found.corrupt("manifest.json", e.to_string()))?;
        let batches = found.table(TABLE)?;
        let list = execution_table::read(&batches).map_err(|e| found.corrupt(TABLE, e))?;
        let stored = StoredExecutions {
            executions: Executions {
                name: d.name,
                executions: list,
                incomplete: d.incomplete,
                deadline: d.deadline,
            },
            summary: PassSummary {
                events: d.events,
                decoded: d.decoded,
                first_ts: d.first_ts,
                last_ts: d.last_ts,
                repairs: d.repairs,
                // Not kept: the warnings say how many events were lost,
                // and explain reads its range from the trace again.
                losses: Vec::new(),
                stopped_early: d.stopped_early,
            },
            warnings: d.warnings,
            labels: d.labels,
        };
        let kept = Kept {
            key: Key(d.model),
            lenient: d.lenient,
        };
        Ok((kept, stored))
    }

    /// Takes `label` (by experiment and name) off the stored executions of
    /// `model`: a later server no longer offers it. The executions stay
    /// (the command line reads them too); `sextant store rm` removes them.
    pub fn unlabel(
        store: &TraceStore,
        model: &ExecutionModel,
        label: &Label,
    ) -> Result<(), String> {
        let key = Key::model(model);
        let Some(mut s) = Self::load(store, &key, false).map_err(|e| e.to_string())? else {
            return Ok(());
        };
        let before = s.labels.len();
        s.labels.retain(|l| !l.same_place(label));
        if s.labels.len() != before {
            s.save(store, &key, false).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// The configurations a unit's details offer its executions as:
/// `(experiment, configuration name)` of each label.
pub(super) fn offered(details: &serde_json::Value) -> Vec<(String, String)> {
    details
        .get("labels")
        .and_then(|l| serde_json::from_value::<Vec<Label>>(l.clone()).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|l| (l.experiment, l.name))
        .collect()
}

impl Label {
    /// Names the same configuration (experiment and name) as `other`.
    fn same_place(&self, other: &Label) -> bool {
        self.experiment == other.experiment && self.name == other.name
    }
}

/// The models stored for the trace that a server's client posted to the
/// experiment named `experiment`, each once, in the order of their unit
/// names, with its label and executions; units that cannot be used are
/// passed over (`sextant store ls` says why).
pub fn labelled(
    store: &TraceStore,
    experiment: &str,
) -> Vec<(ExecutionModel, Label, StoredExecutions)> {
    let mut names: Vec<String> = store
        .places
        .candidates(&store.canonical)
        .iter()
        .flat_map(|dir| super::unit::unit_dirs(dir))
        .filter_map(|d| Some(d.file_name()?.to_str()?.to_string()))
        .filter(|n| n.starts_with(PREFIX))
        .collect();
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let Ok(Some(found)) = store.find(&name) else {
            continue;
        };
        let Ok((kept, stored)) = StoredExecutions::read(found) else {
            continue;
        };
        // Presets are not posted: their keys are no model.
        let Ok(model) = model_from_value(&kept.key.0) else {
            continue;
        };
        // Kept for a server: read strictly, under its own model's name.
        if kept.lenient || unit(&Key::model(&model), false) != name {
            continue;
        }
        for label in &stored.labels {
            if label.experiment == experiment {
                out.push((model.clone(), label.clone(), stored.clone()));
            }
        }
    }
    out
}

/// The executions of `key` on the trace: read from `store` when it keeps
/// them, else found by `find` and kept there. With `label`, what is kept
/// carries it (replacing the label of the same experiment and name).
/// Problems with the store never fail the request: they are said in the
/// notes returned, and the pass runs.
pub fn load_or_find<E>(
    store: Option<&TraceStore>,
    key: &Key,
    lenient: bool,
    label: Option<&Label>,
    find: impl FnOnce() -> Result<StoredExecutions, E>,
) -> Result<(StoredExecutions, Source, Vec<String>), E> {
    let mut notes = Vec::new();
    let Some(store) = store else {
        return Ok((find()?, Source::Pass { kept: None }, notes));
    };
    let relabel = |s: &mut StoredExecutions| match label {
        Some(l) if !s.labels.contains(l) => {
            s.labels.retain(|x| !x.same_place(l));
            s.labels.push(l.clone());
            true
        }
        _ => false,
    };
    match StoredExecutions::load(store, key, lenient) {
        Ok(Some(mut s)) => {
            if relabel(&mut s) {
                if let Err(e) = s.save(store, key, lenient) {
                    notes.push(format!("the model's name could not be stored: {e}"));
                }
            }
            return Ok((s, Source::Store, notes));
        }
        Ok(None) => {}
        Err(e) => notes.push(format!("stored executions not used: {e}")),
    }
    let mut found = find()?;
    relabel(&mut found);
    let kept = found
        .save(store, key, lenient)
        .map_err(|e| notes.push(format!("the executions could not be stored: {e}")))
        .ok();
    Ok((found, Source::Pass { kept }, notes))
}
