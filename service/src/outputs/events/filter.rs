//! The events table filtered by its search expressions (`isFiltered`): only
//! the matching lines, each numbered by its rank among the matches.
//!
//! No line is kept. One pass per expression set and experiment, in the
//! background, counts each trace's matches before every merge point of the
//! experiment (`Start`; for one trace, its checkpoints, one every
//! `CHECKPOINT_EVERY` events); until it is done, requests answer RUNNING
//! with its progress. A page for rank L then starts at the last merge point
//! with at most L matches before it and reads from there, from the trace's
//! checkpoint as the unfiltered table does, stepping over the spans between
//! merge points that hold no match: a page costs the spans it shows, not
//! the trace.
//!
//! The counts of the last `KEPT` expression sets are kept; a set dropped
//! (least recently used, or with its experiment) has its pass cancelled.
//!
//! A TID expression matches each line's thread as the table shows it: the
//! count runs the kernel model from the start of the trace, a page from a
//! checkpoint with each CPU's thread there; they agree while a CPU's thread
//! changes only through the events read since (switches, the tracer's own
//! attribution).

use std::cell::RefCell;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use lru::LruCache;
use sextant_engine::event::{Event, ReadError};
use sextant_engine::kernel::model::KernelModel;
use sextant_engine::kernel::pass::Analysis;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::{Flow, RunError, Tap, Work};
use sextant_engine::session::timeline::Timeline;
use sextant_engine::session::Session;
use sextant_engine::sync::Correction;
use uuid::Uuid;

use super::search::Search;
use super::{
    read_error, read_trace, Attribution, Collected, Plans, Row, Start, Traces, Want, CONTENTS, TID,
};
use crate::index::{TraceIndex, CHECKPOINT_EVERY};
use crate::params::{Result, ServiceError};
use crate::traces::in_background;

/// Expression sets whose counts are kept: a viewer's user tries a few; each
/// costs a few bytes per checkpoint.
const KEPT: usize = 16;

/// The matches of one expression set in an experiment, counted.
pub(super) struct Matches {
    /// Where the counts are taken: the experiment's merge points.
    starts: Arc<Vec<Start>>,
    /// `before[k][s]`: trace `k`'s matches before merge point `s`; then all
    /// of its matches.
    before: Vec<Vec<u64>>,
    /// The experiment's matches before each merge point (the rank of the
    /// first match from there), then all of them.
    ranks: Vec<u64>,
}

/// Where the count of a request's expression set stands.
pub(super) enum Progress {
    Counted(Arc<Matches>),
    /// Per cent of the experiment read.
    Running(u8),
}

enum State {
    Counting,
    Counted(Arc<Matches>),
    Failed(ServiceError),
}

/// One expression set's count over one experiment: its pass's progress and
/// cancel flag (its `Work`), and its result.
struct Filtering {
    percent: AtomicU8,
    cancel: AtomicBool,
    state: RwLock<State>,
}

impl Filtering {
    fn new() -> Filtering {
        Filtering {
            percent: AtomicU8::new(0),
            cancel: AtomicBool::new(false),
            state: RwLock::new(State::Counting),
        }
    }

    fn progress(&self) -> Result<Progress> {
        match &*self.state.read().expect("not poisoned") {
            State::Counting => Ok(Progress::Running(self.percent.load(Ordering::Relaxed))),
            State::Counted(m) => Ok(Progress::Counted(m.clone())),
            State::Failed(e) => Err(e.clone()),
        }
    }

    /// Stops its pass at its next look at the flag (every few thousand
    /// events): its thread ends.
    fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// (experiment, expressions by column).
type Key = (Uuid, Vec<(usize, String)>);

/// The counts kept, least recently used dropped first.
pub(super) struct Filters {
    kept: Mutex<LruCache<Key, Arc<Filtering>>>,
}

impl Default for Filters {
    fn default() -> Filters {
        Filters::new(KEPT)
    }
}

impl Filters {
    fn new(capacity: usize) -> Filters {
        let capacity = NonZeroUsize::new(capacity).expect("a filter kept at least");
        Filters {
            kept: Mutex::new(LruCache::new(capacity)),
        }
    }

