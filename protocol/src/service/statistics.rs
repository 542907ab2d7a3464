//! DATA_TREE outputs: statistics of an execution model's durations (overall,
//! then per measured thread), and the number of events of each type in the
//! experiment.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use sextant_engine::analysis::stats::{self, Stats};

use super::executions::{is_derived, Kind};
use super::params::{self, ErrorKind, Result, ServiceError};
use super::{data, Readiness, Service};

/// The experiment's events per type.
pub const EVENT_TYPES: &str = "sextant.event-types";

pub fn event_types_descriptor() -> Value {
    json!({
        "id": EVENT_TYPES,
        "name": "Event types",
        "description": "Number of events of each type",
        "type": "DATA_TREE",
    })
}

const STAT_HEADERS: [(&str, &str, Option<&str>); 11] = [
    ("Name", "The model, then each measured thread", None),
    ("Count", "Number of executions", Some("NUMBER")),
    ("Minimum", "Shortest duration (ns)", Some("NUMBER")),
    ("Maximum", "Longest duration (ns)", Some("NUMBER")),
    ("Mean", "Mean duration (ns)", Some("NUMBER")),
    ("Std dev", "Sample standard deviation (ns)", Some("NUMBER")),
    ("P50", "Median, nearest rank (ns)", Some("NUMBER")),
    ("P90", "90th percentile, nearest rank (ns)", Some("NUMBER")),
    ("P99", "99th percentile, nearest rank (ns)", Some("NUMBER")),
    ("Total", "Sum of the durations (ns)", Some("NUMBER")),
    (
        "Deadline misses",
        "Executions longer than the deadline",
        Some("NUMBER"),
    ),
];

fn headers<'a>(h: impl Iterator<Item = &'a (&'a str, &'a str, Option<&'a str>)>) -> Value {
    Value::Array(
        h.map(|(name, tooltip, ty)| {
            let mut v = json!({"name": name, "tooltip": tooltip});
            if let Some(t) = ty {
                v["dataType"] = json!(t);
            }
            v
        })
        .collect(),
    )
}

/// The labels of one statistics row: name, then the columns of the headers.
fn stat_labels(name: String, s: &Stats) -> Vec<String> {
    vec![
        name,
        s.count.to_string(),
        s.min.to_string(),
        s.max.to_string(),
        format!("{:.1}", s.mean),
        format!("{:.1}", s.stddev),
        s.p50.to_string(),
        s.p90.to_string(),
        s.p99.to_string(),
        s.total.to_string(),
        s.deadline_misses.map(|m| m.to_string()).unwrap_or_default(),
    ]
}

/// A request's optional time range: the executions that start in it, or
/// the events in it, are counted.
fn range_of(body: &Value) -> Result<(i64, i64)> {
    if body.get("parameters").is_none() {
        return Ok((i64::MIN, i64::MAX));
    }
    Ok(params::parameters(body)?
        .opt_time_range()?
        .map_or((i64::MIN, i64::MAX), |r| (r.start, r.end)))
}

impl Service {
    /// `POST .../data/{outputId}/tree`.
    pub fn data_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if is_derived(output) {
            return self.execution_statistics(exp, output, body);
        }
        if super::explain::is_derived(output) {
            return self.explained_data_tree(exp, output, body);
        }
        let e = self.experiment_entry(exp)?;
        if output != EVENT_TYPES {
            return Err(if self.output(exp, output).is_ok() {
                ServiceError::bad_request(format!(
                    "the output {output} does not answer this request"
                ))
            } else {
                ServiceError::not_found("output", format!("no output has id {output}"))
            });
        }
        let (start, end) = range_of(body)?;
        let headers = headers(
            [
                ("Event type", "Event name as written in the trace", None),
                ("Count", "Number of events", Some("NUMBER")),
            ]
            .iter(),
        );
        let indexes = match e.readiness() {
            Readiness::Ready(ix) => ix,
            Readiness::Running(m) => {
                return Ok(data(
                    json!({"headers": headers, "entries": []}),
                    "RUNNING",
                    m,
                ))
            }
            Readiness::Failed(m) => {
                return Err(ServiceError::new(
                    ErrorKind::MethodNotAllowed,
                    "The analysis cannot run",
                    m,
                ))
            }
        };
        // Counts per type are kept for the whole trace only.
        let whole = indexes.iter().all(|ix| start <= ix.start && end >= ix.end);
        if !whole {
            return Err(ServiceError::bad_request(
                "parameters.requested_timerange: event types are counted over the whole experiment only; omit the range or give one that covers it",
            ));
        }
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for ix in &indexes {
            for (name, n) in &ix.event_types {
                *counts.entry(name).or_default() += n;
            }
        }
        let total: u64 = counts.values().sum();
        let mut entries = vec![json!({
            "id": 0, "parentId": -1, "labels": [e.name, total.to_string()], "hasData": true,
        })];
        for (i, (name, n)) in counts.iter().enumerate() {
            entries.push(json!({
                "id": i as i64 + 1, "parentId": 0, "labels": [name, n.to_string()], "hasData": true,
            }));
        }
        Ok(data(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
            "COMPLETED",
            "Completed",
        ))
    }

    /// Statistics of the executions starting in the requested range: the
    /// model's row, then one per measured thread (by TID).
    fn execution_statistics(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let d = self.derived_of_kind(exp, output, Kind::Statistics)?;
        let (start, end) = range_of(body)?;
        let in_range = |x: &&sextant_engine::analysis::executions::Execution| {
            x.start >= start && x.start <= end
        };
        let all: Vec<i64> = d
            .executions
            .executions
            .iter()
            .filter(in_range)
            .map(|x| x.duration)
            .collect();
        let deadline = d.executions.deadline;
        let mut entries = Vec::new();
        if let Some(s) = stats::compute(&all, deadline) {
            entries.push(json!({
                "id": 0, "parentId": -1, "hasData": true,
                "labels": stat_labels(d.executions.name.clone(), &s),
            }));
            let mut by_tid: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
            for x in d.executions.executions.iter().filter(in_range) {
                by_tid.entry(x.tid).or_default().push(x.duration);
            }
            for (i, (tid, durations)) in by_tid.iter().enumerate() {
                if let Some(s) = stats::compute(durations, deadline) {
                    entries.push(json!({
                        "id": i as i64 + 1, "parentId": 0, "hasData": true,
                        "labels": stat_labels(format!("TID {tid}"), &s),
                    }));
                }
            }
        }
        Ok(data(
            json!({"headers": headers(STAT_HEADERS.iter()), "entries": entries, "autoExpandLevel": -1}),
            "COMPLETED",
            "Completed",
        ))
    }
}
