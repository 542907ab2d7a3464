//! What the execution's time went to, cause by cause, ranked by the time
//! each cost on the critical path. Every piece of the path is given to one
//! cause: a path thread's own work (running, creating the next thread,
//! running while another waited for it), waiting for its timer, a late
//! timer, an interrupt, and — while a path thread was ready but had no CPU
//! — whoever held the CPU it waited for: a thread of higher priority
//! (preemption), of the same priority, of lower priority than the analysed
//! thread while it waited on the path (priority inversion), of lower
//! priority than the held thread itself, or nothing (an idle CPU). The last
//! two are the switch's own latency when short; longer, something kept the
//! CPU from the path (a non-preemptible section, the hypervisor, lost
//! events). Causes outside the job — threads unrelated to it, inversions,
//! late timers, long latencies — are interference; the diagnosis names the
//! costliest one when it cost a noticeable share of the execution, else
//! says nothing held it back.
//!
//! Priorities are written as their users set them ("FIFO/RR 70", "nice 5",
//! `crate::kernel::priority`), and "higher"/"lower" compare urgency.

use std::cmp::Ordering;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;

use super::complement::CpuRuns;
use super::graph::{Context, Graph};
use super::path::{Link, PathPiece, PathState};
use super::relations::Relations;
use crate::kernel::priority::Priority;

/// Interference is named when it cost at least this share of the
/// execution (1/20): below, it is the ordinary jitter of a busy system.
const NOTICEABLE: i64 = 20;

/// A timer that fired less than this late is on time (interrupt entry and
/// a virtual machine's own latency take tens of microseconds).
const LATE_TIMER_NS: i64 = 50_000;

/// A ready thread waiting less than this for a CPU that runs nothing more
/// urgent waits for the switch itself (the wake-up interrupt, leaving idle,
/// a virtual CPU being scheduled): latency, not interference.
const LATENCY_NS: i64 = 100_000;

/// A thread as the diagnosis names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Party {
    pub tid: i64,
    pub comm: String,
    /// Kernel-order priority then, when known.
    pub prio: Option<i32>,
    /// As its user set it: "FIFO/RR 70", "nice 5", "?".
    pub priority: String,
}

impl Party {
    fn new(graph: &Graph, tid: i64, prio: Option<i32>) -> Party {
        Party {
            tid,
            comm: graph.comm(tid).to_string(),
            prio,
            priority: graph.priority(tid, prio),
        }
    }

    /// "rt_rogue (FIFO/RR 70)".
    fn named(&self) -> String {
        format!("{} ({})", self.name(), self.priority)
    }

    fn name(&self) -> String {
        if self.comm.is_empty() {
            format!("thread {}", self.tid)
        } else {
            self.comm.clone()
        }
    }
}

/// One cause of delay or of time spent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// A thread of higher priority than the path thread held its CPU
    /// (`waiting`: the path thread had been woken, not switched out).
    Preemption { by: Party, of: Party, waiting: bool },
    /// A thread of lower priority than the analysed one held the CPU of a
    /// path thread the analysed one waited on.
    Inversion {
        by: Party,
        of: Party,
        analysed: Party,
    },
    /// A thread of the same priority ran first.
    SamePriority { by: Party, of: Party },
    /// A thread of lower priority than the path thread kept the CPU after
    /// the path thread could run (`long`: longer than a switch takes).
    Latency {
        by: Party,
        of: Party,
        cpu: Option<u32>,
        long: bool,
    },
    /// The CPU the path thread waited for ran no thread.
    IdleCpu {
        of: Party,
        cpu: Option<u32>,
        long: bool,
    },
    /// The path thread's timer fired `late` ns after its expiry; `ran` held
    /// the timer's CPU meanwhile (none: idle). `armed_late`: the timer was
    /// armed only after that expiry.
    LateTimer {
        of: Party,
        late: i64,
        cpu: Option<u32>,
        armed_late: bool,
        ran: Option<Party>,
    },
    /// Blocked until an interrupt (or a softirq, or an interrupt the trace
    /// does not show) woke it.
    Interrupt { of: Party, context: Context },
    /// Blocked, and nothing in the trace woke it.
    Blocked { of: Party },
    /// Blocked until its timer fired, on time.
    Timer { of: Party },
    /// Running: the job's own work.
    Work { of: Party },
    /// Running while `waiter`, on the path after it, was blocked on it.
    Serving { of: Party, waiter: Party },
    /// Running before `child`, on the path after it, existed; creating
    /// `others` threads besides meanwhile (a timer thread catching up).
    Creating {
        of: Party,
        child: Party,
        others: usize,
    },
    /// The trace says nothing of the path thread then.
    Unknown { of: Party },
}