    /// The matches of `search` in the experiment of `traces`, or how far
    /// their count is; the first request of an expression set starts it.
    pub(super) fn matches(
        &self,
        traces: &Traces<'_>,
        plans: &Plans,
        search: &Search,
    ) -> Result<Progress> {
        let key = (traces.entry.uuid, search.key());
        let kept = self.kept.lock().expect("not poisoned").get(&key).cloned();
        if let Some(f) = kept {
            return f.progress();
        }
        // May read the traces (a several-trace experiment's merge points,
        // once): not under the lock.
        let starts = starts(traces, plans)?;
        let f = Arc::new(Filtering::new());
        if let Some(other) = self.keep(key, f.clone()) {
            // Another request started it meanwhile.
            return other.progress();
        }
        let paths = traces.entry.traces.iter().map(|t| t.path.clone()).collect();
        let work = Counting {
            paths,
            indexes: traces.indexes.clone(),
            starts,
            search: search.clone(),
            timeline: traces.entry.timeline.clone(),
        };
        in_background(move || work.run(&f));
        Ok(Progress::Running(0))
    }

    /// Keeps `f` under `key` unless a filtering is kept there already (then
    /// that one); the one it pushes out is cancelled.
    fn keep(&self, key: Key, f: Arc<Filtering>) -> Option<Arc<Filtering>> {
        let mut kept = self.kept.lock().expect("not poisoned");
        if let Some(other) = kept.get(&key) {
            return Some(other.clone());
        }
        if let Some((_, old)) = kept.push(key, f) {
            old.cancel();
        }
        None
    }

    /// Drops the experiment's counts, cancelling the passes still running.
    pub(super) fn forget(&self, exp: Uuid) {
        let mut kept = self.kept.lock().expect("not poisoned");
        let gone: Vec<Key> = kept
            .iter()
            .filter(|(k, _)| k.0 == exp)
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            if let Some(f) = kept.pop(&k) {
                f.cancel();
            }
        }
    }
}

/// A service going away leaves no pass running for nobody.
impl Drop for Filters {
    fn drop(&mut self) {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        for (_, f) in kept.iter() {
            f.cancel();
        }
    }
}

/// The merge points counts are taken at: the checkpoints of a single trace,
/// the plan of several.
fn starts(traces: &Traces<'_>, plans: &Plans) -> Result<Arc<Vec<Start>>> {
    let [ix] = &traces.indexes[..] else {
        return traces.plan(plans);
    };
    let starts = (0u64..)
        .zip(&ix.checkpoints)
        .map(|(k, cp)| Start {
            // Nothing lies before the first.
            ts: if k == 0 { i64::MIN } else { cp.ts },
            global: k * CHECKPOINT_EVERY,
            locals: vec![k * CHECKPOINT_EVERY],
        })
        .collect();
    Ok(Arc::new(starts))
}

/// What a count's background pass needs, owned.
struct Counting {
    paths: Vec<PathBuf>,
    indexes: Vec<Arc<TraceIndex>>,
    starts: Arc<Vec<Start>>,
    search: Search,
    /// Where each trace's times go: searches match the times shown.
    timeline: Timeline,
}

impl Counting {
    /// Counts, reporting to `f` and stopped by it; leaves the result there.
    fn run(self, f: &Filtering) {
        let progress = |p: u8| f.percent.store(p, Ordering::Relaxed);
        let work = Work {
            progress: &progress,
            cancel: &f.cancel,
        };
        let state = match self.count(&work) {
            Ok(m) => State::Counted(Arc::new(m)),
            Err(e) => State::Failed(e),
        };
        *f.state.write().expect("not poisoned") = state;
    }

    /// Each trace read once, one after the other, each a share of `work`.
    fn count(self, work: &Work<'_>) -> Result<Matches> {
        let mut before = Vec::with_capacity(self.paths.len());
        for (k, (path, ix)) in self.paths.iter().zip(&self.indexes).enumerate() {
            let marks: Vec<u64> = self.starts.iter().map(|s| s.locals[k]).collect();
            let counted = if ix.events == 0 {
                vec![0; marks.len() + 1]
            } else {
                work.part(k, self.paths.len(), |w| {
                    count_trace(path, &marks, &self.search, self.timeline.of(k), w)
                })
                .map_err(|e| read_error(path, e))?
            };
            before.push(counted);
        }
        let ranks = (0..=self.starts.len())
            .map(|s| before.iter().map(|b| b[s]).sum())
            .collect();
        Ok(Matches {
            starts: self.starts,
            before,
            ranks,
        })
    }
}

