//! A task's instances (TREE_TIME_XY), as Tracealyzer plots them: one
//! output per measure (response time, execution time, periodicity from
//! release, separation), its entries the tasks, one series per task asked
//! for, a point per job at its release (`analysis::tasks::instances`).

use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::analysis::tasks::instances::{series, Measure};
use sextant_engine::analysis::tasks::Task;
use uuid::Uuid;

use super::{Detection, Found};
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::{Tree, Viewport};
use crate::reply::completed;

pub struct Instances {
    pub measure: Measure,
    pub detection: Arc<Detection>,
}

/// (id, name, y axis label, description) of each measure's output.
fn words(m: Measure) -> (&'static str, &'static str, &'static str, &'static str) {
    match m {
        Measure::Response => (
            "sextant.tasks.response",
            "Real-time tasks: response time",
            "Response time",
            "Each job's response time (release to completion) at its release, per real-time task",
        ),
        Measure::Execution => (
            "sextant.tasks.execution",
            "Real-time tasks: execution time",
            "Execution time",
            "Each job's running time at its release, per real-time task",
        ),
        Measure::Periodicity => (
            "sextant.tasks.periodicity",
            "Real-time tasks: periodicity",
            "Periodicity from release",
            "Time from the previous job's release to each job's release, per real-time task",
        ),
        Measure::Separation => (
            "sextant.tasks.separation",
            "Real-time tasks: separation",
            "Separation",
            "Time from the previous job's completion to each job's release, per real-time task",
        ),
    }
}

/// The task shown by default: the highest priority (the lowest kernel
/// number), the first such; the one users open the view for.
fn default_task(found: &Found) -> Option<usize> {
    found
        .tasks
        .iter()
        .enumerate()
        .min_by_key(|(i, (_, t))| (t.prio.unwrap_or(i32::MAX), *i))
        .map(|(i, _)| i)
}

/// The points with an x in `[start, end]`; more than `n` of them are
/// thinned to the highest per 1/`n` of the range, so that the late jobs
/// stay drawn.
fn in_range(points: Vec<(i64, i64)>, start: i64, end: i64, n: usize) -> Vec<(i64, i64)> {
    let kept: Vec<(i64, i64)> = points
        .into_iter()
        .filter(|(x, _)| (start..=end).contains(x))
        .collect();
    if kept.len() <= n {
        return kept;
    }
    let span = (end - start).max(1) as f64;
    let mut buckets: Vec<Option<(i64, i64)>> = vec![None; n];
    for (x, y) in kept {
        let b = (((x - start) as f64 / span) * n as f64) as usize;
        let slot = &mut buckets[b.min(n - 1)];
        if slot.is_none_or(|(_, top)| y > top) {
            *slot = Some((x, y));
        }
    }
    buckets.into_iter().flatten().collect()
}

fn label(t: &Task) -> String {
    format!("{} ({})", t.comm, t.tid)
}

impl Output for Instances {
    fn descriptor(&self) -> Value {
        let (id, name, _, description) = words(self.measure);
        json!({"id": id, "name": name, "description": description, "type": "TREE_TIME_XY"})
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        Tree::parse(q.body)?;
        let found = self.detection.of(q.exp)?;
        let default = default_task(&found);
        let entries: Vec<Value> = found
            .tasks
            .iter()
            .enumerate()
            .map(|(i, (host, t))| {
                let mut labels = vec![json!(t.comm), json!(t.tid.to_string())];
                if found.hosts {
                    labels.push(json!(host.clone().unwrap_or_default()));
                }
                json!({
                    "id": i as i64,
                    "parentId": -1,
                    "labels": labels,
                    "hasData": !series(&t.jobs, self.measure).is_empty(),
                    "isDefault": default == Some(i),
                })
            })
            .collect();
        let mut headers = vec![
            json!({"name": "Task", "tooltip": ""}),
            json!({"name": "TID", "tooltip": ""}),
        ];
        if found.hosts {
            headers.push(json!({"name": "Host", "tooltip": ""}));
        }
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    /// The asked tasks' series (the default task's when none is asked),
    /// over the requested range; at most `nbTimes` points each.
    fn xy(&self, q: &Query<'_>) -> Result<Value> {
        let Viewport { range, items } = Viewport::parse(q.body)?;
        let found = self.detection.of(q.exp)?;
        let items = match items {
            Some(ids) => ids,
            None => default_task(&found).map(|i| i as i64).into_iter().collect(),
        };
        let (_, name, axis, _) = words(self.measure);
        let n = range.nb_times.map_or(usize::MAX, |n| n.max(1) as usize);
        let mut out = Vec::new();
        for id in items {
            let Some(t) = found.task(id) else {
                continue;
            };
            let points = in_range(series(&t.jobs, self.measure), range.start, range.end, n);
            let (xs, ys): (Vec<i64>, Vec<i64>) = points.into_iter().unzip();
            out.push(json!({
                "seriesId": id,
                "seriesName": label(t),
                "xValues": xs,
                "yValues": ys,
                "style": {"values": {"series-type": "line"}},
                "xValuesDescription": {"label": "Release", "unit": "ns", "dataType": "TIMESTAMP"},
                "yValuesDescription": {"label": axis, "unit": "ns", "dataType": "DURATION"},
            }));
        }
        Ok(completed(json!({"title": name, "series": out})))
    }

    fn forget(&self, exp: Uuid) {
        self.detection.forget(exp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinned_to_the_highest_per_bucket() {
        let points = vec![(0, 5), (10, 9), (20, 1), (30, 7), (99, 2), (150, 8)];
        assert_eq!(in_range(points.clone(), 0, 100, 10), points[..5]);
        // Two buckets of 50: [0, 50) keeps 9, [50, 100] keeps 2.
        assert_eq!(in_range(points, 0, 100, 2), [(10, 9), (99, 2)]);
    }
}
