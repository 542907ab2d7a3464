//! Derived outputs of an execution model (TSP output configurations):
//! `POST /experiments/{uuid}/outputs/sextant.executions` with a model creates
//! the Comparison View (GANTT_CHART: one row per execution on a time axis
//! relative to its start), the Time Perspective (TREE_TIME_XY: duration
//! against start time as a scatter) and the executions table.
//!
//! Known gap: the executions are found by a second pass over the trace files
//! (`AnyReader`, on the blocking thread of the request), not in the indexing
//! pass; the states drawn come from the index's per-thread intervals.

use std::sync::Arc;

use serde_json::{json, Map, Value};
use sextant_engine::analysis::executions::{
    Execution, ExecutionAnalysis, Executions, SortKey, Target,
};
use sextant_engine::analysis::model::{model_from_value, ExecutionModel};
use sextant_engine::event::{EventSource, ReadError};
use sextant_engine::kernel::model::KernelModel;
use sextant_engine::kernel::pass;
use sextant_engine::reader::{AnyReader, WithSource};
use uuid::Uuid;

use super::config::{self, Configured, DerivedKind, EXECUTION_MODEL};
use super::index::{Interval, ThreadRow, TraceIndex};
use super::outputs::{sample_states, state_styles, thread_state_style_map, DrawnRow, DrawnRows};
use super::params::{self, ErrorKind, Result, ServiceError, TimeRange};
use super::{data, uuid_of, ExperimentEntry, Readiness, Reply, Service, Work};

/// The output that creates the derived ones (type NONE, canCreate).
pub const PARENT: &str = "sextant.executions";
pub const COMPARISON: &str = "sextant.executions.comparison";
pub const PERSPECTIVE: &str = "sextant.executions.perspective";
pub const TABLE: &str = "sextant.executions.table";
pub const STATISTICS: &str = "sextant.executions.statistics";
pub const DENSITY: &str = "sextant.executions.density";

const DEADLINE_MISSES: &str = "Deadline misses";

/// Which derived output an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Comparison,
    Perspective,
    Table,
    Statistics,
    Density,
}

impl DerivedKind for Kind {
    const ALL: &'static [Kind] = &[
        Kind::Comparison,
        Kind::Perspective,
        Kind::Table,
        Kind::Statistics,
        Kind::Density,
    ];

    fn prefix(self) -> &'static str {
        match self {
            Kind::Comparison => COMPARISON,
            Kind::Perspective => PERSPECTIVE,
            Kind::Table => TABLE,
            Kind::Statistics => STATISTICS,
            Kind::Density => DENSITY,
        }
    }
}

/// `prefix:config` → (kind, config id), for the derived outputs' ids.
pub fn parse_id(output: &str) -> Option<(Kind, &str)> {
    config::parse_derived_id(output)
}

/// Whether `output` is (shaped like) a derived output's id.
pub fn is_derived(output: &str) -> bool {
    parse_id(output).is_some()
}

/// The parent output's descriptor.
pub fn parent_descriptor() -> Value {
    json!({
        "id": PARENT,
        "name": "Executions",
        "description": "Give an execution model (configuration type sextant.execution-model) to create the Comparison View, the Time Perspective and the executions table",
        "type": "NONE",
        "capabilities": {"canCreate": true, "canDelete": false},
    })
}

/// One configuration: the model's executions over the experiment's traces.
pub struct Derived {
    pub exp: Uuid,
    pub id: String,
    /// The `Configuration` (id, name, description, sourceTypeId, parameters).
    pub configuration: Value,
    pub executions: Executions,
    /// Position in the experiment of the trace of each execution, by index.
    pub trace_of: Vec<usize>,
}

impl Derived {
    fn output_id(&self, kind: Kind) -> String {
        format!("{}:{}", kind.prefix(), self.id)
    }

