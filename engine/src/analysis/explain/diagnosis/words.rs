//! Causes in words. Threads are named as their users know them ("rt_rogue
//! (FIFO/RR 70)"; an RTOS task "TASK_1MS (priority 5)" on a core), with
//! the TID where one name stands for several threads, and merged lines say
//! how many pieces they hold. Nothing is said that the trace does not
//! show: a lower-priority thread keeping the CPU from a higher one is an
//! anomaly of the trace, not a fact of the scheduler.

use rustc_hash::FxHashSet as HashSet;

use super::{Cause, Party, Ranked, Threads};
use crate::analysis::explain::graph::Context;
use crate::duration::human;

/// How to name the threads of one merged cause.
pub(super) struct Naming<'a> {
    /// An RTOS (BTF): cores and tasks, no Linux words.
    pub rtos: bool,
    /// Names that stand for several threads in the explanation.
    pub repeated: &'a HashSet<String>,
    pub threads: Threads,
}

impl Naming<'_> {
    /// "rt_worker (FIFO/RR 55)", "rt_worker 4312 (FIFO/RR 55)" when the
    /// name is shared, "rt_worker (28 threads, FIFO/RR 55)" when merged.
    fn party(&self, p: &Party, merged: usize, with_priority: bool) -> String {
        let name = p.name();
        let who = if merged <= 1 && self.repeated.contains(&name) && !p.comm.is_empty() {
            format!("{name} {}", p.tid)
        } else {
            name
        };
        match (merged > 1, with_priority) {
            (true, true) => format!("{who} ({merged} threads, {})", p.priority),
            (true, false) => format!("{who} ({merged} threads)"),
            (false, true) => format!("{who} ({})", p.priority),
            (false, false) => who,
        }
    }

    fn by(&self, p: &Party) -> String {
        self.party(p, self.threads.by, true)
    }

    fn of(&self, p: &Party) -> String {
        self.party(p, self.threads.of, true)
    }

    fn of_name(&self, p: &Party) -> String {
        self.party(p, self.threads.of, false)
    }

    fn other(&self, p: &Party, with_priority: bool) -> String {
        self.party(p, 1, with_priority)
    }

    fn cpu(&self, c: Option<u32>) -> String {
        match (c, self.rtos) {
            (Some(c), true) => format!("core {c}"),
            (Some(c), false) => format!("CPU {c}"),
            (None, true) => "its core".into(),
            (None, false) => "its CPU".into(),
        }
    }
}

/// A merged cause in words, with its cost, its count and longest piece
/// when it holds several, and a note when a runner was inferred.
pub(super) fn sentence(r: &Ranked, n: &Naming<'_>) -> String {
    let mut text = words(&r.cause, r.cost, n);
    if r.inferred {
        text.push_str(" (its switch onto the CPU is not in the trace: found from its own events)");
    }
    // How often a thread was held back tells a pattern; how many pieces
    // a thread's own running was cut into does not.
    let held = !matches!(
        r.cause,
        Cause::Work { .. }
            | Cause::Serving { .. }
            | Cause::Creating { .. }
            | Cause::Timer { .. }
            | Cause::Blocked { .. }
            | Cause::Unknown { .. }
            | Cause::Lost { .. }
    );
    if held && r.count > 1 {
        text.push_str(&format!(
            " ({} times, longest {})",
            r.count,
            human(r.longest)
        ));
    }
    text
}

