//! Kernel facilities over a range (the Extended Time View): hrtimers,
//! futexes and POSIX message queues, each a state machine fed by the single
//! pass. The pass may start before the range (a replay after a seek) so the
//! machines know the state at its start; only what overlaps the range is
//! kept, cut to it.

mod clip;
pub mod futex;
pub mod hrtimer;
pub mod mq;

use serde::Serialize;

pub use clip::Range;
use futex::Futexes;
use hrtimer::Timers;
use mq::Queues;

use crate::kernel::model::{KEvent, KernelModel, ThreadState};
use crate::kernel::pass::Analysis;

/// What the facilities did in the range.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Facilities {
    pub hrtimers: Vec<hrtimer::TimerInterval>,
    pub futex_waits: Vec<futex::FutexWait>,
    pub futex_wakes: Vec<futex::FutexWake>,
    pub mq: Vec<mq::MqInterval>,
    pub mq_failures: Vec<mq::MqFailure>,
}

pub struct FacilitiesAnalysis {
    timers: Timers,
    futexes: Futexes,
    queues: Queues,
    end: i64,
    finished: bool,
}

impl FacilitiesAnalysis {
    pub fn new(range: Range) -> FacilitiesAnalysis {
        FacilitiesAnalysis {
            timers: Timers::new(range),
            futexes: Futexes::new(range),
            queues: Queues::new(range),
            end: range.end,
            finished: false,
        }
    }

    pub fn into_facilities(self) -> Facilities {
        Facilities {
            hrtimers: self.timers.intervals,
            futex_waits: self.futexes.waits,
            futex_wakes: self.futexes.wakes,
            mq: self.queues.intervals,
            mq_failures: self.queues.failures,
        }
    }
}

impl Analysis for FacilitiesAnalysis {
    fn wants(&self, canonical: &str) -> bool {
        hrtimer::EVENTS.contains(&canonical)
            || futex::EVENTS.contains(&canonical)
            || mq::EVENTS.contains(&canonical)
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel) {
        if self.finished {
            return;
        }
        if ev.ts > self.end {
            self.finish(model, self.end);
            return;
        }
        for tr in model.transitions() {
            match tr.to {
                ThreadState::Blocked => self.queues.thread_state(tr.tid, true, tr.ts),
                ThreadState::Running => self.queues.thread_state(tr.tid, false, tr.ts),
                _ => {}
            }
        }
        let name = ev.name;
        if hrtimer::EVENTS.contains(&name) {
            self.timers.event(ev.ts, name, &ev.payload);
        } else if futex::EVENTS.contains(&name) {
            self.futexes.event(ev.ts, name, &ev.payload, thread);
        } else if mq::EVENTS.contains(&name) {
            let pid = thread.and_then(|t| model.thread(t)).and_then(|t| t.pid);
            self.queues.event(ev.ts, name, &ev.payload, thread, pid);
        }
    }