    pub fn descriptor(&self, kind: Kind) -> Value {
        let name = self.configuration["name"].as_str().unwrap_or_default();
        let (title, description, ty) = match kind {
            Kind::Comparison => (
                "Comparison View",
                "Each execution on a time axis relative to its start: running, preempted, blocked, waiting for a CPU",
                "GANTT_CHART",
            ),
            Kind::Perspective => (
                "Time Perspective",
                "Duration of each execution against its start time",
                "TREE_TIME_XY",
            ),
            Kind::Table => (
                "Executions",
                "Every execution with its times",
                "TABLE",
            ),
            Kind::Statistics => (
                "Statistics",
                "Count, minimum, maximum, mean, standard deviation, percentiles and deadline misses of the durations, overall and per thread",
                "DATA_TREE",
            ),
            Kind::Density => (
                "Duration density",
                "Number of executions per duration range",
                "TREE_GENERIC_XY",
            ),
        };
        json!({
            "id": self.output_id(kind),
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

    pub(super) fn execution(&self, index: i64) -> Option<&Execution> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.executions.executions.get(i))
    }
}

/// The execution-model configurations of all experiments.
pub type Store = super::config::Store<Derived>;

impl Configured for Derived {
    fn experiment(&self) -> Uuid {
        self.exp
    }

    fn config_id(&self) -> &str {
        &self.id
    }
}

struct Analyze<'w> {
    target: Target,
    /// Trace `trace` of `traces`: its bytes are that share of the progress.
    trace: usize,
    traces: usize,
    work: &'w Work<'w>,
}

impl WithSource for Analyze<'_> {
    type Output = std::result::Result<Executions, String>;

    fn run<S: EventSource>(self, source: S) -> Self::Output {
        let mut model = KernelModel::default();
        let mut analysis = ExecutionAnalysis::new(self.target);
        let mut source = Watched {
            inner: source,
            events: 0,
            trace: self.trace,
            traces: self.traces,
            work: self.work,
        };
        pass::run(&mut source, &mut model, &mut [&mut analysis], |_, _| {})
            .map_err(|e| e.to_string())?;
        Ok(analysis.into_executions())
    }
}

#[derive(Debug)]
struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// A reader that reports progress and stops with `Cancelled` when the
/// request is cancelled, every few thousand events (the pass's own progress
/// callback comes too seldom for small traces and cannot stop it).
struct Watched<'w, S> {
    inner: S,
    events: u64,
    trace: usize,
    traces: usize,
    work: &'w Work<'w>,
}

impl<S: EventSource> EventSource for Watched<'_, S> {
    type Event<'s>
        = S::Event<'s>
    where
        Self: 's;

    fn advance(&mut self) -> std::result::Result<bool, ReadError> {
        self.events += 1;
        if self.events.is_multiple_of(4096) {
            if self.work.cancelled() {
                return Err(ReadError::new(Cancelled));
            }
            let (done, total) = self.inner.progress();
            let within = (done.min(total) * 100).checked_div(total).unwrap_or(0);
            let overall = (self.trace as u64 * 100 + within) / self.traces.max(1) as u64;
            (self.work.progress)(overall.min(100) as u8);
        }
        self.inner.advance()
    }

    fn event(&self) -> Option<Self::Event<'_>> {
        self.inner.event()
    }

    fn progress(&self) -> (u64, u64) {
        self.inner.progress()
    }

    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }
}

