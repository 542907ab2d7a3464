//! The pass side of task detection: per thread, its *activations* (from a
//! wake-up to the next time it blocks), each with what woke it. Jobs are
//! made of activations afterwards (`jobs.rs`), once the whole thread is
//! known, since whether a thread is timer-driven is only known at the end.
//! Memory grows with threads and activations, never with events.

use rustc_hash::FxHashMap as HashMap;

use crate::kernel::fields::{Val, K};
use crate::kernel::model::{KEvent, KernelModel, ThreadState};
use crate::kernel::pass::Analysis;
use crate::kernel::vocabulary::{names, Kind, Tracer};

/// What released an activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// A wake-up inside an hrtimer callback, or of a thread asleep in a
    /// sleep call: the timer expiry that real-time loops wait for.
    Timer,
    /// A BTF task or ISR activation (a stimulus).
    Activation,
    /// Any other wake-up (another thread, an interrupt, unknown).
    Wakeup,
}

/// How a thread was switched out when it blocked, as the tracer wrote it
/// (an integer, or ftrace's letters), so that an emitted model can name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockState {
    Int(i64),
    Letters([u8; 7], u8),
}

/// One activation of a thread: woken at `release`, blocked at `end`.
#[derive(Debug, Clone, Copy)]
pub struct Activation {
    pub release: i64,
    pub end: i64,
    /// The thread's total running time at `release` and at `end`.
    pub run_at_release: i64,
    pub run_at_end: i64,
    pub by: Release,
    /// It blocked inside a sleep call (clock_nanosleep, nanosleep).
    pub in_sleep: bool,
    pub state: Option<BlockState>,
}

/// One thread's life as the detection sees it.
#[derive(Debug, Clone)]
pub struct ThreadActivity {
    pub tid: i64,
    pub comm: String,
    /// Kernel-order priority at its last activation.
    pub prio: Option<i32>,
    /// Bit n: it ran on CPU n (CPUs 0..63).
    pub cpus: u64,
    pub btf: bool,
    /// The wake-up event's canonical name (`sched_waking` when the trace has it).
    pub wakeup_event: Option<&'static str>,
    /// The sleep call it blocked in (`clock_nanosleep`), when syscalls were traced.
    pub sleep_call: Option<&'static str>,
    /// `T` or `I` for a BTF task or ISR (the class prefix of its activation).
    pub btf_type: Option<char>,
    pub activations: Vec<Activation>,
}

struct Live {
    activity: ThreadActivity,
    open: Option<Activation>,
    /// Inside a sleep call (entry seen, exit not yet).
    sleeping: Option<&'static str>,
}

/// Collects every thread's activations in the pass.
#[derive(Default)]
pub struct TaskCollector {
    live: HashMap<i64, Live>,
    done: Vec<ThreadActivity>,
    /// Per CPU slot: inside an hrtimer callback.
    in_timer: Vec<bool>,
}

const SLEEP_CALLS: [&str; 2] = ["clock_nanosleep", "nanosleep"];

fn sleep_call(name: &str) -> Option<(&'static str, bool)> {
    for call in SLEEP_CALLS {
        if let Some(rest) = name.strip_prefix(names::SYSCALL_ENTRY) {
            if rest == call {
                return Some((call, true));
            }
        }
        if let Some(rest) = name.strip_prefix(names::SYSCALL_EXIT) {
            if rest == call {
                return Some((call, false));
            }
        }
    }
    None
}

/// A BTF activation row: `T_activate` (task) or `I_activate` (ISR).
fn btf_activation(name: &str) -> Option<char> {
    match name {
        "T_activate" => Some('T'),
        "I_activate" => Some('I'),
        _ => None,
    }
}

impl TaskCollector {
    /// Every thread seen, in TID order (a TID reused after its thread was
    /// freed appears twice).
    pub fn into_threads(mut self) -> Vec<ThreadActivity> {
        let live: Vec<Live> = self.live.drain().map(|(_, l)| l).collect();
        self.done.extend(live.into_iter().map(|l| l.activity));
        self.done.sort_by_key(|t| t.tid);
        self.done
    }

    fn live(&mut self, tid: i64) -> &mut Live {
        self.live.entry(tid).or_insert_with(|| Live {
            activity: ThreadActivity {
                tid,
                comm: String::new(),
                prio: None,
                cpus: 0,
                btf: false,
                wakeup_event: None,
                sleep_call: None,
                btf_type: None,
                activations: Vec::new(),
            },
            open: None,
            sleeping: None,
        })
    }

    fn timer_on(&self, cpu: Option<u32>) -> bool {
        cpu.is_some_and(|c| {
            self.in_timer
                .get(crate::event::cpu_slot(c))
                .copied()
                .unwrap_or(false)
        })
    }

