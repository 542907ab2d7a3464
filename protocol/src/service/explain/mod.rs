//! Why an execution was late, as TSP outputs: `POST /experiments/{uuid}/
//! outputs/sextant.explain` with a `sextant.explain` configuration (an
//! execution of a model, or a thread and a range) reads that range once
//! (`sextant_engine::analysis::explain`) and derives four outputs from the
//! answer: the critical path (TIME_GRAPH with wake-up arrows and the
//! diagnosis as an annotation), its complement (TIME_GRAPH, priority
//! inversions in their own style), the related threads (DATA_TREE) and the
//! kernel facilities of the range (TIME_GRAPH).
//!
//! Only the drawn rows are kept (`build`), not the execution graph: memory
//! grows with the results, not with the range's events.
//!
//! `pick` and `explain_trace` are also what `sextant explain` runs: one code
//! path from "execution K of a model" to an explanation.

mod build;
mod request;
mod serve;

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::analysis::executions::{Execution, Executions, SortKey, Target};
use sextant_engine::analysis::explain::{self, Diagnosis, Explanation};
use sextant_engine::event::EventSource;
use sextant_engine::reader::{AnyReader, OpenOptions, WithSource};
use uuid::Uuid;

use super::config::{self, Configured, DerivedKind};
use super::params::{ErrorKind, Result, ServiceError};
use super::{uuid_of, ExperimentEntry, Readiness, Service, Work};
use build::{Relation, TimeGraph};
use request::{Asked, Subject};

/// The configuration type, and the output that creates the derived ones.
pub const EXPLAIN: &str = "sextant.explain";
pub const PARENT: &str = EXPLAIN;
pub const CRITICAL_PATH: &str = "sextant.explain.critical-path";
pub const COMPLEMENT: &str = "sextant.explain.complement";
pub const RELATIONS: &str = "sextant.explain.relations";
pub const FACILITIES: &str = "sextant.explain.facilities";

const SCHEMA: &str = include_str!("../../../../schemas/explain-request.schema.json");

/// The `ConfigurationSourceType` of explanations.
pub fn config_type() -> Value {
    static PARSED: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let schema =
        PARSED.get_or_init(|| serde_json::from_str(SCHEMA).expect("the embedded schema is JSON"));
    json!({
        "id": EXPLAIN,
        "name": "Explain an execution",
        "description": "An execution of a model (inline, or the id of a posted sextant.execution-model configuration; by rank in duration order) or a thread and a range: creates its critical path, the path's complement with the priority inversions, the related threads and the kernel facilities",
        "schema": schema,
    })
}

/// Which execution of a model to explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// By index in start order (as `analyze` lists them).
    Index(usize),
    /// By rank in duration order: 0 is the longest.
    Rank(usize),
}

/// The execution `which` names, or why there is none.
pub fn pick(executions: &Executions, which: Which) -> std::result::Result<&Execution, String> {
    let found = executions.executions.len();
    let chosen = match which {
        Which::Index(k) => executions.executions.get(k),
        Which::Rank(k) => executions.sorted(SortKey::Duration).get(k).copied(),
    };
    chosen.ok_or_else(|| {
        let (what, range) = match which {
            Which::Index(k) => (format!("no execution {k}"), "indices"),
            Which::Rank(0) => ("no execution to explain".to_string(), "ranks"),
            Which::Rank(k) => (format!("no execution of rank {k}"), "ranks"),
        };
        match found {
            0 => format!(
                "{what}: the model `{}` found none in this trace",
                executions.name
            ),
            n => format!(
                "{what}: the model `{}` found {n} ({range} 0 to {})",
                executions.name,
                n - 1
            ),
        }
    })
}

/// What to read for `x`: its range, after `replay_ns`. The path is walked
/// back from the thread the execution ends on; the thread it started on
/// (another one for different-TIDs executions) is tied to it.
pub fn request_for(x: &Execution, cpus: Option<Vec<u32>>, replay_ns: i64) -> explain::Request {
    explain::Request {
        tid: x.end_tid,
        start_tid: Some(x.start_tid),
        start: x.start,
        end: x.end,
        replay_ns,
        cpus,
        prio: if x.tid == x.end_tid { x.prio } else { None },
    }
}

