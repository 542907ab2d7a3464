//! Thread status: each thread's state over time (TIME_GRAPH), in a tree of
//! hosts, their processes and their threads (`thread_tree`), every thread
//! life of every trace of the experiment a row of states.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::draw::{
    filtered, moved, sample_states, state_name, thread_state_style_map, DrawnRow, DrawnRows,
};
use super::thread_tree::{thread_name, Group, Hosts, Served, Tree};
use crate::index::{Row, TraceIndex};
use crate::params::{Result, ServiceError, TimeRange};
use crate::provider::{no_arrows, Output, Query};
use crate::queries::{self, FilteredStates, Tooltip, Viewport};
use crate::reply::{completed, data, Reply, Status};
use crate::traces::ExperimentEntry;

/// Trace Compass's id, so that clients special-casing it work.
pub const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";

pub struct ThreadStatus;

/// The rows of all the experiment's traces, numbered from 0 in order (the
/// threads' entry ids), with the position of their trace.
fn rows(indexes: &[Arc<TraceIndex>]) -> impl Iterator<Item = (i64, usize, Row<'_>)> {
    indexes
        .iter()
        .enumerate()
        .flat_map(|(trace, ix)| ix.threads.rows().map(move |r| (trace, r)))
        .enumerate()
        .map(|(i, (trace, r))| (i as i64, trace, r))
}

/// Thread `id`'s row and the position of its trace.
fn row_by_id(indexes: &[Arc<TraceIndex>], id: i64) -> Option<(usize, Row<'_>)> {
    let mut id = usize::try_from(id).ok()?;
    for (trace, ix) in indexes.iter().enumerate() {
        if id < ix.threads.len() {
            return ix.threads.row(id).map(|r| (trace, r));
        }
        id -= ix.threads.len();
    }
    None
}

/// The experiment's traces with their indexes, in order.
fn served<'a>(exp: &'a ExperimentEntry, indexes: &'a [Arc<TraceIndex>]) -> Vec<Served<'a>> {
    exp.traces
        .iter()
        .zip(indexes)
        .enumerate()
        .map(|(k, (t, ix))| Served {
            name: &t.name,
            host: &t.host,
            index: ix,
            on: exp.timeline.of(k),
        })
        .collect()
}

