//! The kernel model, built in the single pass: the current thread of each CPU,
//! each thread's state, cumulative time per state, priority history, name and
//! life cycle. O(1) per event (one hash lookup or two); memory grows with live
//! threads and priority changes, never with events. A thread's state is
//! dropped at `sched_process_free`, so a reused TID starts afresh.

use rustc_hash::FxHashMap as HashMap;

use super::fields::{Payload, K};
use super::vocabulary::{kernel_prio, runnable_from_int, runnable_from_letters, Kind, Tracer};
use crate::kernel::fields::Val;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadState {
    Running,
    /// Switched out while still runnable.
    Preempted,
    /// Switched out waiting for something (sleep, lock, I/O).
    Blocked,
    /// Woken up, not yet running.
    WaitingCpu,
    /// Not known yet (before its first scheduling event), or lost (a repair).
    Unknown,
}

impl ThreadState {
    /// Index into `Totals`, for the states that are measured.
    fn index(self) -> Option<usize> {
        match self {
            ThreadState::Running => Some(0),
            ThreadState::Preempted => Some(1),
            ThreadState::Blocked => Some(2),
            ThreadState::WaitingCpu => Some(3),
            ThreadState::Unknown => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ThreadState::Running => "running",
            ThreadState::Preempted => "preempted",
            ThreadState::Blocked => "blocked",
            ThreadState::WaitingCpu => "waiting_cpu",
            ThreadState::Unknown => "unknown",
        }
    }
}

/// Nanoseconds spent running, preempted, blocked and waiting for a CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub running: i64,
    pub preempted: i64,
    pub blocked: i64,
    pub waiting: i64,
}

impl Totals {
    fn add(&mut self, state: ThreadState, ns: i64) {
        match state.index() {
            Some(0) => self.running += ns,
            Some(1) => self.preempted += ns,
            Some(2) => self.blocked += ns,
            Some(3) => self.waiting += ns,
            _ => {}
        }
    }

    pub fn since(self, earlier: Totals) -> Totals {
        Totals {
            running: self.running - earlier.running,
            preempted: self.preempted - earlier.preempted,
            blocked: self.blocked - earlier.blocked,
            waiting: self.waiting - earlier.waiting,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Thread {
    pub tid: i64,
    /// Process id (thread group), when the trace says.
    pub pid: Option<i64>,
    pub comm: String,
    pub state: ThreadState,
    /// When the current state began.
    pub since: i64,
    /// The CPU it runs on, or last ran on.
    pub cpu: Option<u32>,
    pub first_seen: i64,
    pub exited: bool,
    /// Time in each state, up to `since`.
    totals: Totals,
    /// (time, kernel-order priority) at every change.
    prio: Vec<(i64, i32)>,
    /// The last of `prio`, kept beside the other fields: every switch and
    /// wake-up compares with it, and reading it from the history's own
    /// block missed the cache once thousands of threads were live.
    last_prio: Option<i32>,
}

impl Thread {
    fn new(tid: i64, ts: i64) -> Thread {
        Thread {
            tid,
            pid: None,
            comm: String::new(),
            state: ThreadState::Unknown,
            since: ts,
            cpu: None,
            first_seen: ts,
            exited: false,
            totals: Totals::default(),
            prio: Vec::new(),
            last_prio: None,
        }
    }

    /// Time per state from the thread's first appearance up to `ts` (which must
    /// not be before the last transition).
    pub fn totals_at(&self, ts: i64) -> Totals {
        let mut t = self.totals;
        t.add(self.state, (ts - self.since).max(0));
        t
    }

    /// Kernel-order priority (smaller is higher) at `ts`: O(log n).
    pub fn prio_at(&self, ts: i64) -> Option<i32> {
        let i = self.prio.partition_point(|(t, _)| *t <= ts);
        i.checked_sub(1)
            .map(|i| self.prio[i].1)
            .or_else(|| self.prio.first().map(|p| p.1))
    }

    pub fn prio(&self) -> Option<i32> {
        self.last_prio
    }

    fn set_prio(&mut self, ts: i64, prio: i32) {
        if self.last_prio != Some(prio) {
            self.last_prio = Some(prio);
            self.prio.push((ts, prio));
        }
    }

    fn set_comm(&mut self, comm: &[u8]) {
        if !comm.is_empty() && self.comm.as_bytes() != comm {
            self.comm = String::from_utf8_lossy(comm).into_owned();
        }
    }
}

/// A thread changing state, as produced by the last event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub tid: i64,
    pub from: ThreadState,
    pub to: ThreadState,
    /// When the state left (`from`) began.
    pub from_since: i64,
    pub ts: i64,
    pub cpu: Option<u32>,
    /// The change is not in the trace: a thread found running on a CPU
    /// by its own events (its switch-in lost), dated back to the earliest
    /// time the events allow.
    pub inferred: bool,
}

/// One event under the canonical vocabulary, as the model and analyses see it.
#[derive(Debug, Clone, Copy)]
pub struct KEvent<'a> {
    pub ts: i64,
    pub cpu: Option<u32>,
    /// Canonical name.
    pub name: &'a str,
    pub kind: Kind,
    pub tracer: Tracer,
    /// The thread the tracer says emitted it (ftrace prefix, perf_tid).
    pub thread: Option<i64>,
    pub payload: Payload<'a>,
}

#[derive(Debug, Default)]
pub struct KernelModel {
    threads: HashMap<i64, Thread>,
    cpus: Vec<Option<i64>>,
    /// Per CPU, the time of the last event known to be in the context of
    /// its current thread: a thread found there later by its own events
    /// cannot have run before it.
    attested: Vec<i64>,
    transitions: Vec<Transition>,
    freed: Vec<Thread>,
    /// Times the thread attributed to an event contradicted the CPU's current
    /// thread (lost or unrecorded `sched_switch`), and the model was corrected.
    pub repairs: u64,
}

impl KernelModel {
    pub fn thread(&self, tid: i64) -> Option<&Thread> {
        self.threads.get(&tid)
    }

