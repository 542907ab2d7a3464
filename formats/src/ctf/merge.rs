//! All streams of one or several traces as one time-ordered sequence of events.
//!
//! A heap keyed by each stream's next timestamp picks the earliest; the stream
//! that just yielded keeps going without touching the heap while it stays the
//! earliest, which is the common case (packets are long runs of one CPU).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::CtfError;
use super::parallel::Pool;
use super::stream::{Damage, EventRef, StreamFile};
use super::trace::{open_traces, CtfTrace};

/// What went wrong without stopping the read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Warnings {
    /// Events the tracer dropped (sum over streams of `events_discarded`).
    pub discarded_events: u64,
    /// Events whose timestamp is earlier than the previous event's.
    pub backwards_timestamps: u64,
    /// Where time first went backwards: the file and the event's time.
    pub first_backwards: Option<(PathBuf, i64)>,
    /// Metadata oddities read past (e.g. an ignored clock offset), with the trace.
    pub metadata: Vec<(PathBuf, String)>,
    /// Streams that ended at damage, read with `--lenient`.
    pub damaged: Vec<Damage>,
}

pub struct CtfReader {
    traces: Vec<CtfTrace>,
    streams: Vec<StreamFile>,
    heap: BinaryHeap<Reverse<(i64, usize)>>,
    current: Option<usize>,
    started: bool,
    last_ts: i64,
    warnings: Warnings,
    /// Windows where streams lost events, not yet taken (`take_losses`).
    losses: Vec<crate::event::Loss>,
}

impl CtfReader {
    /// Opens every trace at or under `root`.
    pub fn open(root: &Path) -> Result<CtfReader, CtfError> {
        CtfReader::from_traces(open_traces(root)?)
    }

    pub fn from_traces(traces: Vec<CtfTrace>) -> Result<CtfReader, CtfError> {
        let mut streams = Vec::new();
        for (i, t) in traces.iter().enumerate() {
            for p in &t.streams {
                streams.push(StreamFile::open(p, t.layout.clone(), i)?);
            }
        }
        Ok(CtfReader {
            traces,
            streams,
            heap: BinaryHeap::new(),
            current: None,
            started: false,
            last_ts: i64::MIN,
            warnings: Warnings::default(),
            losses: Vec::new(),
        })
    }

    /// With `on` (`--lenient`), a stream that cannot be read to its end
    /// (cut short, a packet or event that does not decode) ends there with a
    /// warning (`Warnings::damaged`) while the other streams go on; without,
    /// that is an error.
    pub fn lenient(mut self, on: bool) -> CtfReader {
        for s in &mut self.streams {
            s.set_lenient(on);
        }
        self
    }

    /// Frames packets on `jobs` threads (when above 1) while this one
    /// merges and decodes payloads: the same events in the same order.
    /// Streams whose packets do not all give their first timestamp are
    /// framed here, in order. Call before reading: a seek goes back to
    /// framing every stream here.
    pub fn with_jobs(mut self, jobs: usize) -> CtfReader {
        if jobs <= 1 || self.started {
            return self;
        }
        let mut all = Vec::new();
        let mut per_stream = Vec::new();
        for (i, s) in self.streams.iter_mut().enumerate() {
            let Some((jobs, failed)) = s.scan() else {
                continue;
            };
            let first = all.len();
            for job in jobs {
                let ns = match job.layout.streams[job.stream_class].clock {
                    Some(c) => job.layout.clocks[c].ns_from_origin(job.clock),
                    None => job.clock as i64,
                };
                all.push(((ns, i, job.info.offset), job));
            }
            per_stream.push((i, first..all.len(), failed));
        }
        if all.is_empty() {
            return self;
        }
        // Claimed in time order; each stream takes its own in file order.
        let mut order: Vec<usize> = (0..all.len()).collect();
        order.sort_by_key(|&k| all[k].0);
        let mut rank = vec![0; all.len()];
        for (r, &k) in order.iter().enumerate() {
            rank[k] = r;
        }
        let mut slots: Vec<_> = all.into_iter().map(|(_, job)| Some(job)).collect();
        let jobs_in_order = order
            .iter()
            .map(|&k| slots[k].take().expect("once"))
            .collect();
        // The reading thread is one of the `jobs` framers.
        let pool = Arc::new(Pool::start(jobs_in_order, jobs - 1));
        for (i, range, failed) in per_stream {
            let mine: VecDeque<usize> = range.map(|k| rank[k]).collect();
            self.streams[i].feed_from(Arc::clone(&pool), mine, failed);
        }
        self
    }

    pub fn traces(&self) -> &[CtfTrace] {
        &self.traces
    }

    /// Warnings so far; complete once `advance` returned false.
    pub fn warnings(&self) -> Warnings {
        let mut w = self.warnings.clone();
        w.discarded_events = self.streams.iter().map(|s| s.lost.discarded).sum();
        w.metadata = self
            .traces
            .iter()
            .flat_map(|t| t.layout.warnings.iter().map(|m| (t.dir.clone(), m.clone())))
            .collect();
        w.damaged = self
            .streams
            .iter()
            .filter_map(|s| s.damage().cloned())
            .collect();
        w
    }

    /// Bytes of stream files consumed so far, and their total: for progress bars.
    pub fn progress(&self) -> (u64, u64) {
        self.streams.iter().fold((0, 0), |(d, t), s| {
            let (sd, st) = s.progress();
            (d + sd, t + st)
        })
    }

