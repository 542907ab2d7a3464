//! What BTF traces say beyond scheduling, as lanes of state intervals for
//! time graphs and series for XY charts, collected in the pass from the
//! rows' fields (which the BTF model fills in):
//!
//! - tasks (and ISRs): one lane each in its process state (active, running,
//!   ready, waiting, polling, parking), each interval with its instance;
//!   under it one lane per runnable it ran, running or suspended, each
//!   interval with the task instance it ran in;
//! - semaphores: one lane each in its state (free, used, full, overfull);
//!   under it one lane per process that used it, requesting, waiting or
//!   assigned (holding it);
//! - OS events: one lane each, set while set for some process; under it one
//!   lane per process, waiting for it or set for it (until cleared);
//! - signals: each numeric value written, in time.
//!
//! Memory holds the intervals and values found (the results) and one open
//! interval per lane, never rows.

use std::path::Path;

use rustc_hash::FxHashMap as HashMap;

use crate::btf::names::{process_name, thread_id};
use crate::btf::os::{signal_value, EventAction, OsEvent};
use crate::kernel::model::{KEvent, KernelModel};
use crate::kernel::pass::Analysis;
use crate::run::{Pass, RunError, Work};

/// The states of task lanes (process states) and of runnable lanes
/// (running, suspended): a span's `state` indexes this.
pub const TASK_STATES: [&str; 7] = [
    "active",
    "running",
    "ready",
    "waiting",
    "polling",
    "parking",
    "suspended",
];
/// The states of semaphore lanes (free .. overfull) and of a process under
/// one (requesting, waiting, assigned).
pub const SEMAPHORE_STATES: [&str; 7] = [
    "free",
    "used",
    "full",
    "overfull",
    "requesting",
    "waiting",
    "assigned",
];
/// The states of OS event lanes (set for some process) and of a process
/// under one (set for it, waiting for it).
pub const EVENT_STATES: [&str; 2] = ["set", "waiting"];

/// An interval of a lane in one state (an index into the lane's states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: i64,
    pub end: i64,
    /// The instance it belongs to: the task instance for task and runnable
    /// lanes, 0 otherwise.
    pub instance: i64,
    pub state: u8,
}

/// One row of a time graph: a named entity, maybe under another lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    pub name: String,
    /// The index of its parent lane in the same list.
    pub parent: Option<usize>,
    pub spans: Vec<Span>,
    /// The state it is in since a time, not yet closed.
    open: Option<(i64, u8, i64)>,
}

/// Lanes of one kind, found by (parent, name).
#[derive(Debug, Default)]
pub struct Lanes {
    pub lanes: Vec<Lane>,
    /// By parent, then by name.
    by_name: HashMap<Option<usize>, HashMap<Box<[u8]>, usize>>,
}

impl Lanes {
    fn lane(&mut self, parent: Option<usize>, name: &[u8]) -> usize {
        if let Some(&i) = self.by_name.get(&parent).and_then(|m| m.get(name)) {
            return i;
        }
        let i = self.lanes.len();
        self.lanes.push(Lane {
            name: String::from_utf8_lossy(name).into_owned(),
            parent,
            spans: Vec::new(),
            open: None,
        });
        self.by_name
            .entry(parent)
            .or_default()
            .insert(name.into(), i);
        i
    }

    /// Lane `i` is in `state` (None: in none drawn) from `ts` on.
    fn set(&mut self, i: usize, ts: i64, state: Option<u8>, instance: i64) {
        let lane = &mut self.lanes[i];
        if let Some((_, s, n)) = lane.open {
            if Some(s) == state && n == instance {
                return;
            }
        }
        if let Some((start, s, n)) = lane.open.take() {
            if ts > start {
                lane.spans.push(Span {
                    start,
                    end: ts,
                    instance: n,
                    state: s,
                });
            }
        }
        lane.open = state.map(|s| (ts, s, instance));
    }

    fn close_all(&mut self, ts: i64) {
        for i in 0..self.lanes.len() {
            self.set(i, ts, None, 0);
        }
    }

