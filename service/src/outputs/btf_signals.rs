//! BTF signals (TREE_TIME_XY): the numeric values written to each signal of
//! a BTF trace, as a step series (a value holds until the next write).

use serde_json::{json, Value};
use sextant_engine::analysis::btf::lanes::Series;

use super::btf_lanes::{experiment_lanes, has_btf};
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::{Tree, Viewport};
use crate::reply::completed;
use crate::traces::ExperimentEntry;

pub struct BtfSignals;

const ID: &str = "sextant.btf.signals";

/// The signals of every BTF trace of the experiment, numbered from 0.
fn signals<R>(q: &Query<'_>, f: impl FnOnce(Vec<&Series>) -> R) -> Result<R> {
    let all = experiment_lanes(q)?;
    let series = all
        .iter()
        .filter_map(|l| l.as_ref().as_ref())
        .flat_map(|l| l.signals.iter())
        .collect();
    Ok(f(series))
}

impl Output for BtfSignals {
    fn descriptor(&self) -> Value {
        json!({
            "id": ID,
            "name": "BTF Signals",
            "description": "BTF traces: the values written to each signal over time",
            "type": "TREE_TIME_XY",
        })
    }

    fn applies_to(&self, exp: &ExperimentEntry) -> bool {
        has_btf(exp)
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        Tree::parse(q.body)?;
        let entries = signals(q, |s| {
            s.iter()
                .enumerate()
                .map(|(i, s)| {
                    json!({
                        "id": i as i64,
                        "parentId": -1,
                        "labels": [s.name],
                        "hasData": true,
                    })
                })
                .collect::<Vec<_>>()
        })?;
        let headers = json!([{"name": "Signal", "tooltip": ""}]);
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    /// At each of the range's `nbTimes` times, the value last written (no
    /// point before the first write).
    fn xy(&self, q: &Query<'_>) -> Result<Value> {
        let Viewport { range, items } = Viewport::parse(q.body)?;
        let n = range.nb_times.unwrap_or(1000).clamp(2, 65536) as usize;
        let span = (range.end - range.start) as f64;
        let times: Vec<i64> = (0..n)
            .map(|i| range.start + (span * i as f64 / (n - 1) as f64).round() as i64)
            .collect();
        let series = signals(q, |all| {
            let wanted: Vec<usize> = match &items {
                Some(ids) => ids
                    .iter()
                    .filter_map(|&i| usize::try_from(i).ok())
                    .filter(|&i| i < all.len())
                    .collect(),
                None => (0..all.len()).collect(),
            };
            wanted
                .into_iter()
                .map(|i| {
                    let s = all[i];
                    let (mut xs, mut ys) = (Vec::new(), Vec::new());
                    for &t in &times {
                        let k = s.points.partition_point(|(at, _)| *at <= t);
                        if k > 0 {
                            xs.push(t);
                            ys.push(s.points[k - 1].1);
                        }
                    }
                    json!({
                        "seriesId": i as i64,
                        "seriesName": s.name,
                        "xValues": xs,
                        "yValues": ys,
                        "style": {"values": {"series-type": "line"}},
                        "xValuesDescription": {"label": "Time", "unit": "ns", "dataType": "TIMESTAMP"},
                        "yValuesDescription": {"label": "Value", "unit": "", "dataType": "NUMBER"},
                    })
                })
                .collect::<Vec<_>>()
        })?;
        Ok(completed(json!({"title": "BTF Signals", "series": series})))
    }
}
