//! From an explanation to what its outputs draw: rows with states and
//! tooltips, arrows, and the related threads. Built once, when the
//! configuration is posted; the requests only filter them.

use std::collections::HashMap;

use serde::Serialize;
use sextant_engine::analysis::explain::graph::Context;
use sextant_engine::analysis::explain::path::PathState;
use sextant_engine::analysis::explain::{self, Explanation};
use sextant_engine::duration::human;
use sextant_engine::sync::Correction;

/// Style keys of the complement's runners.
pub const INVERSION: &str = "inversion";
pub const INTERFERENCE: &str = "interference";
/// Style key of the parts where the trace lost events: who ran is unknown.
pub const LOST: &str = "lost";
/// Style key of the wake-up arrows.
pub const WAKEUP: &str = "wakeup";

/// A drawn state: its style key, and what its tooltip adds.
pub struct State {
    pub start: i64,
    pub end: i64,
    pub style: String,
    pub label: Option<String>,
    pub tips: Vec<(String, String)>,
}

/// An entry of a time graph with its states (in time order).
pub struct Row {
    pub id: i64,
    pub parent: i64,
    pub labels: Vec<String>,
    pub tips: Vec<(String, String)>,
    pub states: Vec<State>,
}

pub struct Arrow {
    pub source: i64,
    pub target: i64,
    pub time: i64,
}

pub struct TimeGraph {
    pub headers: &'static [(&'static str, &'static str)],
    pub rows: Vec<Row>,
    pub arrows: Vec<Arrow>,
}

impl TimeGraph {
    /// The graph (drawn in its trace's clock) on the experiment's timeline.
    pub fn moved(mut self, on: Correction) -> TimeGraph {
        for s in self.rows.iter_mut().flat_map(|r| &mut r.states) {
            s.start = on.apply(s.start);
            s.end = on.apply(s.end);
        }
        for a in &mut self.arrows {
            a.time = on.apply(a.time);
        }
        self
    }
}

/// A line of the related-threads tree.
pub struct Relation {
    pub tid: i64,
    pub comm: String,
    pub relation: &'static str,
    /// Wake-ups and forks between it and the analysed thread (direct), or
    /// with any thread (the analysed one, indirect ones).
    pub interactions: usize,
}

const THREAD_HEADERS: &[(&str, &str)] = &[
    ("Thread", "Thread name"),
    ("TID", "Thread id"),
    (
        "Priority",
        "As set by its user (FIFO/RR 70, nice 5), with the kernel's number (smaller is more urgent)",
    ),
];

/// `tid`'s priority `p` as its user set it, the kernel number beside it.
fn prio(e: &Explanation, tid: i64, p: Option<i32>) -> String {
    match p {
        Some(k) => format!("{} (kernel prio {k})", e.graph.priority(tid, p)),
        None => "?".into(),
    }
}

fn tip(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_string(), v.into())
}

fn who(e: &Explanation, tid: i64) -> String {
    format!("{} ({tid})", e.graph.comm(tid))
}

/// One row per thread on the path (in order of first appearance), its
/// pieces as states; arrows for the wake-ups between path threads.
pub fn critical_path(e: &Explanation, req: &explain::Request) -> TimeGraph {
    let mut ids: HashMap<i64, i64> = HashMap::new();
    let mut rows: Vec<Row> = Vec::new();
    for p in &e.path {
        let id = *ids.entry(p.tid).or_insert_with(|| {
            rows.push(Row {
                id: rows.len() as i64,
                parent: -1,
                labels: vec![
                    e.graph.comm(p.tid).to_string(),
                    p.tid.to_string(),
                    prio(e, p.tid, e.graph.last_prio(p.tid)),
                ],
                tips: vec![tip("Thread", who(e, p.tid))],
                states: Vec::new(),
            });
            rows.len() as i64 - 1
        });
        let mut tips = vec![tip("Duration", human(p.end - p.start))];
        if let PathState::Blocked { woken_by: Some(c) } = p.state {
            tips.push(tip("Woken by", e.graph.describe(c)));
        }
        rows[id as usize].states.push(State {
            start: p.start,
            end: p.end,
            style: p.state.name().to_string(),
            label: None,
            tips,
        });
    }
    let mut arrows: Vec<Arrow> = e
        .graph
        .wakeups()
        .filter(|w| req.start <= w.ts && w.ts <= req.end)
        .filter_map(|w| match w.waker {
            Context::Thread { tid } => Some(Arrow {
                source: *ids.get(&tid)?,
                target: *ids.get(&w.wakee)?,
                time: w.ts,
            }),
            _ => None,
        })
        .filter(|a| a.source != a.target)
        .collect();
    arrows.sort_by_key(|a| (a.time, a.source, a.target));
    TimeGraph {
        headers: THREAD_HEADERS,
        rows,
        arrows,
    }
}

