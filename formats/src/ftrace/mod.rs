//! ftrace text reader: the format of `/sys/kernel/tracing/trace`.
//!
//! ```text
//! # tracer: nop
//!            bash-3979    [000] d..2.   245.590149: sched_switch: prev_comm=bash prev_pid=3979 ...
//!         rt_high-4620    [000] .....   245.601006: sys_clock_nanosleep(which_clock: 1, flags: 1, ...)
//!         rt_high-4620    [000] .....   245.621153: sys_clock_nanosleep -> 0x0
//! CPU:1 [LOST 120 EVENTS]
//! ```
//!
//! The file is read line by line into reused buffers (memory bounded by the
//! reorder window, not by the trace). Events come out in time order: the file
//! may print events slightly out of order across CPUs, so each event is held
//! until the input has moved `window_ns` past it (or `max_pending` events are
//! held); what still comes out of order is counted in [`Warnings`].
//!
//! Names are the tracer's spellings, except syscalls, which are given perf's
//! spelling without its `syscalls:` prefix whatever the kernel printed:
//! `sys_X(...)` and `sys_enter_X: ...` are `sys_enter_X` with the arguments as
//! fields; `sys_X -> 0x...` and `sys_exit_X: 0x...` are `sys_exit_X` with the
//! signed field `ret`. The function tracer's `f <-g` is `function` (`ip`,
//! `parent_ip`); `<stack trace>` is `kernel_stack` and the ` => ...` lines
//! after it are skipped (counted in [`Warnings::skipped_lines`]).
//!
//! The `TASK-PID` prefix is not a field: [`FtraceEvent::common_comm`] and
//! [`FtraceEvent::common_pid`] give the thread of each event. Fields are parsed
//! from the line when visited (see `payload.rs` for the rules).
//!
//! Policy: a line that is not blank, not a `#` comment, not a lost-events
//! marker and not a parsable event line is an error (`path:line: message`)
//! from `advance` (calling `advance` again goes on with the next line); an
//! event whose payload has an unknown shape is not an error: its payload is
//! one field `raw`.

mod error;
pub(crate) mod line;
mod lost;
mod payload;
#[cfg(test)]
mod tests;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

pub use error::FtraceError;
use line::{EventLine, Kind, Line};

use crate::event::{Event, EventSource, ReadError};
use crate::value::Sink;

/// Default reorder window: events are held until the input is 1 ms past them.
pub const DEFAULT_WINDOW_NS: i64 = 1_000_000;
/// Default bound on the number of held events, whatever their times.
pub const DEFAULT_MAX_PENDING: usize = 16_384;

/// What went wrong without stopping the read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Warnings {
    /// Events the tracer dropped: sum of `CPU:N [LOST n EVENTS]`.
    pub discarded_events: u64,
    /// Lost-events markers, including `[LOST EVENTS]` without a count.
    pub lost_markers: u64,
    /// `entries-written` minus `entries-in-buffer` of the header: events
    /// overwritten in the ring buffer before the file was read (the oldest).
    pub overwritten_events: u64,
    /// Events printed earlier than an event above them, that the reorder
    /// window put back in order.
    pub reordered_events: u64,
    /// Events yielded with a time earlier than the previous event's: out of
    /// order by more than the window.
    pub backwards_timestamps: u64,
    /// Where time first went backwards: line number and the event's time.
    pub first_backwards: Option<(u64, i64)>,
    /// Lines read past: ` => symbol` lines of stack traces.
    pub skipped_lines: u64,
}

/// An event line held by the reader, in a buffer reused once yielded.
struct Slot {
    line: Vec<u8>,
    lineno: u64,
    ev: EventLine,
    class: u32,
}

/// Event names to small ids.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<[u8]>, u32>,
    names: Vec<Box<str>>,
    scratch: Vec<u8>,
}

impl Interner {
    fn intern(&mut self, prefix: &str, ident: &[u8]) -> u32 {
        self.scratch.clear();
        self.scratch.extend_from_slice(prefix.as_bytes());
        self.scratch.extend_from_slice(ident);
        if let Some(&id) = self.ids.get(self.scratch.as_slice()) {
            return id;
        }
        let id = self.names.len() as u32;
        // Identifiers are ASCII (checked by the line parser).
        let name = String::from_utf8_lossy(&self.scratch).into_owned();
        self.names.push(name.into_boxed_str());
        self.ids.insert(self.scratch.clone().into_boxed_slice(), id);
        id
    }
}

