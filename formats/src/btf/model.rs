//! The BTF model: the state machines of every process, runnable and
//! semaphore, and what each core runs, fed one row at a time. For each row
//! it says which thread the row belongs to, on which core, in which state it
//! leaves its target, and which canonical scheduling events (`sched_switch`,
//! `sched_wakeup`) the row amounts to, so that the kernel model, and every
//! analysis over it, reads a BTF trace as it reads a kernel trace:
//!
//! | process instance state | thread state |
//! |---|---|
//! | running, polling (active waiting holds the core) | running |
//! | ready after `preempt` | preempted |
//! | active, ready after `release` / `release_parking` | waiting for a CPU |
//! | waiting, parking, terminated, not initialized | blocked |
//!
//! A process (task or ISR) is one thread; when several of its instances
//! live at once (activated again before terminating), the thread is in the
//! most active of their states. Memory holds the live entities, never rows.

use rustc_hash::FxHashMap as HashMap;

use super::classes::{Class, ClassKind};
use super::intern::Names;
use super::names::{self, core_number, process_name, thread_id};
use super::process::{self, ProcessAction, ProcessState};
use super::reader::Row;
use super::runnable::{self, RunnableState};
use super::semaphore::Semaphore;

/// A canonical scheduling event the row amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derived {
    /// `prev` (0: none) leaves `cpu`, still runnable or not; `next` (0:
    /// none) runs there.
    Switch {
        cpu: u32,
        prev: i64,
        prev_runnable: bool,
        next: i64,
    },
    /// `tid` becomes ready to run; `cpu` is where its waker runs, if known;
    /// `new` for a process created (or first seen) here.
    Wakeup {
        tid: i64,
        cpu: Option<u32>,
        new: bool,
    },
}

/// What the model says of one row.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outcome {
    /// Scheduling events before the row (a thread gets a core, wakes up).
    pub before: [Option<Derived>; 2],
    /// After the row (a thread leaves its core).
    pub after: Option<Derived>,
    /// The row's thread: its target process, or the process that acts.
    pub tid: Option<i64>,
    /// The core the row happened on, when known.
    pub core: Option<u32>,
    /// The CPU to report: the core of the row's thread when it runs there
    /// as the row is read (what the kernel model will agree with).
    pub cpu: Option<u32>,
    /// The target's state after the row (process, runnable, semaphore).
    pub state: &'static str,
}

/// The thread's state as the kernel model knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KState {
    Unknown,
    Running(u32),
    Preempted,
    WaitingCpu,
    Blocked,
}

#[derive(Debug, Clone, Copy)]
struct Instance {
    number: i64,
    state: ProcessState,
    core: Option<u32>,
    /// Ready because released (waiting for a CPU), not preempted.
    released: bool,
}

#[derive(Debug)]
struct Process {
    comm: Box<[u8]>,
    /// Kernel order (smaller is more urgent).
    prio: Option<i32>,
    /// Live instances (terminated ones are dropped).
    instances: Vec<Instance>,
    kernel: KState,
}

impl Process {
    fn kernel_state(&self) -> KState {
        let mut best = KState::Blocked;
        for i in &self.instances {
            let k = match i.state {
                s if s.on_core() => match i.core {
                    Some(c) => return KState::Running(c),
                    None => KState::Unknown,
                },
                ProcessState::Ready if !i.released => KState::Preempted,
                ProcessState::Ready | ProcessState::Active => KState::WaitingCpu,
                ProcessState::Unknown => KState::Unknown,
                _ => KState::Blocked,
            };
            let rank = |k: KState| match k {
                KState::Preempted => 3,
                KState::WaitingCpu => 2,
                KState::Unknown => 1,
                _ => 0,
            };
            if rank(k) > rank(best) {
                best = k;
            }
        }
        best
    }
}

/// A name as seen in the trace, interpreted once.
#[derive(Debug, Clone, Copy)]
struct Entity {
    /// The thread id if this names a process.
    tid: Option<i64>,
    /// The core spelt in a FreeRTOS prefix.
    prefix_core: Option<u32>,
    /// The core number if this names a core.
    core: Option<u32>,
}

/// Disagreements with the state machines, counted, with the first.
#[derive(Debug, Default)]
struct Disagreements {
    count: u64,
    /// (byte offset of the row, what happened).
    first: Option<(usize, String)>,
}

/// The numbers of a row's source and target names.
#[derive(Debug, Clone, Copy)]
struct Ids {
    source: u32,
    target: u32,
}