    /// The earliest start and latest end of lane `i`'s spans.
    pub fn extent(&self, i: usize) -> Option<(i64, i64)> {
        let s = &self.lanes[i].spans;
        Some((s.first()?.start, s.last()?.end))
    }
}

/// The values written to one signal, in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(i64, f64)>,
}

/// Everything collected from one BTF trace.
#[derive(Debug, Default)]
pub struct BtfLanes {
    pub tasks: Lanes,
    pub semaphores: Lanes,
    pub events: Lanes,
    pub signals: Vec<Series>,
    signal_index: HashMap<Box<[u8]>, usize>,
    os_events: HashMap<Box<[u8]>, OsEvent>,
    /// Processes by thread id, for OS events (which name them by id).
    names: HashMap<i64, Box<[u8]>>,
}

/// The index of `state` in `states`.
fn code(states: &[&str], state: &[u8]) -> Option<u8> {
    states
        .iter()
        .position(|s| s.as_bytes() == state)
        .map(|i| i as u8)
}

/// A process as a lane name: without a logger's core prefix.
fn process(raw: &[u8]) -> &[u8] {
    process_name(raw).name
}

impl BtfLanes {
    /// The lanes of the BTF trace at `path`, or `None` when it is not one
    /// (a CTF directory, an ftrace file): one pass over it.
    pub fn of_trace(path: &Path, work: &Work<'_>) -> Result<Option<BtfLanes>, RunError> {
        if !crate::btf::is_btf_file(path) {
            return Ok(None);
        }
        let mut lanes = BtfLanes::default();
        Pass::new(&mut [&mut lanes]).read(path, work)?;
        Ok(Some(lanes))
    }

    fn task_row(&mut self, ev: &KEvent<'_>, state: &[u8]) {
        let p = &ev.payload;
        let name = process(p.str("target").unwrap_or_default());
        let i = self.tasks.lane(None, name);
        let instance = p.int("target_instance").unwrap_or(0);
        self.tasks
            .set(i, ev.ts, code(&TASK_STATES, state), instance);
        if let Some(tid) = p.int("tid").filter(|t| *t > 0) {
            self.name(tid, name);
        }
    }

    fn runnable_row(&mut self, ev: &KEvent<'_>, state: &[u8]) {
        let p = &ev.payload;
        let task = process(p.str("source").unwrap_or_default());
        let parent = self.tasks.lane(None, task);
        let i = self
            .tasks
            .lane(Some(parent), p.str("target").unwrap_or_default());
        let instance = p.int("source_instance").unwrap_or(0);
        self.tasks
            .set(i, ev.ts, code(&TASK_STATES, state), instance);
    }

    fn semaphore_row(&mut self, ev: &KEvent<'_>, action: &str, state: &[u8]) {
        let p = &ev.payload;
        let (source, target) = (
            p.str("source").unwrap_or_default(),
            p.str("target").unwrap_or_default(),
        );
        let sem = self.semaphores.lane(None, target);
        if source == target {
            // The semaphore's own action: its state changed.
            if state != b"unknown" {
                let s = code(&SEMAPHORE_STATES[..4], state);
                self.semaphores.set(sem, ev.ts, s, 0);
            }
            return;
        }
        let user = match action {
            "requestsemaphore" | "exclusivesemaphore" => Some(4),
            "waiting" => Some(5),
            "assigned" => Some(6),
            "released" => None,
            _ => return,
        };
        let i = self.semaphores.lane(Some(sem), process(source));
        self.semaphores.set(i, ev.ts, user, 0);
    }