    pub fn threads(&self) -> impl Iterator<Item = &Thread> {
        self.threads.values()
    }

    /// The thread running on `cpu` (0 is the idle task), if known.
    pub fn current(&self, cpu: u32) -> Option<i64> {
        self.cpus
            .get(crate::event::cpu_slot(cpu))
            .copied()
            .flatten()
    }

    /// Each CPU's current thread, by CPU number.
    pub fn cpus(&self) -> &[Option<i64>] {
        &self.cpus
    }

    /// State changes made by the last `apply`.
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }

    /// Threads freed by the last `apply` (their final state).
    pub fn freed(&self) -> &[Thread] {
        &self.freed
    }

    /// The thread an event belongs to, as known before applying it: the
    /// switching-out thread for `sched_switch`, else the tracer's attribution,
    /// else the CPU's current thread.
    pub fn event_thread(&self, ev: &KEvent<'_>) -> Option<i64> {
        if ev.kind == Kind::SchedSwitch {
            if let Some(prev) = ev.payload.int_at(K::PrevTid) {
                return Some(prev);
            }
        }
        ev.thread.or_else(|| self.current(ev.cpu?))
    }

    pub fn apply(&mut self, ev: &KEvent<'_>) {
        self.transitions.clear();
        self.freed.clear();
        let p = &ev.payload;
        let ts = ev.ts;
        let prio = |k: K| p.int_at(k).map(|v| kernel_prio(ev.tracer, v));
        match ev.kind {
            Kind::SchedSwitch => {
                let (Some(prev), Some(next)) = (p.int_at(K::PrevTid), p.int_at(K::NextTid)) else {
                    return;
                };
                if let Some(cpu) = ev.cpu {
                    self.attribute(prev, cpu, ts);
                }
                let runnable = match p.at(K::PrevState) {
                    Some(Val::Int(s)) => runnable_from_int(s),
                    Some(Val::Str { .. }) => {
                        runnable_from_letters(p.str_at(K::PrevState).unwrap_or_default())
                    }
                    _ => false,
                };
                if let Some(t) = self.get_or_create(prev, ts) {
                    t.set_comm(p.str_at(K::PrevComm).unwrap_or_default());
                    if let Some(pr) = prio(K::PrevPrio) {
                        t.set_prio(ts, pr);
                    }
                }
                let to = if runnable {
                    ThreadState::Preempted
                } else {
                    ThreadState::Blocked
                };
                self.set_state(prev, to, ts, ev.cpu);
                if let Some(t) = self.get_or_create(next, ts) {
                    t.set_comm(p.str_at(K::NextComm).unwrap_or_default());
                    if let Some(pr) = prio(K::NextPrio) {
                        t.set_prio(ts, pr);
                    }
                }
                self.set_state(next, ThreadState::Running, ts, ev.cpu);
                if let Some(cpu) = ev.cpu {
                    self.set_current(cpu, next);
                    self.attest(cpu, ts);
                }
            }
            Kind::SchedWaking | Kind::SchedWakeup | Kind::SchedWakeupNew => {
                self.attribute_event(ev);
                let Some(tid) = p.int_at(K::Tid) else { return };
                let new = ev.kind == Kind::SchedWakeupNew;
                if let Some(t) = self.get_or_create(tid, ts) {
                    if new {
                        t.set_comm(p.str_at(K::Comm).unwrap_or_default());
                    }
                    if let Some(pr) = prio(K::Prio) {
                        t.set_prio(ts, pr);
                    }
                    // Only a sleeping (or new, or unknown) thread starts waiting.
                    if matches!(t.state, ThreadState::Blocked | ThreadState::Unknown) {
                        self.set_state(tid, ThreadState::WaitingCpu, ts, ev.cpu);
                    }
                }
            }
            Kind::SchedProcessFork => {
                self.attribute_event(ev);
                let Some(child) = p.int_at(K::ChildTid) else {
                    return;
                };
                // The child is named after its parent until it renames
                // itself. Its priority is not taken from the parent: glibc
                // and others change it right after the clone, often without
                // a trace of it, and the child's own scheduling events say.
                let parent_comm = p
                    .int_at(K::ParentTid)
                    .and_then(|t| self.threads.get(&t))
                    .map(|t| t.comm.clone());
                if let Some(t) = self.get_or_create(child, ts) {
                    match p.str_at(K::ChildComm) {
                        Some(c) if !c.is_empty() => t.set_comm(c),
                        _ => {
                            if let Some(c) = &parent_comm {
                                t.set_comm(c.as_bytes());
                            }
                        }
                    }
                    t.pid = p.int_at(K::ChildPid).or(t.pid);
                }
            }
            Kind::SchedProcessExec => {
                self.attribute_event(ev);
                let tid = p.int_at(K::Tid).or_else(|| self.event_thread(ev));
                let Some(t) = tid.and_then(|tid| self.get_or_create(tid, ts)) else {
                    return;
                };
                // The kernel names the task after the file it executes.
                if let Some(f) = p.str_at(K::Filename) {
                    let base = f.rsplit(|b| *b == b'/').next().unwrap_or(f);
                    t.set_comm(&base[..base.len().min(15)]);
                }
            }
            Kind::SchedProcessExit => {
                self.attribute_event(ev);
                if let Some(t) = p.int_at(K::Tid).and_then(|tid| self.get_or_create(tid, ts)) {
                    t.exited = true;
                    t.set_comm(p.str_at(K::Comm).unwrap_or_default());
                }
            }
            Kind::SchedProcessFree => {
                self.attribute_event(ev);
                if let Some(tid) = p.int_at(K::Tid) {
                    if let Some(mut t) = self.threads.remove(&tid) {
                        let from = t.state;
                        t.totals.add(from, (ts - t.since).max(0));
                        t.since = ts;
                        t.state = ThreadState::Unknown;
                        self.freed.push(t);
                    }
                }
            }
            Kind::SchedPiSetprio => {
                self.attribute_event(ev);
                if let (Some(tid), Some(pr)) = (p.int_at(K::Tid), prio(K::Newprio)) {
                    if let Some(t) = self.get_or_create(tid, ts) {
                        t.set_prio(ts, pr);
                    }
                }
            }
            Kind::StatedumpProcess => {
                let Some(tid) = p.int_at(K::Tid) else { return };
                if let Some(t) = self.get_or_create(tid, ts) {
                    t.set_comm(p.str_at(K::Name).unwrap_or_default());
                    t.pid = p.int_at(K::Pid).or(t.pid);
                }
            }
            Kind::Other => self.attribute_event(ev),
        }
    }

