//! trace-cmd's `trace.dat` reader (file versions 6 and 7).
//!
//! The file holds the formats of its events (the kernel's `format` files),
//! options (clock, CPU count, instances, guests) and each CPU's ring buffer
//! pages as the kernel wrote them, raw (v6, v7) or in zstd-compressed chunks
//! (v7). The file is mapped; each CPU's pages are walked in order and the
//! CPUs merged by time (earliest first, the lower CPU first among equal
//! times, as `trace-cmd report` does).
//!
//! Events come out as the ftrace text reader gives them: named by their
//! format (`sched_switch`, `sys_enter_clock_nanosleep`), the thread in the
//! framing (`common_pid`), the fields under the format's names without the
//! `common_` ones. Values are the binary ones (`prev_state` as the kernel's
//! number; the kernel model reads numbers and ftrace's letters alike).
//!
//! Policy: damage in the metadata is an error at open; damage in a page is an
//! error from `advance` naming the file, the byte offset of the page (or of
//! its compressed chunk) and what is wrong, after which that CPU is read no
//! further (calling `advance` again goes on with the other CPUs). Lost
//! events (flagged in a page's commit word), records of an unknown event id,
//! data cut short by the end of the file and instances not read are warnings.

mod bytes;
mod compress;
mod error;
mod formats;
mod header;
mod options;
mod pages;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};

pub use error::TracedatError;
pub use formats::EventFormat;
pub use header::MAGIC;
pub use options::{Guest, TraceInfo};

use bytes::{Bad, Endian};
use pages::{CpuStream, Geometry, Record};

use crate::event::{Event, EventSource, Loss, ReadError};
use crate::mapped::Mapped;
use crate::value::Sink;

/// Whether `head` (the first bytes of a file) is a trace.dat.
pub fn looks_like_tracedat(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// What went wrong without stopping the read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Warnings {
    /// Events the kernel lost (the counts stored in the pages).
    pub lost_events: u64,
    /// Pages flagged with lost events before them (some without a count).
    pub lost_markers: u64,
    /// Records whose event id has no format in the file, skipped.
    pub unknown_records: u64,
    /// The first such id.
    pub first_unknown_id: Option<u32>,
    /// Events yielded with a time earlier than the previous event's.
    pub backwards_timestamps: u64,
    /// (CPU, bytes present, bytes announced) of CPUs cut short.
    pub truncated_cpus: Vec<(u32, u64, u64)>,
}

/// A reader of one trace.dat file: a cursor over its events in time order.
pub struct TracedatReader {
    path: PathBuf,
    /// Checked (`shrank`) for every record handed on.
    map: Mapped,
    version: u32,
    endian: Endian,
    formats: Vec<EventFormat>,
    by_id: HashMap<u32, u32>,
    info: TraceInfo,
    other_buffers: Vec<String>,
    streams: Vec<CpuStream>,
    /// The record each CPU is on (`None`: that CPU is done).
    heads: Vec<Option<Record>>,
    /// (time in ns, stream): earliest first, lower CPU first among equals.
    heap: BinaryHeap<Reverse<(i64, usize)>>,
    current: Option<usize>,
    primed: bool,
    last_ts: i64,
    lost: (u64, u64),
    /// Windows where a CPU lost events, not yet taken (`take_losses`).
    losses: Vec<Loss>,
    warnings: Warnings,
}

