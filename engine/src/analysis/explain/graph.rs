//! The execution graph of a time range: each thread's state segments and the
//! edges between threads (wake-ups, forks), recorded in the single pass from
//! the kernel model's transitions. Only the range is kept: memory grows with
//! the state changes inside it, not with the trace.
//!
//! A wake-up's waker is what ran on the waking CPU: an interrupt, softirq or
//! timer callback when one was open there (their entry/exit events, when the
//! trace has them), else the CPU's thread. `sched_waking` (emitted by the
//! waker, on its CPU) is preferred; a `sched_wakeup` counts only when no
//! `sched_waking` announced it (older kernels, or tracers that record only
//! the wakeup). A wake-up from a timer callback carries the timer's
//! programmed expiry and the time it fired, so its lateness is known.
//!
//! Creations are kept from the replay on as well (`creations`, by child):
//! a thread born inside the range continues its critical path on its
//! creator, and the threads of a different-TIDs execution are tied through
//! them. A creation is a `sched_process_fork`, else the `sched_wakeup_new`
//! of a thread never seen forked (its waker is the creator), else a
//! `clone` returning the child's tid in the parent. Scheduling policies set
//! by `sched_setscheduler` in the read window are kept too (`policies`): a
//! priority alone cannot tell SCHED_FIFO from SCHED_RR.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;

use crate::event::Loss;
use crate::kernel::model::{KEvent, KernelModel, ThreadState};
use crate::kernel::pass::Analysis;
use crate::kernel::priority::{self, Policy};
use crate::kernel::vocabulary::{names, Kind, Tracer};

/// What was running on a CPU when it woke a thread up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Context {
    Thread {
        tid: i64,
    },
    /// A hardware interrupt handler (`irq` number).
    Irq {
        irq: i64,
    },
    /// A softirq (`vec`: timer 1, net rx 3, sched 7, rcu 9, ...).
    Softirq {
        vec: i64,
    },
    /// An hrtimer callback (e.g. the end of a `clock_nanosleep`).
    Timer,
    /// The idle task, with no interrupt context in the trace: an interrupt
    /// that the tracer did not record.
    Idle {
        cpu: Option<u32>,
    },
}

/// A thread in one state over [start, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub start: i64,
    pub end: i64,
    pub state: ThreadState,
    /// Where it ran (running), or last ran.
    pub cpu: Option<u32>,
    /// Kernel-order priority: when the segment began, or, for a thread
    /// waiting for a CPU, the one it was given the CPU with (see
    /// `GraphBuilder::on_event`).
    pub prio: Option<i32>,
    /// Running found from the thread's own events, its switch-in lost
    /// (`Transition::inferred`).
    pub inferred: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wakeup {
    pub ts: i64,
    pub wakee: i64,
    pub waker: Context,
    pub cpu: Option<u32>,
    /// When the waker's interrupt context opened on `cpu` (none for a
    /// thread): what happened there since led to the wake-up.
    pub since: Option<i64>,
    /// The timer whose callback woke the thread up, when one did.
    pub timer: Option<TimerFire>,
}

/// An hrtimer firing: when it was meant to and when it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimerFire {
    /// The `struct hrtimer` address.
    pub hrtimer: u64,
    /// The expiry it was armed for (the timer's clock), when its
    /// `hrtimer_start` was read.
    pub expires: Option<i64>,
    /// When it fired: `hrtimer_expire_entry`'s `now` (the timer's clock),
    /// else the event's time.
    pub fired: i64,
    /// When it was armed, and by which thread, when read.
    pub armed_at: Option<i64>,
    pub armed_by: Option<i64>,
    pub cpu: Option<u32>,
}

impl TimerFire {
    /// How long after its expiry it fired (0 when on time or unknown).
    pub fn lateness(&self) -> i64 {
        self.expires.map_or(0, |x| (self.fired - x).max(0))
    }

    /// It was armed only after the time it was meant to expire at: the
    /// lateness was the arming thread's.
    pub fn armed_late(&self) -> bool {
        matches!((self.armed_at, self.expires), (Some(a), Some(x)) if a > x)
    }
}

