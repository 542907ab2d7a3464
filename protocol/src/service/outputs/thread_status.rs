//! Thread status: each thread's state over time (TIME_GRAPH), one row per
//! thread life of every trace of the experiment, from the index.

use std::sync::Arc;

use serde_json::{json, Value};

use super::draw::{
    filtered, sample_states, state_name, thread_state_style_map, DrawnRow, DrawnRows,
};
use crate::service::filters::StateFilter;
use crate::service::index::{Row, TraceIndex};
use crate::service::params::{self, Result, ServiceError, TimeRange};
use crate::service::provider::{no_arrows, Output, Query};
use crate::service::reply::{completed, data, Reply, Status};
use sextant_engine::analysis::thread_table::Life;

/// Trace Compass's id, so that clients special-casing it work.
pub const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";

pub struct ThreadStatus;

/// The rows of all the experiment's traces, numbered from 0 in order.
fn rows(indexes: &[Arc<TraceIndex>]) -> impl Iterator<Item = (i64, Row<'_>)> {
    indexes
        .iter()
        .flat_map(|ix| ix.threads.rows())
        .enumerate()
        .map(|(i, r)| (i as i64, r))
}

fn row_by_id(indexes: &[Arc<TraceIndex>], id: i64) -> Option<Row<'_>> {
    let mut id = usize::try_from(id).ok()?;
    for ix in indexes {
        if id < ix.threads.len() {
            return ix.threads.row(id);
        }
        id -= ix.threads.len();
    }
    None
}

/// A row's name (its command, `[TID]` when it has none) and TID, as the
/// tree shows them and searches match them.
fn labels(r: &Life) -> (String, String) {
    let comm = if r.comm.is_empty() {
        format!("[{}]", r.tid)
    } else {
        r.comm.clone()
    };
    (comm, r.tid.to_string())
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
        if q.body.get("parameters").is_some() {
            params::parameters(q.body)?.opt_time_range()?;
        }
        let headers = json!([
            {"name": "Process", "tooltip": "Thread name"},
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
        let entries: Vec<Value> = rows(&indexes)
            .map(|(id, Row { life: r, .. })| {
                let (comm, tid) = labels(r);
                json!({
                    "id": id,
                    "parentId": -1,
                    "labels": [comm, tid, r.pid.map(|p| p.to_string()).unwrap_or_default()],
                    "hasData": true,
                    "start": r.start,
                    "end": r.end,
                    "metadata": {"tid": [r.tid]},
                })
            })
            .collect();
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    fn timegraph_states(&self, q: &Query<'_>) -> Result<Reply> {
        let p = params::parameters(q.body)?;
        let range = p.time_range()?;
        let items = p.opt_i64_array("requested_items")?;
        let filter = StateFilter::of(&p)?;
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(message) => return Ok(data(json!({"rows": []}), Status::Running, message).into()),
        };
        let resolution = range.resolution();
        let TimeRange { start, end, .. } = range;
        let wanted: Vec<(i64, Row<'_>)> = match &items {
            Some(ids) => ids
                .iter()
                .filter_map(|&id| row_by_id(&indexes, id).map(|r| (id, r)))
                .collect(),
            None => rows(&indexes).collect(),
        };
        let rows: Vec<DrawnRow> = wanted
            .into_iter()
            .filter(|(_, r)| r.life.end >= start && r.life.start <= end)
            .map(|(id, r)| {
                let states = sample_states(r.states, &r.pyramid, start, end, resolution);
                let (name, tid) = labels(r.life);
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
        let p = params::parameters(q.body)?;
        let times = p.opt_i64_array("requested_times")?.unwrap_or_default();
        let items = p.opt_i64_array("requested_items")?.unwrap_or_default();
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(message) => return Ok(data(json!({}), Status::Running, message)),
        };
        let (Some(&t), Some(&id)) = (times.first(), items.first()) else {
            return Ok(completed(json!({})));
        };
        let Some(row) = row_by_id(&indexes, id) else {
            return Err(ServiceError::not_found(
                "entry",
                format!("no entry has id {id}"),
            ));
        };
        let mut tip = serde_json::Map::new();
        tip.insert("Process".into(), json!(row.life.comm));
        tip.insert("TID".into(), json!(row.life.tid.to_string()));
        if let Some(iv) = row.states.at(t) {
            tip.insert("State".into(), json!(state_name(iv.state)));
            tip.insert("Start".into(), json!(iv.start.to_string()));
            tip.insert(
                "Duration (ns)".into(),
                json!((iv.end - iv.start).to_string()),
            );
        }
        Ok(completed(Value::Object(tip)))
    }
}