/// The matches of `search` in the trace at `path` before each of `marks`
/// (event numbers, in order), then all of them.
fn count_trace(
    path: &Path,
    marks: &[u64],
    search: &Search,
    on: Correction,
    work: &Work<'_>,
) -> std::result::Result<Vec<u64>, RunError> {
    let shared = Rc::new(RefCell::new(Collected::new(Box::default(), 1, on)));
    let mut counter = Counter {
        search,
        contents: search.reads(CONTENTS),
        marks,
        before: Vec::with_capacity(marks.len() + 1),
        index: 0,
        matched: 0,
        shared: shared.clone(),
    };
    let mut attribution = Attribution { shared };
    // The model gives every line its thread only when a TID is matched:
    // otherwise it decodes only what it needs itself.
    let mut analyses: Vec<&mut dyn Analysis> = Vec::new();
    if search.reads(TID) {
        analyses.push(&mut attribution);
    }
    // Every event goes through the model: the pass looks at the cancel flag
    // and reports progress only then.
    Session::open(path, OpenOptions::default(), None).read_events(
        None,
        &mut analyses[..],
        &mut counter,
        work,
    )?;
    counter.settle();
    let mut before = counter.before;
    before.resize(marks.len(), counter.matched);
    before.push(counter.matched);
    Ok(before)
}

/// Counts the lines a search matches, noting at each of `marks` the matches
/// before it.
struct Counter<'a> {
    search: &'a Search,
    /// Whether the payload is matched (then decoded).
    contents: bool,
    marks: &'a [u64],
    before: Vec<u64>,
    /// Number of the next event.
    index: u64,
    matched: u64,
    /// The line of the event just read, until the next one.
    shared: Rc<RefCell<Collected>>,
}

impl Counter<'_> {
    /// Counts the last line if it matches (its thread is known now).
    fn settle(&mut self) {
        let mut shared = self.shared.borrow_mut();
        shared.pending = false;
        shared.settle(Some(self.search));
        self.matched += shared.rows.len() as u64;
        shared.rows.clear();
    }
}

impl Tap for Counter<'_> {
    fn event<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        _: &KernelModel,
    ) -> std::result::Result<Flow, ReadError> {
        self.settle();
        while self
            .marks
            .get(self.before.len())
            .is_some_and(|&m| m <= self.index)
        {
            self.before.push(self.matched);
        }
        self.index += 1;
        let mut shared = self.shared.borrow_mut();
        shared.offer(ev, Some(self.search), self.contents)?;
        Ok(Flow::Apply)
    }
}

impl Matches {
    /// The number of matching lines.
    pub(super) fn size(&self) -> u64 {
        self.ranks.last().copied().unwrap_or(0)
    }

    /// The matching lines of ranks `low..low + n`.
    pub(super) fn lines(
        &self,
        traces: &Traces<'_>,
        search: &Search,
        low: u64,
        n: usize,
    ) -> Result<Vec<Row>> {
        if n == 0 || low >= self.size() {
            return Ok(Vec::new());
        }
        // From the last merge point with at most `low` matches before it, to
        // the first with every match of the page before it.
        let first = self.ranks.partition_point(|&r| r <= low) - 1;
        let last = self
            .ranks
            .partition_point(|&r| r < low + n as u64)
            .min(self.starts.len());
        let skip = (low - self.ranks[first]) as usize;
        let need = skip + n;
        let mut all: Vec<(usize, usize, Row)> = Vec::new();
        for (k, (t, ix)) in traces.entry.traces.iter().zip(&traces.indexes).enumerate() {
            let mut got = 0;
            for (from, end) in self.runs(k, ix.events, first..last) {
                let want = Want {
                    from,
                    end,
                    n: need - got,
                    keep: Some(search),
                };
                let rows = read_trace(&t.path, ix, want, traces.on(k))?;
                let read = rows.len();
                all.extend(rows.into_iter().enumerate().map(|(i, r)| (k, got + i, r)));
                got += read;
                if got >= need {
                    break;
                }
            }
        }
        // The merged table's order: time, then trace, then trace order.
        all.sort_by_key(|(k, i, r)| (r.ts, *k, *i));
        Ok(all.into_iter().skip(skip).take(n).map(|x| x.2).collect())
    }