/// Reads `req`'s range of the trace at `path` (after a seek) and explains
/// it; `progress` gets (bytes done, bytes total).
pub fn explain_trace(
    path: &Path,
    options: OpenOptions,
    req: &explain::Request,
    progress: impl FnMut(u64, u64),
) -> std::result::Result<Explanation, String> {
    struct Run<'r, F> {
        req: &'r explain::Request,
        progress: F,
    }
    impl<F: FnMut(u64, u64)> WithSource for Run<'_, F> {
        type Output = std::result::Result<Explanation, String>;

        fn run<S: EventSource>(self, mut source: S) -> Self::Output {
            explain::explain(&mut source, self.req, self.progress).map_err(|e| e.to_string())
        }
    }
    AnyReader::open_with(path, options)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .with(Run { req, progress })
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Which derived output an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    CriticalPath,
    Complement,
    Relations,
    Facilities,
}

impl DerivedKind for Kind {
    const ALL: &'static [Kind] = &[
        Kind::CriticalPath,
        Kind::Complement,
        Kind::Relations,
        Kind::Facilities,
    ];

    fn prefix(self) -> &'static str {
        match self {
            Kind::CriticalPath => CRITICAL_PATH,
            Kind::Complement => COMPLEMENT,
            Kind::Relations => RELATIONS,
            Kind::Facilities => FACILITIES,
        }
    }
}

/// `prefix:config` → (kind, config id).
pub fn parse_id(output: &str) -> Option<(Kind, &str)> {
    config::parse_derived_id(output)
}

/// Whether `output` is (shaped like) an explanation's output id.
pub fn is_derived(output: &str) -> bool {
    parse_id(output).is_some()
}

/// The parent output's descriptor.
pub fn parent_descriptor() -> Value {
    json!({
        "id": PARENT,
        "name": "Explain",
        "description": "Give an execution (configuration type sextant.explain) to create its critical path, complement, related threads and kernel facilities",
        "type": "NONE",
        "capabilities": {"canCreate": true, "canDelete": false},
    })
}

/// One explanation: what its outputs draw.
pub struct Explained {
    exp: Uuid,
    id: String,
    configuration: Value,
    /// The analysed range.
    start: i64,
    end: i64,
    diagnosis: Diagnosis,
    path: TimeGraph,
    complement: TimeGraph,
    facilities: TimeGraph,
    relations: Vec<Relation>,
}

impl Configured for Explained {
    fn experiment(&self) -> Uuid {
        self.exp
    }

    fn config_id(&self) -> &str {
        &self.id
    }
}

impl Explained {
    pub fn descriptor(&self, kind: Kind) -> Value {
        let name = self.configuration["name"].as_str().unwrap_or_default();
        let (title, description, ty) = match kind {
            Kind::CriticalPath => (
                "Critical path",
                "The threads the execution waited for, in turn, with the wake-ups between them; the diagnosis as an annotation",
                "TIME_GRAPH",
            ),
            Kind::Complement => (
                "Critical path complement",
                "Who ran while a thread on the path was preempted or waiting for a CPU; priority inversions in red",
                "TIME_GRAPH",
            ),
            Kind::Relations => (
                "Related threads",
                "Threads that woke or forked the analysed one (direct) or are connected to it through others (indirect)",
                "DATA_TREE",
            ),
            Kind::Facilities => (
                "Kernel facilities",
                "hrtimers, futexes and message queues in the range, with their waiters",
                "TIME_GRAPH",
            ),
        };
        json!({
            "id": format!("{}:{}", kind.prefix(), self.id),
            "name": format!("{title}: {name}"),
            "description": description,
            "type": ty,
            "parentId": PARENT,
            "configuration": self.configuration,
            "capabilities": {"canCreate": false, "canDelete": true},
        })
    }

    pub fn descriptors(&self) -> Vec<Value> {
        Kind::ALL.iter().map(|&k| self.descriptor(k)).collect()
    }

    fn graph(&self, kind: Kind) -> Option<&TimeGraph> {
        match kind {
            Kind::CriticalPath => Some(&self.path),
            Kind::Complement => Some(&self.complement),
            Kind::Facilities => Some(&self.facilities),
            Kind::Relations => None,
        }
    }
}

/// The explanations of all experiments.
pub type Store = config::Store<Explained>;

fn cannot_run(m: String) -> ServiceError {
    ServiceError::new(ErrorKind::MethodNotAllowed, "The analysis cannot run", m)
}

impl Service {
    /// The explanation output `output` of the experiment, and its kind.
    pub fn explained(&self, exp: &str, output: &str) -> Result<(Kind, Arc<Explained>)> {
        let e = self.experiment_entry(exp)?;
        parse_id(output)
            .and_then(|(k, id)| self.explained.find(e.uuid, id).map(|d| (k, d)))
            .ok_or_else(|| ServiceError::not_found("output", format!("no output has id {output}")))
    }