/// A thread created by another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fork {
    pub ts: i64,
    pub parent: i64,
    pub child: i64,
}

/// One thread's time line in the range.
#[derive(Debug, Clone, Default)]
pub struct Line {
    /// Its last known name.
    pub comm: String,
    /// Contiguous, in time order.
    pub segments: Vec<Segment>,
    /// Wake-ups of this thread, in time order.
    pub wakeups: Vec<Wakeup>,
}

impl Line {
    /// The segment holding the instant just before `t` (start < t <= end).
    pub fn segment_before(&self, t: i64) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.start < t);
        let s = self.segments.get(i.checked_sub(1)?)?;
        (s.end >= t).then_some(s)
    }

    /// The last segment that ends at or before `t`: where a walk resumes
    /// when nothing is known at `t`.
    pub fn last_ending_by(&self, t: i64) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.end <= t);
        self.segments.get(i.checked_sub(1)?)
    }

    /// The wake-up that ended a blocked segment: the last one in it.
    pub fn wakeup_in(&self, start: i64, end: i64) -> Option<&Wakeup> {
        let i = self.wakeups.partition_point(|w| w.ts <= end);
        let w = self.wakeups.get(i.checked_sub(1)?)?;
        (w.ts >= start).then_some(w)
    }
}

/// The graph of [start, end].
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub start: i64,
    pub end: i64,
    pub lines: HashMap<i64, Line>,
    /// Creations inside the range, in time order.
    pub forks: Vec<Fork>,
    /// Every creation read (the replay's too), by child.
    pub creations: HashMap<i64, Fork>,
    /// Policies set by `sched_setscheduler` in what was read (inherited
    /// at creation).
    pub policies: HashMap<i64, Policy>,
    /// An RTOS or a simulator (a BTF file): tasks on cores, with their
    /// own priorities, and no Linux (no policies, no hypervisor).
    pub rtos: bool,
    /// Events of the range that the tracer put in a thread's context
    /// (ftrace's task column, perf's `perf_tid`), as read: what the
    /// diagnosis's audit checks "no thread ran" against.
    pub evidence: Vec<Attested>,
    /// Windows of the range where the tracer lost events (`Loss`): what
    /// the trace shows there may not be all that happened.
    pub losses: Vec<Loss>,
}

/// An event in `tid`'s context on `cpu` at `ts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attested {
    pub ts: i64,
    pub cpu: u32,
    pub tid: i64,
}

impl Graph {
    pub fn line(&self, tid: i64) -> Option<&Line> {
        self.lines.get(&tid)
    }

    pub fn comm(&self, tid: i64) -> &str {
        self.lines.get(&tid).map_or("", |l| l.comm.as_str())
    }

    /// `tid`'s kernel priority `prio` as its user set it ("FIFO/RR 70").
    pub fn priority(&self, tid: i64, prio: Option<i32>) -> String {
        if self.rtos {
            return priority::describe_task(prio);
        }
        priority::describe(prio, self.policies.get(&tid).copied())
    }

    /// What woke a thread, in words: "rt_timer (812)", "interrupt 24".
    pub fn describe(&self, c: Context) -> String {
        match c {
            Context::Thread { tid } => format!("{} ({tid})", self.comm(tid)),
            Context::Irq { irq } => format!("interrupt {irq}"),
            Context::Softirq { vec } => format!("softirq {vec}"),
            Context::Timer => "a timer".into(),
            Context::Idle { .. } => "an interrupt not in the trace".into(),
        }
    }

    /// `tid`'s last known kernel priority in the range.
    pub fn last_prio(&self, tid: i64) -> Option<i32> {
        self.line(tid)
            .and_then(|l| l.segments.iter().rev().find_map(|s| s.prio))
    }

    /// Every wake-up of the range, in no particular order.
    pub fn wakeups(&self) -> impl Iterator<Item = &Wakeup> {
        self.lines.values().flat_map(|l| l.wakeups.iter())
    }

    /// Number of segments and edges: what the graph's memory grows with.
    pub fn size(&self) -> usize {
        self.lines
            .values()
            .map(|l| l.segments.len() + l.wakeups.len())
            .sum::<usize>()
            + self.forks.len()
    }
}