impl TracedatReader {
    /// Opens a trace.dat: reads its metadata and the chunk tables of its CPUs.
    pub fn open(path: &Path) -> Result<TracedatReader, TracedatError> {
        let file = File::open(path).map_err(|e| TracedatError::io(path, e))?;
        // Cut short under the map, the file reads as zeros from there on,
        // which `pull` turns into an error.
        let map = Mapped::map(&file, path).map_err(|e| TracedatError::io(path, e))?;
        let at = |b: Bad| TracedatError::at(path, b);
        let layout = header::parse(&map).map_err(at)?;
        let geo = Geometry {
            endian: layout.endian,
            page_size: layout.page_size as usize,
            header: layout.page,
            codec: layout.codec,
        };
        let mut streams = Vec::new();
        let mut warnings = Warnings::default();
        for loc in &layout.cpus {
            let s = CpuStream::new(&map, *loc, geo).map_err(at)?;
            if let Some((have, want)) = s.truncated() {
                warnings.truncated_cpus.push((s.cpu, have, want));
            }
            streams.push(s);
        }
        streams.sort_by_key(|s| s.cpu);
        let mut by_id = HashMap::new();
        for (i, f) in layout.formats.iter().enumerate() {
            by_id.entry(f.id).or_insert(i as u32);
        }
        Ok(TracedatReader {
            path: path.to_path_buf(),
            map,
            version: layout.version,
            endian: layout.endian,
            heads: vec![None; streams.len()],
            formats: layout.formats,
            by_id,
            info: layout.info,
            other_buffers: layout.other_buffers,
            streams,
            heap: BinaryHeap::new(),
            current: None,
            primed: false,
            last_ts: i64::MIN,
            lost: (0, 0),
            losses: Vec::new(),
            warnings,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file format version (6 or 7).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// What the file's options say (clock, CPU count, guests, ...).
    pub fn info(&self) -> &TraceInfo {
        &self.info
    }

    /// The event formats of the file; an event's `class` indexes them.
    pub fn formats(&self) -> &[EventFormat] {
        &self.formats
    }

    /// Warnings so far; complete once `advance` returned false.
    pub fn warnings(&self) -> Warnings {
        let mut w = self.warnings.clone();
        (w.lost_events, w.lost_markers) = self.lost;
        w
    }

    /// Bytes of the file read past and its size (the metadata counts as
    /// read once opened; the CPUs' data as their pages are passed).
    pub fn progress(&self) -> (u64, u64) {
        let total = self.map.len() as u64;
        let data: u64 = self.streams.iter().map(|s| s.consumed()).sum();
        let meta = total.saturating_sub(self.data_bytes());
        ((meta + data).min(total), total)
    }

    fn data_bytes(&self) -> u64 {
        self.streams.iter().map(|s| s.size()).sum()
    }

    fn ns(&self, raw: u64) -> i64 {
        i64::try_from(raw)
            .unwrap_or(i64::MAX)
            .saturating_add(self.info.time_offset)
    }

    /// The error for what did not decode: the file cut short under the
    /// map when it was (what did not decode was zeros), else the damage.
    fn bad(&self, b: Bad) -> TracedatError {
        match self.map.shrank() {
            true => self.map.shrank_error().into(),
            false => TracedatError::at(&self.path, b),
        }
    }

    /// Takes the next record of stream `i` into the heap.
    fn pull(&mut self, i: usize) -> Result<(), TracedatError> {
        let before = self.lost;
        let r = match self.streams[i].next(&self.map, &mut self.lost) {
            // What was read may be zeros of a file cut short.
            Ok(_) if self.map.shrank() => return Err(self.map.shrank_error().into()),
            Ok(r) => r,
            Err(b) => {
                // This CPU is read no further; the others go on.
                self.heads[i] = None;
                return Err(self.bad(b));
            }
        };
        // A page flagged with lost events: they were lost between this
        // CPU's previous record and the page's first.
        if let (true, Some(next)) = (self.lost.1 > before.1, r) {
            let to = self.ns(next.ts);
            let from = self.heads[i].map_or(to, |p| self.ns(p.ts)).min(to);
            self.losses.push(Loss {
                cpu: Some(self.streams[i].cpu),
                from,
                to,
                events: (self.lost.0 > before.0).then_some(self.lost.0 - before.0),
            });
        }
        self.heads[i] = r;
        if let Some(r) = r {
            self.heap.push(Reverse((self.ns(r.ts), i)));
        }
        Ok(())
    }

    /// The event id of stream `i`'s record (`common_type`, 16 bits at 0).
    fn record_id(&self, i: usize) -> Option<u32> {
        let r = self.heads[i]?;
        let page = self.streams[i].current_page(&self.map);
        self.endian
            .uint(page.get(r.start..r.end)?, 0, 2)
            .map(|v| v as u32)
    }

    /// Moves to the next event in time order; false at the end.
    pub fn advance(&mut self) -> Result<bool, TracedatError> {
        if !self.primed {
            self.primed = true;
            // A damaged CPU must not keep the others from being read.
            let mut first_error = None;
            for i in 0..self.streams.len() {
                if let Err(e) = self.pull(i) {
                    first_error.get_or_insert(e);
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
        } else if let Some(i) = self.current.take() {
            self.pull(i)?;
        }
        while let Some(Reverse((ts, i))) = self.heap.pop() {
            if self
                .record_id(i)
                .is_some_and(|id| self.by_id.contains_key(&id))
            {
                if ts < self.last_ts {
                    self.warnings.backwards_timestamps += 1;
                }
                self.last_ts = self.last_ts.max(ts);
                self.current = Some(i);
                return Ok(true);
            }
            self.warnings.unknown_records += 1;
            if self.warnings.first_unknown_id.is_none() {
                self.warnings.first_unknown_id = self.record_id(i);
            }
            self.pull(i)?;
        }
        Ok(false)
    }

    /// Positions the reader so that the next `advance` yields the first
    /// event at or after `ns`, as a full read would: each CPU from the last
    /// page stamped before `ns` (a binary search over its pages).
    pub fn seek(&mut self, ns: i64) -> Result<(), TracedatError> {
        let raw = u64::try_from(ns.saturating_sub(self.info.time_offset)).unwrap_or(0);
        self.heap.clear();
        self.current = None;
        self.primed = true;
        self.last_ts = i64::MIN;
        self.losses.clear();
        for i in 0..self.streams.len() {
            let r = self.streams[i]
                .seek(&self.map, raw, &mut self.lost)
                .map_err(|b| self.bad(b))?;
            self.heads[i] = r;
            if let Some(r) = r {
                self.heap.push(Reverse((self.ns(r.ts), i)));
            }
        }
        Ok(())
    }

    /// The current event (after `advance` returned true).
    pub fn event(&self) -> Option<TracedatEvent<'_>> {
        let i = self.current?;
        let r = self.heads[i]?;
        let s = &self.streams[i];
        let record = s.current_page(&self.map).get(r.start..r.end)?;
        let id = self.endian.uint(record, 0, 2)? as u32;
        let class = *self.by_id.get(&id)?;
        Some(TracedatEvent {
            record,
            format: &self.formats[class as usize],
            class,
            ts: self.ns(r.ts),
            cpu: s.cpu,
            endian: self.endian,
            path: &self.path,
            at: s.current_at(),
        })
    }
}

/// The event a reader is on, borrowed until it advances.
#[derive(Clone, Copy)]
pub struct TracedatEvent<'s> {
    record: &'s [u8],
    format: &'s EventFormat,
    class: u32,
    ts: i64,
    cpu: u32,
    endian: Endian,
    path: &'s Path,
    /// File offset of the event's page (or compressed chunk), for errors.
    at: u64,
}

impl<'s> TracedatEvent<'s> {
    pub fn format(&self) -> &'s EventFormat {
        self.format
    }

    /// The thread that emitted the event (`common_pid`).
    pub fn common_pid(&self) -> Option<i64> {
        let f = self.format.common_pid.as_ref()?;
        let u = self
            .endian
            .uint(self.record, f.offset as usize, f.size as usize)?;
        let shift = 64 - 8 * f.size.min(8);
        Some(((u << shift) as i64) >> shift)
    }

    /// The record's bytes, from `common_type`.
    pub fn record(&self) -> &'s [u8] {
        self.record
    }
}

impl std::fmt::Debug for TracedatEvent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TracedatEvent")
            .field("name", &self.format.name)
            .field("ts", &self.ts)
            .field("cpu", &self.cpu)
            .field("pid", &self.common_pid())
            .finish()
    }
}

