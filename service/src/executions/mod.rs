//! Outputs derived from an execution model (configuration type
//! `sextant.execution-model`): `POST /experiments/{uuid}/outputs/
//! sextant.executions` with a model finds its executions in every trace of
//! the experiment (`sextant_engine::session::executions::in_traces`)
//! and derives the Comparison View (GANTT_CHART: executions superposed on a
//! time axis relative to their start), the Time Perspective (duration
//! against start, TREE_TIME_XY), the executions table, their statistics
//! (DATA_TREE) and their duration density (TREE_GENERIC_XY).
//!
//! The executions of each trace are kept in its store with the experiment's
//! and the configuration's names (`service::stored`): posting the model
//! again reads them, a server started later offers the configuration again
//! in an experiment of the same name (`restore`), deleting it takes the
//! label off (the executions stay for the command line).
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
mod viewer_schema;

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};
use sextant_engine::analysis::executions::{Executions, Merged, Target};
use sextant_engine::analysis::model::request::Request;
use sextant_engine::analysis::model::{model_from_value, ExecutionModel};
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::Work;
use sextant_engine::session::executions::{in_traces, Label, Source, TraceFailure};
use sextant_engine::session::{is_cancelled, Session};

use crate::configs::Posted;
use crate::params::{ErrorKind, Result, ServiceError};
use crate::provider::{make_all, make_one, ConfigKind, Configuration, Creation, Maker, Output};
use crate::stored::Results;
use crate::traces::{cannot_run, uuid_of, ExperimentEntry};

const SCHEMA: &str = include_str!("../../../schemas/execution-model.schema.json");

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

    /// A server started later no longer offers it; the executions stay in
    /// the stores for the command line.
    fn deleted(&self, exp: &ExperimentEntry, results: &Results) {
        let Ok(model) = parse_model(&self.configuration["parameters"], "parameters") else {
            return;
        };
        let label = label_of(exp, &self.configuration);
        for path in exp.paths() {
            if let Err(e) = results.session(path).unlabel(&model, &label) {
                eprintln!(
                    "sextant: warning: {}: {} is still kept for later servers: {e}",
                    path.display(),
                    label.name
                );
            }
        }
    }
}

/// The execution-model schema, made self-contained for the VS Code Trace
/// Viewer's JSON editor (`viewer_schema`), once.
fn schema() -> &'static Value {
    static PARSED: OnceLock<Value> = OnceLock::new();
    PARSED.get_or_init(|| {
        let source = serde_json::from_str(SCHEMA).expect("the embedded schema is JSON");
        viewer_schema::self_contained(&source)
    })
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
pub fn find(e: &ExperimentEntry, target: &Target, work: &Work<'_>) -> Result<Merged> {
    let sessions: Vec<Session> = e
        .paths()
        .into_iter()
        .map(|p| Session::open(p, OpenOptions::default(), None))
        .collect();
    in_traces(&sessions, &e.timeline, &asked(target.clone()), None, work)
        .map(|found| found.merged)
        .map_err(|f| failure(e, f))
}

/// The same for a posted model, each trace's executions read from its store
/// when it keeps them, else found by a pass and kept there with `label`.
fn find_stored(
    e: &ExperimentEntry,
    model: &ExecutionModel,
    label: &Label,
    results: &Results,
    work: &Work<'_>,
) -> Result<Merged> {
    let sessions: Vec<Session> = e.paths().into_iter().map(|p| results.session(p)).collect();
    let target = Target::Model(Box::new(model.clone()));
    let found = in_traces(&sessions, &e.timeline, &asked(target), Some(label), work)
        .map_err(|f| failure(e, f))?;
    for (trace, n) in found.notes {
        eprintln!(
            "sextant: warning: {}: {n}",
            sessions[trace].trace().display()
        );
    }
    for source in found.sources {
        results.count(source);
    }
    Ok(found.merged)
}

/// A request for `target` as the service makes it: no preset, no `--tid`.
fn asked(target: Target) -> Request {
    Request {
        target,
        preset: None,
        tids: Vec::new(),
    }
}

fn failure(e: &ExperimentEntry, f: TraceFailure) -> ServiceError {
    if is_cancelled(&f.error) {
        return ServiceError::new(ErrorKind::Internal, "Cancelled", f.error.to_string());
    }
    cannot_run(format!("{}: {}", e.traces[f.trace].name, f.error))
}

/// The id of the configuration named `name` in experiment `exp`: the same
/// in every server, so a restored configuration keeps its outputs' ids.
fn config_id(exp: &ExperimentEntry, name: &str) -> String {
    uuid_of("config", &format!("{}:{name}", exp.uuid))
        .simple()
        .to_string()
}

/// How a configuration of the experiment is kept in the traces' stores.
fn label_of(exp: &ExperimentEntry, configuration: &Value) -> Label {
    Label {
        experiment: exp.name.clone(),
        name: configuration["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        description: configuration["description"].as_str().map(str::to_string),
        parameters: configuration["parameters"].clone(),
    }
}

/// The configuration `label` names, its executions in the first trace
/// being `first` and in every other as the stores keep them; `None` when
/// another trace's store lacks them (or keeps them under another label).
fn restored(
    exp: &ExperimentEntry,
    model: &ExecutionModel,
    label: Label,
    first: Executions,
    results: &Results,
) -> Option<Found> {
    let target = Target::Model(Box::new(model.clone()));
    let request = asked(target.clone());
    let mut kept = vec![first];
    for path in exp.paths().into_iter().skip(1) {
        kept.push(results.session(path).kept_executions(&request, &label)?);
    }
    // The stores keep each trace's own times.
    for (trace, executions) in kept.iter_mut().enumerate() {
        exp.timeline.retime(trace, executions);
    }
    let merged = Merged::of(&target, kept);
    for _ in &exp.traces {
        results.count(Source::Store);
    }
    let posted = Posted {
        name: label.name.clone(),
        description: label.description.clone(),
        parameters: &label.parameters,
    };
    Some(Found {
        configuration: posted.configuration(&config_id(exp, &label.name), EXECUTION_MODEL),
        merged,
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
        let id = config_id(c.exp, &c.posted.name);
        if let Some(existing) = c.existing(&id, "another model")? {
            return Ok(existing);
        }
        let configuration = c.posted.configuration(&id, EXECUTION_MODEL);
        let label = label_of(c.exp, &configuration);
        let merged = find_stored(c.exp, &model, &label, c.results, c.work)?;
        Ok(Arc::new(Found {
            configuration,
            merged,
        }))
    }

    /// The models posted to an experiment of this name, as every trace's
    /// store keeps them.
    fn restore(&self, exp: &ExperimentEntry, results: &Results) -> Vec<Arc<dyn Configuration>> {
        let Some(first) = exp.paths().first().map(|p| results.session(p)) else {
            return Vec::new();
        };
        first
            .labelled(&exp.name)
            .into_iter()
            .filter_map(|(model, label, first)| restored(exp, &model, label, first, results))
            .map(|f| Arc::new(f) as Arc<dyn Configuration>)
            .collect()
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
