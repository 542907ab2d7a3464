//! Why an execution was late, as TSP outputs: `POST /experiments/{uuid}/
//! outputs/sextant.explain` with a `sextant.explain` configuration (an
//! execution of a model, or a thread and a range) reads that range once
//! (`sextant_engine::analysis::explain::explain_trace`) and derives four
//! outputs from the answer: the critical path (TIME_GRAPH with wake-up
//! arrows and the diagnosis as an annotation), its complement (TIME_GRAPH,
//! priority inversions in their own style), the related threads (DATA_TREE)
//! and the kernel facilities of the range (TIME_GRAPH).
//!
//! Only the drawn rows are kept (`build`), not the execution graph: memory
//! grows with the results, not with the range's events.

mod build;
mod explained;
mod graphs;
mod relations;
mod request;

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};
use sextant_engine::analysis::executions::{Execution, Target};
use sextant_engine::analysis::explain::{self, pick};
use sextant_engine::hosts::HostPick;
use sextant_engine::session::is_cancelled;
use sextant_engine::sync;

use super::executions;
use super::params::{ErrorKind, Result, ServiceError};
use super::provider::{make_all, make_one, ConfigKind, Configuration, Creation, Maker, Output};
use super::traces::{cannot_run, uuid_of, ExperimentEntry};
use graphs::{Drawn, GraphOutput};
use request::{Asked, Subject};

pub use explained::{Explained, EXPLAIN, PARENT};

const SCHEMA: &str = include_str!("../../../schemas/explain-request.schema.json");

/// The outputs of one explanation, in order, by id prefix.
const OUTPUTS: [Maker<Explained>; 4] = [
    (graphs::CRITICAL_PATH, |e| {
        Arc::new(GraphOutput(e, Drawn::CriticalPath))
    }),
    (graphs::COMPLEMENT, |e| {
        Arc::new(GraphOutput(e, Drawn::Complement))
    }),
    (relations::PREFIX, |e| Arc::new(relations::Relations(e))),
    (graphs::FACILITIES, |e| {
        Arc::new(GraphOutput(e, Drawn::Facilities))
    }),
];

/// Explanations, as a configuration type.
pub struct Explanations;

impl Configuration for Explained {
    fn id(&self) -> &str {
        self.configuration["id"].as_str().unwrap_or_default()
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

impl ConfigKind for Explanations {
    fn type_id(&self) -> &'static str {
        EXPLAIN
    }

    fn config_type(&self) -> Value {
        static PARSED: OnceLock<Value> = OnceLock::new();
        let schema = PARSED
            .get_or_init(|| serde_json::from_str(SCHEMA).expect("the embedded schema is JSON"));
        json!({
            "id": EXPLAIN,
            "name": "Explain an execution",
            "description": "An execution of a model (inline, or the id of a posted sextant.execution-model configuration; by rank in duration order) or a thread and a range: creates its critical path, the path's complement with the priority inversions, the related threads and the kernel facilities",
            "schema": schema,
        })
    }

    fn parent_id(&self) -> &'static str {
        PARENT
    }

