//! An execution model that finds a task's jobs again, for `analyze`,
//! `explain` and the views: the events that bound a job in this trace.

use serde_json::{json, Value};

use super::collect::{BlockState, Release, ThreadActivity};
use super::jobs::Job;
use crate::kernel::vocabulary::names;

fn state_value(s: BlockState) -> Value {
    match s {
        BlockState::Int(v) => json!(v),
        BlockState::Letters(b, n) => json!(String::from_utf8_lossy(&b[..n as usize])),
    }
}

/// The most frequent way the jobs were switched out when they completed.
fn usual_state(jobs: &[Job]) -> Option<BlockState> {
    let mut counts: Vec<(BlockState, usize)> = Vec::new();
    for s in jobs.iter().filter_map(|j| j.state) {
        match counts.iter_mut().find(|(x, _)| *x == s) {
            Some(c) => c.1 += 1,
            None => counts.push((s, 1)),
        }
    }
    counts.into_iter().max_by_key(|c| c.1).map(|c| c.0)
}

/// A model of `t`'s jobs: from activation to termination for a BTF task;
/// from the wake-up to the switch out in the state its jobs end in when
/// each job is one activation (the same jobs, to the nanosecond); for jobs
/// that block mid-way and end asleep in a sleep call, from its return to
/// its next entry (the return comes after the wake-up latency).
pub fn for_task(t: &ThreadActivity, jobs: &[Job], by: Release, deadline: i64) -> Value {
    let name = format!("{} job", if t.comm.is_empty() { "task" } else { &t.comm });
    let threads = json!({ "tids": [t.tid] });
    let asleep = jobs.iter().filter(|j| j.in_sleep).count();
    let blocks_mid_job = t.activations.len() > jobs.len() + jobs.len() / 10;
    let mut model = match (t.btf_type, t.sleep_call) {
        (Some(c), _) if by == Release::Activation => json!({
            "name": name,
            "description": format!("Each instance of {} found by sextant tasks: activation to termination.", t.comm),
            "mode": "same_tid",
            "threads": threads,
            "events": [
                { "name": format!("{c}_activate"), "fields": { "tid": "$tid" } },
                { "name": format!("{c}_terminate"), "fields": { "tid": "$tid" } }
            ]
        }),
        (_, Some(call))
            if by == Release::Timer && blocks_mid_job && asleep * 10 >= jobs.len() * 9 =>
        {
            json!({
                "name": name,
                "description": format!("Each job of {} found by sextant tasks: from the return of {call} to its next call.", t.comm),
                "mode": "same_tid",
                "threads": threads,
                "events": [
                    { "name": format!("{}{call}", names::SYSCALL_EXIT) },
                    { "name": format!("{}{call}", names::SYSCALL_ENTRY) }
                ]
            })
        }
        _ => {
            let mut end = json!({ "prev_tid": t.tid });
            if let Some(s) = usual_state(jobs) {
                end["prev_state"] = state_value(s);
            }
            json!({
                "name": name,
                "description": format!("Each job of {} found by sextant tasks: from its wake-up to the switch that blocks it.", t.comm),
                "mode": "different_tids",
                "start": { "name": t.wakeup_event.unwrap_or(names::SCHED_WAKING), "fields": { "tid": t.tid } },
                "end": { "name": names::SCHED_SWITCH, "fields": end }
            })
        }
    };
    if deadline > 0 {
        model["deadline"] = json!(deadline);
    }
    model
}
