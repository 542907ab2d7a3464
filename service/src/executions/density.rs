//! Duration density of an execution model (TREE_GENERIC_XY): how many
//! executions fall in each duration range. Read as Trace Compass's segment
//! density reads it, which is what the VS Code Trace Viewer's generic-XY
//! view sends: `requested_timerange` is the view's range of trace time
//! (executions overlapping it are counted) and `nbSamples` the number of
//! bins, which cover durations from 0 to the longest execution's.

use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::analysis::executions::Execution;

use super::found::Found;
use crate::params::{Result, TimeRange};
use crate::provider::{no_styles, Output, Query};
use crate::queries::{GenericXy, Tree};
use crate::reply::completed;

pub const PREFIX: &str = "sextant.executions.density";

pub struct Density(pub Arc<Found>);

/// `n` bins of equal width covering `[lo, hi]` (inclusive); fewer when the
/// range is narrower than `n` ns.
pub fn bins(lo: i64, hi: i64, n: i64) -> Vec<(i64, i64)> {
    if hi < lo {
        return Vec::new();
    }
    let span = (hi as i128 - lo as i128 + 1) as u128;
    let width = span.div_ceil(n.max(1) as u128).max(1);
    let mut out = Vec::new();
    let mut a = lo as i128;
    while a <= hi as i128 {
        let b = (a + width as i128 - 1).min(hi as i128);
        out.push((a as i64, b as i64));
        a = b + 1;
    }
    out
}

/// Counts of `durations` per bin (bins as `bins` makes them).
fn histogram<'a>(bins: &[(i64, i64)], durations: impl Iterator<Item = i64> + 'a) -> Vec<f64> {
    let mut counts = vec![0.0; bins.len()];
    let Some(&(lo, _)) = bins.first() else {
        return counts;
    };
    let hi = bins.last().map_or(lo, |b| b.1);
    let width = (bins[0].1 as i128 - lo as i128 + 1).max(1);
    for d in durations.filter(|&d| d >= lo && d <= hi) {
        let i = ((d as i128 - lo as i128) / width) as usize;
        counts[i.min(bins.len() - 1)] += 1.0;
    }
    counts
}

impl Output for Density {
    fn descriptor(&self) -> Value {
        self.0.descriptor(
            PREFIX,
            "Duration density",
            "Number of executions per duration range",
            "TREE_GENERIC_XY",
        )
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        self.0.annotation_categories()
    }

    fn generic_xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        let d = &self.0.merged;
        Tree::parse(q.body)?;
        let mut entries = vec![
            json!({"id": 0, "parentId": -1, "labels": [d.executions.name], "hasData": false}),
            json!({"id": 1, "parentId": 0, "labels": ["executions"], "hasData": true, "isDefault": true}),
        ];
        if d.executions.deadline.is_some() {
            entries.push(json!({"id": 2, "parentId": 0, "labels": ["deadline misses"], "hasData": true, "isDefault": true}));
        }
        Ok(completed(
            json!({"headers": [{"name": "Name", "tooltip": ""}], "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    /// The executions overlapping the requested time range, binned by
    /// duration over `[0, longest]` (the same bins for every time range,
    /// so that zooming changes the heights only).
    fn generic_xy(&self, q: &Query<'_>) -> Result<Value> {
        let d = &self.0.merged;
        let GenericXy {
            range: TimeRange { start, end, .. },
            bins: n,
            items,
        } = GenericXy::parse(q.body)?;
        let items = items.unwrap_or_else(|| vec![1, 2]);
        let all = &d.executions.executions;
        let longest = all.iter().map(|x| x.duration).max().unwrap_or(0).max(1);
        let ranges = bins(0, longest, n);
        let x_ranges: Vec<Value> = ranges
            .iter()
            .map(|(a, b)| json!({"start": a, "end": b}))
            .collect();
        let in_view = |x: &&Execution| x.start <= end && x.end >= start;
        let mut series = Vec::new();
        for id in items {
            let keep: &dyn Fn(&Execution) -> bool = match id {
                1 => &|_| true,
                2 if d.executions.deadline.is_some() => &|x| x.deadline_miss == Some(true),
                _ => continue,
            };
            let shown = all.iter().filter(in_view).filter(|x| keep(x));
            let ys = histogram(&ranges, shown.map(|x| x.duration));
            let (name, colour) = if id == 1 {
                ("executions", "#1f77b4")
            } else {
                ("deadline misses", "#ff0000")
            };
            series.push(json!({
                "seriesId": id,
                "seriesName": name,
                "xRanges": x_ranges,
                "yValues": ys,
                "style": {"values": {"series-type": "bar", "color": colour}},
                "xValuesDescription": {"label": "Duration", "unit": "ns", "dataType": "DURATION",
                    "axisDomain": {"type": "range", "start": 0, "end": longest}},
                "yValuesDescription": {"label": "Executions", "unit": "", "dataType": "NUMBER"},
            }));
        }
        Ok(completed(
            json!({"title": format!("Duration density: {}", d.executions.name), "series": series}),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_the_range_and_count_everything() {
        let b = bins(10, 109, 10);
        assert_eq!(b.len(), 10);
        assert_eq!(b[0], (10, 19));
        assert_eq!(b[9], (100, 109));
        let h = histogram(&b, [10, 19, 20, 109, 9, 110].into_iter());
        assert_eq!(h.iter().sum::<f64>(), 4.0);
        assert_eq!((h[0], h[1], h[9]), (2.0, 1.0, 1.0));
        // Narrower than the bins asked for: one ns each.
        assert_eq!(bins(5, 7, 100), vec![(5, 5), (6, 6), (7, 7)]);
        assert!(bins(8, 7, 3).is_empty());
        // The whole i64 range does not overflow.
        let w = bins(i64::MIN, i64::MAX, 4);
        assert_eq!(w.len(), 4);
        assert_eq!(w[3].1, i64::MAX);
    }
}
