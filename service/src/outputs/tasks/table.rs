//! The real-time tasks table (TABLE): one line per task, a column per key
//! of `sextant tasks --format json` in its order, times in ns as the
//! executions table writes them; `phases` and `model` as JSON text, so
//! that a client can post a task's model to `sextant.executions` as it is.

use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::analysis::tasks::{row, Task};
use sextant_engine::export::executions::cpu_list;
use sextant_engine::kernel::priority;
use uuid::Uuid;

use super::Detection;
use crate::params::Result;
use crate::provider::{columns, lines, no_styles, Output, Query};
use crate::queries::Page;

pub const ID: &str = "sextant.tasks";

pub struct Table(pub Arc<Detection>);

const COLUMNS: [(&str, &str, &str); 24] = [
    (
        "Host",
        "The machine, when the experiment holds several",
        "STRING",
    ),
    (
        "TID",
        "The task's thread (a BTF task's or ISR's id)",
        "NUMBER",
    ),
    ("Command", "The thread's name", "STRING"),
    ("Kind", "periodic or sporadic", "STRING"),
    (
        "Policy",
        "The scheduling policy its priority implies",
        "STRING",
    ),
    (
        "Priority (kernel)",
        "As set with chrt or nice (an RTOS task's own), the kernel's number in parentheses",
        "STRING",
    ),
    ("Period", "Period of its longest phase (ns)", "DURATION"),
    ("Jitter", "Release jitter in that phase (ns)", "DURATION"),
    (
        "Min inter-arrival",
        "Sporadic: the shortest time between two releases (ns)",
        "DURATION",
    ),
    (
        "Confidence",
        "0 to 1: the share of releases the period covers, lowered by their spread",
        "NUMBER",
    ),
    (
        "Jobs",
        "Jobs found (release to the block that completes it)",
        "NUMBER",
    ),
    ("Released by", "timer, activation or wakeup", "STRING"),
    (
        "First release",
        "Release of its first job (ns)",
        "TIMESTAMP",
    ),
    (
        "Deadline",
        "The deadline its first job is measured against (ns after release)",
        "DURATION",
    ),
    (
        "Misses",
        "Jobs whose response time exceeds their deadline",
        "NUMBER",
    ),
    ("Response p50", "Median response time (ns)", "DURATION"),
    (
        "Response p99",
        "99th percentile of the response times (ns)",
        "DURATION",
    ),
    ("Response max", "Longest response time (ns)", "DURATION"),
    (
        "Execution p50",
        "Median running time per job (ns)",
        "DURATION",
    ),
    (
        "Execution p99",
        "99th percentile of the running times (ns)",
        "DURATION",
    ),
    (
        "Execution max",
        "Longest running time of a job (ns)",
        "DURATION",
    ),
    ("CPUs", "The CPUs it ran on", "STRING"),
    (
        "Phases",
        "Stretches of one period (JSON: start, end, period, jitter, jobs, missed)",
        "STRING",
    ),
    (
        "Model",
        "An execution model finding its jobs (JSON, as sextant.executions takes it)",
        "STRING",
    ),
];

fn number(v: Option<i64>) -> String {
    v.map(|n| n.to_string()).unwrap_or_default()
}

fn cell((host, t): &(Option<String>, Task), column: usize) -> String {
    match column {
        0 => host.clone().unwrap_or_default(),
        1 => t.tid.to_string(),
        2 => t.comm.clone(),
        3 => row::kind(t.kind).to_string(),
        4 => row::policy(t).to_string(),
        5 => priority::cell(t.prio, t.btf),
        6 => number(t.period),
        7 => number(t.jitter),
        8 => number(t.min_interarrival),
        9 => t.confidence.to_string(),
        10 => t.jobs.len().to_string(),
        11 => row::released_by(t.released_by).to_string(),
        12 => number(t.jobs.first().map(|j| j.release)),
        13 => number(t.deadlines.first().copied()),
        14 => t.misses.to_string(),
        15 => t.response.p50.to_string(),
        16 => t.response.p99.to_string(),
        17 => t.response.max.to_string(),
        18 => t.execution.p50.to_string(),
        19 => t.execution.p99.to_string(),
        20 => t.execution.max.to_string(),
        21 => cpu_list(&t.cpus),
        22 => json!(t.phases).to_string(),
        23 => t.model.to_string(),
        _ => String::new(),
    }
}

impl Output for Table {
    fn descriptor(&self) -> Value {
        json!({
            "id": ID,
            "name": "Real-time tasks",
            "description": "The periodic and sporadic tasks found with no configuration: period, jitter, response times, deadline misses, and a model of each task's jobs",
            "type": "TABLE",
        })
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn table_columns(&self, _: &Query<'_>) -> Result<Value> {
        columns(&COLUMNS)
    }

    fn table_lines(&self, q: &Query<'_>) -> Result<Value> {
        let page = Page::parse(q.body, COLUMNS.len())?;
        let found = self.0.of(q.exp)?;
        let numbered: Vec<(usize, &(Option<String>, Task))> =
            found.tasks.iter().enumerate().collect();
        lines(&page, &numbered, |(i, _)| *i as i64, |(_, t), c| cell(t, c))
    }

    fn forget(&self, exp: Uuid) {
        self.0.forget(exp);
    }
}