/// A reader of one ftrace text file: a cursor over its events in time order.
pub struct FtraceReader {
    path: PathBuf,
    input: Box<dyn BufRead + Send>,
    total: u64,
    consumed: u64,
    lineno: u64,
    eof: bool,
    window_ns: i64,
    max_pending: usize,
    slots: Vec<Slot>,
    free: Vec<usize>,
    /// (time, line number, slot): earliest first, file order among equals.
    heap: BinaryHeap<Reverse<(i64, u64, usize)>>,
    current: Option<usize>,
    max_read_ts: i64,
    last_ts: i64,
    interner: Interner,
    tracer: Option<String>,
    warnings: Warnings,
    /// Opened from a file, which `seek` may reopen.
    seekable: bool,
    /// Where the tracer lost events (`lost.rs`).
    gaps: lost::Gaps,
    /// After a seek: events before this time are read (to keep the reorder
    /// window's order) but not yielded.
    floor: i64,
    /// After a seek: the byte offset reading started from; line numbers are
    /// counted from there and errors name byte offsets instead.
    origin: Option<u64>,
}

impl FtraceReader {
    /// Opens a `trace` file (read lazily, line by line).
    pub fn open(path: &Path) -> Result<FtraceReader, FtraceError> {
        let file = File::open(path).map_err(|e| FtraceError::io(path, e))?;
        let total = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut r = FtraceReader::from_reader(path, BufReader::with_capacity(1 << 16, file), total);
        r.seekable = true;
        Ok(r)
    }

    /// Reads ftrace text from any buffered input; `path` names it in errors,
    /// `total` is its size in bytes if known (for `progress`), else 0.
    pub fn from_reader(
        path: impl Into<PathBuf>,
        input: impl BufRead + Send + 'static,
        total: u64,
    ) -> FtraceReader {
        FtraceReader {
            path: path.into(),
            input: Box::new(input),
            total,
            consumed: 0,
            lineno: 0,
            eof: false,
            window_ns: DEFAULT_WINDOW_NS,
            max_pending: DEFAULT_MAX_PENDING,
            slots: Vec::new(),
            free: Vec::new(),
            heap: BinaryHeap::new(),
            current: None,
            max_read_ts: i64::MIN,
            last_ts: i64::MIN,
            interner: Interner::default(),
            tracer: None,
            warnings: Warnings::default(),
            seekable: false,
            gaps: lost::Gaps::default(),
            floor: i64::MIN,
            origin: None,
        }
    }

    /// Positions the reader so that the next `advance` yields the first
    /// event at or after `ns`, as a full read would. A binary search over the
    /// file by the times of its lines finds a line more than twice the
    /// reorder window before `ns` (lines are nearly sorted), and reading
    /// resumes there; the events before `ns` are read but not yielded.
    /// Header lines are not read again: `tracer` and the ring-buffer
    /// warnings keep what was read before.
    pub fn seek(&mut self, ns: i64) -> Result<(), FtraceError> {
        if !self.seekable {
            return Err(FtraceError::At {
                path: self.path.clone(),
                offset: self.consumed,
                message: "cannot seek: this input is not a file".into(),
            });
        }
        let mut file = File::open(&self.path).map_err(|e| FtraceError::io(&self.path, e))?;
        let target = ns.saturating_sub(self.window_ns.saturating_mul(2));
        let start = search_line_before(&mut file, self.total, target)
            .map_err(|e| FtraceError::io(&self.path, e))?;
        file.seek(SeekFrom::Start(start))
            .map_err(|e| FtraceError::io(&self.path, e))?;
        self.input = Box::new(BufReader::with_capacity(1 << 16, file));
        self.consumed = start;
        self.lineno = 0;
        self.origin = Some(start);
        self.eof = false;
        self.heap.clear();
        self.free = (0..self.slots.len()).collect();
        self.current = None;
        self.max_read_ts = i64::MIN;
        self.last_ts = i64::MIN;
        self.floor = ns;
        self.gaps.forget();
        Ok(())
    }

