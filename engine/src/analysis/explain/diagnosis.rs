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

use super::complement::{waited_for, CpuRuns};
use super::graph::{Context, Graph};
use super::lost;
use super::path::{Link, PathPiece, PathState};
use super::relations::Relations;
use super::remote::{self, Arrival};
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

/// A lower-priority thread holding the path back for less than this in all
/// is no priority inversion worth the name: a wake-up or a switch takes
/// tens of microseconds on a virtual CPU. It is then told as the
/// preemption it was.
pub const INVERSION_NS: i64 = 100_000;

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
    /// Blocked until `context` woke it right after receiving a packet that
    /// host `from` sent (`remote`), by thread `sent_by` (named
    /// `sent_by_comm`) when that host's trace tells: at `sent` on the
    /// shared timeline, `transit` ns before it arrived.
    Packet {
        of: Party,
        context: Context,
        from: String,
        sent_by: Option<i64>,
        sent_by_comm: Option<String>,
        sent: i64,
        transit: i64,
    },
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
    /// The path thread waited for `cpu` while the tracer lost `events`
    /// there (`None`: it did not say how many): who ran is unknown.
    Lost {
        of: Party,
        cpu: Option<u32>,
        events: Option<u64>,
        /// The loss window (`Graph::losses`): each is its own line.
        #[serde(skip)]
        window: usize,
    },
}

/// A cause and what it cost on the path: every piece of the path that
/// says the same (the same kind, between threads of the same names and
/// priorities) merged into one.
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
    /// Pieces of the path merged here, and the longest of them (ns).
    pub count: usize,
    pub longest: i64,
    /// Distinct threads merged under the names of `by` (or `ran`) and `of`.
    pub threads: Threads,
    /// Some of it is a thread found running by its own events, its
    /// switch-in lost (`Segment::inferred`).
    pub inferred: bool,
}

/// How many threads a merged cause stands for, on each side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Threads {
    pub by: usize,
    pub of: usize,
}

/// One line saying what held the execution back, and every cause ranked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub text: String,
    /// The line names a priority inversion.
    pub inversion: bool,
    /// Longest first.
    pub causes: Vec<Ranked>,
    /// Claims of the causes that the trace's states contradict (`audit`):
    /// empty, unless sextant has a bug.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contradictions: Vec<String>,
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
    /// Packets received from other hosts, in reception order.
    pub arrivals: &'a [Arrival],
}

/// The causes of `inputs.path`, ranked, and the line naming the main one.
pub fn diagnose(inputs: &Inputs<'_>) -> Diagnosis {
    let g = inputs.graph;
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
    let mut claims: Vec<Claim> = Vec::new();
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
                acc.add(cause, len, false, false)
            }
            PathState::Unknown => acc.add(Cause::Unknown { of }, len, false, false),
            PathState::Preempted | PathState::WaitingCpu => {
                let cpus = waited_for(g, p.tid, p.start, p.end);
                let cpu = seg.and_then(|s| s.cpu).or(cpus.first().copied());
                // A recorded priority change inside the wait (glibc
                // lowering a new thread's) cuts it: each part is judged at
                // its own priority.
                for (start, end, prio) in at_priorities(g, p) {
                    let part = Waiting {
                        piece: p,
                        of: Party::new(g, p.tid, prio),
                        cpus: &cpus,
                        cpu,
                        start,
                        end,
                    };
                    part.diagnose(inputs, &job, &mut acc, &mut claims);
                }
            }
            PathState::Blocked { woken_by } => {
                blocked(&mut acc, p, of, woken_by, inputs);
            }
        }
    }
    let causes = acc.finish(g.rtos);
    let contradictions = audit::audit(g, &claims);
    let duration =
        inputs.path.last().map_or(0, |l| l.end) - inputs.path.first().map_or(0, |f| f.start);
    let main = causes
        .iter()
        .find(|c| c.interference && c.cost > 0 && c.cost * NOTICEABLE >= duration);
    match main {
        Some(m) => Diagnosis {
            text: words::main_line(m, &causes),
            inversion: matches!(m.cause, Cause::Inversion { .. }),
            causes,
            contradictions,
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
                contradictions,
            }
        }
    }
}

/// The parts of a waiting piece at each of the thread's priorities then:
/// (start, end, priority).
fn at_priorities(g: &Graph, p: &PathPiece) -> Vec<(i64, i64, Option<i32>)> {
    let mut parts: Vec<(i64, i64, Option<i32>)> = Vec::new();
    for s in g.line(p.tid).into_iter().flat_map(|l| &l.segments) {
        let (a, b) = (s.start.max(p.start), s.end.min(p.end));
        if b <= a {
            continue;
        }
        match parts.last_mut() {
            Some(last) if last.1 == a && last.2 == s.prio => last.1 = b,
            _ => parts.push((a, b, s.prio)),
        }
    }
    if parts.is_empty() {
        let prio = g
            .line(p.tid)
            .and_then(|l| l.segment_before(p.end))
            .and_then(|s| s.prio);
        parts.push((p.start, p.end, prio));
    }
    parts
}

/// A thread of the path ready to run over [start, end), at one priority.
struct Waiting<'a> {
    piece: &'a PathPiece,
    of: Party,
    /// The CPUs it could have had, and the one it waited on.
    cpus: &'a [u32],
    cpu: Option<u32>,
    start: i64,
    end: i64,
}

