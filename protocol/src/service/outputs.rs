//! The outputs (data providers) every experiment has: the thread status time
//! graph and the events histogram.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};
use sextant_engine::kernel::model::ThreadState;

use super::cache::Key;
use super::events::{self, EVENTS_TABLE};
use super::executions::{self, is_derived};
use super::explain;
use super::index::{Interval, ThreadRow, TraceIndex};
use super::params::{self, ErrorKind, Result, ServiceError, TimeRange};
use super::statistics::{self, EVENT_TYPES};
use super::{data, ExperimentEntry, Readiness, Reply, Service};

/// Trace Compass's id, so that clients special-casing it work.
pub const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";
pub const HISTOGRAM: &str =
    "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider";

fn descriptors() -> Vec<Value> {
    vec![
        json!({
            "id": THREAD_STATUS,
            "name": "Thread Status",
            "description": "Each thread's state over time: running, preempted, blocked, waiting for a CPU",
            "type": "TIME_GRAPH",
        }),
        json!({
            "id": HISTOGRAM,
            "name": "Histogram",
            "description": "Number of events over time",
            "type": "TREE_TIME_XY",
        }),
        events::descriptor(),
        statistics::event_types_descriptor(),
        executions::parent_descriptor(),
        explain::parent_descriptor(),
    ]
}

/// The outputs with no annotations of their own, which viewers ask anyway.
const ANNOTATED: &[&str] = &[
    THREAD_STATUS,
    HISTOGRAM,
    EVENTS_TABLE,
    EVENT_TYPES,
    super::executions::PARENT,
    explain::PARENT,
];

/// What a state is drawn as: style key, name, colour.
const STATE_STYLES: [(ThreadState, &str, &str); 4] = [
    (ThreadState::Running, "Running", "#118811"),
    (ThreadState::Preempted, "Preempted", "#c86400"),
    (ThreadState::Blocked, "Blocked", "#c8c800"),
    (ThreadState::WaitingCpu, "Waiting for CPU", "#ff8c00"),
];

/// The thread-state styles: (key, name, colour).
pub fn state_styles() -> [(&'static str, &'static str, &'static str); 4] {
    STATE_STYLES.map(|(s, name, colour)| (style_key(s), name, colour))
}

/// The `styles` map of a time graph drawn with thread states.
pub fn thread_state_style_map() -> serde_json::Map<String, Value> {
    state_styles()
        .into_iter()
        .map(|(key, name, colour)| {
            let style = json!({"values": {
                "style-name": name,
                "background-color": colour,
                "height": 1.0,
                "opacity": 1.0,
            }});
            (key.to_string(), style)
        })
        .collect()
}

fn style_key(s: ThreadState) -> &'static str {
    s.as_str()
}

fn state_index(s: ThreadState) -> usize {
    STATE_STYLES
        .iter()
        .position(|(x, _, _)| *x == s)
        .unwrap_or(0)
}

/// The rows of all the experiment's traces, numbered from 0 in order.
fn rows(indexes: &[Arc<TraceIndex>]) -> impl Iterator<Item = (i64, &ThreadRow)> {
    indexes
        .iter()
        .flat_map(|ix| ix.threads.iter())
        .enumerate()
        .map(|(i, r)| (i as i64, r))
}

fn row_by_id(indexes: &[Arc<TraceIndex>], id: i64) -> Option<&ThreadRow> {
    let mut id = usize::try_from(id).ok()?;
    for ix in indexes {
        if id < ix.threads.len() {
            return Some(&ix.threads[id]);
        }
        id -= ix.threads.len();
    }
    None
}

/// One state of a time-graph row as drawn. Fields in sorted order: the
/// answer is written as text straight from these (`Reply::data`).
#[derive(Debug, Serialize)]
pub struct DrawnState {
    end: i64,
    start: i64,
    style: StateStyle,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<i64>,
}

#[derive(Debug, Serialize)]
struct StateStyle {
    #[serde(rename = "parentKey")]
    parent_key: &'static str,
    values: Empty,
}

#[derive(Debug, Serialize)]
struct Empty {}

/// A row of a states answer.
#[derive(Debug, Serialize)]
pub struct DrawnRow {
    #[serde(rename = "entryId")]
    pub entry_id: i64,
    pub states: Vec<DrawnState>,
}

