//! The Comparison View (GANTT_CHART): one row per execution, on a time axis
//! relative to its start, drawn with the measured thread's states; deadline
//! misses from the deadline to the execution's end.

use std::sync::Arc;

use serde_json::{json, Map, Value};
use sextant_engine::analysis::executions::Execution;
use sextant_engine::sync::Correction;

use super::found::Found;
use crate::index::{Interval, ThreadRow, TraceIndex};
use crate::outputs::draw::{
    filtered, sample_states, state_name, thread_state_style_map, DrawnRow, DrawnRows,
};
use crate::params::{Result, ServiceError, TimeRange};
use crate::provider::{no_arrows, Output, Query};
use crate::queries::{ComparisonTree, FilteredStates, Tooltip, Viewport};
use crate::reply::{completed, data, Reply, Status};
use sextant_engine::analysis::thread_table::{Pyramid, States};

pub const PREFIX: &str = "sextant.executions.comparison";

pub struct Comparison(pub Arc<Found>);

/// The measured thread's states during `x` (on the experiment's timeline,
/// `own` taking it back to its trace's clock, where the states are), on a
/// time axis starting at 0.
fn relative_row(
    indexes: &[Arc<TraceIndex>],
    ti: usize,
    x: &Execution,
    own: Correction,
) -> ThreadRow {
    let (start, end) = (own.apply(x.start), own.apply(x.end));
    let mut intervals = Vec::new();
    if let Some(ix) = indexes.get(ti) {
        for r in ix.rows_of(x.tid, start, end) {
            let first = r.states.ending_by(start);
            for iv in r.states.starting_at(first) {
                if iv.start >= end {
                    break;
                }
                let (s, e) = (iv.start.max(start), iv.end.min(end));
                if e > s {
                    intervals.push(Interval {
                        start: s - start,
                        end: e - start,
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

impl Output for Comparison {
    fn descriptor(&self) -> Value {
        self.0.descriptor(
            PREFIX,
            "Comparison View",
            "Each execution on a time axis relative to its start: running, preempted, blocked, waiting for a CPU",
            "GANTT_CHART",
        )
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        Ok(completed(json!({"styles": thread_state_style_map()})))
    }

    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        self.0.annotation_categories()
    }

    /// On each late execution's row, from the deadline to its end.
    fn annotations(&self, _: &Query<'_>) -> Result<Value> {
        self.0
            .deadline_annotations(|x, deadline| (x.index as i64, deadline, x.duration - deadline))
    }

    fn timegraph_tree(&self, q: &Query<'_>) -> Result<Value> {
        let sort = ComparisonTree::parse(q.body)?.sort;
        let headers = json!([
            {"name": "Execution", "tooltip": "Position in start order"},
            {"name": "Duration", "tooltip": "Elapsed time (ns)", "dataType": "DURATION"},
            {"name": "TID", "tooltip": "The thread the times are measured on", "dataType": "NUMBER"},
        ]);
        let entries: Vec<Value> = self
            .0
            .merged
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
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    fn timegraph_states(&self, q: &Query<'_>) -> Result<Reply> {
        let d = &self.0;
        let FilteredStates {
            viewport: Viewport { range, items },
            filter,
        } = FilteredStates::parse(q.body)?;
        let resolution = range.resolution();
        let TimeRange { start, end, .. } = range;
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(m) => return Ok(data(json!({"rows": []}), Status::Running, m).into()),
        };
        let wanted: Vec<&Execution> = match &items {
            Some(ids) => ids.iter().filter_map(|&i| d.execution(i)).collect(),
            None => d.merged.executions.executions.iter().collect(),
        };
        let rows: Vec<DrawnRow> = wanted
            .into_iter()
            .map(|x| {
                let ti = d.merged.trace_of[x.index];
                let row = relative_row(&indexes, ti, x, q.exp.timeline.of(ti).inverse());
                let states = sample_states(
                    row.intervals[..].into(),
                    &Pyramid::default(),
                    start,
                    end,
                    resolution,
                );
                let (name, tid) = (format!("#{}", x.index), x.tid.to_string());
                DrawnRow {
                    entry_id: x.index as i64,
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
        let d = &self.0;
        let asked = Tooltip::parse(q.body)?;
        let Some(id) = asked.item else {
            return Ok(completed(json!({})));
        };
        let x = d
            .execution(id)
            .ok_or_else(|| ServiceError::not_found("entry", format!("no entry has id {id}")))?;
        let mut tip = Map::new();
        tip.insert("Execution".into(), json!(format!("#{}", x.index)));
        tip.insert("Start".into(), json!(x.start.to_string()));
        tip.insert("Duration (ns)".into(), json!(x.duration.to_string()));
        tip.insert("TID".into(), json!(x.tid.to_string()));
        if let (Some(t), Ok(indexes)) = (asked.time, q.exp.indexes()?) {
            let ti = d.merged.trace_of[x.index];
            let row = relative_row(&indexes, ti, x, q.exp.timeline.of(ti).inverse());
            if let Some(iv) = States::from(&row.intervals[..]).at(t) {
                tip.insert("State".into(), json!(state_name(iv.state)));
                tip.insert(
                    "State duration (ns)".into(),
                    json!((iv.end - iv.start).to_string()),
                );
            }
        }
        Ok(completed(Value::Object(tip)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ThreadTable;
    use sextant_engine::kernel::model::ThreadState;

    #[test]
    fn states_are_clipped_to_the_execution_and_made_relative() {
        use ThreadState::*;
        let iv = |start, end, state| Interval { start, end, state };
        let mut ix = TraceIndex {
            events: 0,
            start: 0,
            end: 1000,
            threads: ThreadTable::from_rows(vec![ThreadRow {
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
            }]),
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
        let row = relative_row(&[Arc::new(ix)], 0, &x, Correction::IDENTITY);
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
