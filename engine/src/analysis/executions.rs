//! Execution detection: every execution of a model (or preset) in the single
//! pass, with how its time was spent.
//!
//! Each execution is measured on one thread (its "metric thread"): the thread
//! of a same-TID execution, the `$tid`-bound thread of a different-TIDs one,
//! else its starting thread. Times come from the model's cumulative per-thread
//! totals, so measuring costs two snapshots, not a walk over intervals.

use serde::Serialize;

use super::execution::cpu_bit;
pub use super::execution::Execution;
use super::model::{EventPattern, ExecutionModel, Mode, NestedModel, Preset, ThreadFilter};
use super::stats::{self, Stats};
use super::underway::{Active, Started, Underway};
use crate::analysis::btf::instances::Instances;
use crate::kernel::model::{KEvent, KernelModel, ThreadState, Totals};
use crate::kernel::pass::Analysis;
use crate::kernel::vocabulary::canonical_event;

/// What an analysis looks for.
#[derive(Debug, Clone)]
pub enum Target {
    Model(Box<ExecutionModel>),
    /// A state-based preset, for the threads the filter accepts.
    States(Preset, ThreadFilter),
}

/// The order in which executions are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Duration,
    Running,
    Preempted,
    Blocked,
    Waiting,
    Start,
}

impl std::str::FromStr for SortKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "duration" => SortKey::Duration,
            "running" => SortKey::Running,
            "preempted" => SortKey::Preempted,
            "blocked" => SortKey::Blocked,
            "waiting" => SortKey::Waiting,
            "start" => SortKey::Start,
            _ => {
                return Err(format!(
                    "unknown sort key `{s}` (duration, running, preempted, blocked, waiting, start)"
                ))
            }
        })
    }
}

/// The executions of one model, with their statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Executions {
    pub name: String,
    pub executions: Vec<Execution>,
    /// Executions started but never ended (restarted, thread freed, trace end).
    pub incomplete: u64,
    pub deadline: Option<i64>,
}

impl Executions {
    pub fn stats(&self) -> Option<Stats> {
        let d: Vec<i64> = self.executions.iter().map(|e| e.duration).collect();
        stats::compute(&d, self.deadline)
    }

    /// Executions ordered by `key`, largest first (earliest first for `Start`).
    pub fn sorted(&self, key: SortKey) -> Vec<&Execution> {
        let mut v: Vec<&Execution> = self.executions.iter().collect();
        let metric = |e: &Execution| match key {
            SortKey::Duration => e.duration,
            SortKey::Running => e.running,
            SortKey::Preempted => e.preempted,
            SortKey::Blocked => e.blocked,
            SortKey::Waiting => e.waiting,
            SortKey::Start => -e.start,
        };
        v.sort_by(|a, b| metric(b).cmp(&metric(a)).then(a.index.cmp(&b.index)));
        v
    }
}

/// The executions of several traces (an experiment's), merged.
#[derive(Debug, Clone)]
pub struct Merged {
    /// In start order, numbered again from 0.
    pub executions: Executions,
    /// The position in the traces given of each execution's trace, by index.
    pub trace_of: Vec<usize>,
}

impl Merged {
    /// The executions of `target` found in several parts (traces, or the
    /// hosts of one trace), in start order (ties by end, then thread),
    /// numbered again; `trace_of` gives each one's part.
    pub fn of(target: &Target, parts: Vec<Executions>) -> Merged {
        let mut merged = ExecutionAnalysis::new(target.clone()).into_executions();
        let mut all: Vec<(Execution, usize)> = Vec::new();
        for (part, found) in parts.into_iter().enumerate() {
            merged.incomplete += found.incomplete;
            all.extend(found.executions.into_iter().map(|x| (x, part)));
        }
        all.sort_by_key(|(x, _)| (x.start, x.end, x.tid));
        let mut trace_of = Vec::with_capacity(all.len());
        for (i, (mut x, part)) in all.into_iter().enumerate() {
            x.index = i;
            merged.executions.push(x);
            trace_of.push(part);
        }
        Merged {
            executions: merged,
            trace_of,
        }
    }
}

pub struct ExecutionAnalysis {
    target: Target,
    machines: Machines,
    /// BTF task instances (the `task-instance` preset).
    instances: Option<Instances>,
}

/// The matching state, apart from the (read-only) target.
struct Machines {
    /// Canonical names of the model's events: same-TID events then nested
    /// ones, or start then end.
    names: Vec<String>,
    /// Executions under way, by thread (`None`: the single machine of a
    /// different-TIDs model without `$tid`).
    active: Underway,
    done: Vec<Execution>,
    incomplete: u64,
    max: Option<u64>,
}