/// Rows: the path's threads (as in the critical path); children: the
/// threads that ran while each was preempted or waiting for a CPU, when they
/// ran (on the CPU the complement counted), inversions in their own style,
/// and where the trace lost events, a row saying who ran is unknown.
pub fn complement(e: &Explanation, req: &explain::Request, path: &TimeGraph) -> TimeGraph {
    let me = e.graph.comm(req.tid).to_string();
    let mut rows: Vec<Row> = path
        .rows
        .iter()
        .map(|r| Row {
            id: r.id,
            parent: -1,
            labels: r.labels.clone(),
            tips: r.tips.clone(),
            states: Vec::new(),
        })
        .collect();
    // The path's rows are numbered in order of first appearance.
    let mut parent_of: HashMap<i64, i64> = HashMap::new();
    for p in &e.path {
        let next = parent_of.len() as i64;
        parent_of.entry(p.tid).or_insert(next);
    }
    let mut child_of: HashMap<(i64, i64), usize> = HashMap::new();
    let mut lost_of: HashMap<i64, usize> = HashMap::new();
    for h in &e.complement.intervals {
        let Some(&parent) = parent_of.get(&h.path_tid) else {
            continue;
        };
        rows[parent as usize].states.push(State {
            start: h.start,
            end: h.end,
            style: h.state.to_string(),
            label: None,
            tips: vec![
                tip("Held back", human(h.end - h.start)),
                tip("Priority", prio(e, h.path_tid, h.path_prio)),
            ],
        });
        for r in &h.running {
            let at = *child_of.entry((parent, r.tid)).or_insert_with(|| {
                let mut tips = vec![
                    tip("Thread", who(e, r.tid)),
                    tip("Priority", prio(e, r.tid, r.prio)),
                ];
                if r.inversion {
                    tips.push(tip(
                        "Priority inversion",
                        format!(
                            "{} is lower than {me}'s {}",
                            r.priority,
                            e.graph.priority(req.tid, e.prio)
                        ),
                    ));
                }
                rows.push(Row {
                    id: rows.len() as i64,
                    parent,
                    labels: vec![r.comm.clone(), r.tid.to_string(), prio(e, r.tid, r.prio)],
                    tips,
                    states: Vec::new(),
                });
                rows.len() - 1
            });
            let style = if r.inversion { INVERSION } else { INTERFERENCE };
            let tips = vec![
                tip("CPU", r.cpu.to_string()),
                tip("Ran while held", human(r.duration)),
            ];
            let ran = ran_during(e, r.tid, r.cpu, h.start, h.end);
            let spans = if ran.is_empty() {
                vec![(h.start, h.end)]
            } else {
                ran
            };
            for (start, end) in spans {
                rows[at].states.push(State {
                    start,
                    end,
                    style: style.into(),
                    label: None,
                    tips: tips.clone(),
                });
            }
        }
        for u in &h.lost {
            let at = *lost_of.entry(parent).or_insert_with(|| {
                rows.push(Row {
                    id: rows.len() as i64,
                    parent,
                    labels: vec!["unknown".into(), String::new(), String::new()],
                    tips: vec![tip("Who ran", "unknown: the trace lost events")],
                    states: Vec::new(),
                });
                rows.len() - 1
            });
            let lost = u.events.map_or("some".to_string(), |n| n.to_string());
            rows[at].states.push(State {
                start: u.start,
                end: u.end,
                style: LOST.into(),
                label: None,
                tips: vec![
                    tip("CPU", u.cpu.map_or("?".to_string(), |c| c.to_string())),
                    tip("Events lost", lost),
                ],
            });
        }
    }
    for r in &mut rows {
        r.states.sort_by_key(|s| s.start);
    }
    TimeGraph {
        headers: THREAD_HEADERS,
        rows,
        arrows: Vec::new(),
    }
}

/// When `tid` ran on `cpu` within [start, end), as the complement counted
/// it (outside the windows where the trace lost events).
fn ran_during(e: &Explanation, tid: i64, cpu: u32, start: i64, end: i64) -> Vec<(i64, i64)> {
    e.runs
        .during(cpu, start, end)
        .filter(|r| r.tid == tid)
        .map(|r| (r.start, r.end))
        .collect()
}

