//! Begin/end pairs the vocabulary knows (`syscall_entry_X` / `syscall_exit_X`,
//! irq, softirq and hrtimer callback entry / exit), and the orders of them
//! that one thread cannot produce within one job.
//!
//! An episode holds each event type once: read as one job, each of its
//! system calls is made once. Then
//! - an exit before the entry of the same call means the job starts inside
//!   one call and ends inside the next: only the call that delimits the job
//!   (a periodic task's sleep: `syscall_exit_clock_nanosleep` ...
//!   `syscall_entry_clock_nanosleep`) can do that, and no other call's event
//!   may come before its exit or after its entry (a thread is in one system
//!   call at a time);
//! - between a call's entry and its exit, no other call's event;
//! - an interrupt-context section (irq, softirq, hrtimer callback) never ends
//!   before it begins: a job does not start inside a handler.
//!
//! MANEPI finds such orders anyway: its occurrences are subsequences, so an
//! exit taken from one call and an entry from a later one read as one.
//!
//! Enforced while mining, not by filtering the maximal episodes afterwards:
//! every rule is about the relative order of events the episode holds, so an
//! episode that breaks one is only ever grown into episodes that break it
//! too, and its admissible sub-episodes are what should be reported in its
//! place. A filter after the search would drop a maximal episode without
//! bringing back those (they were not maximal, being part of it), and would
//! leave the search to grow every inadmissible branch: pruning does less work
//! and keeps maximality meaning "among admissible episodes" (every
//! sub-episode of an admissible one is admissible, so `maximal`'s
//! one-insertion test still decides).

use std::collections::HashMap;

use crate::kernel::vocabulary::names;

/// What an event type is to the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Other,
    /// A system call's entry (`begin`) or exit; `call` names the call.
    Call {
        call: u32,
        begin: bool,
    },
    /// An interrupt-context section's entry or exit; `kind`: irq, softirq or
    /// hrtimer callback.
    Handler {
        kind: u8,
        begin: bool,
    },
}

/// Interrupt-context sections: entry and exit names.
const HANDLERS: [(&str, &str); 3] = [
    (names::IRQ_HANDLER_ENTRY, names::IRQ_HANDLER_EXIT),
    (names::SOFTIRQ_ENTRY, names::SOFTIRQ_EXIT),
    (names::HRTIMER_EXPIRE_ENTRY, names::HRTIMER_EXPIRE_EXIT),
];

/// The system call an event enters (`true`) or leaves, if any.
pub fn call_of(name: &str) -> Option<(&str, bool)> {
    if let Some(call) = name.strip_prefix(names::SYSCALL_ENTRY) {
        return Some((call, true));
    }
    name.strip_prefix(names::SYSCALL_EXIT)
        .map(|call| (call, false))
}

/// When `events` is read as a job delimited by a call (it starts with the
/// call's exit and holds its entry later): the entry's index.
pub fn delimiter(events: &[String]) -> Option<usize> {
    let (call, false) = call_of(events.first()?)? else {
        return None;
    };
    events.iter().position(|e| call_of(e) == Some((call, true)))
}

/// The roles of the mined event types (dense ids).
pub(super) struct Pairs {
    roles: Vec<Role>,
}

impl Pairs {
    pub fn new<'a>(types: impl Iterator<Item = &'a str>) -> Pairs {
        let mut calls: HashMap<&str, u32> = HashMap::new();
        let roles = types
            .map(|name| {
                if let Some((call, begin)) = call_of(name) {
                    let next = calls.len() as u32;
                    let call = *calls.entry(call).or_insert(next);
                    return Role::Call { call, begin };
                }
                HANDLERS
                    .iter()
                    .enumerate()
                    .find_map(|(kind, (entry, exit))| {
                        let kind = kind as u8;
                        (name == *entry)
                            .then_some(Role::Handler { kind, begin: true })
                            .or((name == *exit).then_some(Role::Handler { kind, begin: false }))
                    })
                    .unwrap_or(Role::Other)
            })
            .collect();
        Pairs { roles }
    }

    /// What the rules need to know of `episode` (admissible) to decide on
    /// each extension at its end.
    pub fn context(&self, episode: &[u32]) -> Context<'_> {
        let mut cx = Context {
            pairs: self,
            delimited: false,
            exits: Vec::new(),
            entries: Vec::new(),
            handler_ends: 0,
            calls_seen: false,
        };
        for &t in episode {
            match self.roles[t as usize] {
                Role::Other => {}
                Role::Handler { kind, begin } => {
                    if !begin {
                        cx.handler_ends |= 1 << kind;
                    }
                }
                Role::Call { call, begin } => {
                    for e in &mut cx.entries {
                        e.1 = true;
                    }
                    if begin {
                        cx.delimited |= cx.exits.iter().any(|&(c, _)| c == call);
                        cx.entries.push((call, false));
                    } else {
                        cx.exits.push((call, cx.calls_seen));
                    }
                    cx.calls_seen = true;
                }
            }
        }
        cx
    }
}

