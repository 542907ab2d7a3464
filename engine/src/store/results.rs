//! Executions of a model kept in a trace's store (the unit `model-HASH`,
//! HASH of the model's canonical JSON and the reading options): asking for
//! the same model on the same trace again reads them instead of a pass.
//! Executions with nested ones or BTF instance times are not stored (the
//! table has no columns for them).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::identity::Fnv;
use super::unit::Table;
use super::{TraceStore, Unusable};
use crate::analysis::executions::Executions;
use crate::analysis::model::ExecutionModel;
use crate::export::{executions, ExportError};
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
}

/// What the manifest keeps beside the table.
#[derive(Serialize, Deserialize)]
struct Details {
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
}

/// The unit name of `model`'s executions read with `lenient`.
pub fn unit(model: &ExecutionModel, lenient: bool) -> String {
    let mut h = Fnv::default();
    h.add(model.to_json().to_string().as_bytes());
    h.add(&[u8::from(lenient)]);
    format!("{PREFIX}{:016x}", h.0)
}

impl StoredExecutions {
    /// Stores them for `model`; `Ok(None)` when they cannot be (nested
    /// executions, BTF instance times).
    pub fn save(
        &self,
        store: &TraceStore,
        model: &ExecutionModel,
        lenient: bool,
    ) -> Result<Option<PathBuf>, ExportError> {
        let x = &self.executions;
        if x.executions
            .iter()
            .any(|e| !e.nested.is_empty() || e.btf.is_some())
        {
            return Ok(None);
        }
        let batch = executions::batch(x).map_err(ExportError::Batch)?;
        let s = &self.summary;
        let details = Details {
            model: model.to_json(),
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
        };
        let table = Table {
            name: TABLE,
            schema: batch.schema(),
            batches: vec![batch],
        };
        store
            .write(
                &unit(model, lenient),
                vec![table],
                serde_json::to_value(details).expect("details are JSON"),
            )
            .map(Some)
    }

    /// The stored executions of `model`: `Ok(None)` when none are stored.
    pub fn load(
        store: &TraceStore,
        model: &ExecutionModel,
        lenient: bool,
    ) -> Result<Option<StoredExecutions>, Unusable> {
        let Some(mut found) = store.find(&unit(model, lenient))? else {
            return Ok(None);
        };
        let d: Details = serde_json::from_value(found.details.clone())
            .map_err(|e| found.corrupt("manifest.json", e.to_string()))?;
        if d.model != model.to_json() || d.lenient != lenient {
            // Two models whose hashes collide.
            return Ok(None);
        }
        let mut list = Vec::new();
        for b in found.table(TABLE)? {
            list.extend(executions::rows(&b).map_err(|e| found.corrupt(TABLE, e))?);
        }
        Ok(Some(StoredExecutions {
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
                stopped_early: d.stopped_early,
            },
            warnings: d.warnings,
        }))
    }
}