#[derive(Debug, Default)]
pub struct BtfModel {
    /// Every source and target name, numbered: the maps below are keyed by
    /// these numbers, so a row's names are hashed and compared once.
    names: Names,
    /// By name number: the name's interpretation, once asked for.
    entities: Vec<Option<Entity>>,
    processes: HashMap<i64, Process>,
    /// Per core: the thread it runs.
    cores: Vec<Option<i64>>,
    /// Cores whose name ends with no number, numbered from 1000 on.
    unnumbered_cores: u32,
    /// Per stimulus: its last triggered instance and the process that
    /// triggered it (the waker of what it activates).
    stimuli: HashMap<u32, (i64, Option<i64>)>,
    /// Per runnable: its live instances' states.
    runnables: HashMap<u32, Vec<(i64, RunnableState)>>,
    semaphores: HashMap<u32, Semaphore>,
    disagreements: Disagreements,
    rows_without_core: u64,
}

impl BtfModel {
    /// The name of a thread (the process name without a logger's prefix).
    pub fn comm(&self, tid: i64) -> &[u8] {
        self.processes.get(&tid).map_or(&[][..], |p| &p.comm)
    }

    /// A thread's priority in kernel order, when a note said it.
    pub fn prio(&self, tid: i64) -> Option<i32> {
        self.processes.get(&tid).and_then(|p| p.prio)
    }

    /// Forgets every state (after a seek); names and priorities stay.
    pub fn reset(&mut self) {
        for p in self.processes.values_mut() {
            p.instances.clear();
            p.kernel = KState::Unknown;
        }
        self.cores.clear();
        self.stimuli.clear();
        self.runnables.clear();
        self.semaphores.clear();
    }

    /// Rows that did not follow the state machines (the first by its byte
    /// offset), and process rows whose core could not be told.
    pub fn disagreements(&self) -> (u64, Option<&(usize, String)>, u64) {
        (
            self.disagreements.count,
            self.disagreements.first.as_ref(),
            self.rows_without_core,
        )
    }

    pub fn apply(&mut self, row: &Row<'_>, class: &Class) -> Outcome {
        let ids = Ids {
            source: self.names.id(row.source()),
            target: self.names.id(row.target()),
        };
        if self.entities.len() < self.names.count() {
            self.entities.resize(self.names.count(), None);
        }
        match class.kind {
            ClassKind::Process(action) => self.process_row(row, ids, action),
            ClassKind::Runnable(action) => {
                let mut out = self.acting(row, ids, true);
                let live = self.runnables.entry(ids.target).or_default();
                let number = row.target_instance();
                let k = live.iter().position(|r| r.0 == number).unwrap_or_else(|| {
                    live.push((number, RunnableState::Unknown));
                    live.len() - 1
                });
                let from = live[k].1;
                let (to, unexpected) = match runnable::step(from, action) {
                    Ok(to) => (to, false),
                    Err(to) => (to, true),
                };
                if to == RunnableState::Terminated {
                    live.swap_remove(k);
                } else {
                    live[k].1 = to;
                }
                if unexpected {
                    self.disagree(
                        row,
                        format!(
                            "runnable in state {} cannot {}",
                            from.as_str(),
                            show(row.action())
                        ),
                    );
                }
                out.state = to.as_str();
                out
            }
            ClassKind::Semaphore(action) => {
                let own = ids.source == ids.target;
                let mut out = self.acting(row, ids, !own);
                let sem = self.semaphores.entry(ids.target).or_default();
                let result = sem.apply(action, if own { None } else { out.tid }, row.note());
                out.state = sem.state.as_str();
                if let Err(u) = result {
                    self.disagree(
                        row,
                        format!(
                            "semaphore in state {} cannot {}",
                            u.from.as_str(),
                            show(row.action())
                        ),
                    );
                }
                out
            }
            ClassKind::Event(_) => self.acting(row, ids, true),
            ClassKind::Trigger => {
                let out = self.acting(row, ids, false);
                self.stimuli
                    .insert(ids.target, (row.target_instance(), out.tid));
                out
            }
            ClassKind::Core => {
                let mut out = self.acting(row, ids, false);
                let core = self.core_of(ids.target, row.target());
                out.core = core;
                if out.tid.is_none() {
                    out.cpu = core;
                }
                out
            }
            ClassKind::Signal(_) | ClassKind::Other => self.acting(row, ids, false),
        }
    }