    fn set_timer(&mut self, cpu: Option<u32>, on: bool) {
        let Some(c) = cpu else { return };
        let i = crate::event::cpu_slot(c);
        if self.in_timer.len() <= i {
            self.in_timer.resize(i + 1, false);
        }
        self.in_timer[i] = on;
    }

    fn block_state(ev: &KEvent<'_>) -> Option<BlockState> {
        if ev.kind != Kind::SchedSwitch {
            return None;
        }
        match ev.payload.at(K::PrevState)? {
            Val::Int(v) => Some(BlockState::Int(v)),
            Val::Str { .. } => {
                let s = ev.payload.str_at(K::PrevState)?;
                let mut b = [0u8; 7];
                let n = s.len().min(7);
                b[..n].copy_from_slice(&s[..n]);
                Some(BlockState::Letters(b, n as u8))
            }
            _ => None,
        }
    }

    fn transitions(&mut self, ev: &KEvent<'_>, model: &KernelModel) {
        let timer = self.timer_on(ev.cpu);
        let wakeup_event = match ev.kind {
            Kind::SchedWaking => Some(names::SCHED_WAKING),
            Kind::SchedWakeup => Some(names::SCHED_WAKEUP),
            _ => None,
        };
        for tr in model.transitions() {
            let Some(thread) = model.thread(tr.tid) else {
                continue;
            };
            if tr.tid == 0 {
                continue;
            }
            let running = thread.totals_at(tr.ts).running;
            let prio = thread.prio();
            let btf = ev.tracer == Tracer::Btf;
            let state = Self::block_state(ev);
            let live = self.live(tr.tid);
            if live.activity.comm != thread.comm && !thread.comm.is_empty() {
                live.activity.comm.clone_from(&thread.comm);
            }
            live.activity.btf |= btf;
            let woken = matches!(
                (tr.from, tr.to),
                (
                    ThreadState::Blocked | ThreadState::Unknown,
                    ThreadState::WaitingCpu
                ) | (ThreadState::Blocked, ThreadState::Running)
            );
            if woken {
                live.activity.prio = prio;
                if live.activity.wakeup_event.is_none() {
                    live.activity.wakeup_event = wakeup_event;
                }
                let by = if timer || live.sleeping.is_some() {
                    Release::Timer
                } else {
                    Release::Wakeup
                };
                live.open = Some(Activation {
                    release: tr.ts,
                    end: tr.ts,
                    run_at_release: running,
                    run_at_end: running,
                    by,
                    in_sleep: false,
                    state: None,
                });
            }
            if tr.to == ThreadState::Running {
                if let Some(c) = tr.cpu.filter(|c| *c < 64) {
                    live.activity.cpus |= 1 << c;
                }
            }
            if tr.from == ThreadState::Running && tr.to == ThreadState::Blocked {
                if let Some(mut a) = live.open.take() {
                    a.end = tr.ts;
                    a.run_at_end = running;
                    a.in_sleep = live.sleeping.is_some();
                    a.state = state;
                    if a.in_sleep {
                        live.activity.sleep_call = live.sleeping;
                    }
                    live.activity.activations.push(a);
                }
            }
        }
        for t in model.freed() {
            if let Some(l) = self.live.remove(&t.tid) {
                self.done.push(l.activity);
            }
        }
    }

    fn other(&mut self, ev: &KEvent<'_>, thread: Option<i64>) {
        match ev.name {
            names::HRTIMER_EXPIRE_ENTRY => self.set_timer(ev.cpu, true),
            names::HRTIMER_EXPIRE_EXIT => self.set_timer(ev.cpu, false),
            name => {
                if let Some(kind) = btf_activation(name) {
                    // The BTF source puts the wake-up it derives before the
                    // row: the activation opened at this time is the row's.
                    let Some(tid) = ev.payload.int("tid") else {
                        return;
                    };
                    let live = self.live(tid);
                    live.activity.btf_type = Some(kind);
                    if let Some(a) = live.open.as_mut().filter(|a| a.release == ev.ts) {
                        a.by = Release::Activation;
                    }
                } else if let (Some((call, entry)), Some(tid)) = (sleep_call(name), thread) {
                    self.live(tid).sleeping = entry.then_some(call);
                }
            }
        }
    }
}

impl Analysis for TaskCollector {
    fn wants(&self, canonical: &str) -> bool {
        canonical == names::HRTIMER_EXPIRE_ENTRY
            || canonical == names::HRTIMER_EXPIRE_EXIT
            || btf_activation(canonical).is_some()
            || sleep_call(canonical).is_some()
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel) {
        // Sleep calls first: a switch is never the same event as one.
        if ev.kind == Kind::Other {
            self.other(ev, thread);
        }
        self.transitions(ev, model);
    }

    fn finish(&mut self, _model: &KernelModel, _end: i64) {}
}