/// A facility state's name as the engine writes it (`SENDERS_WAITING`).
fn name_of(state: impl Serialize) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn names(e: &Explanation, tids: &[i64]) -> String {
    if tids.is_empty() {
        return "none".into();
    }
    tids.iter()
        .map(|t| who(e, *t))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A group row ("hrtimers"), then one child row per facility instance.
struct Groups {
    rows: Vec<Row>,
}

impl Groups {
    fn group(&mut self, name: &str) -> i64 {
        let id = self.rows.len() as i64;
        self.rows.push(Row {
            id,
            parent: -1,
            labels: vec![name.to_string()],
            tips: Vec::new(),
            states: Vec::new(),
        });
        id
    }

    /// The child of `parent` labelled `label`, created when first seen.
    fn child(&mut self, parent: i64, label: String) -> &mut Row {
        let at = match self
            .rows
            .iter()
            .position(|r| r.parent == parent && r.labels[0] == label)
        {
            Some(i) => i,
            None => {
                self.rows.push(Row {
                    id: self.rows.len() as i64,
                    parent,
                    labels: vec![label],
                    tips: Vec::new(),
                    states: Vec::new(),
                });
                self.rows.len() - 1
            }
        };
        &mut self.rows[at]
    }
}

/// Rows per hrtimer, futex and message queue of the range.
pub fn facilities(e: &Explanation) -> TimeGraph {
    let f = &e.facilities;
    let mut g = Groups { rows: Vec::new() };
    if !f.hrtimers.is_empty() {
        let parent = g.group("hrtimers");
        for t in &f.hrtimers {
            let mut tips = Vec::new();
            if let Some(func) = t.function {
                tips.push(tip("Function", format!("{func:#x}")));
            }
            if let Some(x) = t.expires {
                tips.push(tip("Expires", x.to_string()));
            }
            let state = name_of(t.state);
            g.child(parent, format!("timer {:#x}", t.timer))
                .states
                .push(State {
                    start: t.start,
                    end: t.end,
                    style: format!("timer_{}", state.to_lowercase()),
                    label: Some(state),
                    tips,
                });
        }
    }
    if !f.futex_waits.is_empty() {
        let parent = g.group("futexes");
        for w in &f.futex_waits {
            g.child(parent, format!("futex {:#x}", w.uaddr))
                .states
                .push(State {
                    start: w.start,
                    end: w.end,
                    style: "futex_wait".into(),
                    label: Some(format!("WAIT ({})", w.waiters.len())),
                    tips: vec![tip("Waiters", names(e, &w.waiters))],
                });
        }
    }
    if !f.mq.is_empty() {
        let parent = g.group("message queues");
        for m in &f.mq {
            let label = match m.queue.pid {
                Some(pid) => format!("mq {} (pid {pid})", m.queue.mqdes),
                None => format!("mq {}", m.queue.mqdes),
            };
            let state = name_of(m.state);
            g.child(parent, label).states.push(State {
                start: m.start,
                end: m.end,
                style: format!("mq_{}", state.to_lowercase()),
                label: Some(state),
                tips: vec![
                    tip("Senders waiting", names(e, &m.senders)),
                    tip("Receivers waiting", names(e, &m.receivers)),
                ],
            });
        }
    }
    for r in &mut g.rows {
        r.states.sort_by_key(|s| s.start);
    }
    TimeGraph {
        headers: &[("Facility", "hrtimer, futex or message queue")],
        rows: g.rows,
        arrows: Vec::new(),
    }
}

/// The analysed thread, then its direct and indirect relations.
pub fn relations(e: &Explanation, tid: i64) -> Vec<Relation> {
    let edges: Vec<(i64, i64)> = e
        .graph
        .wakeups()
        .filter_map(|w| match w.waker {
            Context::Thread { tid: waker } if waker != w.wakee => Some((waker, w.wakee)),
            _ => None,
        })
        .chain(e.graph.forks.iter().map(|f| (f.parent, f.child)))
        .collect();
    let touching = |t: i64| edges.iter().filter(|(a, b)| *a == t || *b == t).count();
    let line = |t: i64, relation, interactions| Relation {
        tid: t,
        comm: e.graph.comm(t).to_string(),
        relation,
        interactions,
    };
    let mut out = vec![line(tid, "analysed", touching(tid))];
    for &d in &e.relations.direct {
        let with_me = edges
            .iter()
            .filter(|&&(a, b)| (a, b) == (d, tid) || (a, b) == (tid, d))
            .count();
        out.push(line(d, "direct", with_me));
    }
    for &i in &e.relations.indirect {
        out.push(line(i, "indirect", touching(i)));
    }
    out
}

/// Every style key a facility state can have, with its colour.
pub const FACILITY_STYLES: &[(&str, &str, &str)] = &[
    ("timer_init", "Timer initialised", "#b0b0b0"),
    ("timer_start", "Timer armed", "#4682b4"),
    ("timer_expired", "Timer expired", "#2e8b57"),
    ("timer_cancel", "Timer cancelled", "#808080"),
    ("futex_wait", "Futex waiters", "#c8c800"),
    ("mq_senders_waiting", "Senders waiting", "#87ceeb"),
    (
        "mq_queue_full_while_senders",
        "Queue full, senders blocked",
        "#d62728",
    ),
    (
        "mq_queue_empty_while_receivers",
        "Queue empty, receivers blocked",
        "#ff8c00",
    ),
    ("mq_receivers_waiting", "Receivers waiting", "#9acd32"),
];