#[derive(Debug, Clone, Copy)]
struct Open {
    start: i64,
    state: ThreadState,
    cpu: Option<u32>,
    prio: Option<i32>,
    /// `sched_setscheduler` changed the priority at `start`; the trace
    /// reports the new value only at the thread's next scheduling event,
    /// which gives it to this segment.
    reprioritised: bool,
    inferred: bool,
}

/// Records the graph of [start, end] in the pass (after a seek to some time
/// before `start`, so the model knows each thread's state at `start`).
pub struct GraphBuilder {
    graph: Graph,
    open: HashMap<i64, Open>,
    /// Interrupt contexts open on each CPU, innermost last, with when
    /// each opened.
    contexts: Vec<Vec<(Context, i64)>>,
    /// Threads announced by a `sched_waking` whose `sched_wakeup` is to come.
    announced: HashSet<i64>,
    /// Armed hrtimers: (expiry, when, by whom).
    armed: HashMap<u64, (Option<i64>, i64, Option<i64>)>,
    /// The timer firing on each CPU, while its callback runs.
    firing: Vec<Option<TimerFire>>,
    /// `sched_setscheduler` calls under way, by caller: (target, policy).
    setting: HashMap<i64, (i64, Policy)>,
    opened: bool,
    finished: bool,
}

const CONTEXT_EVENTS: [&str; 6] = [
    names::IRQ_HANDLER_ENTRY,
    names::IRQ_HANDLER_EXIT,
    names::SOFTIRQ_ENTRY,
    names::SOFTIRQ_EXIT,
    names::HRTIMER_EXPIRE_ENTRY,
    names::HRTIMER_EXPIRE_EXIT,
];

/// Other events the graph reads: timers being armed, policies, creations
/// seen from the parent's side.
const FACT_EVENTS: [&str; 6] = [
    "hrtimer_start",
    "hrtimer_cancel",
    "syscall_entry_sched_setscheduler",
    "syscall_exit_sched_setscheduler",
    "syscall_exit_clone",
    "syscall_exit_clone3",
];

impl GraphBuilder {
    pub fn new(start: i64, end: i64) -> GraphBuilder {
        GraphBuilder {
            graph: Graph {
                start,
                end: end.max(start),
                ..Graph::default()
            },
            open: HashMap::default(),
            contexts: Vec::new(),
            announced: HashSet::default(),
            armed: HashMap::default(),
            firing: Vec::new(),
            setting: HashMap::default(),
            opened: false,
            finished: false,
        }
    }

    pub fn into_graph(self) -> Graph {
        self.graph
    }

    /// At the range's start: every thread the model knows begins a segment in
    /// its current state.
    fn open_range(&mut self, model: &KernelModel) {
        self.opened = true;
        let start = self.graph.start;
        for t in model.threads() {
            let line = self.graph.lines.entry(t.tid).or_default();
            line.comm.clone_from(&t.comm);
            self.open.insert(
                t.tid,
                Open {
                    start,
                    state: t.state,
                    cpu: t.cpu,
                    prio: t.prio_at(start),
                    reprioritised: false,
                    inferred: false,
                },
            );
        }
    }

    /// `tid`'s priority changed at `at` to a value the trace tells later:
    /// its segment is cut there, and what follows waits for that value.
    fn reprioritised(&mut self, tid: i64, at: i64) {
        self.cut(tid, at, None);
    }

    /// `tid`'s segment is cut at `at`; what follows has priority `prio`, or
    /// waits for the trace to tell it (`None`).
    fn cut(&mut self, tid: i64, at: i64, prio: Option<i32>) {
        if !self.opened || self.finished {
            return;
        }
        let Some(&o) = self.open.get(&tid) else {
            return;
        };
        self.close(tid, at);
        self.open.insert(
            tid,
            Open {
                start: at,
                prio,
                reprioritised: prio.is_none(),
                ..o
            },
        );
    }

