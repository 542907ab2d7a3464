//! Indexing a trace: the single pass run once in the background, keeping what
//! the outputs need: event count and time range, an events-per-time histogram,
//! events per type, each thread's state intervals from the kernel model's
//! transitions, and a sparse checkpoint every `CHECKPOINT_EVERY` events from
//! which the events table reads (`events.rs`) instead of keeping the events.
//!
//! The index is kept in the trace's store (`crate::store`, Arrow
//! files beside the trace or in the cache directory) when the service has
//! one: opening the trace again reads it instead of passing over the trace.
//! A stored index that cannot be used (trace changed, other version,
//! truncated, corrupt) is reported in one warning line and built again.
//!
//! Memory: the histogram is bounded (a fixed number of buckets whose width
//! doubles as the trace goes on); the state intervals (one per state change)
//! are the stored index's mapped columns, whether it was just written or
//! read again, so that only the pages queries read are resident. While the
//! pass runs, they are spilled in sorted runs to a scratch directory of the
//! store and merged into mapped column files at its end
//! (`crate::store::scratch`): the first open's memory grows with
//! the number of thread lives, not of intervals. Without a store (none
//! given, or it could not be written) they stay in memory.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use crate::analysis::spill::{Runs, BUDGET};
use crate::analysis::states::ThreadStates;
pub use crate::analysis::states::{Interval, ThreadRow};
pub use crate::analysis::thread_table::{Row, ThreadTable};
use crate::event::{Event, ReadError};
use crate::kernel::checkpoint::Recorder;
pub use crate::kernel::checkpoint::{Checkpoint, CHECKPOINT_EVERY};
use crate::kernel::model::KernelModel;
use crate::run::{Flow, Pass, RunError, Tap, Work};
use crate::store::index::Mappings;
use crate::store::index::{Buckets, IndexTables, Statistics};
use crate::store::scratch::{spilled_table, Scratch};
use crate::store::{Places, TraceStore};

/// What an indexing thread reports while it runs (read without locking).
#[derive(Debug)]
pub struct Live {
    pub events: AtomicU64,
    /// Per cent of the trace's bytes read.
    pub percent: AtomicU8,
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
            percent: AtomicU8::new(0),
            start: AtomicI64::new(i64::MIN),
            end: AtomicI64::new(i64::MIN),
            cancel: AtomicBool::new(false),
        }
    }
}

impl Live {
    /// Per cent of the bytes read, 0..=100.
    pub fn percent(&self) -> u64 {
        u64::from(self.percent.load(Ordering::Relaxed))
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

/// The result of indexing one trace.
#[derive(Debug, Default)]
pub struct TraceIndex {
    pub events: u64,
    pub start: i64,
    pub end: i64,
    pub threads: ThreadTable,
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
    pub fn rows_of(&self, tid: i64, start: i64, end: i64) -> impl Iterator<Item = Row<'_>> {
        self.rows_of_tid
            .get(&tid)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.threads.row(i))
            .filter(move |r| r.life.start <= end && r.life.end >= start)
    }
}

/// Events per time bucket: at most `CAP` buckets from the first event; when
/// an event falls beyond them, neighbours merge and the width doubles. The
/// last bucket ends just after the latest event (`Buckets::last`).
#[derive(Debug, Clone)]
pub struct Histogram(Buckets);

impl Default for Histogram {
    fn default() -> Self {
        Histogram(Buckets {
            origin: None,
            last: i64::MIN,
            width: 1,
            counts: Vec::new(),
        })
    }
}

impl Histogram {
    const CAP: usize = 16384;

