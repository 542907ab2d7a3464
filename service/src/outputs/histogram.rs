//! The events histogram (TREE_TIME_XY): events over time, in total and per
//! trace of the experiment, from the index's bounded histograms.

use serde_json::{json, Value};

use crate::index::TraceIndex;
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::{Tree, Viewport};
use crate::reply::{completed, data, Status};
use crate::traces::Readiness;

/// Trace Compass's id, so that clients special-casing it work.
pub const HISTOGRAM: &str =
    "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider";

pub struct Histogram;

impl Output for Histogram {
    fn descriptor(&self) -> Value {
        json!({
            "id": HISTOGRAM,
            "name": "Histogram",
            "description": "Number of events over time",
            "type": "TREE_TIME_XY",
        })
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        let e = q.exp;
        Tree::parse(q.body)?;
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
            Readiness::Ready(_) => (Status::Completed, "Completed".to_string()),
            Readiness::Running(m) => (Status::Running, m),
            Readiness::Failed(m) => (Status::Failed, m),
        };
        Ok(data(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
            status,
            message,
        ))
    }

    fn xy(&self, q: &Query<'_>) -> Result<Value> {
        let Viewport { range, items } = Viewport::parse(q.body)?;
        let items = items.unwrap_or_else(|| vec![1]);
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(message) => {
                return Ok(data(
                    json!({"title": "Histogram", "series": []}),
                    Status::Running,
                    message,
                ))
            }
        };
        let n = range.nb_times.unwrap_or(1000).clamp(1, 65536) as usize;
        let span = (range.end - range.start) as f64;
        let xs: Vec<i64> = (0..=n)
            .map(|i| range.start + (span * i as f64 / n as f64).round() as i64)
            .collect();
        let mut series = Vec::new();
        for id in items {
            // With each trace's position, for its clock.
            let (name, which): (String, Vec<(usize, &TraceIndex)>) = match id {
                1 => (
                    "Total".into(),
                    indexes.iter().map(|x| x.as_ref()).enumerate().collect(),
                ),
                k if k >= 2 && ((k - 2) as usize) < indexes.len() => (
                    q.exp.traces[(k - 2) as usize].name.clone(),
                    vec![((k - 2) as usize, indexes[(k - 2) as usize].as_ref())],
                ),
                _ => continue,
            };
            let ys: Vec<f64> = (0..n)
                .map(|i| {
                    // The last bucket includes the range's end.
                    let hi = if i + 1 == n { xs[i + 1] + 1 } else { xs[i + 1] };
                    let own = |k: usize, t: i64| q.exp.timeline.own(k, t);
                    which
                        .iter()
                        .map(|&(k, ix)| ix.histogram.count(own(k, xs[i]), own(k, hi)))
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
        Ok(completed(json!({"title": "Histogram", "series": series})))
    }
}