    /// A row whose source acts: the source's thread when it is a process
    /// (`known`: only if seen as one), on the core it runs on.
    fn acting(&mut self, row: &Row<'_>, ids: Ids, must_be_process: bool) -> Outcome {
        let (e, _) = self.entity(ids.source, row.source());
        let mut tid = None;
        let mut running_on = None;
        if let Some(t) = e.tid {
            let p = match self.processes.get(&t) {
                Some(p) => Some(p),
                None if must_be_process => Some(
                    &*self
                        .processes
                        .entry(t)
                        .or_insert_with(|| new_process(row.source())),
                ),
                None => None,
            };
            if let Some(p) = p {
                tid = Some(t);
                if let KState::Running(c) = p.kernel {
                    running_on = Some(c);
                }
            }
        }
        let named_core = if tid.is_none() { e.core } else { None };
        Outcome {
            tid,
            core: running_on.or(named_core).or(e.prefix_core),
            cpu: running_on.or(named_core),
            ..Outcome::default()
        }
    }

    fn process_row(&mut self, row: &Row<'_>, ids: Ids, action: ProcessAction) -> Outcome {
        let action = if action == ProcessAction::Preempt && names::is_creation(row.note()) {
            ProcessAction::Activate
        } else {
            action
        };
        let (target, new_name) = self.entity(ids.target, row.target());
        let Some(tid) = target.tid else {
            return Outcome::default();
        };
        if new_name {
            let name = process_name(row.target()).name;
            if let Some(other) = self.processes.get(&tid).filter(|p| *p.comm != *name) {
                let message = format!(
                    "{} and {} have the same thread id {tid}: their rows are one thread's",
                    show(&other.comm),
                    show(name)
                );
                self.disagree(row, message);
            }
        }
        let core = match target.prefix_core {
            Some(c) => Some(c),
            None if action != ProcessAction::Activate && action != ProcessAction::Notification => {
                self.core_of(ids.source, row.source())
            }
            None => None,
        };
        let first_sight = !self.processes.contains_key(&tid);
        let number = row.target_instance();
        let p = self
            .processes
            .entry(tid)
            .or_insert_with(|| new_process(row.target()));
        if !row.note().is_empty() {
            if let Some(pr) = names::note_priority(row.note()) {
                p.prio = Some(names::kernel_order(pr));
            }
        }
        let k = match p.instances.iter().position(|i| i.number == number) {
            Some(k) => k,
            None => {
                p.instances.push(Instance {
                    number,
                    state: ProcessState::Unknown,
                    core: None,
                    released: false,
                });
                p.instances.len() - 1
            }
        };
        if p.instances[k].state == ProcessState::Unknown {
            // What the action says the instance was doing.
            let inst = &mut p.instances[k];
            inst.state = implied(action);
            if inst.state.on_core() {
                inst.core = core;
            }
        }
        let old = p.kernel_state();
        let from = p.instances[k].state;
        let (to, unexpected) = match process::step(from, action) {
            Ok(to) => (to, false),
            Err((to, _)) => (to, true),
        };
        let inst = &mut p.instances[k];
        inst.state = to;
        if to.on_core() {
            inst.core = core.or(inst.core);
        }
        if to == ProcessState::Ready {
            inst.released = matches!(
                action,
                ProcessAction::Release | ProcessAction::ReleaseParking
            );
        }
        if to == ProcessState::Terminated {
            p.instances.swap_remove(k);
        }
        let new = p.kernel_state();
        p.kernel = new;
        if unexpected {
            let message = format!(
                "{} instance {number} in state {from} cannot {}",
                show(row.target()),
                show(row.action())
            );
            self.disagree(row, message);
        }
        if to.on_core() && core.is_none() {
            self.rows_without_core += 1;
        }
        let mut out = Outcome {
            tid: Some(tid),
            core,
            state: to.as_str(),
            ..Outcome::default()
        };
        out.cpu = match (old, new) {
            (_, KState::Running(c)) | (KState::Running(c), _) => Some(c),
            _ => None,
        };
        let created = first_sight || names::is_creation(row.note());
        self.derive(row, ids, tid, old, new, created, &mut out);
        out
    }

    /// The scheduling events of a thread going from `old` to `new`.
    #[allow(clippy::too_many_arguments)]
    fn derive(
        &mut self,
        row: &Row<'_>,
        ids: Ids,
        tid: i64,
        old: KState,
        new: KState,
        new_thread: bool,
        out: &mut Outcome,
    ) {
        match (old, new) {
            (KState::Running(a), KState::Running(b)) if a == b => {}
            (old, KState::Running(b)) => {
                if let KState::Running(a) = old {
                    out.before[0] = Some(self.switch_out(tid, a, true));
                }
                let prev = match self.current(b) {
                    Some(p) if p != tid => {
                        self.disagree(
                            row,
                            format!(
                                "core {b} runs {} while {} still runs there",
                                show(self.comm(tid)),
                                show(self.comm(p))
                            ),
                        );
                        p
                    }
                    _ => 0,
                };
                self.set_current(b, Some(tid));
                out.before[1] = Some(Derived::Switch {
                    cpu: b,
                    prev,
                    prev_runnable: true,
                    next: tid,
                });
            }
            (KState::Running(a), new) => {
                let runnable = matches!(new, KState::Preempted | KState::WaitingCpu);
                out.after = Some(self.switch_out(tid, a, runnable));
            }
            (KState::Blocked | KState::Unknown, KState::WaitingCpu) => {
                out.before[0] = Some(Derived::Wakeup {
                    tid,
                    cpu: self.waker_core(row, ids),
                    new: new_thread,
                });
            }
            _ => {}
        }
    }