    /// Sets the reorder window: an event is yielded once the input is more
    /// than `window_ns` past it, or when `max_pending` (at least 1) events are
    /// held. `window_ns` 0 and `max_pending` 1 yield in file order.
    pub fn with_reorder_window(mut self, window_ns: i64, max_pending: usize) -> Self {
        self.window_ns = window_ns.max(0);
        self.max_pending = max_pending.max(1);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tracer named by the `# tracer:` header, if one was read yet.
    pub fn tracer(&self) -> Option<&str> {
        self.tracer.as_deref()
    }

    /// Warnings so far; complete once `advance` returned false.
    pub fn warnings(&self) -> Warnings {
        self.warnings.clone()
    }

    /// The name of an event class (`FtraceEvent::class`).
    pub fn class_name(&self, class: u64) -> Option<&str> {
        self.interner.names.get(class as usize).map(|n| &**n)
    }

    /// Number of event classes seen so far.
    pub fn class_count(&self) -> usize {
        self.interner.names.len()
    }

    /// Bytes read so far and the file's size.
    pub fn progress(&self) -> (u64, u64) {
        (self.consumed, self.total.max(self.consumed))
    }

    /// Moves to the next event in time order; false at the end.
    pub fn advance(&mut self) -> Result<bool, FtraceError> {
        if let Some(i) = self.current.take() {
            self.free.push(i);
        }
        loop {
            if let Some(&Reverse((ts, _, _))) = self.heap.peek() {
                let passed = self.max_read_ts.saturating_sub(ts) > self.window_ns;
                if self.eof || passed || self.heap.len() >= self.max_pending {
                    let Reverse((ts, lineno, i)) = self.heap.pop().expect("peeked");
                    if ts < self.floor {
                        self.free.push(i);
                        continue;
                    }
                    if ts < self.last_ts {
                        self.warnings.backwards_timestamps += 1;
                        if self.warnings.first_backwards.is_none() {
                            self.warnings.first_backwards = Some((lineno, ts));
                        }
                    }
                    self.last_ts = self.last_ts.max(ts);
                    self.current = Some(i);
                    return Ok(true);
                }
            } else if self.eof {
                return Ok(false);
            }
            self.read_event()?;
        }
    }

    /// Reads lines until one event is held or the input ends.
    fn read_event(&mut self) -> Result<(), FtraceError> {
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    line: Vec::with_capacity(160),
                    lineno: 0,
                    ev: EMPTY_LINE,
                    class: 0,
                });
                self.slots.len() - 1
            }
        };
        loop {
            let line_offset = self.consumed;
            let slot = &mut self.slots[i];
            slot.line.clear();
            let n = self
                .input
                .read_until(b'\n', &mut slot.line)
                .map_err(|e| FtraceError::io(&self.path, e))?;
            if n == 0 {
                self.eof = true;
                self.gaps.end(self.max_read_ts);
                self.free.push(i);
                return Ok(());
            }
            self.consumed += n as u64;
            self.lineno += 1;
            while matches!(slot.line.last(), Some(b'\n' | b'\r')) {
                slot.line.pop();
            }
            let parsed = match line::parse(&slot.line) {
                Ok(p) => p,
                Err(message) => {
                    self.free.push(i);
                    let path = self.path.clone();
                    return Err(match self.origin {
                        None => FtraceError::Line {
                            path,
                            line: self.lineno,
                            message,
                        },
                        Some(_) => FtraceError::At {
                            path,
                            offset: line_offset,
                            message,
                        },
                    });
                }
            };
            match parsed {
                Line::Ignored => {}
                Line::Tracer(s) => {
                    self.tracer = Some(String::from_utf8_lossy(s.of(&slot.line)).into_owned())
                }
                Line::Entries { in_buffer, written } => {
                    self.warnings.overwritten_events += written.saturating_sub(in_buffer)
                }
                Line::Lost { cpu, events } => {
                    self.warnings.lost_markers += 1;
                    self.warnings.discarded_events += events.unwrap_or(0);
                    self.gaps.marker(cpu, events, self.max_read_ts);
                }
                Line::StackEntry => self.warnings.skipped_lines += 1,
                Line::Event(ev) => {
                    let ident = ev.name.ident.of(&slot.line);
                    slot.class = self.interner.intern(ev.name.prefix, ident);
                    slot.ev = ev;
                    slot.lineno = self.lineno;
                    self.gaps.event(ev.cpu, ev.ts);
                    if ev.ts < self.max_read_ts {
                        self.warnings.reordered_events += 1;
                    }
                    self.max_read_ts = self.max_read_ts.max(ev.ts);
                    self.heap.push(Reverse((ev.ts, self.lineno, i)));
                    return Ok(());
                }
            }
        }
    }

    /// The current event (after `advance` returned true).
    pub fn event(&self) -> Option<FtraceEvent<'_>> {
        let slot = &self.slots[self.current?];
        Some(FtraceEvent {
            line: &slot.line,
            ev: &slot.ev,
            class: slot.class,
            name: &self.interner.names[slot.class as usize],
            lineno: slot.lineno,
        })
    }
}