fn words(c: &Cause, cost: i64, n: &Naming<'_>) -> String {
    let d = human(cost);
    let unit = if n.rtos { "core" } else { "CPU" };
    match c {
        Cause::Preemption { by, of, waiting } => {
            let verb = if *waiting { "kept" } else { "preempted" };
            let tail = if *waiting {
                format!(" waiting for a {unit}")
            } else {
                String::new()
            };
            let order = match (by.prio, of.prio) {
                (Some(_), Some(_)) => "",
                _ => " (priorities not in the trace)",
            };
            format!("{} {verb} {}{tail} for {d}{order}", n.by(by), n.of(of))
        }
        Cause::Inversion { by, of, analysed } => format!(
            "{} preempted {} for {d} while {} waited on it: priority inversion ({} is lower than {})",
            n.by(by),
            n.of(of),
            n.other(analysed, true),
            by.priority,
            analysed.priority,
        ),
        Cause::SamePriority { by, of } => format!(
            "{} ran for {d} while {} waited at the same priority",
            n.by(by),
            n.of(of)
        ),
        Cause::Latency {
            by,
            of,
            cpu,
            long: true,
        } => format!(
            "{} stayed on {} for {d} while {}, of higher priority, was ready for it: \
             an anomaly the scheduler does not allow (a non-preemptible section, or a \
             priority change the trace does not show)",
            n.by(by),
            n.cpu(*cpu),
            n.of(of)
        ),
        Cause::Latency { by, of, cpu, .. } => format!(
            "{} waited {d} for {} to switch to it from {}: wake-up latency",
            n.of(of),
            n.cpu(*cpu),
            n.by(by)
        ),
        Cause::IdleCpu {
            of,
            cpu,
            long: true,
        } if n.rtos => format!(
            "{} waited {d} for {}, which ran no task",
            n.of(of),
            n.cpu(*cpu)
        ),
        Cause::IdleCpu {
            of,
            cpu,
            long: true,
        } => format!(
            "{} waited {d} for {}, where the trace shows no thread running \
             (an interrupt or the hypervisor, not traced, or lost events)",
            n.of(of),
            n.cpu(*cpu)
        ),
        Cause::IdleCpu { of, cpu, .. } => format!(
            "{} waited {d} for {} to leave idle: wake-up latency",
            n.of(of),
            n.cpu(*cpu)
        ),
        Cause::LateTimer {
            of,
            late,
            cpu,
            armed_late,
            ran,
        } => {
            let late = human(*late);
            let name = n.of_name(of);
            if *armed_late {
                format!(
                    "{name}'s timer fired {late} late: it was armed after its expiry ({name} was late already; {d} on the path)"
                )
            } else {
                let who = ran.as_ref().map_or_else(
                    || format!("no {}", if n.rtos { "task" } else { "thread" }),
                    |r| n.by(r),
                );
                format!(
                    "{name}'s timer fired {late} late: {} ran {who} ({d} on the path)",
                    n.cpu(*cpu)
                )
            }
        }
        Cause::Interrupt { of, context } => {
            format!("{} waited {d} for {}", n.of_name(of), interrupt(context))
        }
        Cause::Packet {
            of,
            context,
            from,
            sent_by,
            sent_by_comm,
            sent,
            transit,
        } => format!(
            "{} waited {d}, woken by a packet from host {from} ({} at {} on the shared \
             timeline, {} before it arrived; {} woke it)",
            n.of_name(of),
            match (sent_by, sent_by_comm) {
                (None, _) => "sent".to_string(),
                (Some(t), Some(comm)) => format!("sent by {comm} {t}"),
                (Some(t), None) => format!("sent by thread {t}"),
            },
            seconds(*sent),
            human(*transit),
            interrupt(context)
        ),
        Cause::Blocked { of } => format!(
            "{} was blocked {d}, woken by nothing in the trace",
            n.of_name(of)
        ),
        Cause::Timer { of } => format!("{} waited {d} for its timer", n.of_name(of)),
        Cause::Work { of } => format!("{} ran {d}", n.of_name(of)),
        Cause::Serving { of, waiter } => format!(
            "{} ran {d} while {} waited for it",
            n.of_name(of),
            n.other(waiter, false)
        ),
        Cause::Creating { of, child, others } => match others {
            0 => format!(
                "{} ran {d} creating {}",
                n.of_name(of),
                n.other(child, false)
            ),
            k => format!(
                "{} ran {d} creating {} and {k} other thread{} before it",
                n.of_name(of),
                n.other(child, false),
                if *k == 1 { "" } else { "s" }
            ),
        },
        Cause::Unknown { of } => format!("the trace says nothing of {} for {d}", n.of_name(of)),
        Cause::Lost { of, cpu, events, .. } => {
            let lost = match events {
                Some(1) => "1 event".to_string(),
                Some(k) => format!("{k} events"),
                None => "events".to_string(),
            };
            format!(
                "{} waited {d} for {}: unknown (the trace lost {lost} here)",
                n.of(of),
                n.cpu(*cpu)
            )
        }
    }
}

fn interrupt(c: &Context) -> String {
    match c {
        Context::Irq { irq } => format!("interrupt {irq}"),
        Context::Softirq { vec } => format!("softirq {vec}"),
        _ => "an interrupt not in the trace".to_string(),
    }
}

/// A time as seconds to the nanosecond: "1361214092.782447545 s".
fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:09} s", a / 1_000_000_000, a % 1_000_000_000)
}

/// The diagnosis's line for its main cause. An inversion through one
/// waited-on thread by several threads is their sum: rt_med1 and rt_med2
/// together kept rt_low, and so rt_high, from running.
pub(super) fn main_line(main: &Ranked, causes: &[Ranked]) -> String {
    let Cause::Inversion { of, analysed, .. } = &main.cause else {
        return main.text.clone();
    };
    let chain: Vec<&Ranked> = causes
        .iter()
        .filter(|c| match &c.cause {
            Cause::Inversion {
                of: o, analysed: a, ..
            } => o.tid == of.tid && a.tid == analysed.tid,
            _ => false,
        })
        .collect();
    if chain.len() < 2 {
        return main.text.clone();
    }
    let total: i64 = chain.iter().map(|c| c.cost).sum();
    let who: Vec<String> = chain
        .iter()
        .filter_map(|c| match &c.cause {
            Cause::Inversion { by, .. } => Some(format!("{} for {}", by.named(), human(c.cost))),
            _ => None,
        })
        .collect();
    format!(
        "{} preempted {}, {} in all, while {} waited on it: priority inversion (each is lower than {})",
        join(&who),
        of.named(),
        human(total),
        analysed.named(),
        analysed.priority
    )
}

/// "a", "a and b", "a, b and c".
fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
