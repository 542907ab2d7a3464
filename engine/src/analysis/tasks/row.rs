//! A task as one row of `sextant tasks --format json`
//! (`schemas/tasks.schema.json`): what the command line writes, in the
//! words the tasks table (`export::tasks`) also uses.

use serde_json::{json, Value};

use super::{Release, Task, TaskKind};
use crate::kernel::priority::{describe, describe_task};

/// `t`, found on `host` (none for a single host).
pub fn row(host: Option<&str>, t: &Task) -> Value {
    json!({
        "host": host,
        "tid": t.tid,
        "comm": t.comm,
        "kind": kind(t.kind),
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
        "priority": priority(t),
        "kernel_prio": t.prio,
        "cpus": t.cpus,
        "model": t.model,
    })
}

pub fn kind(k: TaskKind) -> &'static str {
    match k {
        TaskKind::Periodic => "periodic",
        TaskKind::Sporadic => "sporadic",
    }
}

/// The priority as its user set it: `FIFO/RR 80`, `nice 0`, `priority 3`.
pub fn priority(t: &Task) -> String {
    if t.btf {
        describe_task(t.prio)
    } else {
        describe(t.prio, None)
    }
}

/// The policy a priority implies (the trace rarely says it otherwise).
pub fn policy(t: &Task) -> &'static str {
    match (t.btf, t.prio) {
        (true, _) => "RTOS",
        (_, None) => "unknown",
        (_, Some(p)) if p < 0 => "SCHED_DEADLINE",
        (_, Some(p)) if p < 100 => "FIFO/RR",
        _ => "SCHED_OTHER",
    }
}

pub fn released_by(r: Release) -> &'static str {
    match r {
        Release::Timer => "timer",
        Release::Activation => "activation",
        Release::Wakeup => "wakeup",
    }
}