impl Waiting<'_> {
    /// Who held its CPUs meanwhile (each a cause), and the time nothing
    /// the trace shows ran there; each a claim for the audit.
    fn diagnose(
        self,
        inputs: &Inputs<'_>,
        job: &HashSet<i64>,
        acc: &mut Accumulator,
        claims: &mut Vec<Claim>,
    ) {
        let g = inputs.graph;
        let p = self.piece;
        let waiting = p.state == PathState::WaitingCpu;
        let mut idle = 0;
        let mut free = self.start;
        for r in inputs.runs.holders(self.cpus, p.tid, self.start, self.end) {
            if r.start > free {
                idle += self.nobody(g, free, r.start, acc, claims);
            }
            free = r.end;
            let held_by = Holder {
                by: Party::new(g, r.tid, r.prio),
                of: self.of.clone(),
                cpu: Some(r.cpu),
                run: r.end - r.start,
                waiting,
            };
            let (cause, interference) = holder(held_by, inputs, g, job);
            let said = Said::Held {
                by: (r.tid, r.prio),
                order: stated_order(&cause),
            };
            // Runs stop at the windows where the tracer lost events on
            // their CPU (`CpuRuns`): those are unknown, told by `nobody`.
            claims.push(self.claim(r.start, r.end, said));
            acc.add(cause, r.end - r.start, interference, r.inferred);
        }
        if self.end > free {
            idle += self.nobody(g, free, self.end, acc, claims);
        }
        if idle > 0 {
            // Nothing the trace shows ran on any CPU it could have had.
            let long = idle >= LATENCY_NS;
            let cause = Cause::IdleCpu {
                of: self.of,
                cpu: self.cpu,
                long,
            };
            acc.add(cause, idle, long, false);
        }
    }

    /// [start, end), where the trace shows no thread on the CPUs: the
    /// parts in a loss window are unknown, the rest (returned) idle.
    fn nobody(
        &self,
        g: &Graph,
        start: i64,
        end: i64,
        acc: &mut Accumulator,
        claims: &mut Vec<Claim>,
    ) -> i64 {
        let mut idle = 0;
        for (a, b, window) in lost::cut(&g.losses, |l| lost::on(l, self.cpus), start, end) {
            match window {
                Some(w) => self.lost(g, w, b - a, acc),
                None => {
                    claims.push(self.claim(a, b, Said::NoThread));
                    idle += b - a;
                }
            }
        }
        idle
    }

    /// `len` ns of the wait in loss window `w` of the graph.
    fn lost(&self, g: &Graph, w: usize, len: i64, acc: &mut Accumulator) {
        let loss = g.losses[w];
        let cause = Cause::Lost {
            of: self.of.clone(),
            cpu: loss.cpu.or(self.cpu),
            events: loss.events,
            window: w,
        };
        acc.add(cause, len, len >= LATENCY_NS, false);
    }

    /// What a part of the wait is said to be, for the audit.
    fn claim(&self, start: i64, end: i64, what: Said) -> Claim {
        Claim {
            start,
            end,
            of: (self.piece.tid, self.of.prio),
            cpus: self.cpus.to_vec(),
            what,
        }
    }
}

/// The order of the holder's priority to the waiting thread's that a
/// cause states: a preemption is by a higher one, a latency a lower one.
fn stated_order(c: &Cause) -> Option<Ordering> {
    let known = |by: &Party, of: &Party| by.prio.is_some() && of.prio.is_some();
    match c {
        Cause::Preemption { by, of, .. } => known(by, of).then_some(Ordering::Greater),
        Cause::SamePriority { .. } => Some(Ordering::Equal),
        Cause::Latency { .. } => Some(Ordering::Less),
        Cause::Inversion { by, of, .. } => match (by.prio, of.prio) {
            (Some(b), Some(o)) => Some(Priority(b).urgency(Priority(o))),
            _ => None,
        },
        _ => None,
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
    inputs: &Inputs<'_>,
) {
    let (g, runs) = (inputs.graph, inputs.runs);
    let len = p.end - p.start;
    let Some(context) = woken_by else {
        acc.add(Cause::Blocked { of }, len, false, false);
        return;
    };
    let wakeup = g.line(p.tid).and_then(|l| l.wakeup_in(p.start, p.end));
    if context != Context::Timer {
        let packet = wakeup.and_then(|w| remote::cause_of(inputs.arrivals, w));
        let cause = match packet {
            Some(a) => Cause::Packet {
                of,
                context,
                from: a.from.clone(),
                sent_by: a.sent_by,
                sent_by_comm: a.sent_by_comm.clone(),
                sent: a.sent,
                transit: a.transit,
            },
            None => Cause::Interrupt { of, context },
        };
        acc.add(cause, len, false, false);
        return;
    }
    let fire = wakeup.and_then(|w| w.timer);
    let Some(fire) = fire.filter(|f| f.lateness() >= LATE_TIMER_NS) else {
        acc.add(Cause::Timer { of }, len, false, false);
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
        acc.add(
            Cause::Timer { of: of.clone() },
            len - late_part,
            false,
            false,
        );
    }
    let cause = Cause::LateTimer {
        of,
        late: fire.lateness(),
        cpu: fire.cpu,
        armed_late,
        ran,
    };
    acc.add(cause, late_part, !armed_late, false);
}

mod accumulate;
mod audit;
mod words;

use accumulate::Accumulator;
use audit::{Claim, Said};

#[cfg(test)]
mod tests;