    fn close(&mut self, tid: i64, at: i64) {
        if let Some(o) = self.open.remove(&tid) {
            if at > o.start {
                self.graph
                    .lines
                    .entry(tid)
                    .or_default()
                    .segments
                    .push(Segment {
                        start: o.start,
                        end: at,
                        state: o.state,
                        cpu: o.cpu,
                        prio: o.prio,
                        inferred: o.inferred,
                    });
            }
        }
    }

    fn context_stack(&mut self, cpu: u32) -> &mut Vec<(Context, i64)> {
        let i = crate::event::cpu_slot(cpu);
        if self.contexts.len() <= i {
            self.contexts.resize(i + 1, Vec::new());
        }
        &mut self.contexts[i]
    }

    /// Interrupt entries and exits; an exit closes the innermost context of
    /// its kind (and those opened inside it whose exits were lost).
    fn track_context(&mut self, ev: &KEvent<'_>) {
        let Some(cpu) = ev.cpu else { return };
        let entered = match ev.name {
            names::IRQ_HANDLER_ENTRY => Some(Context::Irq {
                irq: ev.payload.int("irq").unwrap_or(-1),
            }),
            names::SOFTIRQ_ENTRY => Some(Context::Softirq {
                vec: ev.payload.int("vec").unwrap_or(-1),
            }),
            names::HRTIMER_EXPIRE_ENTRY => Some(Context::Timer),
            _ => None,
        };
        match ev.name {
            "hrtimer_expire_entry" => {
                let fire = ev.payload.uint("hrtimer").map(|hrtimer| {
                    let armed = self.armed.remove(&hrtimer);
                    TimerFire {
                        hrtimer,
                        expires: armed.and_then(|a| a.0),
                        fired: ev.payload.int("now").unwrap_or(ev.ts),
                        armed_at: armed.map(|a| a.1),
                        armed_by: armed.and_then(|a| a.2),
                        cpu: Some(cpu),
                    }
                });
                *self.firing_on(cpu) = fire;
            }
            "hrtimer_expire_exit" => *self.firing_on(cpu) = None,
            _ => {}
        }
        let stack = self.context_stack(cpu);
        if let Some(c) = entered {
            stack.push((c, ev.ts));
            return;
        }
        let same_kind = |c: &Context| match ev.name {
            names::IRQ_HANDLER_EXIT => matches!(c, Context::Irq { .. }),
            names::SOFTIRQ_EXIT => matches!(c, Context::Softirq { .. }),
            _ => matches!(c, Context::Timer),
        };
        if let Some(i) = stack.iter().rposition(|(c, _)| same_kind(c)) {
            stack.truncate(i);
        }
    }

    fn firing_on(&mut self, cpu: u32) -> &mut Option<TimerFire> {
        let i = crate::event::cpu_slot(cpu);
        if self.firing.len() <= i {
            self.firing.resize(i + 1, None);
        }
        &mut self.firing[i]
    }

    /// Timers armed and policies set: facts the range's causes need, read
    /// from the replay on.
    fn track_facts(&mut self, ev: &KEvent<'_>, thread: Option<i64>) {
        let p = &ev.payload;
        match ev.name {
            "hrtimer_start" => {
                if let Some(t) = p.uint("hrtimer") {
                    self.armed.insert(t, (p.int("expires"), ev.ts, thread));
                }
            }
            "hrtimer_cancel" => {
                if let Some(t) = p.uint("hrtimer") {
                    self.armed.remove(&t);
                }
            }
            "syscall_entry_sched_setscheduler" => {
                let policy = p.int("policy").and_then(Policy::from_syscall);
                if let (Some(caller), Some(policy)) = (thread, policy) {
                    let target = p.int("pid").filter(|t| *t > 0).unwrap_or(caller);
                    self.setting.insert(caller, (target, policy));
                }
            }
            "syscall_exit_sched_setscheduler" => {
                let done = thread.and_then(|t| self.setting.remove(&t));
                if let (Some((target, policy)), Some(0)) = (done, p.int("ret")) {
                    self.graph.policies.insert(target, policy);
                    self.reprioritised(target, ev.ts);
                }
            }
            _ => {
                // A clone returning a tid in the parent.
                let child = p.int("ret").filter(|r| *r > 0);
                if let (Some(parent), Some(child)) = (thread, child) {
                    self.created(ev.ts, parent, child, false);
                }
            }
        }
    }