impl ExecutionAnalysis {
    pub fn new(target: Target) -> ExecutionAnalysis {
        let mut names = Vec::new();
        let mut max = None;
        if let Target::Model(m) = &target {
            max = m.max_executions.map(|n| n.get());
            let mut add = |p: &EventPattern| names.push(canonical_event(&p.name).into_owned());
            match &m.mode {
                Mode::SameTid { events, nested, .. } => {
                    events.iter().for_each(&mut add);
                    if let Some(n) = nested {
                        n.events.iter().for_each(&mut add);
                    }
                }
                Mode::DifferentTids { start, end, .. } => {
                    add(start);
                    add(end);
                }
            }
        }
        let instances =
            matches!(target, Target::States(Preset::TaskInstance, _)).then(Instances::default);
        ExecutionAnalysis {
            target,
            instances,
            machines: Machines {
                names,
                active: Underway::default(),
                done: Vec::new(),
                incomplete: 0,
                max,
            },
        }
    }

    /// The executions found, in start order, indexed.
    pub fn into_executions(self) -> Executions {
        let (name, deadline) = match &self.target {
            Target::Model(m) => (m.name.clone(), m.deadline),
            Target::States(p, _) => (p.name().to_string(), None),
        };
        let m = self.machines;
        let mut executions = m.done;
        executions.sort_by_key(|e| (e.start, e.end, e.tid));
        for (i, e) in executions.iter_mut().enumerate() {
            e.index = i;
            e.deadline_miss = deadline.map(|d| e.duration > d);
        }
        let live = self.instances.map_or(0, |i| i.incomplete());
        Executions {
            name,
            executions,
            incomplete: m.incomplete + m.active.len() as u64 + live,
            deadline,
        }
    }
}

/// Starts measuring an execution on `tid` at `ts`.
fn start_active(ts: i64, start_tid: i64, tid: i64, model: &KernelModel) -> Active {
    let t = model.thread(tid);
    let running_on = t
        .filter(|t| t.state == ThreadState::Running)
        .and_then(|t| t.cpu);
    Active {
        step: 1,
        cpus: running_on.map_or(0, cpu_bit),
        rest: Started {
            start: ts,
            start_tid,
            start_comm: comm(model, start_tid).to_string(),
            tid,
            snapshot: t.map(|t| t.totals_at(ts)).unwrap_or_default(),
            prio: t.and_then(|t| t.prio_at(ts)),
            nested: Vec::new(),
            nested_active: None,
        },
    }
}

fn finish_active(a: Active, ts: i64, end_tid: i64, model: &KernelModel) -> Execution {
    let (cpus, mut a) = (a.cpus, a.rest);
    // A thread born during the execution that ends it (a worker) is what the
    // execution was about: measure it, whole, rather than the starting one.
    if model
        .thread(end_tid)
        .is_some_and(|t| end_tid != a.tid && t.first_seen >= a.start)
    {
        a.tid = end_tid;
        a.snapshot = Totals::default();
    }
    let measured = model.thread(a.tid);
    let times = measured
        .map(|t| t.totals_at(ts).since(a.snapshot))
        .unwrap_or_default();
    Execution {
        index: 0,
        start: a.start,
        end: ts,
        duration: ts - a.start,
        running: times.running,
        preempted: times.preempted,
        blocked: times.blocked,
        waiting: times.waiting,
        start_tid: a.start_tid,
        end_tid,
        start_comm: a.start_comm,
        end_comm: comm(model, end_tid).to_string(),
        tid: a.tid,
        cpus: (0..64).filter(|c| cpus & (1 << c) != 0).collect(),
        prio: measured.and_then(|t| t.prio_at(ts)).or(a.prio),
        deadline_miss: None,
        nested: a.nested,
        btf: None,
    }
}

/// Which pattern of an ordered list `ev` fulfils, and for which thread: the
/// one the thread's machine expects (`step_of`), else the first (a restart).
/// One step per event.
fn pick(
    patterns: &[EventPattern],
    names: &[String],
    ev: &KEvent<'_>,
    thread: Option<i64>,
    model: &KernelModel,
    threads: Option<&ThreadFilter>,
    step_of: impl Fn(i64) -> Option<usize>,
) -> Option<(i64, usize)> {
    let mut first = None;
    for (k, p) in patterns.iter().enumerate() {
        if names[k] != ev.name {
            continue;
        }
        let Some(tid) = route(p, ev, thread) else {
            continue;
        };
        if threads.is_some_and(|f| !f.matches(tid, comm(model, tid))) || !accepts(p, ev, tid) {
            continue;
        }
        let step = step_of(tid);
        if k > 0 && step == Some(k) {
            return Some((tid, k));
        }
        if k == 0 && first.is_none() {
            first = Some((tid, 0));
        }
    }
    first
}