    /// Moves to the next event in time order; false when every stream is done.
    #[inline]
    pub fn advance(&mut self) -> Result<bool, CtfError> {
        // The common case, inlined into the caller's loop: the stream that
        // yielded has another framed event and stays the earliest.
        if let Some(i) = self.current {
            if let Some(ts) = self.streams[i].advance_framed() {
                return Ok(self.went_on(i, ts));
            }
        }
        self.advance_slow()
    }

    /// Stream `i`, the current one, moved on to an event at `ts`: it stays
    /// current while it is the earliest, else the earliest of all is.
    #[inline]
    fn went_on(&mut self, i: usize, ts: i64) -> bool {
        let earliest = match self.heap.peek() {
            Some(Reverse((top, j))) => (ts, i) <= (*top, *j),
            None => true,
        };
        if earliest && ts >= self.last_ts {
            self.last_ts = ts;
            return true;
        }
        // Time going backwards is counted by `note_time`, through the heap.
        self.file_and_pop(i, ts)
    }

    /// Files stream `i`'s event at `ts` and moves to the earliest of all.
    #[inline(never)]
    fn file_and_pop(&mut self, i: usize, ts: i64) -> bool {
        self.heap.push(Reverse((ts, i)));
        self.pop_earliest()
    }

    #[inline(never)]
    fn advance_slow(&mut self) -> Result<bool, CtfError> {
        if !self.started {
            self.started = true;
            for i in 0..self.streams.len() {
                let more = self.streams[i].advance()?;
                self.collect_losses(i);
                if more {
                    let ts = self.streams[i].ts().expect("advanced");
                    self.heap.push(Reverse((ts, i)));
                }
            }
        } else if let Some(i) = self.current {
            let more = self.streams[i].advance()?;
            self.collect_losses(i);
            if more {
                let ts = self.streams[i].ts().expect("advanced");
                return Ok(self.went_on(i, ts));
            }
        }
        Ok(self.pop_earliest())
    }

    fn pop_earliest(&mut self) -> bool {
        match self.heap.pop() {
            Some(Reverse((ts, i))) => {
                self.current = Some(i);
                self.note_time(ts, i);
                true
            }
            None => {
                self.current = None;
                false
            }
        }
    }

    /// Positions the reader so that the next `advance` yields the first event
    /// at or after `ns` (in any direction, at any time): each stream skips the
    /// packets that end before `ns` without decoding their events.
    pub fn seek(&mut self, ns: i64) -> Result<(), CtfError> {
        self.heap.clear();
        self.current = None;
        self.started = true;
        self.last_ts = i64::MIN;
        self.losses.clear();
        for i in 0..self.streams.len() {
            let found = self.streams[i].seek(ns)?;
            self.collect_losses(i);
            if found {
                let ts = self.streams[i].ts().expect("positioned");
                self.heap.push(Reverse((ts, i)));
            }
        }
        Ok(())
    }

    /// Stream `i` loads packets only in `advance` past its batch and in
    /// `seek`: its loss windows are taken from it there.
    fn collect_losses(&mut self, i: usize) {
        let w = &mut self.streams[i].lost.windows;
        if !w.is_empty() {
            self.losses.append(w);
        }
    }

    fn note_time(&mut self, ts: i64, stream: usize) {
        if ts < self.last_ts {
            self.warnings.backwards_timestamps += 1;
            if self.warnings.first_backwards.is_none() {
                self.warnings.first_backwards =
                    Some((self.streams[stream].path().to_path_buf(), ts));
            }
        }
        self.last_ts = ts;
    }

    /// The current event (after `advance` returned true).
    #[inline]
    pub fn event(&self) -> Option<EventRef<'_>> {
        self.streams[self.current?].event()
    }
}

impl crate::event::EventSource for CtfReader {
    type Event<'s> = EventRef<'s>;

    #[inline]
    fn advance(&mut self) -> Result<bool, crate::event::ReadError> {
        CtfReader::advance(self).map_err(crate::event::ReadError::new)
    }

    #[inline]
    fn event(&self) -> Option<EventRef<'_>> {
        CtfReader::event(self)
    }

    fn seek(&mut self, ns: i64) -> Result<(), crate::event::ReadError> {
        CtfReader::seek(self, ns).map_err(crate::event::ReadError::new)
    }

    fn progress(&self) -> (u64, u64) {
        CtfReader::progress(self)
    }

    fn take_losses(&mut self, into: &mut Vec<crate::event::Loss>) {
        into.append(&mut self.losses);
    }

    fn warnings(&self) -> Vec<String> {
        let w = CtfReader::warnings(self);
        let mut out: Vec<String> = w
            .metadata
            .iter()
            .map(|(trace, m)| format!("{}: {m}", trace.display()))
            .collect();
        out.extend(w.damaged.iter().map(Damage::to_string));
        if w.discarded_events > 0 {
            out.push(format!(
                "the tracer discarded {} events (ring buffer full)",
                w.discarded_events
            ));
        }
        if let Some((path, ts)) = &w.first_backwards {
            out.push(format!(
                "time went backwards {} times across streams, first in {} at {} ns",
                w.backwards_timestamps,
                path.display(),
                ts
            ));
        }
        out
    }
}