/// The model of a states answer.
#[derive(Debug, Serialize)]
pub struct DrawnRows {
    pub rows: Vec<DrawnRow>,
}

/// The states of `row` overlapping `[start, end]`, at most about one per
/// `resolution` ns: a state shorter than that is merged with its short
/// neighbours into one drawn in the colour of the state that took most of it.
pub fn sample_states(row: &ThreadRow, start: i64, end: i64, resolution: i64) -> Vec<DrawnState> {
    let ivs = &row.intervals;
    let first = ivs.partition_point(|iv| iv.end < start);
    let mut out = Vec::new();
    let mut group: Option<(i64, i64, [i64; 4])> = None;
    let emit = |out: &mut Vec<DrawnState>, s: i64, e: i64, state: ThreadState, merged: bool| {
        out.push(DrawnState {
            end: e,
            start: s,
            style: StateStyle {
                parent_key: style_key(state),
                values: Empty {},
            },
            // Several states too short to draw apart.
            tags: merged.then_some(1),
        });
    };
    let flush = |out: &mut Vec<DrawnState>, g: &mut Option<(i64, i64, [i64; 4])>| {
        if let Some((s, e, time)) = g.take() {
            let dominant = (0..4).max_by_key(|&i| time[i]).unwrap_or(0);
            emit(out, s, e, STATE_STYLES[dominant].0, true);
        }
    };
    for iv in &ivs[first..] {
        if iv.start > end {
            break;
        }
        let Interval {
            start: s,
            end: e,
            state,
        } = *iv;
        if let Some((_, ge, _)) = group {
            if ge != s {
                flush(&mut out, &mut group);
            }
        }
        if e - s >= resolution {
            flush(&mut out, &mut group);
            emit(&mut out, s, e, state, false);
            continue;
        }
        let g = group.get_or_insert((s, s, [0; 4]));
        g.1 = e;
        g.2[state_index(state)] += e - s;
        if g.1 - g.0 >= resolution {
            flush(&mut out, &mut group);
        }
    }
    flush(&mut out, &mut group);
    out
}

/// An experiment, its traces' indexes when all are done, a status message.
type Ready = (Arc<ExperimentEntry>, Option<Vec<Arc<TraceIndex>>>, String);

impl Service {
    fn ready(&self, exp: &str) -> Result<Ready> {
        let e = self.experiment_entry(exp)?;
        match e.readiness() {
            Readiness::Ready(ix) => Ok((e, Some(ix), "Completed".into())),
            Readiness::Running(m) => Ok((e, None, m)),
            Readiness::Failed(m) => Err(ServiceError::new(
                ErrorKind::MethodNotAllowed,
                "The analysis cannot run",
                m,
            )),
        }
    }

    fn check_output(&self, output: &str, want: &[&str]) -> Result<()> {
        if want.contains(&output) {
            Ok(())
        } else if descriptors().iter().any(|d| d["id"] == output) {
            Err(ServiceError::bad_request(format!(
                "the output {output} does not answer this request"
            )))
        } else {
            Err(ServiceError::not_found(
                "output",
                format!("no output has id {output}"),
            ))
        }
    }