/// The byte offset of a line whose event is earlier than `target` and
/// after which no line is (as far as a binary search over nearly sorted lines
/// can tell); 0 when the file starts at or after `target`. Reads a few lines
/// at each of about log2(size) probes.
fn search_line_before(file: &mut File, size: u64, target: i64) -> std::io::Result<u64> {
    let (mut lo, mut hi) = (0u64, size);
    while hi - lo > 4096 {
        let mid = lo + (hi - lo) / 2;
        match first_event_after(file, mid)? {
            Some((at, ts)) if ts < target && at < hi => lo = at,
            _ => hi = mid,
        }
    }
    // Within the last few kilobytes: the last line start before `target`.
    let mut best = 0;
    let mut at = lo;
    while at < hi {
        match first_event_after(file, at)? {
            Some((line, ts)) if ts < target && line < hi => {
                best = line;
                at = line + 1;
            }
            _ => break,
        }
    }
    Ok(best.max(lo))
}

/// The start of the first event line at or after `offset` (the line holding
/// `offset` is skipped unless `offset` starts it) and its time.
fn first_event_after(file: &mut File, offset: u64) -> std::io::Result<Option<(u64, i64)>> {
    let mut at = offset;
    if offset > 0 {
        // Does `offset` start a line? Only if the byte before it ends one.
        at = offset - 1;
    }
    file.seek(SeekFrom::Start(at))?;
    let mut r = BufReader::with_capacity(8192, &mut *file);
    let mut line = Vec::with_capacity(256);
    if offset > 0 {
        at += r.read_until(b'\n', &mut line)? as u64;
    }
    loop {
        line.clear();
        let n = r.read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if let Ok(Line::Event(ev)) = line::parse(&line) {
            return Ok(Some((at, ev.ts)));
        }
        at += n as u64;
    }
}

const EMPTY_LINE: EventLine = EventLine {
    ts: 0,
    cpu: 0,
    pid: 0,
    tgid: None,
    comm: line::Span { start: 0, end: 0 },
    flags: None,
    name: line::NameParts {
        prefix: "",
        ident: line::Span { start: 0, end: 0 },
    },
    payload: line::Span { start: 0, end: 0 },
    kind: Kind::Empty,
};

/// The event a reader is on, borrowed until it advances. Its fields are
/// parsed from the line when visited.
#[derive(Clone, Copy)]
pub struct FtraceEvent<'s> {
    line: &'s [u8],
    ev: &'s EventLine,
    class: u32,
    name: &'s str,
    lineno: u64,
}

