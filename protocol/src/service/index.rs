//! Indexing a trace: the single pass run once in the background, keeping what
//! the outputs need: event count and time range, an events-per-time histogram,
//! events per type, each thread's state intervals from the kernel model's
//! transitions, and a sparse checkpoint every `CHECKPOINT_EVERY` events from
//! which the events table reads (`events.rs`) instead of keeping the events.
//!
//! Memory: the histogram is bounded (a fixed number of buckets whose width
//! doubles as the trace goes on); the state intervals grow with the number of
//! state changes (one `Interval` per transition), which is fine for the traces
//! served today and is the thing to move to a disk-backed store later.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use sextant_engine::event::{Event, EventSource, ReadError};
use sextant_engine::kernel::model::{KEvent, KernelModel, ThreadState};
use sextant_engine::kernel::pass::{self, Analysis};
use sextant_engine::reader::{AnyReader, WithSource};

/// What an indexing thread reports while it runs (read without locking).
#[derive(Debug)]
pub struct Live {
    pub events: AtomicU64,
    pub bytes_done: AtomicU64,
    pub bytes_total: AtomicU64,
    /// First event's time; `i64::MIN` until known.
    pub start: AtomicI64,
    pub end: AtomicI64,
    /// Set when the trace is removed: the pass stops at the next event.
    pub cancel: AtomicBool,
}

impl Default for Live {
    fn default() -> Self {
        Live {
            events: AtomicU64::new(0),
            bytes_done: AtomicU64::new(0),
            bytes_total: AtomicU64::new(0),
            start: AtomicI64::new(i64::MIN),
            end: AtomicI64::new(i64::MIN),
            cancel: AtomicBool::new(false),
        }
    }
}

impl Live {
    /// Per cent of the bytes read, 0..=100.
    pub fn percent(&self) -> u64 {
        let total = self.bytes_total.load(Ordering::Relaxed);
        let done = self.bytes_done.load(Ordering::Relaxed);
        (done.min(total) * 100).checked_div(total).unwrap_or(0)
    }

    pub fn start(&self) -> Option<i64> {
        let s = self.start.load(Ordering::Relaxed);
        (s != i64::MIN).then_some(s)
    }

    pub fn end(&self) -> Option<i64> {
        let e = self.end.load(Ordering::Relaxed);
        (e != i64::MIN).then_some(e)
    }
}

/// A thread in one state from `start` to `end` (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: i64,
    pub end: i64,
    pub state: ThreadState,
}

/// One thread's life in the trace (a TID reused after `sched_process_free`
/// gets a new row).
#[derive(Debug, Clone)]
pub struct ThreadRow {
    pub tid: i64,
    pub pid: Option<i64>,
    pub comm: String,
    pub start: i64,
    pub end: i64,
    /// In time order, contiguous except where the state was unknown.
    pub intervals: Vec<Interval>,
}

/// Events between two checkpoints: reading any event costs at most this many
/// events read from the nearest checkpoint before it.
pub const CHECKPOINT_EVERY: u64 = 4096;

/// Where to resume reading at event number `k * CHECKPOINT_EVERY`: seeking to
/// `ts` yields the first event at that time, `skip` events before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub ts: i64,
    pub skip: u64,
    /// Each CPU's current thread just before the event (by CPU number), for
    /// the events that do not say their thread.
    pub cpus: Box<[Option<i64>]>,
}

/// The result of indexing one trace.
#[derive(Debug, Default)]
pub struct TraceIndex {
    pub events: u64,
    pub start: i64,
    pub end: i64,
    pub threads: Vec<ThreadRow>,
    /// Rows of `threads` by TID (several when a TID was reused).
    pub rows_of_tid: HashMap<i64, Vec<usize>>,
    pub histogram: Histogram,
    /// (event name as written in the trace, count), by name.
    pub event_types: Vec<(String, u64)>,
    /// Checkpoint `k` is event number `k * CHECKPOINT_EVERY`.
    pub checkpoints: Vec<Checkpoint>,
    pub warnings: Vec<String>,
}

impl TraceIndex {
    /// The rows of thread `tid` overlapping `[start, end]`.
    pub fn rows_of(&self, tid: i64, start: i64, end: i64) -> impl Iterator<Item = &ThreadRow> {
        self.rows_of_tid
            .get(&tid)
            .into_iter()
            .flatten()
            .map(|&i| &self.threads[i])
            .filter(move |r| r.start <= end && r.end >= start)
    }
}

/// Events per time bucket: at most `CAP` buckets from the first event; when
/// an event falls beyond them, neighbours merge and the width doubles.
#[derive(Debug, Clone)]
pub struct Histogram {
    origin: Option<i64>,
    /// The latest event's time: the last bucket ends just after it.
    last: i64,
    width: i64,
    counts: Vec<u64>,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            origin: None,
            last: i64::MIN,
            width: 1,
            counts: Vec::new(),
        }
    }
}

impl Histogram {
    const CAP: usize = 16384;