    /// Trace `k`'s spans (first event, end) between the merge points of
    /// `segments` that hold matches, consecutive ones joined: what a page
    /// reads of it.
    fn runs(&self, k: usize, events: u64, segments: Range<usize>) -> Vec<(u64, u64)> {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for s in segments {
            if self.before[k][s + 1] == self.before[k][s] {
                continue;
            }
            let from = self.starts[s].locals[k];
            let end = self.starts.get(s + 1).map_or(events, |next| next.locals[k]);
            match runs.last_mut() {
                Some(run) if run.1 == from => run.1 = end,
                _ => runs.push((from, end)),
            }
        }
        runs
    }

    /// The rank of the first match at or after `t`.
    pub(super) fn line_at(&self, traces: &Traces<'_>, search: &Search, t: i64) -> Result<u64> {
        // Every line before the last merge point earlier than `t` is earlier
        // than `t`.
        let s = self.starts.partition_point(|s| s.ts < t).max(1) - 1;
        let mut rank = self.ranks.get(s).copied().unwrap_or(0);
        loop {
            let page = self.lines(traces, search, rank, CHECKPOINT_EVERY as usize)?;
            if page.is_empty() {
                return Ok(rank);
            }
            if let Some(i) = page.iter().position(|r| r.ts >= t) {
                return Ok(rank + i as u64);
            }
            rank += page.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(rel)
    }

    fn search(column: usize, re: &str) -> Search {
        Search(vec![(column, Regex::new(re).unwrap())])
    }

    #[test]
    fn counts_are_bounded_and_forgotten_with_their_experiment() {
        let filters = Filters::new(2);
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let key = |exp: Uuid, re: &str| (exp, search(2, re).key());
        let kept: Vec<Arc<Filtering>> = (0..3).map(|_| Arc::new(Filtering::new())).collect();
        assert!(filters.keep(key(a, "x"), kept[0].clone()).is_none());
        assert!(filters.keep(key(b, "x"), kept[1].clone()).is_none());
        // The same set again: the one kept.
        let again = filters.keep(key(a, "x"), Arc::new(Filtering::new()));
        assert!(again.is_some_and(|f| Arc::ptr_eq(&f, &kept[0])));
        // A third pushes out the least recently used, (b, x), cancelled.
        assert!(filters.keep(key(a, "y"), kept[2].clone()).is_none());
        assert!(kept[1].cancel.load(Ordering::Relaxed));
        assert!(!kept[0].cancel.load(Ordering::Relaxed));
        // Deleting experiment a drops and cancels both of its sets.
        filters.forget(a);
        assert_eq!(filters.kept.lock().unwrap().len(), 0);
        assert!(kept.iter().all(|f| f.cancel.load(Ordering::Relaxed)));
        // A service dropped cancels what it still counts.
        let f = Arc::new(Filtering::new());
        filters.keep(key(b, "z"), f.clone());
        drop(filters);
        assert!(f.cancel.load(Ordering::Relaxed));
    }

    #[test]
    fn counts_per_mark_and_stops_when_cancelled() {
        let trace = fixture("scenario-b/ctf");
        let switches = search(2, "sched_switch$");
        let marks = [0, 4096, 8192, 30_000];
        let counted = count_trace(
            &trace,
            &marks,
            &switches,
            Correction::IDENTITY,
            &Work::none(),
        )
        .unwrap();
        // Against the table's own lines, read whole.
        let rows = super::super::read_lines(
            &trace,
            Want::all(0, usize::MAX),
            None,
            true,
            Correction::IDENTITY,
        )
        .unwrap();
        let before = |n: usize| rows[..n].iter().filter(|r| switches.matches(r)).count() as u64;
        let expected: Vec<u64> = marks
            .iter()
            .map(|&m| before(m as usize))
            .chain([before(rows.len())])
            .collect();
        assert_eq!(counted, expected);
        assert!(expected[1] > 0 && expected[4] > expected[3]);
        let cancel = AtomicBool::new(true);
        let cancelled = Work {
            progress: &|_: u8| {},
            cancel: &cancel,
        };
        let e =
            count_trace(&trace, &marks, &switches, Correction::IDENTITY, &cancelled).unwrap_err();
        assert!(matches!(e, RunError::Cancelled), "{e}");
    }
}