    /// `POST .../outputs/sextant.explain`: reads the execution's range,
    /// registers the derived outputs; answers the critical path's
    /// descriptor.
    pub fn create_explained(
        &self,
        e: &ExperimentEntry,
        body: &Value,
        work: &Work,
    ) -> Result<Value> {
        let posted = config::posted(
            body,
            EXPLAIN,
            "an execution (model or configuration, and execution) or a thread and a range (tid, start, end)",
        )?;
        let asked = request::read(posted.parameters)?;
        let id = uuid_of("explain", &format!("{}:{}", e.uuid, posted.name))
            .simple()
            .to_string();
        if let Some(d) = self.explained.find(e.uuid, &id) {
            if d.configuration["parameters"] == *posted.parameters {
                return Ok(d.descriptor(Kind::CriticalPath));
            }
            return Err(ServiceError::new(
                ErrorKind::Conflict,
                "Conflict",
                format!(
                    "a configuration named {} already exists with other parameters",
                    posted.name
                ),
            ));
        }
        let (trace, req) = self.explained_range(e, &asked, work)?;
        let path = &e.traces[trace].path;
        let explanation = explain_trace(path, OpenOptions::default(), &req, |done, total| {
            let pc = (done.min(total) * 100).checked_div(total).unwrap_or(0);
            (work.progress)(pc as u8)
        })
        .map_err(cannot_run)?;
        let diagnosis = explanation.diagnosis(req.tid);
        let path = build::critical_path(&explanation, &req);
        let explained = Arc::new(Explained {
            exp: e.uuid,
            configuration: posted.configuration(&id, EXPLAIN),
            id,
            start: req.start,
            end: req.end,
            diagnosis,
            complement: build::complement(&explanation, &req, &path),
            facilities: build::facilities(&explanation),
            relations: build::relations(&explanation, req.tid),
            path,
        });
        Ok(self
            .explained
            .insert(explained)
            .descriptor(Kind::CriticalPath))
    }

    /// The trace (its position in the experiment) and the range to read.
    fn explained_range(
        &self,
        e: &ExperimentEntry,
        asked: &Asked,
        work: &Work,
    ) -> Result<(usize, explain::Request)> {
        let at_execution =
            |m: String| ServiceError::bad_request(format!("parameters.execution: {m}"));
        match &asked.subject {
            Subject::Model { model, which } => {
                let (executions, trace_of) =
                    super::executions::analyze(e, &Target::Model(model.clone()), work)?;
                let x = pick(&executions, *which).map_err(at_execution)?;
                Ok((trace_of[x.index], asked.request_for(x)))
            }
            Subject::Configuration { id, which } => {
                let d = self.derived.find(e.uuid, id).ok_or_else(|| {
                    ServiceError::bad_request(format!(
                        "parameters.configuration: no {} configuration has id {id} in this experiment",
                        config::EXECUTION_MODEL
                    ))
                })?;
                let x = pick(&d.executions, *which).map_err(at_execution)?;
                Ok((d.trace_of[x.index], asked.request_for(x)))
            }
            Subject::Thread { tid, start, end } => {
                let req = explain::Request {
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
                let indexes = match e.readiness() {
                    Readiness::Ready(ix) => ix,
                    Readiness::Running(m) => {
                        return Err(cannot_run(format!(
                            "the traces are still being indexed: {m}"
                        )))
                    }
                    Readiness::Failed(m) => return Err(cannot_run(m)),
                };
                let trace = indexes
                    .iter()
                    .position(|ix| ix.start <= *start && *start <= ix.end)
                    .ok_or_else(|| {
                        ServiceError::bad_request("parameters.start: in no trace of the experiment")
                    })?;
                Ok((trace, req))
            }
        }
    }

    /// `DELETE .../outputs/sextant.explain/{derived}`.
    pub fn delete_explained(&self, exp: &str, derived: &str) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        let (kind, d) = self.explained(exp, derived)?;
        self.explained.remove(e.uuid, &d.id);
        // After the removal, so that no request can cache them again.
        let suffix = format!(":{}", d.id);
        self.cache.forget(e.uuid, |o| o.ends_with(&suffix));
        Ok(d.descriptor(kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_parse() {
        assert_eq!(
            parse_id("sextant.explain.complement:abc"),
            Some((Kind::Complement, "abc"))
        );
        assert_eq!(parse_id(PARENT), None);
        assert_eq!(parse_id("sextant.executions.table:abc"), None);
    }

    #[test]
    fn the_schema_is_embedded() {
        assert!(config_type()["schema"]["properties"]["execution"].is_object());
    }
}