    pub fn add(&mut self, ts: i64) {
        let origin = *self.origin.get_or_insert(ts);
        self.last = self.last.max(ts);
        let mut i = ((ts - origin).max(0) / self.width) as usize;
        while i >= Self::CAP {
            let merged: Vec<u64> = self.counts.chunks(2).map(|c| c.iter().sum()).collect();
            self.counts = merged;
            self.width *= 2;
            i = ((ts - origin).max(0) / self.width) as usize;
        }
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }

    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Events in `[a, b)`, buckets cut by the range counted in proportion.
    pub fn count(&self, a: i64, b: i64) -> f64 {
        let Some(origin) = self.origin else {
            return 0.0;
        };
        if b <= a {
            return 0.0;
        }
        let w = self.width;
        let first = ((a - origin).max(0) / w) as usize;
        let last = (((b - origin).max(0) + w - 1) / w) as usize;
        let mut sum = 0.0;
        for (k, &c) in self
            .counts
            .iter()
            .enumerate()
            .take(last.min(self.counts.len()))
            .skip(first)
        {
            if c == 0 {
                continue;
            }
            let lo = origin + k as i64 * w;
            // The data of the last bucket stop at the latest event.
            let hi = (lo + w).min(self.last + 1);
            let overlap = (hi.min(b) - lo.max(a)).max(0);
            sum += c as f64 * overlap as f64 / (hi - lo).max(1) as f64;
        }
        sum
    }
}

/// Opens `path` and indexes it, reporting into `live`.
pub fn index_trace(path: &Path, live: Arc<Live>) -> Result<TraceIndex, String> {
    let reader = AnyReader::open(path).map_err(|e| e.to_string())?;
    reader.with(Indexer { live })
}

struct Indexer {
    live: Arc<Live>,
}

impl WithSource for Indexer {
    type Output = Result<TraceIndex, String>;

    fn run<S: EventSource>(self, source: S) -> Self::Output {
        self.live
            .bytes_total
            .store(source.progress().1, Ordering::Relaxed);
        let cpus = Rc::new(RefCell::new(Vec::new()));
        let mut counting = Counting {
            inner: source,
            histogram: Histogram::default(),
            events: 0,
            live: self.live.clone(),
            same_ts: (i64::MIN, 0),
            classes: Vec::new(),
            checkpoints: Vec::new(),
            cpus: cpus.clone(),
        };
        let mut model = KernelModel::default();
        let mut threads = ThreadStates {
            cpus,
            ..ThreadStates::default()
        };
        let summary = pass::run(&mut counting, &mut model, &mut [&mut threads], |_, _| {})
            .map_err(|e| e.to_string())?;
        let live = &self.live;
        live.events.store(counting.events, Ordering::Relaxed);
        live.bytes_done
            .store(live.bytes_total.load(Ordering::Relaxed), Ordering::Relaxed);
        let threads = threads.into_rows();
        let mut rows_of_tid: HashMap<i64, Vec<usize>> = HashMap::new();
        for (i, r) in threads.iter().enumerate() {
            rows_of_tid.entry(r.tid).or_default().push(i);
        }
        // Classes of the same name (one per CTF stream) counted together.
        let mut by_name: HashMap<String, u64> = HashMap::new();
        for (_, name, n) in counting.classes {
            *by_name.entry(name).or_default() += n;
        }
        let mut event_types: Vec<(String, u64)> = by_name.into_iter().collect();
        event_types.sort();
        Ok(TraceIndex {
            events: summary.events,
            start: summary.first_ts.unwrap_or(0),
            end: summary.last_ts,
            threads,
            rows_of_tid,
            histogram: counting.histogram,
            event_types,
            checkpoints: counting.checkpoints,
            warnings: counting.inner.warnings(),
        })
    }
}

/// A reader that counts every event (decoded or not) and its type, fills the
/// histogram, records checkpoints and publishes progress, handing the events
/// on unchanged.
struct Counting<S> {
    inner: S,
    histogram: Histogram,
    events: u64,
    live: Arc<Live>,
    /// The latest time seen and the number of the first event at it.
    same_ts: (i64, u64),
    /// (class, name, count): a few dozen classes, scanned linearly.
    classes: Vec<(u64, String, u64)>,
    checkpoints: Vec<Checkpoint>,
    /// Each CPU's current thread, kept by `ThreadStates`.
    cpus: Rc<RefCell<Vec<Option<i64>>>>,
}

impl<S: EventSource> EventSource for Counting<S> {
    type Event<'s>
        = S::Event<'s>
    where
        Self: 's;