/// A number's label, empty when unknown.
fn label(n: Option<i64>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

/// The tree's entries, each host followed by its processes, each process
/// by its threads.
fn entries(tree: &Tree<'_>) -> Vec<Value> {
    let mut entries = Vec::new();
    for h in &tree.hosts {
        entries.push(json!({
            "id": h.id,
            "parentId": -1,
            "labels": [h.label, "", ""],
            "hasData": false,
            "start": h.span.start,
            "end": h.span.end,
            "metadata": {"host": [h.label]},
        }));
        for p in &h.processes {
            let pid = p.process.pid();
            let mut metadata = Map::new();
            if let Some(pid) = pid {
                metadata.insert("pid".into(), json!([pid]));
            }
            entries.push(json!({
                "id": p.id,
                "parentId": h.id,
                "labels": [p.name, "", label(pid)],
                "hasData": false,
                "start": p.span.start,
                "end": p.span.end,
                "metadata": metadata,
            }));
            for &(id, life) in &p.threads {
                let mut metadata = metadata.clone();
                metadata.insert("tid".into(), json!([life.tid]));
                entries.push(json!({
                    "id": id,
                    "parentId": p.id,
                    "labels": [thread_name(life), life.tid.to_string(), label(pid)],
                    "hasData": true,
                    "start": h.on.apply(life.start),
                    "end": h.on.apply(life.end),
                    "metadata": metadata,
                }));
            }
        }
    }
    entries
}

impl Output for ThreadStatus {
    fn descriptor(&self) -> Value {
        json!({
            "id": THREAD_STATUS,
            "name": "Thread Status",
            "description": "Each thread's state over time: running, preempted, blocked, waiting for a CPU",
            "type": "TIME_GRAPH",
        })
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        Ok(completed(json!({"styles": thread_state_style_map()})))
    }

    fn timegraph_tree(&self, q: &Query<'_>) -> Result<Value> {
        // The time range is optional and does not filter the rows.
        queries::Tree::parse(q.body)?;
        let headers = json!([
            {"name": "Process", "tooltip": "Host, process or thread name"},
            {"name": "TID", "tooltip": "Thread id", "dataType": "NUMBER"},
            {"name": "PID", "tooltip": "Process id", "dataType": "NUMBER"},
        ]);
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(message) => {
                return Ok(data(
                    json!({"headers": headers, "entries": []}),
                    Status::Running,
                    message,
                ))
            }
        };
        let entries = entries(&Tree::of(&served(q.exp, &indexes)));
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    fn timegraph_states(&self, q: &Query<'_>) -> Result<Reply> {
        let FilteredStates {
            viewport: Viewport { range, items },
            filter,
        } = FilteredStates::parse(q.body)?;
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(message) => return Ok(data(json!({"rows": []}), Status::Running, message).into()),
        };
        let resolution = range.resolution();
        let TimeRange { start, end, .. } = range;
        // Hosts and processes have no states: no row.
        let wanted: Vec<(i64, usize, Row<'_>)> = match &items {
            Some(ids) => ids
                .iter()
                .filter_map(|&id| row_by_id(&indexes, id).map(|(trace, r)| (id, trace, r)))
                .collect(),
            None => rows(&indexes).collect(),
        };
        let timeline = &q.exp.timeline;
        let rows: Vec<DrawnRow> = wanted
            .into_iter()
            .filter_map(|(id, trace, r)| {
                // The range in the trace's own clock, where its states are.
                let (start, end) = (timeline.own(trace, start), timeline.own(trace, end));
                (r.life.end >= start && r.life.start <= end).then_some((id, trace, r, start, end))
            })
            .map(|(id, trace, r, start, end)| {
                let states = sample_states(r.states, &r.pyramid, start, end, resolution);
                let states = moved(states, timeline.of(trace));
                let (name, tid) = (thread_name(r.life), r.life.tid.to_string());
                DrawnRow {
                    entry_id: id,
                    states: filtered(states, filter.as_ref(), &[&name, &tid]),
                }
            })
            .collect();
        Reply::completed(&DrawnRows { rows })
    }

    fn timegraph_arrows(&self, q: &Query<'_>) -> Result<Value> {
        no_arrows(q)
    }

    fn timegraph_tooltip(&self, q: &Query<'_>) -> Result<Value> {
        let asked = Tooltip::parse(q.body)?;
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(message) => return Ok(data(json!({}), Status::Running, message)),
        };
        let (Some(t), Some(id)) = (asked.time, asked.item) else {
            return Ok(completed(json!({})));
        };
        let traces = served(q.exp, &indexes);
        let Some((trace, row)) = row_by_id(&indexes, id) else {
            return group_tooltip(&Tree::of(&traces), id);
        };
        let hosts = Hosts::of(&traces);
        let mut tip = Map::new();
        tip.insert("Process".into(), json!(row.life.comm));
        tip.insert("TID".into(), json!(row.life.tid.to_string()));
        tip.insert("Host".into(), json!(hosts.labels[hosts.of_trace[trace]]));
        let timeline = &q.exp.timeline;
        if let Some(iv) = row.states.at(timeline.own(trace, t)) {
            tip.insert("State".into(), json!(state_name(iv.state)));
            let start = timeline.shared(trace, iv.start);
            tip.insert("Start".into(), json!(start.to_string()));
            tip.insert(
                "Duration (ns)".into(),
                json!((iv.end - iv.start).to_string()),
            );
        }
        Ok(completed(Value::Object(tip)))
    }
}

/// The tooltip of a host or process entry: what it is, no state.
fn group_tooltip(tree: &Tree<'_>, id: i64) -> Result<Value> {
    let tip = match tree.group(id) {
        None => {
            return Err(ServiceError::not_found(
                "entry",
                format!("no entry has id {id}"),
            ))
        }
        Some(Group::Host(h)) => json!({"Host": h.label}),
        Some(Group::Process(h, p)) => {
            let mut tip = Map::new();
            tip.insert("Process".into(), json!(p.name));
            if let Some(pid) = p.process.pid() {
                tip.insert("PID".into(), json!(pid.to_string()));
            }
            tip.insert("Threads".into(), json!(p.threads.len().to_string()));
            tip.insert("Host".into(), json!(h.label));
            Value::Object(tip)
        }
    };
    Ok(completed(tip))
}