/// A cause and what it cost on the path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ranked {
    #[serde(flatten)]
    pub cause: Cause,
    /// Time on the critical path (ns).
    pub cost: i64,
    /// Outside the job's own work and waiting.
    pub interference: bool,
    /// The cause in words, with its cost.
    pub text: String,
}

/// One line saying what held the execution back, and every cause ranked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub text: String,
    /// The line names a priority inversion.
    pub inversion: bool,
    /// Longest first.
    pub causes: Vec<Ranked>,
}

/// What the diagnosis is made from.
pub struct Inputs<'a> {
    pub graph: &'a Graph,
    pub runs: &'a CpuRuns,
    pub path: &'a [PathPiece],
    pub relations: &'a Relations,
    /// The analysed thread and its priority.
    pub analysed: i64,
    pub prio: Option<i32>,
}

/// The causes of `inputs.path`, ranked, and the line naming the main one.
pub fn diagnose(inputs: &Inputs<'_>) -> Diagnosis {
    let g = inputs.graph;
    let runs = inputs.runs;
    let mut job: HashSet<i64> = inputs.path.iter().map(|p| p.tid).collect();
    job.insert(inputs.analysed);
    job.extend(
        inputs
            .relations
            .direct
            .iter()
            .chain(&inputs.relations.indirect),
    );
    let mut acc = Accumulator::default();
    for p in inputs.path {
        let seg = g.line(p.tid).and_then(|l| l.segment_before(p.end));
        let of = Party::new(g, p.tid, seg.and_then(|s| s.prio));
        let len = p.end - p.start;
        match p.state {
            PathState::Running => {
                let cause = match p.link {
                    Link::Own => Cause::Work { of },
                    Link::Woke { wakee } => Cause::Serving {
                        of,
                        waiter: Party::new(g, wakee, g.last_prio(wakee)),
                    },
                    Link::Created { child } => Cause::Creating {
                        others: g
                            .creations
                            .values()
                            .filter(|c| c.parent == p.tid && c.child != child)
                            .filter(|c| p.start <= c.ts && c.ts < p.end)
                            .count(),
                        of,
                        child: Party::new(g, child, g.last_prio(child)),
                    },
                };
                acc.add(cause, len, false)
            }
            PathState::Unknown => acc.add(Cause::Unknown { of }, len, false),
            PathState::Preempted | PathState::WaitingCpu => {
                let waiting = p.state == PathState::WaitingCpu;
                let cpu = seg.and_then(|s| s.cpu);
                let mut held = 0;
                for r in cpu.into_iter().flat_map(|c| runs.during(c, p.start, p.end)) {
                    if r.tid == p.tid {
                        continue;
                    }
                    held += r.end - r.start;
                    let by = Party::new(g, r.tid, r.prio);
                    let run = r.end - r.start;
                    let held_by = Holder {
                        by,
                        of: of.clone(),
                        cpu,
                        run,
                        waiting,
                    };
                    let (cause, interference) = holder(held_by, inputs, g, &job);
                    acc.add(cause, run, interference);
                }
                if len > held {
                    let long = len - held >= LATENCY_NS;
                    acc.add(Cause::IdleCpu { of, cpu, long }, len - held, long);
                }
            }
            PathState::Blocked { woken_by } => {
                blocked(&mut acc, p, of, woken_by, runs, g);
            }
        }
    }
    let mut causes = acc.causes;
    causes.sort_by(|a, b| b.cost.cmp(&a.cost).then_with(|| a.text.cmp(&b.text)));
    let duration =
        inputs.path.last().map_or(0, |l| l.end) - inputs.path.first().map_or(0, |f| f.start);
    let main = causes
        .iter()
        .find(|c| c.interference && c.cost > 0 && c.cost * NOTICEABLE >= duration);
    match main {
        Some(m) => Diagnosis {
            text: m.text.clone(),
            inversion: matches!(m.cause, Cause::Inversion { .. }),
            causes,
        },
        None => {
            let me = Party::new(g, inputs.analysed, inputs.prio);
            let top: Vec<&str> = causes.iter().take(3).map(|c| c.text.as_str()).collect();
            let text = if top.is_empty() {
                format!("{}: empty range", me.name())
            } else {
                format!("{}: nothing held it back; {}", me.name(), top.join(", "))
            };
            Diagnosis {
                text,
                inversion: false,
                causes,
            }
        }
    }
}

/// `by` running `run` ns on `cpu` while `of` waited for it.
struct Holder {
    by: Party,
    of: Party,
    cpu: Option<u32>,
    run: i64,
    waiting: bool,
}