impl Machines {
    fn room(&self) -> bool {
        self.max.is_none_or(|m| (self.done.len() as u64) < m)
    }

    fn same_tid(
        &mut self,
        ev: &KEvent<'_>,
        thread: Option<i64>,
        model: &KernelModel,
        threads: &ThreadFilter,
        events: &[EventPattern],
    ) {
        let n = events.len();
        let picked = pick(
            events,
            &self.names[..n],
            ev,
            thread,
            model,
            Some(threads),
            |tid| self.active.step(tid),
        );
        let Some((tid, k)) = picked else { return };
        if k == 0 {
            if let Some(prev) = self.active.remove(Some(tid)) {
                if n == 1 {
                    // A single-event model measures from one occurrence to the next.
                    self.done.push(finish_active(prev, ev.ts, tid, model));
                } else {
                    self.incomplete += 1;
                }
            }
            if self.room() {
                self.active
                    .insert(Some(tid), start_active(ev.ts, tid, tid, model));
            }
        } else if k + 1 == n {
            let a = self
                .active
                .remove(Some(tid))
                .expect("a step above 0 means active");
            self.done.push(finish_active(a, ev.ts, tid, model));
        } else {
            self.active.set_step(tid, k + 1);
        }
    }

    /// Second-level executions, inside first-level ones on the same thread.
    fn nested(
        &mut self,
        ev: &KEvent<'_>,
        thread: Option<i64>,
        model: &KernelModel,
        nm: &NestedModel,
    ) {
        let n = nm.events.len();
        let names = &self.names[self.names.len() - n..];
        let active = &self.active;
        let picked = pick(&nm.events, names, ev, thread, model, None, |tid| {
            let parent = active.started(tid)?;
            Some(parent.nested_active.as_ref().map_or(0, |a| a.step))
        });
        let Some((tid, k)) = picked else { return };
        let Some(parent) = self.active.started_mut(tid) else {
            return;
        };
        if k == 0 {
            let started = Box::new(start_active(ev.ts, tid, tid, model));
            if let Some(prev) = parent.nested_active.replace(started) {
                if n == 1 {
                    parent.nested.push(finish_active(*prev, ev.ts, tid, model));
                }
            }
        } else if k + 1 == n {
            if let Some(a) = parent.nested_active.take() {
                parent.nested.push(finish_active(*a, ev.ts, tid, model));
            }
        } else if let Some(a) = parent.nested_active.as_mut() {
            a.step = k + 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn different_tids(
        &mut self,
        ev: &KEvent<'_>,
        thread: Option<i64>,
        model: &KernelModel,
        start: &EventPattern,
        end: &EventPattern,
        start_threads: &ThreadFilter,
        end_threads: &ThreadFilter,
        chained: bool,
    ) {
        let keyed = start.tid_field().is_some() || end.tid_field().is_some();
        let key = |tid: i64| keyed.then_some(tid);
        let Some(ethread) = thread else { return };
        // The end first: with `chained`, the same event then starts the next.
        if self.names[1] == ev.name {
            if let Some(tid) = route(end, ev, thread) {
                if end_threads.matches(tid, comm(model, tid)) && accepts(end, ev, tid) {
                    if let Some(a) = self.active.remove(key(tid)) {
                        self.done.push(finish_active(a, ev.ts, ethread, model));
                        if chained && self.room() {
                            self.active
                                .insert(key(tid), start_active(ev.ts, ethread, tid, model));
                        }
                        return;
                    }
                    if chained && !keyed && self.done.is_empty() {
                        // The first end of a chain starts it.
                        self.active
                            .insert(None, start_active(ev.ts, ethread, tid, model));
                        return;
                    }
                }
            }
        }
        if self.names[0] == ev.name {
            let Some(tid) = route(start, ev, thread) else {
                return;
            };
            if !start_threads.matches(tid, comm(model, tid))
                || !accepts(start, ev, tid)
                || !self.room()
            {
                return;
            }
            let started = start_active(ev.ts, ethread, tid, model);
            if self.active.insert(key(tid), started).is_some() {
                self.incomplete += 1;
            }
        }
    }

    fn states(&mut self, preset: Preset, filter: &ThreadFilter, model: &KernelModel) {
        for tr in model.transitions() {
            let measured = matches!(
                (preset, tr.from),
                (Preset::Running, ThreadState::Running) | (Preset::Blocking, ThreadState::Blocked)
            );
            if !measured || tr.ts == tr.from_since {
                continue;
            }
            let Some(t) = model.thread(tr.tid) else {
                continue;
            };
            if !filter.matches(tr.tid, &t.comm) {
                continue;
            }
            let d = tr.ts - tr.from_since;
            let running = matches!(preset, Preset::Running);
            self.done.push(Execution {
                index: 0,
                start: tr.from_since,
                end: tr.ts,
                duration: d,
                running: if running { d } else { 0 },
                preempted: 0,
                blocked: if running { 0 } else { d },
                waiting: 0,
                start_tid: tr.tid,
                end_tid: tr.tid,
                start_comm: t.comm.clone(),
                end_comm: t.comm.clone(),
                tid: tr.tid,
                cpus: tr.cpu.into_iter().collect(),
                prio: t.prio_at(tr.from_since),
                deadline_miss: None,
                nested: Vec::new(),
                btf: None,
            });
        }
        if preset == Preset::WholeThread {
            for t in model.freed() {
                if filter.matches(t.tid, &t.comm) {
                    self.done.push(whole(t, t.since));
                }
            }
        }
    }
}

/// A thread's whole life, from its first appearance to `end`.
fn whole(t: &crate::kernel::model::Thread, end: i64) -> Execution {
    let times = t.totals_at(end);
    Execution {
        index: 0,
        start: t.first_seen,
        end,
        duration: end - t.first_seen,
        running: times.running,
        preempted: times.preempted,
        blocked: times.blocked,
        waiting: times.waiting,
        start_tid: t.tid,
        end_tid: t.tid,
        start_comm: t.comm.clone(),
        end_comm: t.comm.clone(),
        tid: t.tid,
        cpus: t.cpu.into_iter().collect(),
        prio: t.prio_at(t.first_seen),
        deadline_miss: None,
        nested: Vec::new(),
        btf: None,
    }
}

fn comm(model: &KernelModel, tid: i64) -> &str {
    model.thread(tid).map_or("", |t| t.comm.as_str())
}

/// The thread an event counts for: the `$tid` field's value, else its own.
fn route(p: &EventPattern, ev: &KEvent<'_>, thread: Option<i64>) -> Option<i64> {
    match p.tid_field() {
        Some(f) => ev.payload.int(f),
        None => thread,
    }
}

fn accepts(p: &EventPattern, ev: &KEvent<'_>, tid: i64) -> bool {
    p.constraints.iter().all(|c| {
        ev.payload
            .scalar(c.field())
            .is_some_and(|v| c.accepts(v, tid))
    })
}

impl Analysis for ExecutionAnalysis {
    fn wants(&self, canonical: &str) -> bool {
        self.machines.names.iter().any(|n| n == canonical)
            || self.instances.as_ref().is_some_and(|i| i.wants(canonical))
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel) {
        let m = &mut self.machines;
        // CPUs of the measured threads: one lookup in the hot part of the
        // executions under way, not a scan of them all (which made a switch
        // cost O(threads): 10,000 threads with a $tid model, 27 times the
        // per-event cost of 8).
        for tr in model.transitions() {
            if let (ThreadState::Running, Some(cpu)) = (tr.to, tr.cpu) {
                m.active.ran(tr.tid, cpu_bit(cpu));
            }
        }
        // A freed thread ends what was under way on it.
        for t in model.freed() {
            if m.active.remove(Some(t.tid)).is_some() {
                m.incomplete += 1;
            }
        }
        match &self.target {
            Target::Model(model_def) => {
                if model_def
                    .time_range
                    .as_ref()
                    .is_some_and(|r| !r.contains(ev.ts))
                {
                    return;
                }
                match &model_def.mode {
                    Mode::SameTid {
                        threads,
                        events,
                        nested,
                    } => {
                        m.same_tid(ev, thread, model, threads, events);
                        if let Some(nm) = nested {
                            m.nested(ev, thread, model, nm);
                        }
                    }
                    Mode::DifferentTids {
                        start,
                        end,
                        start_threads,
                        end_threads,
                        chained,
                    } => m.different_tids(
                        ev,
                        thread,
                        model,
                        start,
                        end,
                        start_threads,
                        end_threads,
                        *chained,
                    ),
                }
            }
            Target::States(p, f) => match &mut self.instances {
                Some(i) => i.on_event(ev, model, f, &mut m.done),
                None => m.states(*p, f, model),
            },
        }
    }

    fn finish(&mut self, model: &KernelModel, end: i64) {
        if let Target::States(Preset::WholeThread, f) = &self.target {
            let mut alive: Vec<_> = model
                .threads()
                .filter(|t| f.matches(t.tid, &t.comm))
                .collect();
            alive.sort_by_key(|t| t.tid);
            for t in alive {
                self.machines.done.push(whole(t, end));
            }
        }
    }

    fn done(&self) -> bool {
        !self.machines.room()
    }
}