    fn attribute_event(&mut self, ev: &KEvent<'_>) {
        // A BTF row's thread is the one it concerns, not one running: the
        // BTF model derives every switch itself.
        if ev.tracer == Tracer::Btf {
            return;
        }
        if let (Some(tid), Some(cpu)) = (ev.thread, ev.cpu) {
            self.attribute(tid, cpu, ev.ts);
        }
    }

    /// Whether an event of `tid` on `cpu` says something the model does
    /// not know (another thread is current there): the pass then applies
    /// it even when no analysis wants its class. Otherwise it only attests
    /// that the current thread was still there at `ts`.
    pub fn contradicts(&mut self, tid: i64, cpu: u32, ts: i64) -> bool {
        if self.current(cpu) == Some(tid) {
            self.attest(cpu, ts);
            false
        } else {
            true
        }
    }

    fn attest(&mut self, cpu: u32, ts: i64) {
        let i = crate::event::cpu_slot(cpu);
        if self.attested.len() <= i {
            self.attested.resize(i + 1, i64::MIN);
        }
        self.attested[i] = self.attested[i].max(ts);
    }

    /// An event of `tid` on `cpu` means `tid` runs there: when the model
    /// thought otherwise, a `sched_switch` was lost or never recorded (a
    /// kernel often drops the switch out of idle). `tid` ran from the
    /// earliest time the trace allows: after the last event of the CPU's
    /// previous thread there, and after its own last state change (its
    /// wake-up); the change is marked inferred. The previous thread's state
    /// becomes unknown from its last event there.
    fn attribute(&mut self, tid: i64, cpu: u32, ts: i64) {
        let last = self
            .attested
            .get(crate::event::cpu_slot(cpu))
            .copied()
            .unwrap_or(i64::MIN);
        match self.current(cpu) {
            Some(cur) if cur == tid => {
                self.attest(cpu, ts);
                return;
            }
            Some(cur) => {
                self.repairs += 1;
                if let Some(t) = self
                    .threads
                    .get(&cur)
                    .filter(|t| t.state == ThreadState::Running)
                {
                    let at = last.max(t.since).min(ts);
                    self.set_state_at(cur, ThreadState::Unknown, at, Some(cpu), true);
                }
            }
            None => {}
        }
        // Without a previous thread known there, nothing bounds it but its
        // own last change: it runs from the event.
        let bounded = self.current(cpu).is_some();
        if let Some(since) = self.get_or_create(tid, ts).map(|t| t.since) {
            let at = if bounded { last.max(since).min(ts) } else { ts };
            self.set_state_at(tid, ThreadState::Running, at, Some(cpu), at < ts);
        }
        self.set_current(cpu, tid);
        self.attest(cpu, ts);
    }