    fn event_row(&mut self, ev: &KEvent<'_>, action: &str) {
        let p = &ev.payload;
        let target = p.str("target").unwrap_or_default();
        let action = EventAction::of(action.as_bytes());
        let source = p.int("tid").filter(|t| *t > 0);
        if let Some(t) = source {
            self.name(t, p.str("source").unwrap_or_default());
        }
        // A `set_event` names the process it sets the event for.
        let set_for = match action {
            EventAction::Set => {
                let note = p.str("note").unwrap_or_default();
                let tid = thread_id(&process_name(note));
                if let Some(t) = tid {
                    self.name(t, note);
                }
                tid
            }
            _ => None,
        };
        let lane = self.events.lane(None, target);
        let e = self.os_events.entry(target.into()).or_default();
        e.apply(action, source, set_for);
        let state_of = |t: i64| {
            if e.set_for.contains(&t) {
                Some(0)
            } else if e.waiters.contains(&t) {
                Some(1)
            } else {
                None
            }
        };
        let touched: Vec<(i64, Option<u8>)> = [source, set_for]
            .into_iter()
            .flatten()
            .map(|t| (t, state_of(t)))
            .collect();
        let set = !e.set_for.is_empty();
        self.events.set(lane, ev.ts, set.then_some(0), 0);
        for (t, state) in touched {
            let name = self.names[&t].clone();
            let i = self.events.lane(Some(lane), &name);
            self.events.set(i, ev.ts, state, 0);
        }
    }

    /// Remembers the name of process `tid` (as first seen).
    fn name(&mut self, tid: i64, raw: &[u8]) {
        self.names.entry(tid).or_insert_with(|| process(raw).into());
    }

    fn signal_row(&mut self, ev: &KEvent<'_>) {
        let p = &ev.payload;
        let Some(v) = signal_value(p.str("note").unwrap_or_default()) else {
            return;
        };
        let name = p.str("target").unwrap_or_default();
        let i = match self.signal_index.get(name) {
            Some(&i) => i,
            None => {
                self.signals.push(Series {
                    name: String::from_utf8_lossy(name).into_owned(),
                    points: Vec::new(),
                });
                self.signal_index
                    .insert(name.into(), self.signals.len() - 1);
                self.signals.len() - 1
            }
        };
        self.signals[i].points.push((ev.ts, v));
    }
}

impl Analysis for BtfLanes {
    fn wants(&self, canonical: &str) -> bool {
        ["T_", "I_", "R_", "SEM_", "SIG_write", "EVENT_"]
            .iter()
            .any(|p| canonical.starts_with(p))
    }

    fn on_event(&mut self, ev: &KEvent<'_>, _: Option<i64>, _: &KernelModel) {
        let Some((ty, action)) = ev.name.split_once('_') else {
            return;
        };
        let state = ev.payload.str("state").unwrap_or_default();
        match ty {
            "T" | "I" => self.task_row(ev, state),
            "R" => self.runnable_row(ev, state),
            "SEM" => self.semaphore_row(ev, action, state),
            "EVENT" => self.event_row(ev, action),
            "SIG" if action == "write" => self.signal_row(ev),
            _ => {}
        }
    }

