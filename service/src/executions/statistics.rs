//! Statistics of an execution model's durations (DATA_TREE): count,
//! extremes, mean, standard deviation, percentiles, total and deadline
//! misses of the executions starting in the requested range, overall and
//! per measured thread.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::analysis::stats::{self, Stats};

use super::found::Found;
use crate::outputs::draw::headers;
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::Tree;
use crate::reply::completed;

pub const PREFIX: &str = "sextant.executions.statistics";

pub struct Statistics(pub Arc<Found>);

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

impl Output for Statistics {
    fn descriptor(&self) -> Value {
        self.0.descriptor(
            PREFIX,
            "Statistics",
            "Count, minimum, maximum, mean, standard deviation, percentiles and deadline misses of the durations, overall and per thread",
            "DATA_TREE",
        )
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        self.0.annotation_categories()
    }

    /// Statistics of the executions starting in the requested range: the
    /// model's row, then one per measured thread (by TID).
    fn data_tree(&self, q: &Query<'_>) -> Result<Value> {
        let d = &self.0.merged;
        let (start, end) = Tree::parse(q.body)?.span();
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
        Ok(completed(
            json!({"headers": headers(STAT_HEADERS.iter()), "entries": entries, "autoExpandLevel": -1}),
        ))
    }
}