    pub fn add(&mut self, ts: i64) {
        let h = &mut self.0;
        let origin = *h.origin.get_or_insert(ts);
        h.last = h.last.max(ts);
        let mut i = ((ts - origin).max(0) / h.width) as usize;
        while i >= Self::CAP {
            let merged: Vec<u64> = h.counts.chunks(2).map(|c| c.iter().sum()).collect();
            h.counts = merged;
            h.width *= 2;
            i = ((ts - origin).max(0) / h.width) as usize;
        }
        if h.counts.len() <= i {
            h.counts.resize(i + 1, 0);
        }
        h.counts[i] += 1;
    }

    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.0.counts.iter().sum()
    }

    /// Events in `[a, b)`, buckets cut by the range counted in proportion.
    pub fn count(&self, a: i64, b: i64) -> f64 {
        let h = &self.0;
        let Some(origin) = h.origin else {
            return 0.0;
        };
        if b <= a {
            return 0.0;
        }
        let w = h.width;
        let first = ((a - origin).max(0) / w) as usize;
        let last = (((b - origin).max(0) + w - 1) / w) as usize;
        let mut sum = 0.0;
        for (k, &c) in h
            .counts
            .iter()
            .enumerate()
            .take(last.min(h.counts.len()))
            .skip(first)
        {
            if c == 0 {
                continue;
            }
            let lo = origin + k as i64 * w;
            // The data of the last bucket stop at the latest event.
            let hi = (lo + w).min(h.last + 1);
            let overlap = (hi.min(b) - lo.max(a)).max(0);
            sum += c as f64 * overlap as f64 / (hi - lo).max(1) as f64;
        }
        sum
    }
}

/// The index of the trace at `path`: read from its store in `places` when
/// one is stored and usable, else built by a pass (reporting into `live`,
/// stopping when `live.cancel` is set) and stored there.
pub fn index_trace(
    path: &Path,
    live: Arc<Live>,
    places: Option<&Places>,
) -> Result<TraceIndex, String> {
    let store = places.and_then(|p| match TraceStore::open(p, path) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("sextant: warning: {}: no stored index: {e}", path.display());
            None
        }
    });
    if let Some(store) = &store {
        match IndexTables::load(store) {
            Ok(Some(tables)) => {
                live.events
                    .store(tables.statistics.events, Ordering::Relaxed);
                live.start.store(tables.statistics.start, Ordering::Relaxed);
                live.end.store(tables.statistics.end, Ordering::Relaxed);
                live.percent.store(100, Ordering::Relaxed);
                return Ok(TraceIndex::from(tables));
            }
            Ok(None) => {}
            Err(e) => eprintln!("sextant: warning: stored index not used: {e}; indexing again"),
        }
    }
    let scratch = store.as_ref().and_then(|s| match s.scratch() {
        Ok(scratch) => Some(scratch),
        Err(e) => {
            eprintln!("sextant: warning: {e}: the state intervals are kept in memory");
            None
        }
    });
    let (tables, maps) = match pass(path, &live, scratch.as_ref())? {
        Ok(done) => done,
        Err(e) => {
            eprintln!("sextant: warning: {e}: indexing again, the state intervals in memory");
            pass(path, &live, None)?.map_err(|e| e.to_string())?
        }
    };
    if let Some(store) = &store {
        // What was just written is read back mapped: the intervals computed
        // in memory, or mapped from the scratch files, are let go.
        let saved = tables.save_shedding(store, maps);
        drop(scratch);
        match saved.map(|_| IndexTables::load(store)) {
            Ok(Ok(Some(stored))) => return Ok(TraceIndex::from(stored)),
            Ok(Ok(None)) => {
                eprintln!("sextant: warning: the index just stored is not found; kept in memory")
            }
            Ok(Err(e)) => {
                eprintln!(
                    "sextant: warning: the index just stored is not usable ({e}); kept in memory"
                )
            }
            Err(e) => eprintln!("sextant: warning: the index could not be stored: {e}"),
        }
    }
    Ok(TraceIndex::from(tables))
}

/// An index and the mapped scratch files its interval columns are.
type Built = (IndexTables, Mappings);