/// The cause of a holder, and whether it is interference.
fn holder(h: Holder, inputs: &Inputs<'_>, g: &Graph, job: &HashSet<i64>) -> (Cause, bool) {
    let Holder {
        by,
        of,
        cpu,
        run,
        waiting,
    } = h;
    let related = job.contains(&by.tid);
    let order = match (by.prio, of.prio) {
        (Some(b), Some(o)) => Some(Priority(b).urgency(Priority(o))),
        _ => None,
    };
    let below_analysed = by.tid != inputs.analysed
        && of.tid != inputs.analysed
        && matches!((by.prio, inputs.prio), (Some(b), Some(a)) if Priority(a).is_higher_than(Priority(b)));
    match order {
        Some(Ordering::Less) => {
            let long = run >= LATENCY_NS;
            (Cause::Latency { by, of, cpu, long }, long && !related)
        }
        _ if below_analysed => {
            let analysed = Party::new(g, inputs.analysed, inputs.prio);
            (Cause::Inversion { by, of, analysed }, true)
        }
        Some(Ordering::Equal) => (Cause::SamePriority { by, of }, !related),
        _ => (Cause::Preemption { by, of, waiting }, !related),
    }
}

/// A blocked piece: its waker was no thread (those the path followed).
fn blocked(
    acc: &mut Accumulator,
    p: &PathPiece,
    of: Party,
    woken_by: Option<Context>,
    runs: &CpuRuns,
    g: &Graph,
) {
    let len = p.end - p.start;
    let Some(context) = woken_by else {
        acc.add(Cause::Blocked { of }, len, false);
        return;
    };
    if context != Context::Timer {
        acc.add(Cause::Interrupt { of, context }, len, false);
        return;
    }
    let fire = g
        .line(p.tid)
        .and_then(|l| l.wakeup_in(p.start, p.end))
        .and_then(|w| w.timer);
    let Some(fire) = fire.filter(|f| f.lateness() >= LATE_TIMER_NS) else {
        acc.add(Cause::Timer { of }, len, false);
        return;
    };
    // The late part ends with the piece (the wake-up); the timer's clock
    // may not be the trace's, so it is placed from the wake-up back.
    let armed_late = fire.armed_late();
    let late_part = if armed_late {
        len
    } else {
        fire.lateness().min(len)
    };
    let ran = fire
        .cpu
        .and_then(|c| {
            let mut by: HashMap<(i64, Option<i32>), i64> = HashMap::default();
            for r in runs.during(c, p.end - late_part, p.end) {
                *by.entry((r.tid, r.prio)).or_default() += r.end - r.start;
            }
            by.into_iter().max_by_key(|(k, d)| (*d, -k.0))
        })
        .map(|((tid, prio), _)| Party::new(g, tid, prio));
    if len > late_part {
        acc.add(Cause::Timer { of: of.clone() }, len - late_part, false);
    }
    let cause = Cause::LateTimer {
        of,
        late: fire.lateness(),
        cpu: fire.cpu,
        armed_late,
        ran,
    };
    acc.add(cause, late_part, !armed_late);
}

/// Causes merged by what they say, costs summed.
#[derive(Default)]
struct Accumulator {
    causes: Vec<Ranked>,
    index: HashMap<Key, usize>,
}

/// What makes two causes the same one: the kind, the threads involved and
/// the flags that change the sentence.
type Key = (u8, i64, i64, i64);

fn key(c: &Cause) -> Key {
    match c {
        Cause::Preemption { by, of, waiting } => (0, by.tid, of.tid, *waiting as i64),
        Cause::Inversion { by, of, .. } => (1, by.tid, of.tid, 0),
        Cause::SamePriority { by, of } => (2, by.tid, of.tid, 0),
        Cause::Latency { by, of, long, .. } => (3, by.tid, of.tid, *long as i64),
        Cause::IdleCpu { of, cpu, long } => (4, of.tid, cpu.map_or(-1, i64::from), *long as i64),
        Cause::LateTimer {
            of,
            armed_late,
            ran,
            ..
        } => (
            5,
            of.tid,
            ran.as_ref().map_or(0, |r| r.tid),
            *armed_late as i64,
        ),
        Cause::Interrupt { of, context } => {
            let c = match context {
                Context::Irq { irq } => *irq,
                Context::Softirq { vec } => 1000 + vec,
                _ => -1,
            };
            (6, of.tid, c, 0)
        }
        Cause::Blocked { of } => (7, of.tid, 0, 0),
        Cause::Timer { of } => (8, of.tid, 0, 0),
        Cause::Work { of } => (9, of.tid, 0, 0),
        Cause::Serving { of, waiter } => (10, of.tid, waiter.tid, 0),
        Cause::Creating { of, child, .. } => (11, of.tid, child.tid, 0),
        Cause::Unknown { of } => (12, of.tid, 0, 0),
    }
}