    fn parent_name(&self) -> &'static str {
        "Explain"
    }

    fn parent_description(&self) -> &'static str {
        "Give an execution (configuration type sextant.explain) to create its critical path, complement, related threads and kernel facilities"
    }

    fn parameters_hint(&self) -> &'static str {
        "an execution (model or configuration, and execution) or a thread and a range (tid, start, end)"
    }

    /// Reads the execution's range and builds what the outputs draw.
    fn create(&self, c: &Creation<'_>) -> Result<Arc<dyn Configuration>> {
        let asked = request::read(c.posted.parameters)?;
        let id = uuid_of("explain", &format!("{}:{}", c.exp.uuid, c.posted.name))
            .simple()
            .to_string();
        if let Some(existing) = c.existing(&id, "other parameters")? {
            return Ok(existing);
        }
        let (trace, req) = explained_range(c, &asked)?;
        let path = &c.exp.traces[trace].path;
        // With the traces' stores: a synchronisation kept there names the
        // hosts whose packets woke the path up.
        let explanation = c
            .results
            .session(path)
            .explain_range(&req, HostPick::Sole, c.work)
            .map_err(|e| {
                if is_cancelled(&e) {
                    ServiceError::new(ErrorKind::Internal, "Cancelled", e.to_string())
                } else {
                    cannot_run(format!("{}: {e}", path.display()))
                }
            })?;
        let diagnosis = explanation.diagnosis(req.tid);
        for c in &diagnosis.contradictions {
            eprintln!(
                "sextant: warning: this explanation contradicts the trace (a bug; please report it): {c}"
            );
        }
        let path = build::critical_path(&explanation, &req);
        // Read in the trace's clock, drawn on the experiment's timeline.
        let on = c.exp.timeline.of(trace);
        Ok(Arc::new(Explained {
            configuration: c.posted.configuration(&id, EXPLAIN),
            start: on.apply(req.start),
            end: on.apply(req.end),
            diagnosis,
            complement: build::complement(&explanation, &req, &path).moved(on),
            facilities: build::facilities(&explanation).moved(on),
            relations: build::relations(&explanation, req.tid),
            path: path.moved(on),
        }))
    }
}

/// `x` (on the experiment's timeline) in the clock of its trace, `trace`:
/// the range to read there.
fn in_own_clock(e: &ExperimentEntry, trace: usize, x: &Execution) -> Execution {
    let mut own = x.clone();
    sync::retime(&mut own, &e.timeline.of(trace).inverse());
    own
}

/// The trace (its position in the experiment) and the range to read, in
/// that trace's clock.
fn explained_range(c: &Creation<'_>, asked: &Asked) -> Result<(usize, explain::Request)> {
    let e = c.exp;
    let at_execution = |m: String| ServiceError::bad_request(format!("parameters.execution: {m}"));
    match &asked.subject {
        Subject::Model { model, which } => {
            let merged = executions::find(e, &Target::Model(model.clone()), c.work)?;
            let x = pick(&merged.executions, *which).map_err(at_execution)?;
            let trace = merged.trace_of[x.index];
            Ok((trace, asked.request_for(&in_own_clock(e, trace, x))))
        }
        Subject::Configuration { id, which } => {
            let posted = executions::posted_model(c, id);
            let found = posted
                    .as_ref()
                    .and_then(|p| p.as_any().downcast_ref::<executions::Found>())
                    .ok_or_else(|| {
                        ServiceError::bad_request(format!(
                            "parameters.configuration: no {} configuration has id {id} in this experiment",
                            executions::EXECUTION_MODEL
                        ))
                    })?;
            let merged = &found.merged;
            let x = pick(&merged.executions, *which).map_err(at_execution)?;
            let trace = merged.trace_of[x.index];
            Ok((trace, asked.request_for(&in_own_clock(e, trace, x))))
        }
        Subject::Thread { tid, start, end } => {
            let mut req = explain::Request {
                tid: *tid,
                start_tid: None,
                start: *start,
                end: *end,
                replay_ns: asked.replay_ns,
                cpus: asked.cpus.clone(),
                prio: None,
            };
            if e.traces.len() == 1 {
                return Ok((0, req));
            }
            // Several traces: the one whose indexed range holds the start.
            let indexes = match e.indexes()? {
                Ok(ix) => ix,
                Err(m) => {
                    return Err(cannot_run(format!(
                        "the traces are still being indexed: {m}"
                    )))
                }
            };
            let shared = |k: usize, t: i64| e.timeline.shared(k, t);
            let trace = indexes
                .iter()
                .enumerate()
                .position(|(k, ix)| shared(k, ix.start) <= *start && *start <= shared(k, ix.end))
                .ok_or_else(|| {
                    ServiceError::bad_request("parameters.start: in no trace of the experiment")
                })?;
            req.start = e.timeline.own(trace, *start);
            req.end = e.timeline.own(trace, *end);
            Ok((trace, req))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_embedded() {
        assert!(Explanations.config_type()["schema"]["properties"]["execution"].is_object());
    }
}