/// The single pass that builds an index, its intervals spilled to
/// `scratch` when given. `Err` when the trace cannot be read; `Ok(Err)`
/// when the spilled intervals could not be written or read back.
fn pass(
    path: &Path,
    live: &Arc<Live>,
    scratch: Option<&Scratch>,
) -> Result<std::io::Result<Built>, String> {
    let mut counting = Counting {
        histogram: Histogram::default(),
        events: 0,
        live: live.clone(),
        classes: Vec::new(),
        checkpoints: Recorder::default(),
    };
    let mut threads = match scratch {
        Some(s) => ThreadStates::spilling(Runs::new(s.path(), BUDGET)),
        None => ThreadStates::default(),
    };
    let progress = |p: u8| live.percent.store(p, Ordering::Relaxed);
    let work = Work {
        progress: &progress,
        cancel: &live.cancel,
    };
    let ran = Pass::new(&mut [&mut threads])
        .tap(&mut counting)
        .read(path, &work)
        .map_err(|e| match e {
            RunError::Cancelled => "the trace was closed".to_string(),
            e => e.to_string(),
        })?;
    live.events.store(counting.events, Ordering::Relaxed);
    live.percent.store(100, Ordering::Relaxed);
    // Classes of the same name (one per CTF stream) counted together.
    let mut by_name: HashMap<String, u64> = HashMap::new();
    for (_, name, n) in counting.classes {
        *by_name.entry(name).or_default() += n;
    }
    let mut event_types: Vec<(String, u64)> = by_name.into_iter().collect();
    event_types.sort();
    let (threads, maps) = match scratch {
        Some(scratch) => {
            let table = threads
                .into_spilled()
                .expect("spilling")
                .and_then(|spilled| spilled_table(&spilled, scratch));
            match table {
                Ok(t) => t,
                Err(e) => return Ok(Err(e)),
            }
        }
        None => (
            ThreadTable::from_rows(threads.into_rows()),
            Mappings::default(),
        ),
    };
    let tables = IndexTables {
        statistics: Statistics {
            events: ran.summary.events,
            start: ran.summary.first_ts.unwrap_or(0),
            end: ran.summary.last_ts,
            warnings: ran.warnings,
        },
        threads,
        event_types,
        checkpoints: counting.checkpoints.into_checkpoints(),
        histogram: counting.histogram.0,
    };
    Ok(Ok((tables, maps)))
}

impl From<IndexTables> for TraceIndex {
    fn from(t: IndexTables) -> TraceIndex {
        let mut rows_of_tid: HashMap<i64, Vec<usize>> = HashMap::new();
        for (i, r) in t.threads.lives.iter().enumerate() {
            rows_of_tid.entry(r.tid).or_default().push(i);
        }
        TraceIndex {
            events: t.statistics.events,
            start: t.statistics.start,
            end: t.statistics.end,
            threads: t.threads,
            rows_of_tid,
            histogram: Histogram(t.histogram),
            event_types: t.event_types,
            checkpoints: t.checkpoints,
            warnings: t.statistics.warnings,
        }
    }
}

/// Sees every event (decoded or not): counts it and its type, fills the
/// histogram, records checkpoints and publishes the count.
struct Counting {
    histogram: Histogram,
    events: u64,
    live: Arc<Live>,
    /// (class, name, count): a few dozen classes, scanned linearly.
    classes: Vec<(u64, String, u64)>,
    checkpoints: Recorder,
}

impl Tap for Counting {
    fn event<'s, E: Event<'s>>(&mut self, ev: &E, model: &KernelModel) -> Result<Flow, ReadError> {
        let ts = ev.ts();
        let class = ev.class();
        match self.classes.iter_mut().find(|c| c.0 == class) {
            Some(c) => c.2 += 1,
            None => self.classes.push((class, ev.name().to_string(), 1)),
        }
        self.checkpoints.see(ts, model);
        self.histogram.add(ts);
        self.events += 1;
        if self.events == 1 {
            self.live.start.store(ts, Ordering::Relaxed);
        }
        if self.events.is_multiple_of(4096) {
            self.live.events.store(self.events, Ordering::Relaxed);
        }
        self.live.end.store(ts, Ordering::Relaxed);
        Ok(Flow::Apply)
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
