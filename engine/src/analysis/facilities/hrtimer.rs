//! High-resolution timers: each timer's state over time, from its events
//! (`hrtimer_init` — `hrtimer_setup` on kernels >= 6.13, the same canonical
//! name —, `hrtimer_start`, `hrtimer_expire_entry`/`exit`, `hrtimer_cancel`).

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::clip::Range;
use crate::kernel::fields::Payload;
use crate::kernel::vocabulary::names;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TimerState {
    /// Initialised, not armed.
    Init,
    /// Armed, waiting to expire.
    Start,
    /// Expired: its callback runs.
    Expired,
    /// Cancelled (until armed again).
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimerInterval {
    /// The `struct hrtimer` address.
    pub timer: u64,
    pub state: TimerState,
    pub start: i64,
    pub end: i64,
    /// The callback's address, when an event said.
    pub function: Option<u64>,
    /// When it was set to expire (ns, the timer's clock), when armed.
    pub expires: Option<i64>,
}

#[derive(Debug, Clone, Copy)]
struct Open {
    state: TimerState,
    since: i64,
    function: Option<u64>,
    expires: Option<i64>,
}

pub const EVENTS: [&str; 5] = [
    names::HRTIMER_INIT,
    names::HRTIMER_START,
    names::HRTIMER_EXPIRE_ENTRY,
    names::HRTIMER_EXPIRE_EXIT,
    names::HRTIMER_CANCEL,
];

#[derive(Debug)]
pub struct Timers {
    range: Range,
    open: HashMap<u64, Open>,
    pub intervals: Vec<TimerInterval>,
}

impl Timers {
    pub fn new(range: Range) -> Timers {
        Timers {
            range,
            open: HashMap::default(),
            intervals: Vec::new(),
        }
    }

    pub fn event(&mut self, ts: i64, name: &str, p: &Payload<'_>) {
        let Some(timer) = p.uint("hrtimer") else {
            return;
        };
        let next = match name {
            names::HRTIMER_INIT => Some(TimerState::Init),
            names::HRTIMER_START => Some(TimerState::Start),
            names::HRTIMER_EXPIRE_ENTRY => Some(TimerState::Expired),
            names::HRTIMER_CANCEL => Some(TimerState::Cancel),
            // The callback returned: the timer is idle unless re-armed.
            names::HRTIMER_EXPIRE_EXIT => None,
            _ => return,
        };
        let before = self.close(timer, ts);
        if let Some(state) = next {
            let function = p.uint("function").or(before.and_then(|o| o.function));
            let expires = match state {
                TimerState::Start => p.int("expires"),
                TimerState::Expired => before.and_then(|o| o.expires),
                _ => None,
            };
            self.open.insert(
                timer,
                Open {
                    state,
                    since: ts,
                    function,
                    expires,
                },
            );
        }
    }

    fn close(&mut self, timer: u64, ts: i64) -> Option<Open> {
        let o = self.open.remove(&timer)?;
        if let Some((start, end)) = self.range.clip(o.since, ts) {
            self.intervals.push(TimerInterval {
                timer,
                state: o.state,
                start,
                end,
                function: o.function,
                expires: o.expires,
            });
        }
        Some(o)
    }

    pub fn finish(&mut self) {
        let timers: Vec<u64> = self.open.keys().copied().collect();
        for t in timers {
            self.close(t, self.range.end);
        }
        self.intervals.sort_by_key(|i| (i.start, i.timer));
    }
}
