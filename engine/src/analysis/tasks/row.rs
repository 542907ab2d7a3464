//! A task as one row of `sextant tasks --format json`
//! (`schemas/tasks.schema.json`): what the command line writes and the
//! Python package's `tasks()` table holds, in the same words.

use serde_json::{json, Value};

use super::{Release, Task};
use crate::kernel::priority::{describe, describe_task};

/// `t`, found on `host` (none for a single host).
pub fn row(host: Option<&str>, t: &Task) -> Value {
    json!({
        "host": host,
        "tid": t.tid,
        "comm": t.comm,
        "kind": t.kind,
        "period": t.period,
        "jitter": t.jitter,
        "min_interarrival": t.min_interarrival,
        "confidence": t.confidence,
        "phases": t.phases,
        "jobs": t.jobs.len(),
        "released_by": released_by(t.released_by),
        "first_release": t.jobs.first().map(|j| j.release),
        "deadline": t.deadlines.first(),
        "misses": t.misses,
        "response": t.response,
        "execution": t.execution,
        "policy": policy(t),
        "priority": if t.btf { describe_task(t.prio) } else { describe(t.prio, None) },
        "kernel_prio": t.prio,
        "cpus": t.cpus,
        "model": t.model,
    })
}

/// The policy a priority implies (the trace rarely says it otherwise).
fn policy(t: &Task) -> &'static str {
    match (t.btf, t.prio) {
        (true, _) => "RTOS",
        (_, None) => "unknown",
        (_, Some(p)) if p < 0 => "SCHED_DEADLINE",
        (_, Some(p)) if p < 100 => "FIFO/RR",
        _ => "SCHED_OTHER",
    }
}

fn released_by(r: Release) -> &'static str {
    match r {
        Release::Timer => "timer",
        Release::Activation => "activation",
        Release::Wakeup => "wakeup",
    }
}
