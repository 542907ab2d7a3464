//! POSIX message queues: who waits to send or receive on each queue, and
//! whether the queue is full (a sender blocked in `mq_timedsend`, or one
//! failing with EAGAIN / ETIMEDOUT) or empty (the same for a receiver).
//! A thread that entered the call and has not returned is waiting; one
//! switched out blocked inside it found the queue full (sender) or empty
//! (receiver).

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::clip::Range;
use crate::kernel::fields::Payload;
use crate::kernel::vocabulary::names;

const EAGAIN: i64 = 11;
const ETIMEDOUT: i64 = 110;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MqState {
    /// Threads in `mq_timedsend`, none blocked.
    SendersWaiting,
    /// A sender is blocked: the queue is full.
    QueueFullWhileSenders,
    /// A receiver is blocked: the queue is empty.
    QueueEmptyWhileReceivers,
    /// Threads in `mq_timedreceive`, none blocked.
    ReceiversWaiting,
}

/// A queue: its descriptor within a process (the process when known).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct QueueId {
    pub pid: Option<i64>,
    pub mqdes: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MqInterval {
    pub queue: QueueId,
    pub state: MqState,
    pub start: i64,
    pub end: i64,
    pub senders: Vec<i64>,
    pub receivers: Vec<i64>,
}

/// A call that failed because the queue was full or empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MqFailure {
    pub queue: QueueId,
    pub ts: i64,
    pub tid: i64,
    pub state: MqState,
    pub errno: i64,
}

pub const EVENTS: [&str; 4] = [
    names::MQ_SEND_ENTRY,
    names::MQ_SEND_EXIT,
    names::MQ_RECEIVE_ENTRY,
    names::MQ_RECEIVE_EXIT,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Send,
    Receive,
}

#[derive(Debug, Clone, Copy)]
struct Call {
    queue: QueueId,
    side: Side,
    blocked: bool,
}

/// A queue's current interval, while someone waits: every thread that
/// waited during it.
#[derive(Debug)]
struct Open {
    state: MqState,
    since: i64,
    senders: Vec<i64>,
    receivers: Vec<i64>,
}

#[derive(Debug)]
pub struct Queues {
    range: Range,
    calls: HashMap<i64, Call>,
    queues: HashMap<QueueId, Open>,
    pub intervals: Vec<MqInterval>,
    pub failures: Vec<MqFailure>,
}

impl Queues {
    pub fn new(range: Range) -> Queues {
        Queues {
            range,
            calls: HashMap::default(),
            queues: HashMap::default(),
            intervals: Vec::new(),
            failures: Vec::new(),
        }
    }

    pub fn event(
        &mut self,
        ts: i64,
        name: &str,
        p: &Payload<'_>,
        tid: Option<i64>,
        pid: Option<i64>,
    ) {
        let Some(tid) = tid else { return };
        let (side, entry) = match name {
            names::MQ_SEND_ENTRY => (Side::Send, true),
            names::MQ_SEND_EXIT => (Side::Send, false),
            names::MQ_RECEIVE_ENTRY => (Side::Receive, true),
            names::MQ_RECEIVE_EXIT => (Side::Receive, false),
            _ => return,
        };
        if entry {
            let Some(mqdes) = p.int("mqdes") else { return };
            let queue = QueueId { pid, mqdes };
            self.calls.insert(
                tid,
                Call {
                    queue,
                    side,
                    blocked: false,
                },
            );
            self.update(queue, ts);
            return;
        }
        let Some(call) = self.calls.remove(&tid).filter(|c| c.side == side) else {
            return;
        };
        if let Some(errno) = p.int("ret").filter(|r| *r < 0).map(|r| -r) {
            if (errno == EAGAIN || errno == ETIMEDOUT) && self.range.contains(ts) {
                self.failures.push(MqFailure {
                    queue: call.queue,
                    ts,
                    tid,
                    state: match side {
                        Side::Send => MqState::QueueFullWhileSenders,
                        Side::Receive => MqState::QueueEmptyWhileReceivers,
                    },
                    errno,
                });
            }
        }
        self.update(call.queue, ts);
    }

    /// A thread changed state (from the model): blocked inside a call means
    /// the queue was full or empty; running again means it was served.
    pub fn thread_state(&mut self, tid: i64, blocked: bool, ts: i64) {
        let Some(call) = self.calls.get_mut(&tid) else {
            return;
        };
        if call.blocked != blocked {
            call.blocked = blocked;
            let q = call.queue;
            self.update(q, ts);
        }
    }

    fn waiting(&self, queue: QueueId) -> (Vec<i64>, Vec<i64>, bool, bool) {
        let (mut senders, mut receivers) = (Vec::new(), Vec::new());
        let (mut full, mut empty) = (false, false);
        for (tid, c) in self.calls.iter().filter(|(_, c)| c.queue == queue) {
            match c.side {
                Side::Send => {
                    senders.push(*tid);
                    full |= c.blocked;
                }
                Side::Receive => {
                    receivers.push(*tid);
                    empty |= c.blocked;
                }
            }
        }
        senders.sort_unstable();
        receivers.sort_unstable();
        (senders, receivers, full, empty)
    }

    fn state(&self, queue: QueueId) -> Option<MqState> {
        let (senders, receivers, full, empty) = self.waiting(queue);
        Some(if full {
            MqState::QueueFullWhileSenders
        } else if empty {
            MqState::QueueEmptyWhileReceivers
        } else if !senders.is_empty() {
            MqState::SendersWaiting
        } else if !receivers.is_empty() {
            MqState::ReceiversWaiting
        } else {
            return None;
        })
    }

    /// Recomputes a queue's state at `ts`; a change ends the interval.
    fn update(&mut self, queue: QueueId, ts: i64) {
        let (senders, receivers, _, _) = self.waiting(queue);
        let now = self.state(queue);
        if let Some(o) = self.queues.get_mut(&queue) {
            if Some(o.state) == now {
                merge(&mut o.senders, &senders);
                merge(&mut o.receivers, &receivers);
                return;
            }
        }
        if let Some(o) = self.queues.remove(&queue) {
            self.close(queue, o, ts);
        }
        if let Some(state) = now {
            self.queues.insert(
                queue,
                Open {
                    state,
                    since: ts,
                    senders,
                    receivers,
                },
            );
        }
    }

    fn close(&mut self, queue: QueueId, o: Open, ts: i64) {
        if let Some((start, end)) = self.range.clip(o.since, ts) {
            self.intervals.push(MqInterval {
                queue,
                state: o.state,
                start,
                end,
                senders: o.senders,
                receivers: o.receivers,
            });
        }
    }

    pub fn finish(&mut self) {
        let end = self.range.end;
        let open: Vec<(QueueId, Open)> = self.queues.drain().collect();
        for (queue, o) in open {
            self.close(queue, o, end);
        }
        self.intervals.sort_by_key(|i| (i.start, i.queue));
    }
}

/// Adds to a sorted list the tids it lacks.
fn merge(into: &mut Vec<i64>, from: &[i64]) {
    for t in from {
        if let Err(i) = into.binary_search(t) {
            into.insert(i, *t);
        }
    }
}