/// The execution model at `at` in a request (e.g. `parameters`), with errors
/// naming the field under it.
pub(super) fn parse_model(v: &Value, at: &str) -> Result<ExecutionModel> {
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
/// order and indexed again; with the trace of each.
pub(super) fn analyze(
    e: &ExperimentEntry,
    target: &Target,
    work: &Work,
) -> Result<(Executions, Vec<usize>)> {
    let mut all: Vec<(Execution, usize)> = Vec::new();
    let mut merged: Option<Executions> = None;
    for (ti, t) in e.traces.iter().enumerate() {
        let fail = |m: String| {
            ServiceError::new(
                ErrorKind::MethodNotAllowed,
                "The analysis cannot run",
                format!("{}: {m}", t.name),
            )
        };
        let reader = AnyReader::open(&t.path).map_err(|x| fail(x.to_string()))?;
        let mut found = reader
            .with(Analyze {
                target: target.clone(),
                trace: ti,
                traces: e.traces.len(),
                work,
            })
            .map_err(|m| {
                if work.cancelled() {
                    ServiceError::new(ErrorKind::Internal, "Cancelled", m)
                } else {
                    fail(m)
                }
            })?;
        all.extend(found.executions.drain(..).map(|x| (x, ti)));
        match &mut merged {
            Some(m) => m.incomplete += found.incomplete,
            None => merged = Some(found),
        }
    }
    let mut merged =
        merged.ok_or_else(|| ServiceError::bad_request("the experiment has no trace"))?;
    all.sort_by_key(|(x, _)| (x.start, x.end, x.tid));
    let mut trace_of = Vec::with_capacity(all.len());
    for (i, (mut x, ti)) in all.into_iter().enumerate() {
        x.index = i;
        merged.executions.push(x);
        trace_of.push(ti);
    }
    Ok((merged, trace_of))
}

/// The measured thread's states during `x`, on a time axis starting at 0.
fn relative_row(indexes: &[Arc<TraceIndex>], ti: usize, x: &Execution) -> ThreadRow {
    let mut intervals = Vec::new();
    if let Some(ix) = indexes.get(ti) {
        for r in ix.rows_of(x.tid, x.start, x.end) {
            let first = r.intervals.partition_point(|iv| iv.end <= x.start);
            for iv in &r.intervals[first..] {
                if iv.start >= x.end {
                    break;
                }
                let (s, e) = (iv.start.max(x.start), iv.end.min(x.end));
                if e > s {
                    intervals.push(Interval {
                        start: s - x.start,
                        end: e - x.start,
                        state: iv.state,
                    });
                }
            }
        }
    }
    intervals.sort_by_key(|iv| iv.start);
    ThreadRow {
        tid: x.tid,
        pid: None,
        comm: x.start_comm.clone(),
        start: 0,
        end: x.duration,
        intervals,
    }
}

fn sort_key(p: Option<&str>) -> Result<SortKey> {
    match p {
        None => Ok(SortKey::Duration),
        Some(s) => s
            .parse()
            .map_err(|e: String| ServiceError::bad_request(format!("parameters.sort: {e}"))),
    }
}

const TABLE_COLUMNS: [(&str, &str, &str); 12] = [
    ("Index", "Position in start order", "NUMBER"),
    ("Start", "Start time (ns)", "TIMESTAMP"),
    ("End", "End time (ns)", "TIMESTAMP"),
    ("Duration", "Elapsed time (ns)", "DURATION"),
    ("Running", "Time running (ns)", "DURATION"),
    ("Preempted", "Time preempted (ns)", "DURATION"),
    ("Blocked", "Time blocked (ns)", "DURATION"),
    (
        "Waiting",
        "Time waiting for a CPU after a wakeup (ns)",
        "DURATION",
    ),
    ("TID", "The thread the times are measured on", "NUMBER"),
    ("Command", "The starting thread's name", "STRING"),
    (
        "Priority",
        "Kernel-order priority of the measured thread",
        "NUMBER",
    ),
    (
        "Deadline miss",
        "Longer than the model's deadline",
        "STRING",
    ),
];

fn cell(x: &Execution, column: usize) -> String {
    match column {
        0 => x.index.to_string(),
        1 => x.start.to_string(),
        2 => x.end.to_string(),
        3 => x.duration.to_string(),
        4 => x.running.to_string(),
        5 => x.preempted.to_string(),
        6 => x.blocked.to_string(),
        7 => x.waiting.to_string(),
        8 => x.tid.to_string(),
        9 => x.start_comm.clone(),
        10 => x.prio.map(|p| p.to_string()).unwrap_or_default(),
        11 => match x.deadline_miss {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => String::new(),
        },
        _ => String::new(),
    }
}

impl Service {
    /// The derived output `output` of the experiment, and its kind.
    pub fn derived_output(&self, exp: &str, output: &str) -> Result<(Kind, Arc<Derived>)> {
        let e = self.experiment_entry(exp)?;
        parse_id(output)
            .and_then(|(k, id)| self.derived.find(e.uuid, id).map(|d| (k, d)))
            .ok_or_else(|| ServiceError::not_found("output", format!("no output has id {output}")))
    }

    pub(super) fn derived_of_kind(
        &self,
        exp: &str,
        output: &str,
        want: Kind,
    ) -> Result<Arc<Derived>> {
        let (k, d) = self.derived_output(exp, output)?;
        if k == want {
            Ok(d)
        } else {
            Err(ServiceError::bad_request(format!(
                "the output {output} does not answer this request"
            )))
        }
    }

    /// The experiment's indexes, or the status message while indexing.
    fn indexes(&self, exp: &str) -> Result<std::result::Result<Vec<Arc<TraceIndex>>, String>> {
        match self.experiment_entry(exp)?.readiness() {
            Readiness::Ready(ix) => Ok(Ok(ix)),
            Readiness::Running(m) => Ok(Err(m)),
            Readiness::Failed(m) => Err(ServiceError::new(
                ErrorKind::MethodNotAllowed,
                "The analysis cannot run",
                m,
            )),
        }
    }

    /// `POST /experiments/{uuid}/outputs/sextant.executions`: checks the
    /// model, finds its executions, registers the derived outputs; answers
    /// the Comparison View's descriptor. Finding the executions reports to
    /// `work` and stops when it is cancelled.
    pub fn create_derived(
        &self,
        exp: &str,
        output: &str,
        body: &Value,
        work: &Work,
    ) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        if output == super::explain::PARENT {
            return self.create_explained(&e, body, work);
        }
        if output != PARENT {
            return Err(if self.output(exp, output).is_ok() {
                ServiceError::bad_request(format!(
                    "the output {output} cannot create derived outputs (use {PARENT})"
                ))
            } else {
                ServiceError::not_found("output", format!("no output has id {output}"))
            });
        }
        let posted = config::posted(body, EXECUTION_MODEL, "an execution model")?;
        let (name, parameters) = (&posted.name, posted.parameters);
        let model = parse_model(parameters, "parameters")?;
        let id = uuid_of("config", &format!("{}:{name}", e.uuid))
            .simple()
            .to_string();
        if let Some(d) = self.derived.find(e.uuid, &id) {
            if d.configuration["parameters"] == *parameters {
                return Ok(d.descriptor(Kind::Comparison));
            }
            return Err(ServiceError::new(
                ErrorKind::Conflict,
                "Conflict",
                format!("a configuration named {name} already exists with another model"),
            ));
        }
        let (executions, trace_of) = analyze(&e, &Target::Model(Box::new(model)), work)?;
        let derived = Arc::new(Derived {
            exp: e.uuid,
            configuration: posted.configuration(&id, EXECUTION_MODEL),
            id,
            executions,
            trace_of,
        });
        Ok(self.derived.insert(derived).descriptor(Kind::Comparison))
    }

    /// `DELETE /experiments/{uuid}/outputs/{parent}/{derived}`: removes the
    /// configuration and its three outputs; answers the derived descriptor.
    pub fn delete_derived(&self, exp: &str, output: &str, derived: &str) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        if output == super::explain::PARENT {
            return self.delete_explained(exp, derived);
        }
        if output != PARENT {
            return Err(ServiceError::not_found(
                "output",
                format!("{output} has no derived outputs (their parent is {PARENT})"),
            ));
        }
        let (kind, d) = self.derived_output(exp, derived)?;
        self.derived.remove(e.uuid, &d.id);
        // After the removal, so that no request can cache them again.
        let suffix = format!(":{}", d.id);
        self.cache.forget(e.uuid, |o| o.ends_with(&suffix));
        Ok(d.descriptor(kind))
    }

    pub fn derived_style(&self, exp: &str, output: &str) -> Result<Value> {
        let (kind, _) = self.derived_output(exp, output)?;
        let styles = if kind == Kind::Comparison {
            thread_state_style_map()
        } else {
            Map::new()
        };
        Ok(data(json!({"styles": styles}), "COMPLETED", "Completed"))
    }

    /// Annotation categories of a derived output: deadline misses when the
    /// model has a deadline.
    pub fn derived_annotation_categories(&self, exp: &str, output: &str) -> Result<Value> {
        let (_, d) = self.derived_output(exp, output)?;
        let categories: Vec<&str> = if d.executions.deadline.is_some() {
            vec![DEADLINE_MISSES]
        } else {
            vec![]
        };
        Ok(data(
            json!({"annotationCategories": categories}),
            "COMPLETED",
            "Completed",
        ))
    }

    /// Deadline misses: in the Comparison View, on each late execution's row
    /// from the deadline to its end; in the Time Perspective, over each late
    /// execution's time range. (All of them: the request's range is not
    /// applied.)
    pub fn derived_annotations(&self, exp: &str, output: &str) -> Result<Value> {
        let (kind, d) = self.derived_output(exp, output)?;
        let mut annotations = Map::new();
        if let (Some(deadline), Kind::Comparison | Kind::Perspective) =
            (d.executions.deadline, kind)
        {
            let style = json!({"values": {"color": "#ff0000", "opacity": 0.3}});
            let marks: Vec<Value> = d
                .executions
                .executions
                .iter()
                .filter(|x| x.deadline_miss == Some(true))
                .map(|x| {
                    let (entry, time, duration) = if kind == Kind::Comparison {
                        (x.index as i64, deadline, x.duration - deadline)
                    } else {
                        (-1, x.start, x.duration)
                    };
                    json!({
                        "entryId": entry,
                        "time": time,
                        "duration": duration,
                        "type": "CHART",
                        "label": format!("#{} missed its deadline by {} ns", x.index, x.duration - deadline),
                        "style": style,
                    })
                })
                .collect();
            annotations.insert(DEADLINE_MISSES.into(), Value::Array(marks));
        }
        Ok(data(
            json!({"annotations": annotations}),
            "COMPLETED",
            "Completed",
        ))
    }

    pub fn derived_timegraph_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let d = self.derived_of_kind(exp, output, Kind::Comparison)?;
        let sort = if body.get("parameters").is_some() {
            let p = params::parameters(body)?;
            p.opt_time_range()?;
            sort_key(p.opt_str("sort")?)?
        } else {
            SortKey::Duration
        };
        let headers = json!([
            {"name": "Execution", "tooltip": "Position in start order"},
            {"name": "Duration", "tooltip": "Elapsed time (ns)", "dataType": "DURATION"},
            {"name": "TID", "tooltip": "The thread the times are measured on", "dataType": "NUMBER"},
        ]);
        let entries: Vec<Value> = d
            .executions
            .sorted(sort)
            .into_iter()
            .map(|x| {
                json!({
                    "id": x.index as i64,
                    "parentId": -1,
                    "labels": [format!("#{}", x.index), x.duration.to_string(), x.tid.to_string()],
                    "hasData": true,
                    "start": 0,
                    "end": x.duration,
                    "metadata": {"start": [x.start], "tid": [x.tid]},
                })
            })
            .collect();
        Ok(data(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
            "COMPLETED",
            "Completed",
        ))
    }

    pub fn derived_timegraph_states(&self, exp: &str, output: &str, body: &Value) -> Result<Reply> {
        let d = self.derived_of_kind(exp, output, Kind::Comparison)?;
        let p = params::parameters(body)?;
        let TimeRange {
            start,
            end,
            nb_times,
        } = p.time_range()?;
        let items = p.opt_i64_array("requested_items")?;
        let indexes = match self.indexes(exp)? {
            Ok(ix) => ix,
            Err(m) => return Ok(data(json!({"rows": []}), "RUNNING", m).into()),
        };
        let resolution = match nb_times {
            Some(n) => ((end - start) / n).max(1),
            None => 1,
        };
        let wanted: Vec<&Execution> = match &items {
            Some(ids) => ids.iter().filter_map(|&i| d.execution(i)).collect(),
            None => d.executions.executions.iter().collect(),
        };
        let rows: Vec<DrawnRow> = wanted
            .into_iter()
            .map(|x| {
                let row = relative_row(&indexes, d.trace_of[x.index], x);
                DrawnRow {
                    entry_id: x.index as i64,
                    states: sample_states(&row, start, end, resolution),
                }
            })
            .collect();
        Reply::data(&DrawnRows { rows }, "COMPLETED", "Completed")
    }

    pub fn derived_timegraph_arrows(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.derived_of_kind(exp, output, Kind::Comparison)?;
        params::parameters(body)?.time_range()?;
        Ok(data(json!([]), "COMPLETED", "Completed"))
    }

    pub fn derived_timegraph_tooltip(
        &self,
        exp: &str,
        output: &str,
        body: &Value,
    ) -> Result<Value> {
        let d = self.derived_of_kind(exp, output, Kind::Comparison)?;
        let p = params::parameters(body)?;
        let times = p.opt_i64_array("requested_times")?.unwrap_or_default();
        let items = p.opt_i64_array("requested_items")?.unwrap_or_default();
        let Some(&id) = items.first() else {
            return Ok(data(json!({}), "COMPLETED", "Completed"));
        };
        let x = d
            .execution(id)
            .ok_or_else(|| ServiceError::not_found("entry", format!("no entry has id {id}")))?;
        let mut tip = Map::new();
        tip.insert("Execution".into(), json!(format!("#{}", x.index)));
        tip.insert("Start".into(), json!(x.start.to_string()));
        tip.insert("Duration (ns)".into(), json!(x.duration.to_string()));
        tip.insert("TID".into(), json!(x.tid.to_string()));
        if let (Some(&t), Ok(indexes)) = (times.first(), self.indexes(exp)?) {
            let row = relative_row(&indexes, d.trace_of[x.index], x);
            let i = row.intervals.partition_point(|iv| iv.end <= t);
            if let Some(iv) = row.intervals.get(i).filter(|iv| iv.start <= t) {
                let name = state_styles()
                    .into_iter()
                    .find(|(k, _, _)| *k == iv.state.as_str())
                    .map_or("", |s| s.1);
                tip.insert("State".into(), json!(name));
                tip.insert(
                    "State duration (ns)".into(),
                    json!((iv.end - iv.start).to_string()),
                );
            }
        }
        Ok(data(Value::Object(tip), "COMPLETED", "Completed"))
    }

    pub fn derived_xy_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let d = self.derived_of_kind(exp, output, Kind::Perspective)?;
        if body.get("parameters").is_some() {
            params::parameters(body)?.opt_time_range()?;
        }
        let name = d.executions.name.clone();
        let mut entries = vec![
            json!({"id": 0, "parentId": -1, "labels": [name], "hasData": false}),
            json!({"id": 1, "parentId": 0, "labels": ["duration"], "hasData": true, "isDefault": true}),
        ];
        if d.executions.deadline.is_some() {
            entries.push(json!({"id": 2, "parentId": 0, "labels": ["deadline misses"], "hasData": true, "isDefault": true}));
        }
        entries.push(json!({"id": 3, "parentId": 0, "labels": ["mean"], "hasData": true}));
        entries.push(json!({"id": 4, "parentId": 0, "labels": ["mean + 1σ"], "hasData": true}));
        entries.push(json!({"id": 5, "parentId": 0, "labels": ["mean − 1σ"], "hasData": true}));
        Ok(data(
            json!({"headers": [{"name": "Name", "tooltip": ""}], "entries": entries, "autoExpandLevel": -1}),
            "COMPLETED",
            "Completed",
        ))
    }

    pub fn derived_xy(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let d = self.derived_of_kind(exp, output, Kind::Perspective)?;
        let p = params::parameters(body)?;
        let range = p.time_range()?;
        let items = p
            .opt_i64_array("requested_items")?
            .unwrap_or_else(|| vec![1, 2]);
        let in_range: Vec<&Execution> = d
            .executions
            .executions
            .iter()
            .filter(|x| x.start >= range.start && x.start <= range.end)
            .collect();
        let points = |keep: &dyn Fn(&Execution) -> bool| -> (Vec<i64>, Vec<f64>) {
            let chosen: Vec<&Execution> = in_range.iter().copied().filter(|x| keep(x)).collect();
            // Downsampled to the longest execution per x bucket when there
            // are more points than asked for.
            let n = range.nb_times.unwrap_or(i64::MAX).max(1) as usize;
            let chosen = if chosen.len() > n {
                let span = (range.end - range.start).max(1) as f64;
                let mut buckets: Vec<Option<&Execution>> = vec![None; n];
                for x in chosen {
                    let b = (((x.start - range.start) as f64 / span) * n as f64) as usize;
                    let slot = &mut buckets[b.min(n - 1)];
                    if slot.is_none_or(|y| x.duration > y.duration) {
                        *slot = Some(x);
                    }
                }
                buckets.into_iter().flatten().collect()
            } else {
                chosen
            };
            (
                chosen.iter().map(|x| x.start).collect(),
                chosen.iter().map(|x| x.duration as f64).collect(),
            )
        };
        let axis = |label: &str| {
            (
                json!({"label": "Start", "unit": "ns", "dataType": "TIMESTAMP"}),
                json!({"label": label, "unit": "ns", "dataType": "DURATION"}),
            )
        };
        let mut series = Vec::new();
        for id in items {
            let (name, (xs, ys), kind) = match id {
                1 => ("duration", points(&|_| true), "scatter"),
                2 if d.executions.deadline.is_some() => (
                    "deadline misses",
                    points(&|x| x.deadline_miss == Some(true)),
                    "scatter",
                ),
                3..=5 => {
                    let Some(s) = d.executions.stats() else {
                        continue;
                    };
                    let (name, y) = match id {
                        3 => ("mean", s.mean),
                        4 => ("mean + 1σ", s.mean + s.stddev),
                        _ => ("mean − 1σ", s.mean - s.stddev),
                    };
                    (name, (vec![range.start, range.end], vec![y, y]), "line")
                }
                _ => continue,
            };
            let (xd, yd) = axis("Duration");
            let mut style = json!({"series-type": kind});
            if id == 2 {
                style["color"] = json!("#ff0000");
            }
            series.push(json!({
                "seriesId": id,
                "seriesName": name,
                "xValues": xs,
                "yValues": ys,
                "style": {"values": style},
                "xValuesDescription": xd,
                "yValuesDescription": yd,
            }));
        }
        let title = format!("Time Perspective: {}", d.executions.name);
        Ok(data(
            json!({"title": title, "series": series}),
            "COMPLETED",
            "Completed",
        ))
    }

    pub fn table_columns(&self, exp: &str, output: &str, _body: &Value) -> Result<Value> {
        if output == super::events::EVENTS_TABLE {
            return self.events_columns(exp);
        }
        self.derived_of_kind(exp, output, Kind::Table)?;
        let columns: Vec<Value> = TABLE_COLUMNS
            .iter()
            .enumerate()
            .map(|(i, (name, description, ty))| {
                json!({"id": i as i64, "name": name, "description": description, "type": ty})
            })
            .collect();
        Ok(data(Value::Array(columns), "COMPLETED", "Completed"))
    }

    pub fn table_lines(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if output == super::events::EVENTS_TABLE {
            return self.events_lines(exp, body);
        }
        let d = self.derived_of_kind(exp, output, Kind::Table)?;
        let p = params::parameters(body)?;
        let low = p.opt_i64("requested_table_index")?.unwrap_or(0);
        let count = p.opt_i64("requested_table_count")?.unwrap_or(i64::MAX);
        if low < 0 || count < 0 {
            return Err(ServiceError::bad_request(
                "parameters.requested_table_index, requested_table_count: must not be negative",
            ));
        }
        let columns: Vec<usize> = match p.opt_i64_array("requested_table_column_ids")? {
            Some(ids) if !ids.is_empty() => ids
                .into_iter()
                .filter(|&c| c >= 0 && (c as usize) < TABLE_COLUMNS.len())
                .map(|c| c as usize)
                .collect(),
            _ => (0..TABLE_COLUMNS.len()).collect(),
        };
        let all = &d.executions.executions;
        let lines: Vec<Value> = all
            .iter()
            .skip(low as usize)
            .take(count.min(all.len() as i64) as usize)
            .map(|x| {
                let cells: Vec<Value> = columns
                    .iter()
                    .map(|&c| json!({"content": cell(x, c)}))
                    .collect();
                json!({"index": x.index as i64, "cells": cells})
            })
            .collect();
        Ok(data(
            json!({
                "columnIds": columns,
                "lowIndex": low,
                "size": all.len(),
                "lines": lines,
            }),
            "COMPLETED",
            "Completed",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sextant_engine::kernel::model::ThreadState;

    #[test]
    fn derived_ids_parse() {
        assert_eq!(
            parse_id("sextant.executions.comparison:abc"),
            Some((Kind::Comparison, "abc"))
        );
        assert_eq!(
            parse_id("sextant.executions.table:x:y"),
            Some((Kind::Table, "x:y"))
        );
        assert_eq!(parse_id(PARENT), None);
        assert_eq!(parse_id("other:abc"), None);
    }

    #[test]
    fn states_are_clipped_to_the_execution_and_made_relative() {
        use ThreadState::*;
        let iv = |start, end, state| Interval { start, end, state };
        let mut ix = TraceIndex {
            events: 0,
            start: 0,
            end: 1000,
            threads: vec![ThreadRow {
                tid: 7,
                pid: None,
                comm: "t".into(),
                start: 0,
                end: 1000,
                intervals: vec![
                    iv(0, 100, Blocked),
                    iv(100, 150, Running),
                    iv(150, 300, Preempted),
                    iv(300, 1000, Running),
                ],
            }],
            ..Default::default()
        };
        ix.rows_of_tid.insert(7, vec![0]);
        let x = Execution {
            index: 0,
            start: 120,
            end: 400,
            duration: 280,
            running: 0,
            preempted: 0,
            blocked: 0,
            waiting: 0,
            start_tid: 7,
            end_tid: 7,
            start_comm: "t".into(),
            end_comm: "t".into(),
            tid: 7,
            cpus: vec![],
            prio: None,
            deadline_miss: None,
            nested: vec![],
            btf: None,
        };
        let row = relative_row(&[Arc::new(ix)], 0, &x);
        assert_eq!(
            row.intervals,
            vec![
                iv(0, 30, Running),
                iv(30, 180, Preempted),
                iv(180, 280, Running)
            ]
        );
    }
}
