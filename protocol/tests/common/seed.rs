//! The thesis's first case (fixtures/scenario-c, scenario-d): its model,
//! its ground truth, and the executions and explanations the tests check.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{run_json, tsv};

/// The seed case's execution model: from one worker's exit to the next.
pub const SEED_MODEL: &str = r#"{"name":"seed case","mode":"different_tids","chained":true,"start":{"name":"sched_process_exit"},"end":{"name":"sched_process_exit"},"threads":{"process":"^rt_worker$"}}"#;

/// What the recording program printed of itself.
pub struct Truth {
    /// The rogue's bursts: (start, end), CLOCK_MONOTONIC ns as the traces.
    pub bursts: Vec<(i64, i64)>,
    /// name -> (tid, policy-level priority, kernel prio).
    pub threads: HashMap<String, (i64, i64, i64)>,
}

impl Truth {
    /// `<ground_truth>.rogue` and `<ground_truth>.threads` in `fixture`.
    pub fn load(fixture: &Path, ground_truth: &str) -> Truth {
        let n = |r: &HashMap<String, String>, k: &str| -> i64 {
            r[k].parse().unwrap_or_else(|_| panic!("{k}: {}", r[k]))
        };
        let bursts = tsv(&fixture.join(format!("{ground_truth}.rogue")))
            .iter()
            .map(|r| (n(r, "start"), n(r, "end")))
            .collect();
        let threads = tsv(&fixture.join(format!("{ground_truth}.threads")))
            .iter()
            .map(|r| {
                (
                    r["name"].clone(),
                    (n(r, "tid"), n(r, "priority"), n(r, "kernel_prio")),
                )
            })
            .collect();
        Truth { bursts, threads }
    }

    /// The tid of the thread the program named `name`.
    pub fn tid(&self, name: &str) -> i64 {
        self.threads
            .get(name)
            .unwrap_or_else(|| panic!("{name} in the .threads file"))
            .0
    }
}

/// Every execution of the seed model: (index, start, end, duration).
pub fn executions(trace: &Path) -> Vec<(usize, i64, i64, i64)> {
    let doc = run_json(&[
        "analyze",
        trace.to_str().unwrap(),
        "--model",
        SEED_MODEL,
        "--format",
        "json",
    ]);
    doc["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let g = |k: &str| x[k].as_i64().unwrap();
            (g("index") as usize, g("start"), g("end"), g("duration"))
        })
        .collect()
}

/// `explain --format json` of the seed model's execution `index`.
pub fn explain(trace: &Path, index: usize) -> Value {
    run_json(&[
        "explain",
        trace.to_str().unwrap(),
        "--model",
        SEED_MODEL,
        "--execution",
        &index.to_string(),
        "--format",
        "json",
    ])
}

/// How long two ranges share.
pub fn overlap(a: (i64, i64), b: (i64, i64)) -> i64 {
    (a.1.min(b.1) - a.0.max(b.0)).max(0)
}
