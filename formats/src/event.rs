//! What every reader gives the layers below it: a time-ordered sequence of
//! events, each with a name, a time, a CPU and fields decoded on demand.
//!
//! Names and field names are the tracer's own spellings; `kernel::layout` maps
//! them onto the canonical vocabulary. A reader never interprets events.

use crate::value::Sink;

/// CPUs numbered below this have a slot of their own in the tables the
/// models keep per CPU (indexed by CPU number); every larger number shares
/// the one slot after them. Linux numbers at most 8192 CPUs (`NR_CPUS`): a
/// larger number is corrupt input, and a table sized by it (a trace may
/// say CPU 4294967295) would not fit in memory.
pub const MAX_CPUS: u32 = 1 << 16;

/// The slot of `cpu` in a table kept per CPU (see [`MAX_CPUS`]).
#[inline]
pub fn cpu_slot(cpu: u32) -> usize {
    cpu.min(MAX_CPUS) as usize
}

/// One event, borrowed from its reader until the reader advances.
pub trait Event<'s> {
    /// Event name as written in the trace (`sched_switch`, `sched:sched_switch`).
    fn name(&self) -> &'s str;
    /// Nanoseconds from the trace clock's origin.
    fn ts(&self) -> i64;
    fn cpu(&self) -> Option<u32>;
    /// The thread that emitted the event, when the tracer says so in the
    /// event's framing (ftrace's `TASK-PID` prefix). Payload fields such as
    /// perf's `perf_tid` are the kernel layout's business, not the reader's.
    fn thread(&self) -> Option<i64> {
        None
    }
    /// A number identifying the event's class within its reader, the same for
    /// every event of that class: consumers cache per-class decisions (which
    /// analysis wants it, where its fields are) under it.
    fn class(&self) -> u64;
    /// Walks the payload: one `open(None, false)`, its members, one `close`.
    fn visit_fields<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), ReadError>;
}

/// A reader: a cursor over events in time order.
pub trait EventSource {
    type Event<'s>: Event<'s>
    where
        Self: 's;

    /// Moves to the next event; false at the end.
    fn advance(&mut self) -> Result<bool, ReadError>;
    /// The current event, after `advance` returned true.
    fn event(&self) -> Option<Self::Event<'_>>;
    /// Positions the reader so that the next `advance` yields the first event
    /// at or after `ns` (ns from the clock's origin): what a full read would
    /// yield from there on. Readers that can skip to a time without decoding
    /// what lies before it say so by overriding this; the others refuse.
    fn seek(&mut self, ns: i64) -> Result<(), ReadError> {
        let _ = ns;
        Err(ReadError::new(NotSeekable))
    }
    /// Bytes consumed and total, for progress reporting.
    fn progress(&self) -> (u64, u64);
    /// Moves into `into` the windows where the tracer lost events found
    /// since the last call (a reader knows of a loss when it reads past it,
    /// so a window may end before events already yielded).
    fn take_losses(&mut self, into: &mut Vec<Loss>) {
        let _ = into;
    }
    /// What went wrong without stopping the read (lost events, time going
    /// backwards, odd metadata), one sentence each; complete at the end.
    fn warnings(&self) -> Vec<String>;
}

/// Events the tracer lost (its ring buffer was full): `events` of them
/// (`None`: it did not say how many) somewhere in [`from`, `to`] (ns from
/// the clock's origin), on `cpu` when the tracer says whose buffer it was.
/// Nothing the trace shows there can be trusted to be all that happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loss {
    pub cpu: Option<u32>,
    pub from: i64,
    pub to: i64,
    pub events: Option<u64>,
}

/// A reading error, already located (file and byte offset, or line).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ReadError(Box<dyn std::error::Error + Send + Sync>);

impl ReadError {
    pub fn new(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        ReadError(Box::new(e))
    }

    pub fn from_boxed(e: Box<dyn std::error::Error + Send + Sync>) -> Self {
        ReadError(e)
    }
}

/// A reader that cannot skip to a time (e.g. text read from a pipe).
#[derive(Debug, thiserror::Error)]
#[error("this trace input cannot be read from a given time (not a file)")]
pub struct NotSeekable;
