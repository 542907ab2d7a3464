//! Outputs derived from an execution model (configuration type
//! `sextant.execution-model`): `POST /experiments/{uuid}/outputs/
//! sextant.executions` with a model finds its executions in every trace of
//! the experiment (`sextant_engine::analysis::executions::find_in_traces`)
//! and derives the Comparison View (GANTT_CHART: executions superposed on a
//! time axis relative to their start), the Time Perspective (duration
//! against start, TREE_TIME_XY), the executions table, their statistics
//! (DATA_TREE) and their duration density (TREE_GENERIC_XY).
//!
//! Known gap: the executions are found by a second pass over the trace files
//! (on the blocking thread of the request), not in the indexing pass; the
//! states drawn come from the index's per-thread intervals.

mod comparison;
mod density;
mod found;
mod perspective;
mod statistics;
mod table;

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};
use sextant_engine::analysis::executions::{find_in_traces, Merged, Target};
use sextant_engine::analysis::model::{model_from_value, ExecutionModel};
use sextant_engine::run::RunError;

use crate::service::params::{ErrorKind, Result, ServiceError};
use crate::service::provider::{
    make_all, make_one, ConfigKind, Configuration, Creation, Maker, Output,
};
use crate::service::traces::{cannot_run, uuid_of, ExperimentEntry};

const SCHEMA: &str = include_str!("../../../../schemas/execution-model.schema.json");

/// The outputs of one execution model, in order, by id prefix.
const OUTPUTS: [Maker<Found>; 5] = [
    (comparison::PREFIX, |f| Arc::new(comparison::Comparison(f))),
    (perspective::PREFIX, |f| {
        Arc::new(perspective::Perspective(f))
    }),
    (table::PREFIX, |f| Arc::new(table::Table(f))),
    (statistics::PREFIX, |f| Arc::new(statistics::Statistics(f))),
    (density::PREFIX, |f| Arc::new(density::Density(f))),
];

pub use found::{Found, EXECUTION_MODEL, PARENT};

/// Execution models, as a configuration type.
pub struct ExecutionModels;

impl Configuration for Found {
    fn id(&self) -> &str {
        Found::id(self)
    }

    fn configuration(&self) -> &Value {
        &self.configuration
    }

    fn outputs(self: Arc<Self>) -> Vec<Arc<dyn Output>> {
        make_all(self, &OUTPUTS)
    }

    fn output(self: Arc<Self>, prefix: &str) -> Option<Arc<dyn Output>> {
        make_one(self, &OUTPUTS, prefix)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The execution-model schema, parsed once.
fn schema() -> &'static Value {
    static PARSED: OnceLock<Value> = OnceLock::new();
    PARSED.get_or_init(|| serde_json::from_str(SCHEMA).expect("the embedded schema is JSON"))
}

/// The execution model at `at` in a request (e.g. `parameters`), with errors
/// naming the field under it.
pub fn parse_model(v: &Value, at: &str) -> Result<ExecutionModel> {
    model_from_value(v).map_err(|m| {
        let path = if m.path == "(root)" {
            at.to_string()
        } else {
            format!("{at}.{}", m.path)
        };
        ServiceError::bad_request(format!("{path}: {}", m.message))
    })
}

/// The model's executions in every trace of the experiment, merged in start
/// order and numbered again; with the trace of each.
pub fn find(
    e: &ExperimentEntry,
    target: &Target,
    work: &sextant_engine::run::Work<'_>,
) -> Result<Merged> {
    find_in_traces(&e.paths(), target, work).map_err(|f| match f.error {
        RunError::Cancelled => ServiceError::new(ErrorKind::Internal, "Cancelled", f.to_string()),
        error => cannot_run(format!("{}: {error}", e.traces[f.trace].name)),
    })
}

/// The posted execution model of `exp` whose id is `id`.
pub fn posted_model(configs: &Creation<'_>, id: &str) -> Option<Arc<dyn Configuration>> {
    configs
        .configs
        .find(configs.exp.uuid, id)
        .filter(|c| c.as_any().is::<Found>())
}

impl ConfigKind for ExecutionModels {
    fn type_id(&self) -> &'static str {
        EXECUTION_MODEL
    }

    fn config_type(&self) -> Value {
        json!({
            "id": EXECUTION_MODEL,
            "name": "Execution model",
            "description": "An execution model (events that start and end each execution, threads, deadline): creates the Comparison View, the Time Perspective and the executions table",
            "schema": schema(),
        })
    }

    fn parent_id(&self) -> &'static str {
        PARENT
    }

    fn parent_name(&self) -> &'static str {
        "Executions"
    }

    fn parent_description(&self) -> &'static str {
        "Give an execution model (configuration type sextant.execution-model) to create the Comparison View, the Time Perspective and the executions table"
    }

    fn parameters_hint(&self) -> &'static str {
        "an execution model"
    }

    /// Checks the model, finds its executions (reporting to the work, and
    /// stopping when it is cancelled).
    fn create(&self, c: &Creation<'_>) -> Result<Arc<dyn Configuration>> {
        let model = parse_model(c.posted.parameters, "parameters")?;
        let id = uuid_of("config", &format!("{}:{}", c.exp.uuid, c.posted.name))
            .simple()
            .to_string();
        if let Some(existing) = c.existing(&id, "another model")? {
            return Ok(existing);
        }
        let merged = find(c.exp, &Target::Model(Box::new(model)), c.work)?;
        Ok(Arc::new(Found {
            configuration: c.posted.configuration(&id, EXECUTION_MODEL),
            merged,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_embedded() {
        let t = ExecutionModels.config_type();
        assert_eq!(t["id"], EXECUTION_MODEL);
        assert!(t["schema"].is_object());
        assert!(t["schema"].get("properties").is_some() || t["schema"].get("$defs").is_some());
    }
}
