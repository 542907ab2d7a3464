//! The executions table (TABLE): every execution with its times, in start
//! order.

use std::sync::Arc;

use serde_json::Value;
use sextant_engine::analysis::executions::Execution;
use sextant_engine::kernel::priority;

use super::found::Found;
use crate::params::Result;
use crate::provider::{columns, lines, no_styles, Output, Query};
use crate::queries::Page;

pub const PREFIX: &str = "sextant.executions.table";

pub struct Table(pub Arc<Found>);

const TABLE_COLUMNS: [(&str, &str, &str); 12] = [
    ("Index", "Position in start order", "NUMBER"),
    ("Start", "Start time (ns)", "TIMESTAMP"),
    ("End", "End time (ns)", "TIMESTAMP"),
    ("Duration", "Elapsed time (ns)", "DURATION"),
    ("Running", "Time running (ns)", "DURATION"),
    ("Preempted", "Time preempted (ns)", "DURATION"),
    ("Blocked", "Time blocked (ns)", "DURATION"),
    (
        "Waiting",
        "Time waiting for a CPU after a wakeup (ns)",
        "DURATION",
    ),
    ("TID", "The thread the times are measured on", "NUMBER"),
    ("Command", "The starting thread's name", "STRING"),
    (
        "Priority (kernel)",
        "The measured thread's priority as set with chrt or nice (an RTOS task's own), the kernel's number in parentheses",
        "STRING",
    ),
    (
        "Deadline miss",
        "Longer than the model's deadline",
        "STRING",
    ),
];

fn cell(x: &Execution, column: usize) -> String {
    match column {
        0 => x.index.to_string(),
        1 => x.start.to_string(),
        2 => x.end.to_string(),
        3 => x.duration.to_string(),
        4 => x.running.to_string(),
        5 => x.preempted.to_string(),
        6 => x.blocked.to_string(),
        7 => x.waiting.to_string(),
        8 => x.tid.to_string(),
        9 => x.start_comm.clone(),
        10 => priority::cell(x.prio, x.btf.is_some()),
        11 => match x.deadline_miss {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => String::new(),
        },
        _ => String::new(),
    }
}

impl Output for Table {
    fn descriptor(&self) -> Value {
        self.0.descriptor(
            PREFIX,
            "Executions",
            "Every execution with its times",
            "TABLE",
        )
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        self.0.annotation_categories()
    }

    fn table_columns(&self, _: &Query<'_>) -> Result<Value> {
        columns(&TABLE_COLUMNS)
    }

    fn table_lines(&self, q: &Query<'_>) -> Result<Value> {
        lines(
            &Page::parse(q.body, TABLE_COLUMNS.len())?,
            &self.0.merged.executions.executions,
            |x| x.index as i64,
            cell,
        )
    }
}
