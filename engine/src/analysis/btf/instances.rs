//! Task instances: each instance of a BTF process (task or ISR), from its
//! activation to its termination, as an execution, with the time it spent
//! in each process state and its runnables nested in it (a runnable started
//! while another of the same instance runs is nested in that one).
//!
//! Fed by the rows of the pass (their `tid`, `target_instance`, `state` and
//! `core` fields, which the BTF model fills in), so that instances of one
//! task that overlap (activated again before terminating) are measured
//! apart. The generic times of an execution are the process states mapped
//! as the model maps them onto thread states: running = running + polling,
//! preempted = ready after a preemption, waiting (for a CPU) = active +
//! ready after a release, blocked = waiting + parking.

use rustc_hash::FxHashMap as HashMap;

pub use crate::analysis::execution::InstanceTimes;
use crate::analysis::execution::{cpu_bit, Execution};
use crate::analysis::model::ThreadFilter;
use crate::kernel::model::{KEvent, KernelModel};

/// Accumulated state times of one instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Times {
    active: i64,
    preempted: i64,
    released: i64,
    running: i64,
    polling: i64,
    waiting: i64,
    parking: i64,
}

impl Times {
    fn since(self, e: Times) -> Times {
        Times {
            active: self.active - e.active,
            preempted: self.preempted - e.preempted,
            released: self.released - e.released,
            running: self.running - e.running,
            polling: self.polling - e.polling,
            waiting: self.waiting - e.waiting,
            parking: self.parking - e.parking,
        }
    }
}

/// Where the time of the current state goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bucket {
    Active,
    Preempted,
    Released,
    Running,
    Polling,
    Waiting,
    Parking,
    None,
}

impl Times {
    fn add(&mut self, b: Bucket, ns: i64) {
        let slot = match b {
            Bucket::Active => &mut self.active,
            Bucket::Preempted => &mut self.preempted,
            Bucket::Released => &mut self.released,
            Bucket::Running => &mut self.running,
            Bucket::Polling => &mut self.polling,
            Bucket::Waiting => &mut self.waiting,
            Bucket::Parking => &mut self.parking,
            Bucket::None => return,
        };
        *slot += ns;
    }
}

#[derive(Debug)]
struct OpenRunnable {
    name: String,
    instance: i64,
    start: i64,
    snapshot: Times,
    cpus: u64,
    nested: Vec<Execution>,
}

#[derive(Debug)]
struct Live {
    entity: String,
    start: i64,
    bucket: Bucket,
    since: i64,
    times: Times,
    cpus: u64,
    last_core: Option<u32>,
    migrations: u32,
    runnables: Vec<OpenRunnable>,
    nested: Vec<Execution>,
}

impl Live {
    /// Times up to `ts`, the current state included.
    fn times_at(&self, ts: i64) -> Times {
        let mut t = self.times;
        t.add(self.bucket, (ts - self.since).max(0));
        t
    }
}

/// The task instances found in the pass.
#[derive(Debug, Default)]
pub struct Instances {
    live: HashMap<(i64, i64), Live>,
    incomplete: u64,
}

impl Instances {
    pub fn wants(&self, canonical: &str) -> bool {
        ["T_", "I_", "R_"].iter().any(|p| canonical.starts_with(p))
    }

    /// Instances activated but never terminated (or activated again first).
    pub fn incomplete(&self) -> u64 {
        self.incomplete + self.live.len() as u64
    }

