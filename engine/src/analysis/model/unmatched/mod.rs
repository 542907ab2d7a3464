//! Why an answer is empty, in words a user can act on: what a request names
//! that the trace does not have (an event, a thread, a time), and what to
//! ask instead. `unknown_tids` is for a request that cannot be met (the
//! command refuses it); `warnings` for one that was valid but matched
//! nothing, or matched less than it could.

use super::census::TraceFacts;
use super::closest::{meant, nearest};
use super::{EventPattern, ExecutionModel, Mode, Preset, ThreadFilter, TimeRange};
use crate::analysis::executions::{Executions, Target};
use crate::kernel::vocabulary::{canonical_event, names};

/// How many names a hint lists at most.
const SHOWN: usize = 5;

/// The error for `--tid` values naming no thread of the trace (`None`
/// when every one is there, or when the pass did not read it all).
pub fn unknown_tids(tids: &[i64], facts: &TraceFacts, trace: &str) -> Option<String> {
    let missing: Vec<i64> = tids
        .iter()
        .copied()
        .filter(|t| !facts.threads.contains_key(t))
        .collect();
    let first = *missing.first()?;
    if !facts.complete {
        return None;
    }
    let list: Vec<String> = missing.iter().map(i64::to_string).collect();
    Some(format!(
        "--tid {}: no such thread in {trace}; {}",
        list.join(","),
        threads_near(first, facts, trace)
    ))
}

/// Warnings about `target` (made from `preset` when one was asked for)
/// given what it `found` in a trace holding `facts`.
pub fn warnings(
    target: &Target,
    preset: Option<Preset>,
    found: &Executions,
    facts: &TraceFacts,
    trace: &str,
) -> Vec<String> {
    if !facts.complete {
        // The pass stopped early: the model had all it wanted.
        return Vec::new();
    }
    let empty = found.executions.is_empty();
    let mut out = Vec::new();
    if let Some(w) = preset.and_then(|p| preset_lacks(p, facts, trace)) {
        out.push(w);
    } else if let Target::Model(m) = target {
        out.extend(model_lacks(m, facts, trace));
    }
    let filters: Vec<(&ThreadFilter, Written)> = match target {
        Target::States(_, f) => vec![(f, Written::Options)],
        Target::Model(m) => match &m.mode {
            Mode::SameTid { threads, .. } if preset.is_some() => vec![(threads, Written::Options)],
            Mode::SameTid { threads, .. } => vec![(threads, Written::Model("threads"))],
            Mode::DifferentTids {
                start_threads,
                end_threads,
                ..
            } if start_threads == end_threads => vec![(start_threads, Written::Model("threads"))],
            Mode::DifferentTids {
                start_threads,
                end_threads,
                ..
            } => vec![
                (start_threads, Written::Model("start_threads")),
                (end_threads, Written::Model("end_threads")),
            ],
        },
    };
    for (f, written) in filters {
        out.extend(filter_lacks(f, written, facts, trace));
    }
    if let Target::Model(m) = target {
        out.extend(m.time_range.and_then(|r| outside(r, facts, trace)));
    }
    if empty && out.is_empty() {
        out.push(nothing_in_order(target, preset, found, trace));
    }
    out
}

/// Each event of `m` that the trace never has, with the name it most
/// likely meant.
fn model_lacks(m: &ExecutionModel, facts: &TraceFacts, trace: &str) -> Vec<String> {
    let mut named: Vec<(String, &EventPattern)> = Vec::new();
    match &m.mode {
        Mode::SameTid { events, nested, .. } => {
            named.extend(
                events
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (format!("events[{i}]"), e)),
            );
            if let Some(n) = nested {
                named.extend(
                    n.events
                        .iter()
                        .enumerate()
                        .map(|(i, e)| (format!("nested.events[{i}]"), e)),
                );
            }
        }
        Mode::DifferentTids { start, end, .. } => {
            named.push(("start".into(), start));
            named.push(("end".into(), end));
        }
    }
    named
        .into_iter()
        .filter(|(_, e)| !facts.events.contains(canonical_event(&e.name).as_ref()))
        .map(|(path, e)| {
            let canonical = canonical_event(&e.name);
            let all = || facts.events.iter().map(String::as_str);
            let hint = match meant(&canonical, all()) {
                Some(m) => format!("; did you mean `{m}`?"),
                None if facts.events.is_empty() => " (it has no event)".to_string(),
                None => format!(
                    ", which has {} event types (the nearest: {})",
                    facts.events.len(),
                    quoted(&nearest(&canonical, all(), SHOWN))
                ),
            };
            format!("{path}.name: no event `{}` in {trace}{hint}", e.name)
        })
        .collect()
}