    fn switch_out(&mut self, tid: i64, cpu: u32, runnable: bool) -> Derived {
        if self.current(cpu) == Some(tid) {
            self.set_current(cpu, None);
        }
        Derived::Switch {
            cpu,
            prev: tid,
            prev_runnable: runnable,
            next: 0,
        }
    }

    /// Where the waker of a wake-up runs: for an activation, the process
    /// that triggered the stimulus; for a release, the row's core.
    fn waker_core(&mut self, row: &Row<'_>, ids: Ids) -> Option<u32> {
        let by = self
            .stimuli
            .get(&ids.source)
            .filter(|(instance, _)| *instance == row.source_instance())
            .and_then(|(_, tid)| *tid);
        match by {
            Some(t) => match self.processes.get(&t).map(|p| p.kernel) {
                Some(KState::Running(c)) => Some(c),
                _ => None,
            },
            None if self.is_core_name(ids.source) => self.core_of(ids.source, row.source()),
            None => None,
        }
    }

    fn current(&self, cpu: u32) -> Option<i64> {
        self.cores
            .get(crate::event::cpu_slot(cpu))
            .copied()
            .flatten()
    }

    fn set_current(&mut self, cpu: u32, tid: Option<i64>) {
        let i = crate::event::cpu_slot(cpu);
        if self.cores.len() <= i {
            self.cores.resize(i + 1, None);
        }
        self.cores[i] = tid;
    }

    /// The interpretation of name number `id` (`raw`), and whether it is
    /// asked for the first time.
    fn entity(&mut self, id: u32, raw: &[u8]) -> (Entity, bool) {
        let slot = &mut self.entities[id as usize];
        if let Some(e) = slot {
            return (*e, false);
        }
        let p = process_name(raw);
        let e = Entity {
            tid: thread_id(&p),
            prefix_core: p.core,
            core: None,
        };
        *slot = Some(e);
        (e, true)
    }

    /// The core name number `id` (`raw`) names (the source of a core's
    /// action, or a `C` target), numbered on first sight.
    fn core_of(&mut self, id: u32, raw: &[u8]) -> Option<u32> {
        if let Some(c) = self.entities[id as usize].and_then(|e| e.core) {
            return Some(c);
        }
        let number = core_number(raw).unwrap_or_else(|| {
            self.unnumbered_cores += 1;
            999 + self.unnumbered_cores
        });
        self.entity(id, raw);
        if let Some(e) = &mut self.entities[id as usize] {
            e.core = Some(number);
        }
        Some(number)
    }

    fn is_core_name(&self, id: u32) -> bool {
        self.entities[id as usize].is_some_and(|e| e.core.is_some())
    }

    fn disagree(&mut self, row: &Row<'_>, message: String) {
        self.disagreements.count += 1;
        if self.disagreements.first.is_none() {
            self.disagreements.first = Some((row.offset, message));
        }
    }
}

fn new_process(raw: &[u8]) -> Process {
    Process {
        comm: process_name(raw).name.into(),
        prio: None,
        instances: Vec::new(),
        kernel: KState::Unknown,
    }
}

/// The state an action starts from, for an instance first seen with it.
fn implied(action: ProcessAction) -> ProcessState {
    match action {
        ProcessAction::Activate => ProcessState::NotInitialized,
        ProcessAction::Start => ProcessState::Active,
        ProcessAction::Resume => ProcessState::Ready,
        ProcessAction::Release => ProcessState::Waiting,
        ProcessAction::Run | ProcessAction::Park => ProcessState::Polling,
        ProcessAction::ReleaseParking | ProcessAction::PollParking => ProcessState::Parking,
        ProcessAction::Notification => ProcessState::Unknown,
        ProcessAction::Preempt
        | ProcessAction::Terminate
        | ProcessAction::Poll
        | ProcessAction::Wait => ProcessState::Running,
    }
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