    /// One row of the pass; finished executions go to `done`.
    pub fn on_event(
        &mut self,
        ev: &KEvent<'_>,
        model: &KernelModel,
        filter: &ThreadFilter,
        done: &mut Vec<Execution>,
    ) {
        let p = &ev.payload;
        let (Some(tid), Some(state)) = (p.int("tid").filter(|t| *t > 0), p.str("state")) else {
            return;
        };
        if ev.name.starts_with("R_") {
            self.runnable(ev, tid, state, model);
            return;
        }
        let Some(number) = p.int("target_instance") else {
            return;
        };
        let action = ev.name.split_once('_').map_or("", |(_, a)| a);
        let key = (tid, number);
        let ts = ev.ts;
        if state == b"active" {
            let comm = model.thread(tid).map_or("", |t| t.comm.as_str());
            if self.live.remove(&key).is_some() {
                self.incomplete += 1;
            }
            if filter.matches(tid, comm) {
                let entity =
                    String::from_utf8_lossy(p.str("target").unwrap_or_default()).into_owned();
                self.live.insert(
                    key,
                    Live {
                        entity,
                        start: ts,
                        bucket: Bucket::Active,
                        since: ts,
                        times: Times::default(),
                        cpus: 0,
                        last_core: None,
                        migrations: 0,
                        runnables: Vec::new(),
                        nested: Vec::new(),
                    },
                );
            }
            return;
        }
        let Some(live) = self.live.get_mut(&key) else {
            return;
        };
        live.times.add(live.bucket, (ts - live.since).max(0));
        live.since = ts;
        live.bucket = match (state, action) {
            (b"running", _) => Bucket::Running,
            (b"polling", _) => Bucket::Polling,
            (b"ready", "release" | "release_parking") => Bucket::Released,
            (b"ready", _) => Bucket::Preempted,
            (b"waiting", _) => Bucket::Waiting,
            (b"parking", _) => Bucket::Parking,
            _ => Bucket::None,
        };
        if matches!(live.bucket, Bucket::Running | Bucket::Polling) {
            if let Some(core) = p.int("core").and_then(|c| u32::try_from(c).ok()) {
                if live.last_core.is_some_and(|l| l != core) {
                    live.migrations += 1;
                }
                live.last_core = Some(core);
                live.cpus |= cpu_bit(core);
                for r in &mut live.runnables {
                    r.cpus |= cpu_bit(core);
                }
            }
        }
        if state == b"terminated" {
            let live = self.live.remove(&key).expect("found above");
            done.push(finish(live, tid, number, ts, model));
        }
    }

    fn runnable(&mut self, ev: &KEvent<'_>, tid: i64, state: &[u8], model: &KernelModel) {
        let p = &ev.payload;
        let (Some(task_instance), Some(instance)) =
            (p.int("source_instance"), p.int("target_instance"))
        else {
            return;
        };
        let Some(live) = self.live.get_mut(&(tid, task_instance)) else {
            return;
        };
        let name = p.str("target").unwrap_or_default();
        let ts = ev.ts;
        match (ev.name, state) {
            ("R_start", b"running") => {
                let snapshot = live.times_at(ts);
                let cpus = live
                    .last_core
                    .filter(|_| live.bucket == Bucket::Running)
                    .map_or(0, cpu_bit);
                live.runnables.push(OpenRunnable {
                    name: String::from_utf8_lossy(name).into_owned(),
                    instance,
                    start: ts,
                    snapshot,
                    cpus,
                    nested: Vec::new(),
                });
            }
            (_, b"terminated") => {
                let Some(i) = live
                    .runnables
                    .iter()
                    .rposition(|r| r.instance == instance && r.name.as_bytes() == name)
                else {
                    return;
                };
                let r = live.runnables.remove(i);
                let times = live.times_at(ts).since(r.snapshot);
                let mut x = execution(tid, r.start, ts, times, r.cpus, model);
                x.nested = r.nested;
                x.btf = Some(instance_times(r.name, instance, times, 0));
                match live.runnables.get_mut(i.wrapping_sub(1)) {
                    Some(parent) => parent.nested.push(x),
                    None => live.nested.push(x),
                }
            }
            _ => {}
        }
    }
}

fn finish(live: Live, tid: i64, number: i64, ts: i64, model: &KernelModel) -> Execution {
    let times = live.times;
    let mut x = execution(tid, live.start, ts, times, live.cpus, model);
    x.nested = live.nested;
    x.btf = Some(instance_times(live.entity, number, times, live.migrations));
    x
}

fn instance_times(entity: String, instance: i64, t: Times, migrations: u32) -> InstanceTimes {
    InstanceTimes {
        entity,
        instance,
        active: t.active,
        ready: t.preempted + t.released,
        running: t.running,
        polling: t.polling,
        waiting: t.waiting,
        parking: t.parking,
        migrations,
    }
}

fn execution(
    tid: i64,
    start: i64,
    end: i64,
    t: Times,
    cpus: u64,
    model: &KernelModel,
) -> Execution {
    let thread = model.thread(tid);
    let comm = thread.map_or(String::new(), |t| t.comm.clone());
    Execution {
        index: 0,
        start,
        end,
        duration: end - start,
        running: t.running + t.polling,
        preempted: t.preempted,
        blocked: t.waiting + t.parking,
        waiting: t.active + t.released,
        start_tid: tid,
        end_tid: tid,
        start_comm: comm.clone(),
        end_comm: comm,
        tid,
        cpus: (0..64).filter(|c| cpus & (1 << c) != 0).collect(),
        prio: thread.and_then(|t| t.prio_at(end)),
        deadline_miss: None,
        nested: Vec::new(),
        btf: None,
    }
}
