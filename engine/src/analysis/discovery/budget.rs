//! The time a discovery may take (`--time-limit`), shared by all its steps
//! — reading, mining, the maximality test, merging — and what it cut.
//!
//! One deadline for the whole, not a limit per step: a user asking for an
//! answer within a second wants it within a second, whichever step is slow
//! (merging 354,193 maximal patterns took 13 s of a 1 s limit when only the
//! search was bounded). Each step checks it often enough to stop within a
//! few milliseconds and keeps what it did.

use std::fmt;
use std::time::{Duration, Instant};

use crate::event::{Event, ReadError};
use crate::kernel::model::KernelModel;
use crate::run::{Flow, Tap};

/// When discovery must stop, if ever.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    deadline: Option<Instant>,
}

impl Budget {
    /// `limit` from now (none: no limit).
    pub fn new(limit: Option<Duration>) -> Budget {
        Budget {
            deadline: limit.map(|l| Instant::now() + l),
        }
    }

    /// No limit.
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// Whether the time is up.
    pub fn spent(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// A tap that ends a pass when the time is up (checked every few
    /// hundred events: reading the clock costs about as much as an event).
    pub fn tap(&self) -> Stop {
        Stop {
            budget: *self,
            events: 0,
            stopped: false,
        }
    }
}

/// Ends a pass at the budget's deadline (`Budget::tap`).
pub struct Stop {
    budget: Budget,
    events: u32,
    stopped: bool,
}

/// Events between two looks at the clock while reading: the clock's cost
/// is lost in the noise, and the reading stops within a fraction of a
/// millisecond.
const EVENTS_PER_CHECK: u32 = 256;

impl Stop {
    /// Whether it ended the pass.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

impl Tap for Stop {
    fn event<'s, E: Event<'s>>(&mut self, _: &E, _: &KernelModel) -> Result<Flow, ReadError> {
        self.events = self.events.wrapping_add(1);
        if self.events.is_multiple_of(EVENTS_PER_CHECK) && self.budget.spent() {
            self.stopped = true;
            return Ok(Flow::Stop);
        }
        Ok(Flow::Apply)
    }
}

/// What the time limit cut short: the answer is partial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The trace was read up to this per cent: later events were not mined.
    Reading { percent: u8 },
    /// The search stopped: longer patterns may be missing, and a pattern
    /// shown may be part of one not found.
    Mining,
    /// Only `checked` of the `of` patterns the search ended on were tested
    /// for maximality; the others are not shown.
    Maximality { checked: usize, of: usize },
    /// Only the first `merged` of `of` maximal patterns (best first) were
    /// merged into distinct ones; the others are not shown.
    Merging { merged: usize, of: usize },
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Reading { percent } => write!(
                f,
                "reading stopped at {percent}% of the trace: later events were not mined"
            ),
            Cut::Mining => write!(
                f,
                "the search stopped: longer patterns may be missing, and a pattern shown may be part of one not found"
            ),
            Cut::Maximality { checked, of } => write!(
                f,
                "{checked} of {of} patterns found were tested for maximality; the others are not shown"
            ),
            Cut::Merging { merged, of } => write!(
                f,
                "{merged} of {of} maximal patterns (the best ranked) were merged; the others are not shown"
            ),
        }
    }
}