    pub fn outputs(&self, exp: &str) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        let mut all = descriptors();
        for d in self.derived.of(e.uuid) {
            all.extend(d.descriptors());
        }
        for d in self.explained.of(e.uuid) {
            all.extend(d.descriptors());
        }
        Ok(Value::Array(all))
    }

    pub fn output(&self, exp: &str, output: &str) -> Result<Value> {
        self.experiment_entry(exp)?;
        if is_derived(output) {
            let (kind, d) = self.derived_output(exp, output)?;
            return Ok(d.descriptor(kind));
        }
        if explain::is_derived(output) {
            let (kind, d) = self.explained(exp, output)?;
            return Ok(d.descriptor(kind));
        }
        descriptors()
            .into_iter()
            .find(|d| d["id"] == output)
            .ok_or_else(|| ServiceError::not_found("output", format!("no output has id {output}")))
    }

    pub fn marker_sets(&self, exp: &str) -> Result<Value> {
        self.experiment_entry(exp)?;
        Ok(data(json!([]), "COMPLETED", "Completed"))
    }

    pub fn annotations(&self, exp: &str, output: &str) -> Result<Value> {
        if is_derived(output) {
            return self.derived_annotations(exp, output);
        }
        if explain::is_derived(output) {
            return self.explained_annotations(exp, output);
        }
        self.experiment_entry(exp)?;
        // Viewers ask every listed output for annotations, the parent of the
        // execution outputs too: none there.
        self.check_output(output, ANNOTATED)?;
        Ok(data(json!({"annotations": {}}), "COMPLETED", "Completed"))
    }

    pub fn annotation_categories(&self, exp: &str, output: &str) -> Result<Value> {
        if is_derived(output) {
            return self.derived_annotation_categories(exp, output);
        }
        if explain::is_derived(output) {
            return self.explained_annotation_categories(exp, output);
        }
        self.experiment_entry(exp)?;
        self.check_output(output, ANNOTATED)?;
        Ok(data(
            json!({"annotationCategories": []}),
            "COMPLETED",
            "Completed",
        ))
    }

    pub fn style(&self, exp: &str, output: &str) -> Result<Value> {
        if is_derived(output) {
            return self.derived_style(exp, output);
        }
        if explain::is_derived(output) {
            return self.explained_style(exp, output);
        }
        self.experiment_entry(exp)?;
        self.check_output(
            output,
            &[THREAD_STATUS, HISTOGRAM, EVENTS_TABLE, EVENT_TYPES],
        )?;
        let styles = if output == THREAD_STATUS {
            thread_state_style_map()
        } else {
            serde_json::Map::new()
        };
        Ok(data(json!({"styles": styles}), "COMPLETED", "Completed"))
    }

    pub fn timegraph_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if is_derived(output) {
            return self.derived_timegraph_tree(exp, output, body);
        }
        if explain::is_derived(output) {
            return self.explained_tree(exp, output, body);
        }
        self.experiment_entry(exp)?;
        self.check_output(output, &[THREAD_STATUS])?;
        // The time range is optional and does not filter the rows.
        if body.get("parameters").is_some() {
            params::parameters(body)?.opt_time_range()?;
        }
        let (_, indexes, message) = self.ready(exp)?;
        let headers = json!([
            {"name": "Process", "tooltip": "Thread name"},
            {"name": "TID", "tooltip": "Thread id", "dataType": "NUMBER"},
            {"name": "PID", "tooltip": "Process id", "dataType": "NUMBER"},
        ]);
        let Some(indexes) = indexes else {
            return Ok(data(
                json!({"headers": headers, "entries": []}),
                "RUNNING",
                message,
            ));
        };
        let entries: Vec<Value> = rows(&indexes)
            .map(|(id, r)| {
                let comm = if r.comm.is_empty() {
                    format!("[{}]", r.tid)
                } else {
                    r.comm.clone()
                };
                json!({
                    "id": id,
                    "parentId": -1,
                    "labels": [comm, r.tid.to_string(), r.pid.map(|p| p.to_string()).unwrap_or_default()],
                    "hasData": true,
                    "start": r.start,
                    "end": r.end,
                    "metadata": {"tid": [r.tid]},
                })
            })
            .collect();
        Ok(data(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
            "COMPLETED",
            message,
        ))
    }

    /// States of a viewport, from the cache when asked before.
    pub fn timegraph_states(&self, exp: &str, output: &str, body: &Value) -> Result<Reply> {
        let key = Key::new(self.experiment_entry(exp)?.uuid, output, "states", body);
        self.cache
            .get_or(key, || self.sample_timegraph_states(exp, output, body))
    }

    fn sample_timegraph_states(&self, exp: &str, output: &str, body: &Value) -> Result<Reply> {
        if is_derived(output) {
            return self.derived_timegraph_states(exp, output, body);
        }
        if explain::is_derived(output) {
            return self.explained_states(exp, output, body).map(Reply::from);
        }
        self.experiment_entry(exp)?;
        self.check_output(output, &[THREAD_STATUS])?;
        let p = params::parameters(body)?;
        let range = p.time_range()?;
        let items = p.opt_i64_array("requested_items")?;
        let (_, indexes, message) = self.ready(exp)?;
        let Some(indexes) = indexes else {
            return Ok(data(json!({"rows": []}), "RUNNING", message).into());
        };
        let TimeRange {
            start,
            end,
            nb_times,
        } = range;
        let resolution = match nb_times {
            Some(n) => ((end - start) / n).max(1),
            None => 1,
        };
        let wanted: Vec<(i64, &ThreadRow)> = match &items {
            Some(ids) => ids
                .iter()
                .filter_map(|&id| row_by_id(&indexes, id).map(|r| (id, r)))
                .collect(),
            None => rows(&indexes).collect(),
        };
        let rows: Vec<DrawnRow> = wanted
            .into_iter()
            .filter(|(_, r)| r.end >= start && r.start <= end)
            .map(|(id, r)| DrawnRow {
                entry_id: id,
                states: sample_states(r, start, end, resolution),
            })
            .collect();
        Reply::data(&DrawnRows { rows }, "COMPLETED", &message)
    }

    pub fn timegraph_arrows(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if is_derived(output) {
            return self.derived_timegraph_arrows(exp, output, body);
        }
        if explain::is_derived(output) {
            return self.explained_arrows(exp, output, body);
        }
        self.experiment_entry(exp)?;
        self.check_output(output, &[THREAD_STATUS])?;
        params::parameters(body)?.time_range()?;
        Ok(data(json!([]), "COMPLETED", "Completed"))
    }

    pub fn timegraph_tooltip(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if is_derived(output) {
            return self.derived_timegraph_tooltip(exp, output, body);
        }
        if explain::is_derived(output) {
            return self.explained_tooltip(exp, output, body);
        }
        self.experiment_entry(exp)?;
        self.check_output(output, &[THREAD_STATUS])?;
        let p = params::parameters(body)?;
        let times = p.opt_i64_array("requested_times")?.unwrap_or_default();
        let items = p.opt_i64_array("requested_items")?.unwrap_or_default();
        let (_, indexes, message) = self.ready(exp)?;
        let Some(indexes) = indexes else {
            return Ok(data(json!({}), "RUNNING", message));
        };
        let (Some(&t), Some(&id)) = (times.first(), items.first()) else {
            return Ok(data(json!({}), "COMPLETED", message));
        };
        let Some(row) = row_by_id(&indexes, id) else {
            return Err(ServiceError::not_found(
                "entry",
                format!("no entry has id {id}"),
            ));
        };
        let mut tip = serde_json::Map::new();
        tip.insert("Process".into(), json!(row.comm));
        tip.insert("TID".into(), json!(row.tid.to_string()));
        let i = row.intervals.partition_point(|iv| iv.end <= t);
        if let Some(iv) = row.intervals.get(i).filter(|iv| iv.start <= t) {
            let name = STATE_STYLES[state_index(iv.state)].1;
            tip.insert("State".into(), json!(name));
            tip.insert("Start".into(), json!(iv.start.to_string()));
            tip.insert(
                "Duration (ns)".into(),
                json!((iv.end - iv.start).to_string()),
            );
        }
        Ok(data(Value::Object(tip), "COMPLETED", message))
    }

    pub fn xy_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if is_derived(output) {
            return self.derived_xy_tree(exp, output, body);
        }
        let e = self.experiment_entry(exp)?;
        self.check_output(output, &[HISTOGRAM])?;
        if body.get("parameters").is_some() {
            params::parameters(body)?.opt_time_range()?;
        }
        let headers = json!([{"name": "Name", "tooltip": ""}]);
        let mut entries = vec![
            json!({"id": 0, "parentId": -1, "labels": [e.name], "hasData": false}),
            json!({"id": 1, "parentId": 0, "labels": ["Total"], "hasData": true, "isDefault": true}),
        ];
        for (i, t) in e.traces.iter().enumerate() {
            entries.push(
                json!({"id": 2 + i as i64, "parentId": 0, "labels": [t.name], "hasData": true}),
            );
        }
        let (status, message) = match e.readiness() {
            Readiness::Ready(_) => ("COMPLETED", "Completed".to_string()),
            Readiness::Running(m) => ("RUNNING", m),
            Readiness::Failed(m) => ("FAILED", m),
        };
        Ok(data(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
            status,
            message,
        ))
    }

    /// XY series of a viewport, from the cache when asked before.
    pub fn xy(&self, exp: &str, output: &str, body: &Value) -> Result<Reply> {
        let key = Key::new(self.experiment_entry(exp)?.uuid, output, "xy", body);
        self.cache
            .get_or(key, || self.sample_xy(exp, output, body).map(Reply::from))
    }

    fn sample_xy(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        if is_derived(output) {
            return self.derived_xy(exp, output, body);
        }
        self.experiment_entry(exp)?;
        self.check_output(output, &[HISTOGRAM])?;
        let p = params::parameters(body)?;
        let range = p.time_range()?;
        let items = p
            .opt_i64_array("requested_items")?
            .unwrap_or_else(|| vec![1]);
        let (e, indexes, message) = self.ready(exp)?;
        let Some(indexes) = indexes else {
            return Ok(data(
                json!({"title": "Histogram", "series": []}),
                "RUNNING",
                message,
            ));
        };
        let n = range.nb_times.unwrap_or(1000).clamp(1, 65536) as usize;
        let span = (range.end - range.start) as f64;
        let xs: Vec<i64> = (0..=n)
            .map(|i| range.start + (span * i as f64 / n as f64).round() as i64)
            .collect();
        let mut series = Vec::new();
        for id in items {
            let (name, which): (String, Vec<&TraceIndex>) = match id {
                1 => ("Total".into(), indexes.iter().map(|x| x.as_ref()).collect()),
                k if k >= 2 && ((k - 2) as usize) < indexes.len() => (
                    e.traces[(k - 2) as usize].name.clone(),
                    vec![indexes[(k - 2) as usize].as_ref()],
                ),
                _ => continue,
            };
            let ys: Vec<f64> = (0..n)
                .map(|i| {
                    // The last bucket includes the range's end.
                    let hi = if i + 1 == n { xs[i + 1] + 1 } else { xs[i + 1] };
                    which
                        .iter()
                        .map(|ix| ix.histogram.count(xs[i], hi))
                        .sum::<f64>()
                })
                .collect();
            series.push(json!({
                "seriesId": id,
                "seriesName": name,
                "xValues": &xs[..n],
                "yValues": ys,
                "style": {"values": {"series-type": "bar"}},
                "xValuesDescription": {"label": "Time", "unit": "ns", "dataType": "TIMESTAMP"},
                "yValuesDescription": {"label": "Events", "unit": "", "dataType": "NUMBER"},
            }));
        }
        Ok(data(
            json!({"title": "Histogram", "series": series}),
            "COMPLETED",
            message,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(intervals: &[(i64, i64, ThreadState)]) -> ThreadRow {
        ThreadRow {
            tid: 1,
            pid: None,
            comm: "t".into(),
            start: intervals[0].0,
            end: intervals.last().unwrap().1,
            intervals: intervals
                .iter()
                .map(|&(start, end, state)| Interval { start, end, state })
                .collect(),
        }
    }

    #[test]
    fn short_states_merge_long_ones_stay() {
        use ThreadState::*;
        let mut ivs = Vec::new();
        for i in 0..100 {
            ivs.push((i * 10, i * 10 + 7, Running));
            ivs.push((i * 10 + 7, i * 10 + 10, Blocked));
        }
        ivs.push((1000, 5000, Preempted));
        let r = row(&ivs);
        let exact = sample_states(&r, 0, 5000, 1);
        assert_eq!(exact.len(), 201);
        let coarse = sample_states(&r, 0, 5000, 50);
        assert!(coarse.len() <= 5000 / 50 + 2, "{}", coarse.len());
        let last = coarse.last().unwrap();
        assert_eq!(last.start, 1000);
        assert_eq!(last.style.parent_key, "preempted");
        assert_eq!(coarse[0].style.parent_key, "running");
        // Merged states are tagged.
        assert_eq!(coarse[0].tags, Some(1));
        assert_eq!(last.tags, None);
        // Only the states overlapping the range.
        let some = sample_states(&r, 2000, 3000, 1);
        assert_eq!(some.len(), 1);
    }
}