impl<'s> FtraceEvent<'s> {
    pub fn name(&self) -> &'s str {
        self.name
    }

    /// Nanoseconds, from the seconds printed (since boot for the default
    /// `local` clock); a timestamp printed without decimals (`counter`,
    /// `x86-tsc` clocks) is taken as is.
    pub fn ts(&self) -> i64 {
        self.ev.ts
    }

    /// Always known in ftrace text (`Option` as in [`Event::cpu`]).
    pub fn cpu(&self) -> Option<u32> {
        Some(self.ev.cpu)
    }

    pub fn class(&self) -> u64 {
        self.class as u64
    }

    /// The task name of the prefix, as printed: `<idle>` for pid 0 and
    /// `<...>` when the kernel no longer knew the name.
    pub fn common_comm(&self) -> &'s [u8] {
        self.ev.comm.of(self.line)
    }

    /// The thread id of the prefix (the kernel's `pid`, a TID).
    pub fn common_pid(&self) -> i64 {
        self.ev.pid
    }

    /// The `(TGID)` column, when the trace has it and knew the process.
    pub fn common_tgid(&self) -> Option<i64> {
        self.ev.tgid
    }

    /// The flags column (`d..2.`: irqs-off, need-resched, hardirq/softirq,
    /// preempt-depth, migrate-disable), when the trace has it.
    pub fn flags(&self) -> Option<&'s [u8]> {
        self.ev.flags.map(|s| s.of(self.line))
    }

    /// The text after the event's name (`prev_comm=...`, syscall arguments
    /// without parentheses, the return value of `sys_X -> 0x0`).
    pub fn payload(&self) -> &'s [u8] {
        self.ev.payload.of(self.line)
    }

    /// The whole line, as read (without its terminator).
    pub fn line(&self) -> &'s [u8] {
        self.line
    }

    /// The event's line number in the file (1-based).
    pub fn line_number(&self) -> u64 {
        self.lineno
    }

    /// Walks the payload: `open(None, false)`, one scalar per field, `close`.
    /// Never fails: a payload of unknown shape is the field `raw`.
    pub fn visit_fields<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), ReadError> {
        sink.open(None, false);
        let p = self.payload();
        match self.ev.kind {
            Kind::Fields => payload::visit_kv(p, sink),
            Kind::SysArgs => payload::visit_sys_args(p, sink),
            Kind::SysRet(r) => sink.scalar(Some("ret"), crate::value::Scalar::Signed(r)),
            Kind::Function => payload::visit_function(p, sink),
            Kind::Empty => {}
        }
        sink.close(false);
        Ok(())
    }
}

impl std::fmt::Debug for FtraceEvent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FtraceEvent")
            .field("line", &self.lineno)
            .field("name", &self.name)
            .field("ts", &self.ev.ts)
            .field("cpu", &self.ev.cpu)
            .field("pid", &self.ev.pid)
            .finish()
    }
}

impl<'s> Event<'s> for FtraceEvent<'s> {
    fn name(&self) -> &'s str {
        self.name
    }

    fn ts(&self) -> i64 {
        self.ev.ts
    }

    fn cpu(&self) -> Option<u32> {
        FtraceEvent::cpu(self)
    }

    fn class(&self) -> u64 {
        self.class as u64
    }

    fn thread(&self) -> Option<i64> {
        Some(self.common_pid())
    }

    fn visit_fields<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), ReadError> {
        FtraceEvent::visit_fields(self, sink)
    }
}

impl EventSource for FtraceReader {
    type Event<'s> = FtraceEvent<'s>;

    fn advance(&mut self) -> Result<bool, ReadError> {
        FtraceReader::advance(self).map_err(ReadError::new)
    }

    fn event(&self) -> Option<FtraceEvent<'_>> {
        FtraceReader::event(self)
    }

    fn seek(&mut self, ns: i64) -> Result<(), ReadError> {
        FtraceReader::seek(self, ns).map_err(ReadError::new)
    }

    fn progress(&self) -> (u64, u64) {
        FtraceReader::progress(self)
    }

    fn take_losses(&mut self, into: &mut Vec<crate::event::Loss>) {
        into.append(&mut self.gaps.windows);
    }

    fn warnings(&self) -> Vec<String> {
        let w = FtraceReader::warnings(self);
        let mut out = Vec::new();
        if w.discarded_events > 0 || w.lost_markers > 0 {
            out.push(format!(
                "the tracer lost {} events ({} lost-events markers)",
                w.discarded_events, w.lost_markers
            ));
        }
        if w.overwritten_events > 0 {
            out.push(format!(
                "{} events were overwritten in the ring buffer before the file was read",
                w.overwritten_events
            ));
        }
        if let Some((line, ts)) = w.first_backwards {
            out.push(format!(
                "time went backwards {} times beyond the reorder window, first at line {line} ({ts} ns)",
                w.backwards_timestamps
            ));
        }
        out
    }
}
