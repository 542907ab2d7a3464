//! Futexes: who waits on each futex word, and who wakes it. From the futex
//! syscalls (`futex` with its `op`, and the newer `futex_wait` /
//! `futex_wake`): a waiter enters a wait operation and is waiting until its
//! call returns; a wake is recorded when its call returns (`ret`: how many it
//! woke).

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::clip::Range;
use crate::kernel::fields::Payload;
use crate::kernel::vocabulary::names;

/// `FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME`: not part of the operation.
const OP_FLAGS: i64 = 128 | 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Wait,
    Wake,
    Other,
}

fn op_of(op: i64) -> Op {
    match op & !OP_FLAGS {
        // WAIT, LOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2
        0 | 6 | 9 | 11 | 13 => Op::Wait,
        // WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, UNLOCK_PI, WAKE_BITSET
        1 | 3 | 4 | 5 | 7 | 10 => Op::Wake,
        _ => Op::Other,
    }
}

/// A futex word with the same waiters over [start, end].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FutexWait {
    pub uaddr: u64,
    pub start: i64,
    pub end: i64,
    /// In the order they started waiting.
    pub waiters: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FutexWake {
    pub uaddr: u64,
    /// When the wake call was made.
    pub ts: i64,
    pub waker: i64,
    /// Threads woken (the call's return value), when it succeeded.
    pub woken: Option<i64>,
}

pub const EVENTS: [&str; 6] = [
    names::FUTEX_ENTRY,
    names::FUTEX_EXIT,
    names::FUTEX_WAIT_ENTRY,
    names::FUTEX_WAIT_EXIT,
    names::FUTEX_WAKE_ENTRY,
    names::FUTEX_WAKE_EXIT,
];

#[derive(Debug)]
struct Word {
    waiters: Vec<i64>,
    since: i64,
}

#[derive(Debug)]
pub struct Futexes {
    range: Range,
    words: HashMap<u64, Word>,
    /// Calls under way, by thread: (uaddr, operation, entry time).
    calls: HashMap<i64, (u64, Op, i64)>,
    pub waits: Vec<FutexWait>,
    pub wakes: Vec<FutexWake>,
}

impl Futexes {
    pub fn new(range: Range) -> Futexes {
        Futexes {
            range,
            words: HashMap::default(),
            calls: HashMap::default(),
            waits: Vec::new(),
            wakes: Vec::new(),
        }
    }

    pub fn event(&mut self, ts: i64, name: &str, p: &Payload<'_>, tid: Option<i64>) {
        let Some(tid) = tid else { return };
        let entry = match name.strip_prefix(names::SYSCALL_ENTRY) {
            Some("futex") => p.int("op").map(op_of),
            Some("futex_wait") => Some(Op::Wait),
            Some("futex_wake") => Some(Op::Wake),
            _ => None,
        };
        if let Some(op) = entry {
            let Some(uaddr) = p.uint("uaddr") else { return };
            self.calls.insert(tid, (uaddr, op, ts));
            if op == Op::Wait {
                self.change(uaddr, ts, |w| w.push(tid));
            }
            return;
        }
        let Some((uaddr, op, at)) = self.calls.remove(&tid) else {
            return;
        };
        match op {
            Op::Wait => self.change(uaddr, ts, |w| w.retain(|t| *t != tid)),
            Op::Wake if self.range.contains(at) => self.wakes.push(FutexWake {
                uaddr,
                ts: at,
                waker: tid,
                woken: p.int("ret").filter(|r| *r >= 0),
            }),
            _ => {}
        }
    }

    /// Changes a word's waiters: the interval with the old list ends.
    fn change(&mut self, uaddr: u64, ts: i64, f: impl FnOnce(&mut Vec<i64>)) {
        let word = self.words.entry(uaddr).or_insert(Word {
            waiters: Vec::new(),
            since: ts,
        });
        let before = word.waiters.clone();
        f(&mut word.waiters);
        if word.waiters == before {
            return;
        }
        if !before.is_empty() {
            if let Some((start, end)) = self.range.clip(word.since, ts) {
                self.waits.push(FutexWait {
                    uaddr,
                    start,
                    end,
                    waiters: before,
                });
            }
        }
        word.since = ts;
        if word.waiters.is_empty() {
            self.words.remove(&uaddr);
        }
    }

    pub fn finish(&mut self) {
        let end = self.range.end;
        for (uaddr, w) in self.words.drain() {
            if let Some((start, end)) = self.range.clip(w.since, end) {
                self.waits.push(FutexWait {
                    uaddr,
                    start,
                    end,
                    waiters: w.waiters,
                });
            }
        }
        self.waits.sort_by_key(|w| (w.start, w.uaddr));
        self.wakes.sort_by_key(|w| (w.ts, w.uaddr));
    }
}
