//! The Time Perspective (TREE_TIME_XY): each execution's duration against
//! its start time as a scatter, the deadline misses in red, and the mean
//! and mean ± σ as lines.

use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::analysis::executions::Execution;

use super::found::Found;
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::{Tree, Viewport};
use crate::reply::completed;

pub const PREFIX: &str = "sextant.executions.perspective";

pub struct Perspective(pub Arc<Found>);

impl Output for Perspective {
    fn descriptor(&self) -> Value {
        self.0.descriptor(
            PREFIX,
            "Time Perspective",
            "Duration of each execution against its start time",
            "TREE_TIME_XY",
        )
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        self.0.annotation_categories()
    }

    /// Over each late execution's time range.
    fn annotations(&self, _: &Query<'_>) -> Result<Value> {
        self.0
            .deadline_annotations(|x, _| (-1, x.start, x.duration))
    }

    fn xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        let d = &self.0.merged;
        Tree::parse(q.body)?;
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
        Ok(completed(
            json!({"headers": [{"name": "Name", "tooltip": ""}], "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    fn xy(&self, q: &Query<'_>) -> Result<Value> {
        let d = &self.0.merged;
        let Viewport { range, items } = Viewport::parse(q.body)?;
        let items = items.unwrap_or_else(|| vec![1, 2]);
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
        Ok(completed(json!({"title": title, "series": series})))
    }
}