    /// `parent` created `child` at `ts`. A fork event is the authority (a
    /// later one is the tid reused); a wake-up or a clone's return only
    /// stands in for a fork not recorded.
    fn created(&mut self, ts: i64, parent: i64, child: i64, fork_event: bool) {
        if parent <= 0 || child <= 0 || parent == child {
            return;
        }
        if let Some(f) = self.graph.creations.get(&child) {
            if !(fork_event && ts > f.ts) {
                return;
            }
        }
        let fork = Fork { ts, parent, child };
        self.graph.creations.insert(child, fork);
        if let Some(&policy) = self.graph.policies.get(&parent) {
            self.graph.policies.entry(child).or_insert(policy);
        }
        if ts >= self.graph.start && ts <= self.graph.end {
            self.graph.forks.push(fork);
        }
    }

    /// The waker of a wake-up event, and when its interrupt context
    /// opened (none for a thread).
    fn waker(&self, ev: &KEvent<'_>, thread: Option<i64>) -> (Context, Option<i64>) {
        let inner = ev
            .cpu
            .and_then(|c| self.contexts.get(crate::event::cpu_slot(c)))
            .and_then(|s| s.last());
        match (inner, thread) {
            (Some(&(c, since)), _) => (c, Some(since)),
            (None, Some(tid)) if tid > 0 => (Context::Thread { tid }, None),
            _ => (Context::Idle { cpu: ev.cpu }, None),
        }
    }

    fn record_edges(&mut self, ev: &KEvent<'_>, thread: Option<i64>) {
        match ev.kind {
            Kind::SchedWaking | Kind::SchedWakeup | Kind::SchedWakeupNew => {
                let Some(wakee) = ev.payload.int("tid") else {
                    return;
                };
                let announced = match ev.kind {
                    Kind::SchedWaking => {
                        self.announced.insert(wakee);
                        false
                    }
                    _ => self.announced.remove(&wakee),
                };
                if announced {
                    return;
                }
                let (waker, since) = self.waker(ev, thread);
                if ev.kind == Kind::SchedWakeupNew {
                    if let Context::Thread { tid } = waker {
                        self.created(ev.ts, tid, wakee, false);
                    }
                }
                if ev.ts < self.graph.start {
                    return;
                }
                let timer = match waker {
                    Context::Timer => ev.cpu.and_then(|c| {
                        self.firing
                            .get(crate::event::cpu_slot(c))
                            .copied()
                            .flatten()
                    }),
                    _ => None,
                };
                let w = Wakeup {
                    ts: ev.ts,
                    wakee,
                    waker,
                    cpu: ev.cpu,
                    since,
                    timer,
                };
                self.graph.lines.entry(wakee).or_default().wakeups.push(w);
            }
            Kind::SchedProcessFork => {
                if let (Some(parent), Some(child)) =
                    (ev.payload.int("parent_tid"), ev.payload.int("child_tid"))
                {
                    self.created(ev.ts, parent, child, true);
                }
            }
            _ => {}
        }
    }
}

/// The CPU a wake-up event sends its thread to.
fn target_cpu(ev: &KEvent<'_>) -> Option<u32> {
    matches!(
        ev.kind,
        Kind::SchedWaking | Kind::SchedWakeup | Kind::SchedWakeupNew
    )
    .then(|| ev.payload.int("target_cpu"))
    .flatten()
    .and_then(|c| u32::try_from(c).ok())
}