    fn finish(&mut self, _model: &KernelModel, _end: i64) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.timers.finish();
        self.futexes.finish();
        self.queues.finish();
    }

    fn done(&self) -> bool {
        self.finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::fields::{Fields, Payload};
    use crate::value::{Scalar, Sink};

    /// A payload of integer fields.
    struct P {
        names: Vec<Box<str>>,
        fields: Fields,
    }

    impl P {
        fn new(pairs: &[(&str, i64)]) -> P {
            let mut fields = Fields::default();
            {
                let mut s = fields.sink();
                s.open(None, false);
                for (_, v) in pairs {
                    s.scalar(None, Scalar::Signed(*v));
                }
                s.close(false);
            }
            P {
                names: pairs.iter().map(|(n, _)| (*n).into()).collect(),
                fields,
            }
        }

        fn get(&self) -> Payload<'_> {
            Payload {
                names: &self.names,
                fields: &self.fields,
            }
        }
    }

    const R: Range = Range {
        start: 100,
        end: 200,
    };

    #[test]
    fn hrtimer_states() {
        let mut t = Timers::new(R);
        let ev = |t: &mut Timers, ts, name, fields: &[(&str, i64)]| {
            let p = P::new(fields);
            t.event(ts, name, &p.get());
        };
        ev(&mut t, 50, "hrtimer_init", &[("hrtimer", 7)]);
        ev(
            &mut t,
            110,
            "hrtimer_start",
            &[("hrtimer", 7), ("function", 99), ("expires", 150)],
        );
        ev(
            &mut t,
            150,
            "hrtimer_expire_entry",
            &[("hrtimer", 7), ("now", 150)],
        );
        ev(&mut t, 152, "hrtimer_expire_exit", &[("hrtimer", 7)]);
        ev(
            &mut t,
            160,
            "hrtimer_start",
            &[("hrtimer", 7), ("function", 99), ("expires", 300)],
        );
        ev(&mut t, 170, "hrtimer_cancel", &[("hrtimer", 7)]);
        ev(
            &mut t,
            120,
            "hrtimer_start",
            &[("hrtimer", -4096), ("function", 1), ("expires", 500)],
        );
        t.finish();
        let got: Vec<(u64, &str, i64, i64, Option<i64>)> = t
            .intervals
            .iter()
            .map(|i| {
                let s = match i.state {
                    hrtimer::TimerState::Init => "INIT",
                    hrtimer::TimerState::Start => "START",
                    hrtimer::TimerState::Expired => "EXPIRED",
                    hrtimer::TimerState::Cancel => "CANCEL",
                };
                (i.timer, s, i.start, i.end, i.expires)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (7, "INIT", 100, 110, None),
                (7, "START", 110, 150, Some(150)),
                (0xffff_ffff_ffff_f000, "START", 120, 200, Some(500)),
                (7, "EXPIRED", 150, 152, Some(150)),
                (7, "START", 160, 170, Some(300)),
                (7, "CANCEL", 170, 200, None),
            ]
        );
        assert_eq!(t.intervals[1].function, Some(99));
    }

    #[test]
    fn futex_waiters_and_wakes() {
        let mut f = Futexes::new(R);
        let ev = |f: &mut Futexes, ts, name, tid, fields: &[(&str, i64)]| {
            let p = P::new(fields);
            f.event(ts, name, &p.get(), Some(tid));
        };
        // Thread 1 waits from before the range (the replay tells), 2 joins
        // (FUTEX_WAIT_BITSET | PRIVATE), 3 wakes one (FUTEX_WAKE | PRIVATE).
        ev(
            &mut f,
            90,
            "syscall_entry_futex",
            1,
            &[("uaddr", 0x10), ("op", 128)],
        );
        ev(
            &mut f,
            120,
            "syscall_entry_futex",
            2,
            &[("uaddr", 0x10), ("op", 9 | 128)],
        );
        ev(
            &mut f,
            130,
            "syscall_entry_futex",
            3,
            &[("uaddr", 0x10), ("op", 1 | 128)],
        );
        ev(&mut f, 131, "syscall_exit_futex", 3, &[("ret", 1)]);
        ev(&mut f, 135, "syscall_exit_futex", 1, &[("ret", 0)]);
        // Not a wait: FUTEX_CMP_REQUEUE_PI (12) is neither.
        ev(
            &mut f,
            140,
            "syscall_entry_futex",
            4,
            &[("uaddr", 0x20), ("op", 12)],
        );
        ev(&mut f, 141, "syscall_exit_futex", 4, &[("ret", 0)]);
        ev(
            &mut f,
            150,
            "syscall_entry_futex_wait",
            5,
            &[("uaddr", 0x30)],
        );
        f.finish();
        let waits: Vec<(u64, i64, i64, Vec<i64>)> = f
            .waits
            .iter()
            .map(|w| (w.uaddr, w.start, w.end, w.waiters.clone()))
            .collect();
        assert_eq!(
            waits,
            vec![
                (0x10, 100, 120, vec![1]),
                (0x10, 120, 135, vec![1, 2]),
                (0x10, 135, 200, vec![2]),
                (0x30, 150, 200, vec![5]),
            ]
        );
        assert_eq!(
            f.wakes,
            vec![futex::FutexWake {
                uaddr: 0x10,
                ts: 130,
                waker: 3,
                woken: Some(1)
            }]
        );
    }

    #[test]
    fn mq_states() {
        use mq::MqState::*;
        let mut q = Queues::new(R);
        let ev = |q: &mut Queues, ts, name, tid, fields: &[(&str, i64)]| {
            let p = P::new(fields);
            q.event(ts, name, &p.get(), Some(tid), Some(9));
        };
        // Receiver 1 enters at 110 and blocks (empty queue) at 112; sender 2
        // sends at 120 (returns 121); 1 runs at 125 and returns at 126.
        ev(
            &mut q,
            110,
            "syscall_entry_mq_timedreceive",
            1,
            &[("mqdes", 3)],
        );
        q.thread_state(1, true, 112);
        ev(
            &mut q,
            120,
            "syscall_entry_mq_timedsend",
            2,
            &[("mqdes", 3)],
        );
        ev(&mut q, 121, "syscall_exit_mq_timedsend", 2, &[("ret", 0)]);
        q.thread_state(1, false, 125);
        ev(
            &mut q,
            126,
            "syscall_exit_mq_timedreceive",
            1,
            &[("ret", 64)],
        );
        // Sender 3 blocks on a full queue at 141 and times out at 160.
        ev(
            &mut q,
            140,
            "syscall_entry_mq_timedsend",
            3,
            &[("mqdes", 4)],
        );
        q.thread_state(3, true, 141);
        ev(
            &mut q,
            160,
            "syscall_exit_mq_timedsend",
            3,
            &[("ret", -110)],
        );
        q.finish();
        type Row = (i64, mq::MqState, i64, i64, Vec<i64>, Vec<i64>);
        let got: Vec<Row> = q
            .intervals
            .iter()
            .map(|i| {
                (
                    i.queue.mqdes,
                    i.state,
                    i.start,
                    i.end,
                    i.senders.clone(),
                    i.receivers.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (3, ReceiversWaiting, 110, 112, vec![], vec![1]),
                (3, QueueEmptyWhileReceivers, 112, 125, vec![2], vec![1]),
                (3, ReceiversWaiting, 125, 126, vec![], vec![1]),
                (4, SendersWaiting, 140, 141, vec![3], vec![]),
                (4, QueueFullWhileSenders, 141, 160, vec![3], vec![]),
            ]
        );
        assert_eq!(q.failures.len(), 1);
        assert_eq!(
            (q.failures[0].tid, q.failures[0].errno, q.failures[0].state),
            (3, 110, QueueFullWhileSenders)
        );
    }
}
