//! Priorities as people set them. Traces give the kernel's `prio` (0..139,
//! smaller is more urgent): a SCHED_FIFO/RR thread of priority p is 99 - p,
//! a SCHED_OTHER thread of nice n is 120 + n, SCHED_DEADLINE is -1. Users
//! set "SCHED_FIFO 70" or "nice 5", never 29 or 125, so a kernel number is
//! always shown with the value it stands for, and comparisons go through
//! `is_higher_than` so that "higher" means more urgent everywhere.

use std::cmp::Ordering;
use std::fmt;

use serde::Serialize;

/// A scheduling policy, when the trace says which (a `sched_setscheduler`
/// call in the range): FIFO and RR share their priority range, so a
/// priority alone cannot tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Policy {
    Other,
    Fifo,
    Rr,
    Batch,
    Idle,
    Deadline,
}

impl Policy {
    /// From the `policy` argument of `sched_setscheduler` (the
    /// SCHED_RESET_ON_FORK flag masked off).
    pub fn from_syscall(policy: i64) -> Option<Policy> {
        const RESET_ON_FORK: i64 = 0x4000_0000;
        Some(match policy & !RESET_ON_FORK {
            0 => Policy::Other,
            1 => Policy::Fifo,
            2 => Policy::Rr,
            3 => Policy::Batch,
            5 => Policy::Idle,
            6 => Policy::Deadline,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Policy::Other => "SCHED_OTHER",
            Policy::Fifo => "SCHED_FIFO",
            Policy::Rr => "SCHED_RR",
            Policy::Batch => "SCHED_BATCH",
            Policy::Idle => "SCHED_IDLE",
            Policy::Deadline => "SCHED_DEADLINE",
        }
    }

    fn is_real_time(self) -> bool {
        matches!(self, Policy::Fifo | Policy::Rr)
    }
}

/// A kernel-order priority (what `sched_switch` reports, LTTng's -100
/// offset removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Priority(pub i32);

impl Priority {
    /// More urgent than `other`: a smaller kernel number.
    pub fn is_higher_than(self, other: Priority) -> bool {
        self.0 < other.0
    }

    /// Higher (`Greater`), the same, or lower than `other`, in urgency.
    pub fn urgency(self, other: Priority) -> Ordering {
        other.0.cmp(&self.0)
    }

    /// The value as set with `chrt` / `nice`, with the policy when known.
    pub fn user(self, policy: Option<Policy>) -> UserPriority {
        UserPriority { prio: self, policy }
    }
}

/// A priority written as its user set it: "SCHED_FIFO 70" (policy known),
/// "FIFO/RR 70" (real-time, policy not in the trace), "nice 5",
/// "SCHED_DEADLINE".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserPriority {
    pub prio: Priority,
    pub policy: Option<Policy>,
}

impl fmt::Display for UserPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.prio.0;
        let policy = self.policy;
        match p {
            i32::MIN..=-1 => f.write_str("SCHED_DEADLINE"),
            0..=98 => {
                let rt = 99 - p;
                match policy.filter(|x| x.is_real_time()) {
                    Some(x) => write!(f, "{} {rt}", x.name()),
                    None => write!(f, "FIFO/RR {rt}"),
                }
            }
            100..=139 => {
                let nice = p - 120;
                match policy.filter(|x| matches!(x, Policy::Batch | Policy::Idle)) {
                    Some(x) => write!(f, "{} nice {nice}", x.name()),
                    None => write!(f, "nice {nice}"),
                }
            }
            _ => write!(f, "kernel prio {p}"),
        }
    }
}

/// "FIFO/RR 70", or "?" when the priority is not known.
pub fn describe(prio: Option<i32>, policy: Option<Policy>) -> String {
    prio.map_or_else(|| "?".to_string(), |p| Priority(p).user(policy).to_string())
}

/// A table's cell: the priority as its user set it with the kernel number
/// beside it ("FIFO/RR 60 (39)", "nice 0 (120)"; tables say "(kernel)" in
/// their header), an RTOS task's "priority N", empty when not known.
pub fn cell(prio: Option<i32>, rtos: bool) -> String {
    match prio {
        None => String::new(),
        Some(_) if rtos => describe_task(prio),
        Some(p @ (i32::MIN..=-1 | 0..=98 | 100..=139)) => {
            format!("{} ({p})", Priority(p).user(None))
        }
        Some(p) => Priority(p).user(None).to_string(),
    }
}

/// An RTOS task's priority (a BTF `pri:N` note, kept in kernel order as
/// 99 - N) as its user set it: "priority N". No Linux policy applies.
pub fn describe_task(prio: Option<i32>) -> String {
    prio.map_or_else(|| "?".to_string(), |p| format!("priority {}", 99 - p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_values() {
        assert_eq!(Priority(29).user(None).to_string(), "FIFO/RR 70");
        assert_eq!(
            Priority(29).user(Some(Policy::Fifo)).to_string(),
            "SCHED_FIFO 70"
        );
        assert_eq!(
            Priority(0).user(Some(Policy::Rr)).to_string(),
            "SCHED_RR 99"
        );
        assert_eq!(Priority(98).user(None).to_string(), "FIFO/RR 1");
        assert_eq!(Priority(120).user(None).to_string(), "nice 0");
        assert_eq!(Priority(125).user(None).to_string(), "nice 5");
        assert_eq!(Priority(100).user(None).to_string(), "nice -20");
        // A FIFO policy on a normal priority is stale (the policy changed
        // since): the number wins.
        assert_eq!(Priority(120).user(Some(Policy::Fifo)).to_string(), "nice 0");
        assert_eq!(
            Priority(139).user(Some(Policy::Idle)).to_string(),
            "SCHED_IDLE nice 19"
        );
        assert_eq!(Priority(-1).user(None).to_string(), "SCHED_DEADLINE");
        assert_eq!(cell(Some(39), false), "FIFO/RR 60 (39)");
        assert_eq!(cell(Some(120), false), "nice 0 (120)");
        assert_eq!(cell(Some(-1), false), "SCHED_DEADLINE (-1)");
        assert_eq!(cell(Some(99), false), "kernel prio 99");
        assert_eq!(cell(Some(94), true), "priority 5");
        assert_eq!(cell(None, false), "");
        assert_eq!(describe(None, None), "?");
    }

    #[test]
    fn higher_means_more_urgent() {
        let rogue = Priority(29); // FIFO 70
        let timer = Priority(39); // FIFO 60
        let batch = Priority(125); // nice 5
        assert!(rogue.is_higher_than(timer));
        assert!(!timer.is_higher_than(rogue));
        assert!(timer.is_higher_than(batch));
        assert!(Priority(-1).is_higher_than(Priority(0)));
        assert_eq!(rogue.urgency(timer), Ordering::Greater);
        assert_eq!(batch.urgency(timer), Ordering::Less);
        assert_eq!(timer.urgency(timer), Ordering::Equal);
    }

    #[test]
    fn policies_from_syscalls() {
        assert_eq!(Policy::from_syscall(1), Some(Policy::Fifo));
        assert_eq!(Policy::from_syscall(0x4000_0002), Some(Policy::Rr));
        assert_eq!(Policy::from_syscall(4), None);
    }
}