    fn set_current(&mut self, cpu: u32, tid: i64) {
        let i = crate::event::cpu_slot(cpu);
        if self.cpus.len() <= i {
            self.cpus.resize(i + 1, None);
        }
        self.cpus[i] = Some(tid);
    }

    /// The thread, created on first sight; `None` for the idle task (tid 0,
    /// one per CPU, not a thread we follow) and invalid tids.
    fn get_or_create(&mut self, tid: i64, ts: i64) -> Option<&mut Thread> {
        if tid <= 0 {
            return None;
        }
        Some(
            self.threads
                .entry(tid)
                .or_insert_with(|| Thread::new(tid, ts)),
        )
    }

    fn set_state(&mut self, tid: i64, to: ThreadState, ts: i64, cpu: Option<u32>) {
        self.set_state_at(tid, to, ts, cpu, false);
    }

    fn set_state_at(
        &mut self,
        tid: i64,
        to: ThreadState,
        ts: i64,
        cpu: Option<u32>,
        inferred: bool,
    ) {
        let Some(t) = self.get_or_create(tid, ts) else {
            return;
        };
        if to == ThreadState::Running {
            t.cpu = cpu.or(t.cpu);
        }
        if t.state == to {
            return;
        }
        let from = t.state;
        let from_since = t.since;
        t.totals.add(from, (ts - t.since).max(0));
        t.state = to;
        t.since = ts;
        self.transitions.push(Transition {
            tid,
            from,
            to,
            from_since,
            ts,
            cpu,
            inferred,
        });
    }
}