impl Accumulator {
    fn add(&mut self, cause: Cause, cost: i64, interference: bool) {
        if cost <= 0 {
            return;
        }
        let k = key(&cause);
        match self.index.get(&k) {
            Some(&i) => {
                let r = &mut self.causes[i];
                r.cost += cost;
                match (&mut r.cause, &cause) {
                    // The late timer's lateness is the largest seen.
                    (Cause::LateTimer { late, .. }, Cause::LateTimer { late: more, .. }) => {
                        *late = (*late).max(*more)
                    }
                    (Cause::Creating { others, .. }, Cause::Creating { others: more, .. }) => {
                        *others += more
                    }
                    _ => {}
                }
                r.text = words(&r.cause, r.cost);
            }
            None => {
                self.index.insert(k, self.causes.len());
                self.causes.push(Ranked {
                    text: words(&cause, cost),
                    cause,
                    cost,
                    interference,
                });
            }
        }
    }
}

/// A cause in words.
fn words(c: &Cause, cost: i64) -> String {
    let d = crate::duration::human(cost);
    let cpu = |c: &Option<u32>| c.map_or("its CPU".to_string(), |c| format!("CPU {c}"));
    match c {
        Cause::Preemption { by, of, waiting } => {
            let verb = if *waiting {
                "kept"
            } else {
                "preempted"
            };
            let tail = if *waiting { " waiting for a CPU" } else { "" };
            let order = match (by.prio, of.prio) {
                (Some(_), Some(_)) => String::new(),
                _ => " (priorities not in the trace)".to_string(),
            };
            format!("{} {verb} {}{tail} for {d}{order}", by.named(), of.named())
        }
        Cause::Inversion { by, of, analysed } => format!(
            "{} preempted {} for {d} while {} waited on it: priority inversion ({} is lower than {})",
            by.named(),
            of.named(),
            analysed.named(),
            by.priority,
            analysed.priority,
        ),
        Cause::SamePriority { by, of } => format!(
            "{} ran for {d} while {} waited at the same priority",
            by.named(),
            of.named()
        ),
        Cause::Latency {
            by,
            of,
            cpu: c,
            long: true,
        } => format!(
            "{} kept {} for {d} after {}, of higher priority, could run",
            by.named(),
            cpu(c),
            of.named()
        ),
        Cause::Latency {
            by, of, cpu: c, ..
        } => format!(
            "{} waited {d} for {} to switch to it from {}: wake-up latency",
            of.named(),
            cpu(c),
            by.named()
        ),
        Cause::IdleCpu {
            of,
            cpu: c,
            long: true,
        } => format!(
            "{} waited {d} for {}, which ran no thread (the hypervisor, an interrupt or lost events)",
            of.named(),
            cpu(c)
        ),
        Cause::IdleCpu { of, cpu: c, .. } => format!(
            "{} waited {d} for {} to leave idle: wake-up latency",
            of.named(),
            cpu(c)
        ),
        Cause::LateTimer {
            of,
            late,
            cpu: c,
            armed_late,
            ran,
        } => {
            let late = crate::duration::human(*late);
            if *armed_late {
                format!(
                    "{}'s timer fired {late} late: it was armed after its expiry ({} was late already; {d} on the path)",
                    of.name(),
                    of.name()
                )
            } else {
                let who = ran.as_ref().map_or_else(
                    || "no thread".to_string(),
                    |r| r.named(),
                );
                format!("{}'s timer fired {late} late: {} ran {who} ({d} on the path)", of.name(), cpu(c))
            }
        }
        Cause::Interrupt { of, context } => {
            let what = match context {
                Context::Irq { irq } => format!("interrupt {irq}"),
                Context::Softirq { vec } => format!("softirq {vec}"),
                _ => "an interrupt not in the trace".to_string(),
            };
            format!("{} waited {d} for {what}", of.name())
        }
        Cause::Blocked { of } => format!("{} was blocked {d}, woken by nothing in the trace", of.name()),
        Cause::Timer { of } => format!("{} waited {d} for its timer", of.name()),
        Cause::Work { of } => format!("{} ran {d}", of.name()),
        Cause::Serving { of, waiter } => {
            format!("{} ran {d} while {} waited for it", of.name(), waiter.name())
        }
        Cause::Creating { of, child, others } => match others {
            0 => format!("{} ran {d} creating {}", of.name(), child.name()),
            n => format!(
                "{} ran {d} creating {} and {n} other thread{} before it",
                of.name(),
                child.name(),
                if *n == 1 { "" } else { "s" }
            ),
        },
        Cause::Unknown { of } => format!("the trace says nothing of {} for {d}", of.name()),
    }
}

#[cfg(test)]
mod tests;