    fn finish(&mut self, _: &KernelModel, end: i64) {
        self.tasks.close_all(end);
        self.semaphores.close_all(end);
        self.events.close_all(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sextant_formats::testing::TempFile;

    /// A task whose instance runs two runnables (one preempted), takes a
    /// semaphore another task waits for, waits for an OS event the other
    /// sets, and writes a signal.
    const TRACE: &str = "#version 2.2
#timeScale ns
0,S,0,T,A,0,activate
0,S,0,T,B,0,activate
10,Core_0,0,T,A,0,start
10,A,0,R,RA1,0,start
20,A,0,SEM,M,0,requestsemaphore
20,M,0,SEM,M,0,lock,1
20,A,0,SEM,M,0,assigned
30,Core_1,0,T,B,0,start
30,B,0,SEM,M,0,requestsemaphore
30,B,0,SEM,M,0,waiting
40,Core_0,0,T,A,0,preempt
40,A,0,R,RA1,0,suspend
50,Core_0,0,T,A,0,resume
50,A,0,R,RA1,0,resume
60,A,0,R,RA1,0,terminate
60,A,0,R,RA2,0,start
60,A,0,SIG,V,0,write,7
70,A,0,SEM,M,0,released
70,M,0,SEM,M,0,unlock,0
70,B,0,SEM,M,0,assigned
70,M,0,SEM,M,0,lock,1
80,A,0,EVENT,E,0,wait_event
80,Core_0,0,T,A,0,wait
90,B,0,EVENT,E,0,set_event,A
90,B,0,SIG,V,0,write,-2.5
90,Core_0,0,T,A,0,release
95,Core_0,0,T,A,0,resume
96,A,0,EVENT,E,0,clear_event
100,A,0,R,RA2,0,terminate
100,Core_0,0,T,A,0,terminate
";

    fn spans(
        l: &Lanes,
        parent: Option<&str>,
        name: &str,
        states: &[&str],
    ) -> Vec<(i64, i64, String)> {
        let p = parent.map(|p| {
            l.lanes
                .iter()
                .position(|x| x.name == p && x.parent.is_none())
                .unwrap()
        });
        let lane = l
            .lanes
            .iter()
            .find(|x| x.name == name && x.parent == p)
            .unwrap_or_else(|| panic!("no lane {name}"));
        lane.spans
            .iter()
            .map(|s| {
                (
                    s.start,
                    s.end,
                    format!("{}#{}", states[s.state as usize], s.instance),
                )
            })
            .collect()
    }

    fn lanes() -> BtfLanes {
        let f = TempFile::new("lanes.btf", TRACE.as_bytes());
        BtfLanes::of_trace(&f.0, &Work::none())
            .unwrap()
            .expect("a BTF file")
    }

    #[test]
    fn tasks_and_their_runnables() {
        let l = lanes();
        let s = |p, n| spans(&l.tasks, p, n, &TASK_STATES);
        let v = |v: &[(i64, i64, &str)]| -> Vec<(i64, i64, String)> {
            v.iter().map(|&(a, b, c)| (a, b, c.to_string())).collect()
        };
        assert_eq!(
            s(None, "A"),
            v(&[
                (0, 10, "active#0"),
                (10, 40, "running#0"),
                (40, 50, "ready#0"),
                (50, 80, "running#0"),
                (80, 90, "waiting#0"),
                (90, 95, "ready#0"),
                (95, 100, "running#0"),
            ])
        );
        assert_eq!(
            s(Some("A"), "RA1"),
            v(&[
                (10, 40, "running#0"),
                (40, 50, "suspended#0"),
                (50, 60, "running#0")
            ])
        );
        assert_eq!(s(Some("A"), "RA2"), v(&[(60, 100, "running#0")]));
        // B never terminates: its state runs to the end of the trace.
        assert_eq!(
            s(None, "B"),
            v(&[(0, 30, "active#0"), (30, 100, "running#0")])
        );
    }

    #[test]
    fn semaphores_with_assignments_and_waiters() {
        let l = lanes();
        let s = |p, n| spans(&l.semaphores, p, n, &SEMAPHORE_STATES);
        let v = |v: &[(i64, i64, &str)]| -> Vec<(i64, i64, String)> {
            v.iter().map(|&(a, b, c)| (a, b, c.to_string())).collect()
        };
        // Unlocked and locked again at 70: two times full.
        assert_eq!(s(None, "M"), v(&[(20, 70, "full#0"), (70, 100, "full#0")]));
        // Requested and assigned at the same time: assigned only.
        assert_eq!(s(Some("M"), "A"), v(&[(20, 70, "assigned#0")]));
        assert_eq!(
            s(Some("M"), "B"),
            v(&[(30, 70, "waiting#0"), (70, 100, "assigned#0")])
        );
    }

    #[test]
    fn os_events_and_signals() {
        let l = lanes();
        let s = |p, n| spans(&l.events, p, n, &EVENT_STATES);
        let v = |v: &[(i64, i64, &str)]| -> Vec<(i64, i64, String)> {
            v.iter().map(|&(a, b, c)| (a, b, c.to_string())).collect()
        };
        assert_eq!(s(None, "E"), v(&[(90, 96, "set#0")]));
        assert_eq!(
            s(Some("E"), "A"),
            v(&[(80, 90, "waiting#0"), (90, 96, "set#0")])
        );
        assert_eq!(
            l.signals,
            vec![Series {
                name: "V".into(),
                points: vec![(60, 7.0), (90, -2.5)]
            }]
        );
    }

    #[test]
    fn other_formats_have_no_lanes() {
        let f = TempFile::new("not.txt", b"# tracer: nop\n");
        assert!(BtfLanes::of_trace(&f.0, &Work::none()).unwrap().is_none());
    }
}