impl Analysis for GraphBuilder {
    fn wants(&self, canonical: &str) -> bool {
        CONTEXT_EVENTS.contains(&canonical) || FACT_EVENTS.contains(&canonical)
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel) {
        self.graph.rtos |= ev.tracer == Tracer::Btf;
        if CONTEXT_EVENTS.contains(&ev.name) {
            self.track_context(ev);
        } else if FACT_EVENTS.contains(&ev.name) {
            self.track_facts(ev, thread);
        } else if ev.kind == Kind::SchedSwitch {
            // No thread switches inside an interrupt: contexts still open
            // lost their exit.
            if let Some(cpu) = ev.cpu {
                self.context_stack(cpu).clear();
                *self.firing_on(cpu) = None;
            }
        }
        if self.finished {
            return;
        }
        if ev.ts < self.graph.start {
            // The replay: only creations matter before the range.
            self.record_edges(ev, thread);
            return;
        }
        if ev.ts > self.graph.end {
            self.finish(model, self.graph.end);
            return;
        }
        if !self.opened {
            self.open_range(model);
            // The event's own transitions happened at or after the start.
        }
        // A switch's framing names the thread leaving; the others, the
        // thread whose context the event is in.
        if let (Some(tid), Some(cpu), false) = (ev.thread, ev.cpu, ev.kind == Kind::SchedSwitch) {
            if ev.tracer != Tracer::Btf {
                self.graph.evidence.push(Attested {
                    ts: ev.ts,
                    cpu,
                    tid,
                });
            }
        }
        for tr in model.transitions() {
            let t = model.thread(tr.tid);
            // A change dated back (inferred) is kept inside the range.
            let at = tr.ts.max(self.graph.start);
            if let Some(o) = self.open.get_mut(&tr.tid) {
                // A thread waiting for a CPU is given it at the priority the
                // switch-in reports, and nothing recorded changed it while
                // it waited (a recorded change cuts the segment): that is
                // its priority for the whole wait. The value at the
                // wake-up may be stale — a creator's, before glibc lowered
                // it unseen — and would make an order the scheduler
                // forbids.
                let given_cpu = tr.to == ThreadState::Running
                    && matches!(o.state, ThreadState::WaitingCpu | ThreadState::Preempted);
                if o.reprioritised || given_cpu {
                    o.prio = t.and_then(|t| t.prio_at(tr.ts)).or(o.prio);
                }
            }
            self.close(tr.tid, at);
            if let Some(t) = t {
                let line = self.graph.lines.entry(tr.tid).or_default();
                if line.comm != t.comm {
                    line.comm.clone_from(&t.comm);
                }
            }
            self.open.insert(
                tr.tid,
                Open {
                    start: at,
                    state: tr.to,
                    cpu: match tr.to {
                        ThreadState::Running => tr.cpu,
                        // Woken: where it was sent to wait.
                        ThreadState::WaitingCpu => target_cpu(ev).or(t.and_then(|t| t.cpu)),
                        _ => t.and_then(|t| t.cpu),
                    },
                    prio: t.and_then(|t| t.prio_at(tr.ts)),
                    reprioritised: false,
                    inferred: tr.inferred,
                },
            );
        }
        if ev.kind == Kind::SchedPiSetprio {
            // A priority inherited or given back: known now, from now.
            if let Some(tid) = ev.payload.int("tid") {
                let prio = model.thread(tid).and_then(|t| t.prio());
                if prio.is_some() {
                    self.cut(tid, ev.ts, prio);
                }
            }
        }
        for t in model.freed() {
            self.close(t.tid, ev.ts);
        }
        self.record_edges(ev, thread);
    }

    fn on_loss(&mut self, loss: &Loss) {
        if loss.from <= self.graph.end && loss.to >= self.graph.start {
            self.graph.losses.push(*loss);
        }
    }

    fn finish(&mut self, model: &KernelModel, _end: i64) {
        if self.finished {
            return;
        }
        if !self.opened {
            self.open_range(model);
        }
        self.finished = true;
        let end = self.graph.end;
        let tids: Vec<i64> = self.open.keys().copied().collect();
        for tid in tids {
            self.close(tid, end);
        }
        for (tid, line) in self.graph.lines.iter_mut() {
            line.segments.sort_by_key(|s| s.start);
            // Threads rename themselves (a new thread first has its
            // creator's name): the name at the end is the one people know.
            if let Some(t) = model.thread(*tid).filter(|t| !t.comm.is_empty()) {
                line.comm.clone_from(&t.comm);
            }
        }
    }

    fn done(&self) -> bool {
        self.finished
    }
}