/// Where a thread filter was written.
enum Written {
    /// A preset's `--tid` (refused earlier by `unknown_tids` when the trace
    /// lacks one) and `--process`.
    Options,
    /// A model's key (`threads`, `start_threads`, `end_threads`).
    Model(&'static str),
}

/// `threads.tids` values and a name regex that no thread of the trace
/// matches.
fn filter_lacks(
    f: &ThreadFilter,
    written: Written,
    facts: &TraceFacts,
    trace: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    if let (Some(tids), Written::Model(key)) = (&f.tids, &written) {
        let missing: Vec<i64> = tids
            .iter()
            .copied()
            .filter(|t| !facts.threads.contains_key(t))
            .collect();
        if let Some(&first) = missing.first() {
            let list: Vec<String> = missing.iter().map(i64::to_string).collect();
            out.push(format!(
                "{key}.tids: no thread {} in {trace}; {}",
                list.join(", "),
                threads_near(first, facts, trace)
            ));
        }
    }
    if let Some(re) = &f.process {
        if !facts.threads.values().any(|n| re.is_match(n)) {
            let mut names: Vec<&str> = facts.threads.values().map(String::as_str).collect();
            names.sort_unstable();
            names.dedup();
            let name = re.as_str().trim_start_matches('^').trim_end_matches('$');
            let path = match written {
                Written::Options => "--process".to_string(),
                Written::Model(key) => format!("{key}.process"),
            };
            out.push(format!(
                "{path} `{}` matches no thread name in {trace}, which has {} names (the nearest: {})",
                re.as_str(),
                names.len(),
                quoted(&nearest(name, names, SHOWN))
            ));
        }
    }
    out
}

/// A `time_range` that ends before the trace begins or begins after it ends.
fn outside(r: TimeRange, facts: &TraceFacts, trace: &str) -> Option<String> {
    let (first, last) = facts.span?;
    let before = r.end.is_some_and(|e| e < first);
    let after = r.start.is_some_and(|s| s > last);
    if !(before || after) {
        return None;
    }
    let asked = match (r.start, r.end) {
        (Some(s), Some(e)) => format!("{s} to {e} ns"),
        (Some(s), None) => format!("from {s} ns"),
        (None, Some(e)) => format!("up to {e} ns"),
        (None, None) => unreachable!("an open range is in every trace"),
    };
    Some(format!(
        "time_range ({asked}) is outside {trace}, which runs from {first} to {last} ns \
         (times on the trace's clock, as `sextant dump --format jsonl` writes them in `ts`): \
         give times in that range, or leave time_range out"
    ))
}

/// A preset whose events the trace lacks: which, and what to use instead.
fn preset_lacks(preset: Preset, facts: &TraceFacts, trace: &str) -> Option<String> {
    let has = |name: &str| facts.events.contains(name);
    let btf_tasks = facts.events.iter().any(|e| e.starts_with("T_"));
    match preset {
        Preset::Periodic => {
            let needed = [
                format!("{}clock_nanosleep", names::SYSCALL_ENTRY),
                format!("{}clock_nanosleep", names::SYSCALL_EXIT),
            ];
            let missing: Vec<&str> = needed
                .iter()
                .map(String::as_str)
                .filter(|n| !has(n))
                .collect();
            if missing.is_empty() {
                return None;
            }
            let instead = if btf_tasks {
                "--preset task-instance (a BTF task's instances) or --preset running".to_string()
            } else {
                format!(
                    "--preset running or whole-thread, or a --model with the events that begin \
                     and end a job (`sextant discover {trace} --tid N --emit-model` proposes one)"
                )
            };
            Some(format!(
                "--preset periodic measures each job between two clock_nanosleep calls of a thread, \
                 and {trace} has no {}: the system call was not recorded (LTTng: `lttng enable-event \
                 -k --syscall clock_nanosleep`; `sextant capture tracefs` records it). Use {instead}",
                quoted(&missing).replace(", ", " nor ")
            ))
        }
        Preset::TaskInstance => {
            if !btf_tasks {
                return Some(format!(
                    "--preset task-instance is for BTF traces (task instances from T_activate to \
                     T_terminate), and {trace} has no BTF task event; use --preset periodic, running \
                     or whole-thread"
                ));
            }
            let missing: Vec<&str> = ["T_activate", "T_terminate"]
                .into_iter()
                .filter(|n| !has(n))
                .collect();
            if missing.is_empty() {
                return None;
            }
            let tasks: Vec<&str> = facts
                .events
                .iter()
                .map(String::as_str)
                .filter(|e| e.starts_with("T_"))
                .collect();
            Some(format!(
                "--preset task-instance measures each task instance from its activation to its \
                 termination, and {trace} has no {} rows (its task events: {}; the FreeRTOS trace \
                 logger, for one, writes no activation or termination), so no instance is complete. \
                 Use --preset running (each interval a task runs, from its resume to its preemption) \
                 or --preset whole-thread",
                quoted(&missing).replace(", ", " nor "),
                quoted(&tasks)
            ))
        }
        Preset::Running | Preset::Blocking | Preset::WholeThread => None,
    }
}

/// The last word on an empty answer whose cause is none of the above.
fn nothing_in_order(
    target: &Target,
    preset: Option<Preset>,
    found: &Executions,
    trace: &str,
) -> String {
    let begun = match found.incomplete {
        0 => String::new(),
        n => format!(" ({n} begun, none ended before the trace did)"),
    };
    match (target, preset) {
        (&Target::States(p, _), _) | (&Target::Model(_), Some(p)) => {
            let why = match p {
                Preset::Running | Preset::Blocking => {
                    " (no thread was seen switching: the trace may lack sched_switch)"
                }
                _ => "",
            };
            format!("--preset {p} found no execution in {trace} for the threads chosen{begun}{why}")
        }
        (Target::Model(m), None) => {
            let order = match m.mode {
                Mode::SameTid { .. } => "in its order on one of its threads",
                Mode::DifferentTids { .. } => "a start followed by an end on its threads",
            };
            format!(
                "the model `{}` found no execution in {trace}{begun}: the events it names are there, \
                 but never {order} with the field values it asks for; `sextant discover {trace} \
                 --tid N` shows what a thread does",
                m.name
            )
        }
    }
}

/// A few threads of the trace with ids nearest to `tid`, and how to list all.
fn threads_near(tid: i64, facts: &TraceFacts, trace: &str) -> String {
    if facts.threads.is_empty() {
        return "it has no thread (no scheduling event)".to_string();
    }
    let mut near: Vec<(&i64, &String)> = facts.threads.iter().collect();
    near.sort_by_key(|(t, _)| (t.abs_diff(tid), **t));
    near.truncate(SHOWN);
    near.sort_by_key(|(t, _)| **t);
    let shown: Vec<String> = near
        .iter()
        .map(|(t, n)| match n.as_str() {
            "" => t.to_string(),
            n => format!("{t} ({n})"),
        })
        .collect();
    format!(
        "it has {} threads, the nearest: {}; `sextant analyze {trace} --preset whole-thread` lists them all",
        facts.threads.len(),
        shown.join(", ")
    )
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