impl<'s> Event<'s> for TracedatEvent<'s> {
    fn name(&self) -> &'s str {
        &self.format.name
    }

    fn ts(&self) -> i64 {
        self.ts
    }

    fn cpu(&self) -> Option<u32> {
        Some(self.cpu)
    }

    fn thread(&self) -> Option<i64> {
        self.common_pid()
    }

    fn class(&self) -> u64 {
        self.class as u64
    }

    fn visit_fields<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), ReadError> {
        formats::visit(self.format, self.record, self.endian, sink).map_err(|e| {
            ReadError::new(TracedatError::At {
                path: self.path.to_path_buf(),
                offset: self.at,
                message: format!(
                    "event `{}` on CPU {} at {} ns: field `{}` lies past the end of its {}-byte record",
                    self.format.name, self.cpu, self.ts, e.field, e.len
                ),
            })
        })
    }
}

impl EventSource for TracedatReader {
    type Event<'s> = TracedatEvent<'s>;

    fn advance(&mut self) -> Result<bool, ReadError> {
        TracedatReader::advance(self).map_err(ReadError::new)
    }

    fn event(&self) -> Option<TracedatEvent<'_>> {
        TracedatReader::event(self)
    }

    fn seek(&mut self, ns: i64) -> Result<(), ReadError> {
        TracedatReader::seek(self, ns).map_err(ReadError::new)
    }

    fn progress(&self) -> (u64, u64) {
        TracedatReader::progress(self)
    }

    fn take_losses(&mut self, into: &mut Vec<Loss>) {
        into.append(&mut self.losses);
    }

    fn warnings(&self) -> Vec<String> {
        let w = TracedatReader::warnings(self);
        let mut out = Vec::new();
        if w.lost_markers > 0 {
            out.push(format!(
                "the kernel lost {} events ({} pages flagged with lost events before them)",
                w.lost_events, w.lost_markers
            ));
        }
        if let Some(id) = w.first_unknown_id {
            out.push(format!(
                "{} records of event ids without a format in the file were skipped (first id {id})",
                w.unknown_records
            ));
        }
        for (cpu, have, want) in &w.truncated_cpus {
            out.push(format!(
                "{}: the data of CPU {cpu} is cut short ({have} of {want} bytes): its complete pages are read",
                self.path.display()
            ));
        }
        if w.backwards_timestamps > 0 {
            out.push(format!(
                "time went backwards {} times within a CPU's pages",
                w.backwards_timestamps
            ));
        }
        if !self.other_buffers.is_empty() {
            out.push(format!(
                "only the top instance is read; not read: {}",
                self.other_buffers
                    .iter()
                    .map(|b| format!("`{b}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if self.info.has_time_shift {
            out.push("the file has guest/host time synchronisation data, not applied: times are the guest's own clock".into());
        }
        if self.info.tsc2nsec.is_some() {
            out.push("the file converts TSC cycles to ns (TSC2NSEC), not applied: times are in the trace clock's units".into());
        }
        out
    }
}

#[cfg(test)]
mod tests;