    fn advance(&mut self) -> Result<bool, ReadError> {
        if !self.inner.advance()? {
            return Ok(false);
        }
        let Some(ev) = self.inner.event() else {
            return Ok(false);
        };
        let ts = ev.ts();
        let class = ev.class();
        match self.classes.iter_mut().find(|c| c.0 == class) {
            Some(c) => c.2 += 1,
            None => self.classes.push((class, ev.name().to_string(), 1)),
        }
        let index = self.events;
        if ts != self.same_ts.0 {
            self.same_ts = (ts, index);
        }
        if index.is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push(Checkpoint {
                ts,
                skip: index - self.same_ts.1,
                cpus: self.cpus.borrow().clone().into_boxed_slice(),
            });
        }
        self.histogram.add(ts);
        self.events += 1;
        if self.events == 1 {
            self.live.start.store(ts, Ordering::Relaxed);
        }
        if self.events.is_multiple_of(4096) {
            if self.live.cancel.load(Ordering::Relaxed) {
                return Ok(false);
            }
            self.live.events.store(self.events, Ordering::Relaxed);
            self.live.end.store(ts, Ordering::Relaxed);
            self.live
                .bytes_done
                .store(self.inner.progress().0, Ordering::Relaxed);
        }
        self.live.end.store(ts, Ordering::Relaxed);
        Ok(true)
    }

    fn event(&self) -> Option<Self::Event<'_>> {
        self.inner.event()
    }

    fn progress(&self) -> (u64, u64) {
        self.inner.progress()
    }

    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }
}

struct OpenRow {
    row: usize,
    state: ThreadState,
    since: i64,
}

/// Each thread's states, from the model's transitions; each CPU's current
/// thread, for the checkpoints.
#[derive(Default)]
struct ThreadStates {
    rows: Vec<ThreadRow>,
    open: HashMap<i64, OpenRow>,
    cpus: Rc<RefCell<Vec<Option<i64>>>>,
}

impl ThreadStates {
    fn push(&mut self, row: usize, start: i64, end: i64, state: ThreadState) {
        let r = &mut self.rows[row];
        r.end = r.end.max(end);
        if state == ThreadState::Unknown || end <= start {
            return;
        }
        match r.intervals.last_mut() {
            Some(last) if last.state == state && last.end == start => last.end = end,
            _ => r.intervals.push(Interval { start, end, state }),
        }
    }

    fn into_rows(self) -> Vec<ThreadRow> {
        let mut rows = self.rows;
        rows.sort_by_key(|r| (r.tid, r.start));
        rows
    }
}

impl Analysis for ThreadStates {
    fn wants(&self, _canonical: &str) -> bool {
        // The model's scheduling events are decoded anyway.
        false
    }

    fn on_event(&mut self, ev: &KEvent<'_>, _thread: Option<i64>, model: &KernelModel) {
        // Only the event's CPU can have changed its current thread (a CPU
        // number from a corrupt trace must not allocate gigabytes).
        if let Some(cpu) = ev.cpu.filter(|&c| c < 1 << 16) {
            let mut cpus = self.cpus.borrow_mut();
            let i = cpu as usize;
            if cpus.len() <= i {
                cpus.resize(i + 1, None);
            }
            cpus[i] = model.current(cpu);
        }
        self.transitions(ev, model);
    }

    fn finish(&mut self, model: &KernelModel, end: i64) {
        self.close_all(model, end);
    }
}

impl ThreadStates {
    fn transitions(&mut self, ev: &KEvent<'_>, model: &KernelModel) {
        for tr in model.transitions() {
            if !self.open.contains_key(&tr.tid) {
                self.rows.push(ThreadRow {
                    tid: tr.tid,
                    pid: None,
                    comm: String::new(),
                    start: tr.from_since,
                    end: tr.ts,
                    intervals: Vec::new(),
                });
                self.open.insert(
                    tr.tid,
                    OpenRow {
                        row: self.rows.len() - 1,
                        state: tr.from,
                        since: tr.from_since,
                    },
                );
            }
            let open = self.open.get_mut(&tr.tid).expect("inserted above");
            let (row, from_since) = (open.row, open.since);
            open.state = tr.to;
            open.since = tr.ts;
            self.push(row, from_since, tr.ts, tr.from);
        }
        for t in model.freed() {
            if let Some(o) = self.open.remove(&t.tid) {
                self.push(o.row, o.since, ev.ts, o.state);
                let r = &mut self.rows[o.row];
                r.comm.clone_from(&t.comm);
                r.pid = t.pid;
            }
        }
    }

    fn close_all(&mut self, model: &KernelModel, end: i64) {
        let open: Vec<(i64, OpenRow)> = self.open.drain().collect();
        for (tid, o) in open {
            self.push(o.row, o.since, end, o.state);
            if let Some(t) = model.thread(tid) {
                let r = &mut self.rows[o.row];
                r.comm.clone_from(&t.comm);
                r.pid = t.pid;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_survive_merging() {
        let mut h = Histogram::default();
        for ts in 0..100_000i64 {
            h.add(1000 + ts * 7);
        }
        assert_eq!(h.total(), 100_000);
        let all = h.count(0, i64::MAX / 2);
        assert!((all - 100_000.0).abs() < 1e-6, "{all}");
        let half = h.count(1000, 1000 + 50_000 * 7);
        assert!((half - 50_000.0).abs() < 200.0, "{half}");
    }
}