/// An admissible episode, as the rules see it.
pub(super) struct Context<'a> {
    pairs: &'a Pairs,
    /// It holds a call's exit and, later, its entry: it ends inside that
    /// call, where no other call can be made.
    delimited: bool,
    /// Calls whose exit it holds, and whether another call's event comes
    /// before that exit.
    exits: Vec<(u32, bool)>,
    /// Calls whose entry it holds, and whether another call's event comes
    /// after that entry.
    entries: Vec<(u32, bool)>,
    /// Bit `kind` set: it holds that section's exit.
    handler_ends: u8,
    /// It holds a system call's event.
    calls_seen: bool,
}

impl Context<'_> {
    /// Whether the episode followed by type `e` is admissible.
    pub fn admits(&self, e: u32) -> bool {
        match self.pairs.roles[e as usize] {
            Role::Other => true,
            Role::Handler { kind, begin } => !begin || self.handler_ends & (1 << kind) == 0,
            Role::Call { .. } if self.delimited => false,
            // Entering a call left before: that call delimits the job, so
            // no other call may come before its exit.
            Role::Call { call, begin: true } => {
                !self.exits.iter().any(|&(c, other)| c == call && other)
            }
            // Leaving a call entered before: nothing of another call inside.
            Role::Call { call, begin: false } => {
                !self.entries.iter().any(|&(c, other)| c == call && other)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `pattern`, grown one type at a time, stays admissible.
    fn admissible(pattern: &[&str]) -> bool {
        let mut names: Vec<&str> = pattern.to_vec();
        names.sort_unstable();
        names.dedup();
        let pairs = Pairs::new(names.iter().copied());
        let ids: Vec<u32> = pattern
            .iter()
            .map(|p| names.iter().position(|n| n == p).unwrap() as u32)
            .collect();
        (0..ids.len()).all(|i| pairs.context(&ids[..i]).admits(ids[i]))
    }

    #[test]
    fn a_job_between_two_calls_of_its_sleep() {
        let job = [
            "syscall_exit_clock_nanosleep",
            "syscall_entry_write",
            "sched_waking",
            "syscall_exit_write",
            "syscall_entry_clock_nanosleep",
            "hrtimer_start",
            "sched_switch",
        ];
        assert!(admissible(&job));
        let (exit, entry) = (job[0].to_string(), job[4].to_string());
        let events: Vec<String> = job.iter().map(|e| e.to_string()).collect();
        assert_eq!(delimiter(&events), Some(4));
        assert_eq!(delimiter(&[entry, exit]), None);
    }

    #[test]
    fn exits_before_entries_that_no_job_has() {
        // Another call before the delimiting call's exit, or after its entry.
        assert!(!admissible(&[
            "syscall_exit_write",
            "syscall_exit_read",
            "syscall_entry_read"
        ]));
        assert!(!admissible(&[
            "syscall_exit_read",
            "syscall_entry_read",
            "syscall_entry_write"
        ]));
        // Two calls each left before being entered.
        assert!(!admissible(&[
            "syscall_exit_read",
            "syscall_exit_write",
            "syscall_entry_write",
            "syscall_entry_read"
        ]));
        // A call inside another.
        assert!(!admissible(&[
            "syscall_entry_read",
            "syscall_entry_write",
            "syscall_exit_read"
        ]));
        assert!(!admissible(&[
            "syscall_entry_read",
            "syscall_exit_write",
            "syscall_exit_read"
        ]));
        // Handlers never end before they begin; they may come anywhere.
        for (entry, exit) in HANDLERS {
            assert!(!admissible(&[exit, "sched_switch", entry]), "{exit}");
            assert!(admissible(&[entry, exit]), "{entry}");
            assert!(admissible(&[
                "syscall_entry_read",
                entry,
                exit,
                "syscall_exit_read"
            ]));
        }
        // Calls one after the other, or one left and another entered.
        assert!(admissible(&[
            "syscall_entry_read",
            "syscall_exit_read",
            "syscall_entry_write",
            "syscall_exit_write"
        ]));
        assert!(admissible(&["syscall_exit_read", "syscall_entry_write"]));
    }
}
