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
    let d = super::human(cost);
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
            let late = super::human(*late);
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
mod tests {
    use super::*;
    use crate::analysis::explain::graph::{Fork, Line, Segment, TimerFire, Wakeup};
    use crate::analysis::explain::path::critical_path;
    use crate::analysis::explain::relations::relations;
    use crate::kernel::model::ThreadState::{self, *};
    use crate::kernel::priority::Policy;

    fn seg(start: i64, end: i64, state: ThreadState, prio: i32) -> Segment {
        Segment {
            start,
            end,
            state,
            cpu: Some(1),
            prio: Some(prio),
        }
    }

    fn woke(ts: i64, wakee: i64, waker: Context, timer: Option<TimerFire>) -> Wakeup {
        Wakeup {
            ts,
            wakee,
            waker,
            cpu: Some(1),
            timer,
        }
    }

    fn add(g: &mut Graph, tid: i64, comm: &str, segments: Vec<Segment>, wakeups: Vec<Wakeup>) {
        g.lines.insert(
            tid,
            Line {
                comm: comm.into(),
                segments,
                wakeups,
            },
        );
    }

    fn fire(expires: i64, fired: i64, armed_at: i64) -> Option<TimerFire> {
        Some(TimerFire {
            hrtimer: 7,
            expires: Some(expires),
            fired,
            armed_at: Some(armed_at),
            armed_by: Some(2),
            cpu: Some(1),
        })
    }

    fn diagnose_end(g: &Graph, tid: i64, start: i64, end: i64) -> Diagnosis {
        let path = critical_path(g, tid, start, end);
        let rel = relations(g, tid, &[]);
        diagnose(&Inputs {
            graph: g,
            runs: &CpuRuns::new(g),
            path: &path,
            relations: &rel,
            analysed: tid,
            prio: g.last_prio(tid),
        })
    }

    /// The seed's case: the timer thread (FIFO 60) woken on time is kept
    /// off its CPU by a rogue FIFO 70 thread, then creates the worker
    /// (FIFO 55), which waits a little behind a nice 5 thread.
    fn seed_case() -> Graph {
        let mut g = Graph {
            start: 0,
            end: 3100,
            ..Graph::default()
        };
        add(
            &mut g,
            1,
            "rt_worker",
            vec![
                seg(3040, 3045, WaitingCpu, 44),
                seg(3045, 3100, Running, 44),
            ],
            vec![woke(3040, 1, Context::Thread { tid: 2 }, None)],
        );
        add(
            &mut g,
            2,
            "rt_timer",
            vec![
                seg(0, 10, Blocked, 39),
                seg(10, 3010, WaitingCpu, 39),
                seg(3010, 3040, Running, 39),
                seg(3040, 3100, Blocked, 39),
            ],
            vec![woke(10, 2, Context::Timer, fire(10, 10, 0))],
        );
        add(
            &mut g,
            3,
            "rt_rogue",
            vec![seg(5, 3010, Running, 29), seg(3010, 3100, Blocked, 29)],
            vec![],
        );
        add(
            &mut g,
            4,
            "bg_batch",
            vec![
                seg(0, 5, Running, 125),
                seg(5, 3040, Preempted, 125),
                seg(3040, 3045, Running, 125),
                seg(3045, 3100, Preempted, 125),
            ],
            vec![],
        );
        g.creations.insert(
            1,
            Fork {
                ts: 3030,
                parent: 2,
                child: 1,
            },
        );
        g.forks.push(g.creations[&1]);
        g
    }

    #[test]
    fn the_rogue_is_named_first_with_user_priorities() {
        let g = seed_case();
        let d = diagnose_end(&g, 1, 0, 3100);
        assert_eq!(
            d.text,
            "rt_rogue (FIFO/RR 70) kept rt_timer (FIFO/RR 60) waiting for a CPU for 3.0 us"
        );
        assert!(!d.inversion);
        let got: Vec<(&str, i64, bool)> = d
            .causes
            .iter()
            .map(|c| (c.text.as_str(), c.cost, c.interference))
            .collect();
        assert_eq!(
            got,
            vec![
                (d.text.as_str(), 3000, true),
                ("rt_worker ran 55 ns", 55, false),
                ("rt_timer ran 30 ns creating rt_worker", 30, false),
                ("rt_timer waited 10 ns for its timer", 10, false),
                (
                    "rt_worker (FIFO/RR 55) waited 5 ns for CPU 1 to switch to it from bg_batch (nice 5): wake-up latency",
                    5,
                    false
                ),
            ]
        );
        // Every nanosecond of the range is given to one cause.
        assert_eq!(d.causes.iter().map(|c| c.cost).sum::<i64>(), 3100);
        // A policy set in the trace is named.
        let mut g = g;
        g.policies.insert(3, Policy::Fifo);
        assert!(diagnose_end(&g, 1, 0, 3100)
            .text
            .starts_with("rt_rogue (SCHED_FIFO 70) kept"));
    }

    #[test]
    fn an_undisturbed_execution_blames_nobody() {
        // The same without the rogue: the timer thread runs when woken.
        let mut g = seed_case();
        g.lines.remove(&3);
        let l = g.lines.get_mut(&2).unwrap();
        l.segments[1] = seg(10, 20, WaitingCpu, 39);
        l.segments[2] = seg(20, 3040, Running, 39);
        let bg = g.lines.get_mut(&4).unwrap();
        bg.segments = vec![seg(0, 20, Running, 125), seg(20, 3100, Preempted, 125)];
        let d = diagnose_end(&g, 1, 0, 3100);
        assert!(
            d.text
                .starts_with("rt_worker: nothing held it back; rt_timer ran"),
            "{}",
            d.text
        );
        // bg_batch was still on rt_timer's CPU 10 ns: the switch's latency.
        let bg = d
            .causes
            .iter()
            .find(|c| matches!(c.cause, Cause::Latency { .. }))
            .unwrap();
        assert_eq!(
            (bg.text.as_str(), bg.cost, bg.interference),
            (
                "rt_timer (FIFO/RR 60) waited 10 ns for CPU 1 to switch to it from bg_batch (nice 5): wake-up latency",
                10,
                false
            )
        );
        // 220 us is no switch: bg_batch kept the CPU (a non-preemptible
        // section), and that is interference.
        const US: i64 = 1000;
        let mut g = Graph {
            start: 0,
            end: 300 * US,
            ..Graph::default()
        };
        add(
            &mut g,
            2,
            "rt_timer",
            vec![
                seg(0, 10, Blocked, 39),
                seg(10, 220 * US + 10, WaitingCpu, 39),
                seg(220 * US + 10, 300 * US, Running, 39),
            ],
            vec![woke(10, 2, Context::Timer, fire(10, 10, 0))],
        );
        add(
            &mut g,
            4,
            "bg_batch",
            vec![seg(0, 220 * US + 10, Running, 125)],
            vec![],
        );
        let d = diagnose_end(&g, 2, 0, 300 * US);
        assert_eq!(
            d.text,
            "bg_batch (nice 5) kept CPU 1 for 220.0 us after rt_timer (FIFO/RR 60), of higher priority, could run"
        );
    }

    #[test]
    fn a_late_timer_is_a_cause_of_its_own() {
        // The timer thread's timer, armed at 0 for 100 us, fires at 2500 us
        // while CPU 1 runs the rogue.
        const US: i64 = 1000;
        let mut g = Graph {
            start: 0,
            end: 2600 * US,
            ..Graph::default()
        };
        add(
            &mut g,
            2,
            "rt_timer",
            vec![
                seg(0, 2500 * US, Blocked, 39),
                seg(2500 * US, 2600 * US, Running, 39),
            ],
            vec![woke(
                2500 * US,
                2,
                Context::Timer,
                fire(100 * US, 2500 * US, 0),
            )],
        );
        add(
            &mut g,
            3,
            "rt_rogue",
            vec![seg(0, 2500 * US, Running, 29)],
            vec![],
        );
        let d = diagnose_end(&g, 2, 0, 2600 * US);
        assert_eq!(
            d.text,
            "rt_timer's timer fired 2.4 ms late: CPU 1 ran rt_rogue (FIFO/RR 70) (2.4 ms on the path)"
        );
        assert_eq!(d.causes[0].cost, 2400 * US);
        assert_eq!(d.causes[2].text, "rt_timer waited 100.0 us for its timer");
        // Armed after its expiry: the lateness was the thread's own.
        let l = g.lines.get_mut(&2).unwrap();
        l.wakeups[0].timer = fire(100 * US, 2500 * US, 2400 * US);
        l.segments = vec![
            seg(0, 2400 * US, Running, 39),
            seg(2400 * US, 2500 * US, Blocked, 39),
            seg(2500 * US, 2600 * US, Running, 39),
        ];
        let d = diagnose_end(&g, 2, 0, 2600 * US);
        let late = d
            .causes
            .iter()
            .find(|c| matches!(c.cause, Cause::LateTimer { .. }))
            .unwrap();
        assert!(late.text.contains("armed after its expiry") && !late.interference);
        assert_eq!(late.cost, 100 * US);
        // 15 us late is on time.
        let l = g.lines.get_mut(&2).unwrap();
        l.wakeups[0].timer = fire(2485 * US, 2500 * US, 0);
        let d = diagnose_end(&g, 2, 0, 2600 * US);
        assert!(d
            .causes
            .iter()
            .all(|c| !matches!(c.cause, Cause::LateTimer { .. })));
    }

    #[test]
    fn inversion_through_a_waited_on_thread() {
        // rt_high (FIFO 80) blocked until rt_low (FIFO 10) wakes it; rt_low
        // was preempted by rt_med (FIFO 50): lower than rt_high.
        let mut g = Graph {
            start: 0,
            end: 100,
            ..Graph::default()
        };
        add(
            &mut g,
            1,
            "rt_high",
            vec![seg(0, 90, Blocked, 19), seg(90, 100, Running, 19)],
            vec![woke(90, 1, Context::Thread { tid: 2 }, None)],
        );
        add(
            &mut g,
            2,
            "rt_low",
            vec![
                seg(0, 10, Running, 89),
                seg(10, 80, Preempted, 89),
                seg(80, 100, Running, 89),
            ],
            vec![],
        );
        add(&mut g, 3, "rt_med", vec![seg(10, 80, Running, 49)], vec![]);
        let d = diagnose_end(&g, 1, 0, 100);
        assert!(d.inversion);
        assert_eq!(
            d.text,
            "rt_med (FIFO/RR 50) preempted rt_low (FIFO/RR 10) for 70 ns while rt_high (FIFO/RR 80) waited on it: priority inversion (FIFO/RR 50 is lower than FIFO/RR 80)"
        );
        assert!(d
            .causes
            .iter()
            .any(|c| c.text == "rt_low ran 20 ns while rt_high waited for it"));
    }
}
