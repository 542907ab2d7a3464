//! One data stream file: its packets and the events in them, whose payloads
//! are skipped until someone asks.
//!
//! The file is memory-mapped: decoding reads the page cache directly, with no
//! copy. Pages of a finished packet are handed back (`MADV_DONTNEED`), so the
//! resident memory stays bounded by one packet per stream, whatever the file
//! size.

use std::cell::Cell;
use std::collections::VecDeque;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Advice;

use crate::mapped::Mapped;
use crate::value::{Scalar, Sink};

use super::decode::{self, Cursor, DecodeError, State};
use super::error::CtfError;
use super::frame::{self, Framed};
use super::layout::{EventClass, Layout, StreamClass};
use super::pages::{release_pages, Skim};
use super::parallel::{Job, Pool};
use super::types::FieldType;

mod damage;
mod lost;
pub use damage::Damage;

const PACKET_MAGIC: u64 = 0xC1FC_1FC1;

/// What the packet header and context say about a packet.
#[derive(Debug, Clone, Default)]
pub struct PacketInfo {
    /// Byte offset of the packet in its file.
    pub offset: u64,
    pub stream: usize,
    pub content_bits: u64,
    pub packet_bits: u64,
    pub cpu: Option<u32>,
    /// Cumulative count of events the tracer dropped in this stream, if it says.
    pub events_discarded: Option<u64>,
    pub seq_num: Option<u64>,
    pub ts_begin: Option<u64>,
    /// Clock value (cycles) of the packet's last event, when the context says.
    pub ts_end: Option<u64>,
}

/// Events framed at once: enough to amortise the loop's setup, few enough
/// that the buffer stays small (48 bytes an event).
const BATCH: usize = 1024;

pub struct StreamFile {
    path: PathBuf,
    file_len: u64,
    layout: Arc<Layout>,
    trace: usize,
    /// The whole file (`None` when empty), shared with framing threads.
    /// Checked (`shrank`) before events framed from it are handed on.
    map: Option<Arc<Mapped>>,
    /// Bytes of `map` that hold the current packet.
    data: Range<usize>,
    packet: PacketInfo,
    /// Next packet's offset in the file.
    next_packet: u64,
    /// Bit position of the next event in the packet.
    pos: u64,
    clock: u64,
    slots: Vec<Cell<i64>>,
    /// Events framed ahead in the current packet, and the next one to yield.
    batch: Vec<Framed>,
    next: usize,
    /// The error that stopped framing, returned once the batch is used up.
    pending: Option<DecodeError>,
    /// Per stream class: whether decoding must replay the header (`frame::needs_replay`).
    replay: Vec<bool>,
    /// Whether the stream is on an event: then it is `batch[next - 1]`,
    /// read in place rather than copied out for every event (the copy was a
    /// quarter of the merge's time when only names and times are read).
    on_event: bool,
    in_packet: bool,
    /// With `--jobs`: packets framed by a pool instead of here.
    feed: Option<Feed>,
    /// Events the tracer discarded, and where (`lost.rs`).
    pub lost: lost::Lost,
    /// `--lenient`: damage ends the stream instead of the read (`damage.rs`).
    lenient: bool,
    /// Ended at `damage` (until a seek).
    ended: bool,
    damage: Option<Damage>,
}

/// Which layout scope a value came from, so the caller can find fields by name.
#[derive(Default)]
struct Capture {
    depth: u32,
    fields: Vec<(String, u64)>,
}

impl<'d> Sink<'d> for Capture {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
        if self.depth == 1 {
            if let (Some(n), Scalar::Unsigned(u)) = (name, v) {
                self.fields.push((n.to_string(), u));
            } else if let (Some(n), Scalar::Signed(i)) = (name, v) {
                self.fields.push((n.to_string(), i as u64));
            }
        }
    }
    fn open(&mut self, _: Option<&str>, _: bool) {
        self.depth += 1;
    }
    fn close(&mut self, _: bool) {
        self.depth -= 1;
    }
}

impl Capture {
    fn get(&self, name: &str) -> Option<u64> {
        self.fields
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

impl StreamFile {
    pub fn open(path: &Path, layout: Arc<Layout>, trace: usize) -> Result<StreamFile, CtfError> {
        let io = |e| CtfError::io(path, e);
        let file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        // A file truncated under the map reads as zeros from there on, and
        // `shrank` makes that an error rather than events.
        let map = match file_len {
            0 => None,
            _ => Some(Arc::new(Mapped::map(&file, path).map_err(io)?)),
        };
        let slot_count = layout
            .streams
            .iter()
            .map(|s| s.slot_count)
            .max()
            .unwrap_or(0);
        let replay = layout.streams.iter().map(frame::needs_replay).collect();
        Ok(StreamFile {
            path: path.to_path_buf(),
            file_len,
            layout,
            trace,
            map,
            data: 0..0,
            packet: PacketInfo::default(),
            next_packet: 0,
            pos: 0,
            clock: 0,
            slots: vec![Cell::new(0); slot_count],
            batch: Vec::new(),
            next: 0,
            pending: None,
            replay,
            on_event: false,
            in_packet: false,
            feed: None,
            lost: lost::Lost::default(),
            lenient: false,
            ended: false,
            damage: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn trace(&self) -> usize {
        self.trace
    }

    /// Bytes read up to the end of the current packet, and the file size.
    pub fn progress(&self) -> (u64, u64) {
        (self.next_packet, self.file_len)
    }

    pub fn packet(&self) -> &PacketInfo {
        &self.packet
    }

    /// With `on`, damage ends this stream with a warning instead of the
    /// read with an error (`damage.rs`).
    pub(super) fn set_lenient(&mut self, on: bool) {
        self.lenient = on;
    }

    pub(super) fn stream_class(&self) -> &StreamClass {
        &self.layout.streams[self.packet.stream]
    }

    fn data_error(&self, bit_in_packet: u64, message: impl Into<String>) -> CtfError {
        // Bytes that do not decode because the file was cut short under
        // the map are zeros, not the trace's damage: say what happened.
        if let Some(e) = self.shrank() {
            return e;
        }
        CtfError::Data {
            path: self.path.clone(),
            offset: self.packet.offset + bit_in_packet / 8,
            message: message.into(),
        }
    }

    fn decode_error(&self, e: DecodeError) -> CtfError {
        self.data_error(e.bit, e.message)
    }

    /// The error to return instead of what was read, when the file shrank
    /// under the map since it was opened (what was read may be zeros).
    #[inline]
    fn shrank(&self) -> Option<CtfError> {
        let map = self.map.as_ref()?;
        map.shrank().then(|| map.shrank_error().into())
    }

    // The cross-check's own walk over a packet (`crosscheck`, test machinery).
    #[cfg(any(test, feature = "test-support"))]
    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    #[cfg(any(test, feature = "test-support"))]
    pub(super) fn slots(&self) -> &[Cell<i64>] {
        &self.slots
    }

    /// Loads the next non-empty packet for a walk of its own (`crosscheck`):
    /// where its events start, or `None` at the end of the file.
    #[cfg(any(test, feature = "test-support"))]
    pub(super) fn load_next_packet(&mut self) -> Result<Option<u64>, CtfError> {
        Ok(self.next_packet()?.then_some(self.pos))
    }

    /// The current packet's bytes.
    #[inline]
    pub(super) fn bytes(&self) -> &[u8] {
        self.map.as_ref().map_or(&[], |m| &m[self.data.clone()])
    }

    /// Gives back the pages of the packet just finished: they stay in the page
    /// cache, but no longer count in this process's memory.
    fn release(&self, range: Range<usize>) {
        if let Some(map) = &self.map {
            release_pages(map, range);
        }
    }

    /// Loads the next packet; false at the end of the file.
    fn next_packet(&mut self) -> Result<bool, CtfError> {
        loop {
            let offset = self.next_packet;
            if offset >= self.file_len {
                return Ok(false);
            }
            self.release(self.data.clone());
            let (info, body_start) = self.load_packet_header(offset)?;
            if let Some(map) = &self.map {
                // Map the whole packet in one call rather than fault page by
                // page (a hint: older kernels refuse it and nothing changes).
                let _ = map.advise_range(Advice::PopulateRead, self.data.start, self.data.len());
            }
            self.next_packet = offset + info.packet_bits / 8;
            self.packet = info;
            self.pos = body_start;
            self.in_packet = true;
            self.lost.packet(&self.packet, &self.layout, true);
            if self.pos < self.packet.content_bits {
                return Ok(true);
            }
            // An empty packet: go on to the next one.
        }
    }

    /// Reads the header and context of the packet at `offset` (which must be
    /// below the file size) and makes `data` the packet's bytes; checks that
    /// the packet fits in the file. Returns it and where its events start.
    fn load_packet_header(&mut self, offset: u64) -> Result<(PacketInfo, u64), CtfError> {
        let left = self.file_len - offset;
        self.data = offset as usize..self.file_len as usize;
        self.packet.offset = offset;
        let (info, body_start) = match self.read_packet_header(offset) {
            Ok(r) => r,
            Err(e) => return Err(self.decode_error(e)),
        };
        let packet_bytes = info.packet_bits / 8;
        if packet_bytes > left {
            return Err(self.data_error(
                0,
                format!(
                    "truncated packet: its size is {packet_bytes} bytes but the file has {left} bytes left"
                ),
            ));
        }
        self.data = offset as usize..(offset + packet_bytes) as usize;
        Ok((info, body_start))
    }

    /// Positions the stream on its first event at or after `ns` (false when
    /// there is none), from wherever it was. Packets whose context says they
    /// end before `ns` are skipped whole, reading only their header and
    /// context (a few dozen bytes each); events are decoded from the first
    /// packet that may hold `ns` on.
    pub fn seek(&mut self, ns: i64) -> Result<bool, CtfError> {
        self.release(self.data.clone());
        self.in_packet = false;
        self.on_event = false;
        self.reset_batch();
        // After a seek the stream frames its packets itself.
        self.feed = None;
        self.next_packet = 0;
        self.ended = false;
        self.lost.forget();
        let mut skim = Skim::default();
        while self.next_packet < self.file_len {
            let offset = self.next_packet;
            // Past damage met before, the stream ends as it did then (an
            // event's damage is not seen when its packet is skipped whole).
            if self.damage.as_ref().is_some_and(|d| offset > d.packet) {
                self.end();
                return Ok(false);
            }
            skim.passed(self.map.as_deref(), offset as usize);
            let (info, _) = match self.load_packet_header(offset) {
                Ok(r) => r,
                Err(e) => return self.damaged(e),
            };
            let ends_before = match (info.ts_end, self.layout.streams[info.stream].clock) {
                (Some(end), Some(c)) => self.layout.clocks[c].ns_from_origin(end) < ns,
                (Some(end), None) => (end as i64) < ns,
                (None, _) => false,
            };
            if !ends_before {
                skim.passed_all(self.map.as_deref(), offset as usize);
                break;
            }
            self.next_packet = offset + info.packet_bits / 8;
            self.lost.packet(&info, &self.layout, false);
        }
        self.data = 0..0;
        while self.advance()? {
            if self.ts().is_some_and(|t| t >= ns) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Decodes the packet header and context at the start of `data`. Returns
    /// the packet's description and the bit where its events start.
    fn read_packet_header(&mut self, offset: u64) -> Result<(PacketInfo, u64), DecodeError> {
        let layout = Arc::clone(&self.layout);
        let bytes = self.map.as_ref().map_or(&[][..], |m| &m[self.data.clone()]);
        let mut cur = Cursor::new(bytes, 0, bytes.len() as u64 * 8);
        let mut st = State {
            slots: &self.slots,
            event_id: None,
            clock: self.clock,
        };
        let mut header = Capture::default();
        if let Some(h) = &layout.packet_header {
            decode::walk(h, None, &mut cur, &mut st, &mut header)?;
        }
        if let Some(magic) = header.get("magic") {
            if magic != PACKET_MAGIC {
                return Err(DecodeError {
                    bit: 0,
                    message: format!("bad packet magic {magic:#x} (expected {PACKET_MAGIC:#x})"),
                });
            }
        }
        let stream_id = header.get("stream_id").unwrap_or(layout.streams[0].id);
        let Some(stream) = layout.streams.iter().position(|s| s.id == stream_id) else {
            return Err(DecodeError {
                bit: 0,
                message: format!("packet of unknown stream id {stream_id}"),
            });
        };
        let sc = &layout.streams[stream];
        // Decode the header again with this stream's layout when later scopes
        // refer to header fields (slots are per stream class).
        if sc.slot_count > 0 {
            cur.pos = 0;
            if let Some(h) = &sc.packet_header {
                decode::walk(h, None, &mut cur, &mut st, &mut Capture::default())?;
            }
        }
        let mut ctx = Capture::default();
        if let Some(c) = &sc.packet_context {
            decode::walk(c, None, &mut cur, &mut st, &mut ctx)?;
        }
        let file_bits = (self.file_len - offset) * 8;
        let packet_bits = ctx.get("packet_size").unwrap_or(file_bits);
        let content_bits = ctx.get("content_size").unwrap_or(packet_bits);
        if content_bits > packet_bits || packet_bits % 8 != 0 || content_bits < cur.pos {
            return Err(DecodeError {
                bit: 0,
                message: format!(
                    "corrupt packet context: content_size {content_bits} bits, packet_size {packet_bits} bits, header and context {} bits",
                    cur.pos
                ),
            });
        }
        if packet_bits == 0 {
            return Err(DecodeError {
                bit: 0,
                message: "packet of size 0".into(),
            });
        }
        let ts_begin = ctx.get("timestamp_begin");
        if let Some(t) = ts_begin {
            self.clock = t;
        }
        Ok((
            PacketInfo {
                offset,
                stream,
                content_bits,
                packet_bits,
                cpu: ctx.get("cpu_id").map(|c| c as u32),
                events_discarded: ctx.get("events_discarded"),
                seq_num: ctx.get("packet_seq_num"),
                ts_begin,
                ts_end: ctx.get("timestamp_end"),
            },
            cur.pos,
        ))
    }

    /// Moves to the next event; false at the end of the stream.
    #[inline]
    pub fn advance(&mut self) -> Result<bool, CtfError> {
        if self.next < self.batch.len() {
            self.next += 1;
            self.on_event = true;
            return Ok(true);
        }
        self.refill()
    }

    /// Moves to the next event when it is framed already (no packet or
    /// batch to read): its time; `None` when `advance` has work to do.
    #[inline(always)]
    pub(super) fn advance_framed(&mut self) -> Option<i64> {
        let f = self.batch.get(self.next)?;
        self.next += 1;
        Some(f.ns)
    }

    fn reset_batch(&mut self) {
        self.batch.clear();
        self.next = 0;
        self.pending = None;
    }

    /// Frames the next events once the batch is used up: an error met while
    /// framing comes out here, after the events before it (with `--lenient`,
    /// the end of the stream).
    #[inline(never)]
    fn refill(&mut self) -> Result<bool, CtfError> {
        if self.ended {
            return Ok(false);
        }
        match self.frame_next() {
            Err(e) => self.damaged(e),
            more => more,
        }
    }

    fn frame_next(&mut self) -> Result<bool, CtfError> {
        if let Some(e) = &self.pending {
            return Err(self.decode_error(e.clone()));
        }
        loop {
            if self.in_packet && self.pos < self.packet.content_bits {
                self.frame_batch();
            } else {
                self.in_packet = false;
                let more = match self.feed.is_some() {
                    true => self.take_fed()?,
                    false => {
                        self.next_packet()? && {
                            self.frame_batch();
                            true
                        }
                    }
                };
                if !more {
                    self.on_event = false;
                    return Ok(false);
                }
            }
            if let Some(e) = self.shrank() {
                return Err(e);
            }
            if !self.batch.is_empty() {
                self.next = 1;
                self.on_event = true;
                return Ok(true);
            }
            if let Some(e) = &self.pending {
                return Err(self.decode_error(e.clone()));
            }
        }
    }

    /// Frames the next events of the current packet into the batch.
    fn frame_batch(&mut self) {
        self.reset_batch();
        let map = self.map.as_deref().map_or(&[][..], |m| &m[..]);
        let stop = frame::frame(
            &self.layout.streams[self.packet.stream],
            &self.layout.clocks,
            &self.slots,
            &map[self.data.clone()],
            frame::Start {
                pos: self.pos,
                end: self.packet.content_bits,
                clock: self.clock,
            },
            BATCH,
            &mut self.batch,
        );
        self.pos = stop.pos;
        self.clock = stop.clock;
        self.pending = stop.error;
    }

    /// Reads every packet's header and context from the start of the file,
    /// as framing jobs; stops at the first packet that cannot be read, and
    /// says where it is. `None` when some packet does not give its first
    /// timestamp (its events' clock then depends on the packet before: the
    /// stream must be framed in order). Leaves the stream at its start.
    pub(super) fn scan(&mut self) -> Option<(Vec<Job>, Option<u64>)> {
        let map = Arc::clone(self.map.as_ref()?);
        let (mut jobs, mut failed) = (Vec::new(), None);
        let mut offset = 0;
        let mut skim = Skim::default();
        while offset < self.file_len {
            skim.passed(Some(&map), offset as usize);
            let Ok((info, body_start)) = self.load_packet_header(offset) else {
                failed = Some(offset);
                break;
            };
            let clock = info.ts_begin?;
            offset += info.packet_bits / 8;
            jobs.push(Job {
                map: Arc::clone(&map),
                layout: Arc::clone(&self.layout),
                stream_class: info.stream,
                data: self.data.clone(),
                body: (body_start, info.content_bits),
                clock,
                slots: self.slots.iter().map(Cell::get).collect(),
                info,
            });
        }
        skim.passed_all(Some(&map), self.file_len as usize);
        self.data = 0..0;
        self.clock = 0;
        Some((jobs, failed))
    }

    /// Frames the packets of `jobs` (this stream's, in file order) with
    /// `pool`, then reports the packet at `failed` as unreadable.
    pub(super) fn feed_from(
        &mut self,
        pool: Arc<Pool>,
        jobs: VecDeque<usize>,
        failed: Option<u64>,
    ) {
        self.feed = Some(Feed { pool, jobs, failed });
    }

    /// Takes the next packet framed by the pool; false at the end.
    fn take_fed(&mut self) -> Result<bool, CtfError> {
        let feed = self.feed.as_mut().expect("a fed stream");
        let pool = Arc::clone(&feed.pool);
        let Some(k) = feed.jobs.pop_front() else {
            // No worker may come back for the releases queued so far once
            // the streams run dry: they are done here, so that a trace read
            // whole keeps no finished packet mapped.
            pool.release_now();
            if let Some(offset) = feed.failed {
                // Read it again for its error, as reading in order would.
                self.release(self.data.clone());
                self.load_packet_header(offset)?;
            }
            return Ok(false);
        };
        let job = pool.job(k);
        if let Some(map) = &self.map {
            pool.release_later(map, self.data.clone());
        }
        let framed = pool.take(k, &self.slots);
        for (s, v) in self.slots.iter().zip(&job.slots) {
            s.set(*v);
        }
        self.packet = job.info.clone();
        self.data = job.data.clone();
        self.next_packet = job.info.offset + job.info.packet_bits / 8;
        self.lost.packet(&job.info, &self.layout, true);
        pool.give_back(std::mem::replace(&mut self.batch, framed.events));
        self.next = 0;
        self.pos = framed.stop.pos;
        self.clock = framed.stop.clock;
        self.pending = framed.stop.error;
        self.in_packet = true;
        Ok(true)
    }

    /// Timestamp of the current event in ns from the clock's origin.
    #[inline]
    pub fn ts(&self) -> Option<i64> {
        self.current().map(|c| c.ns)
    }

    #[inline]
    fn current(&self) -> Option<&Framed> {
        match self.on_event {
            true => self.batch.get(self.next.wrapping_sub(1)),
            false => None,
        }
    }

    #[inline]
    pub fn event(&self) -> Option<EventRef<'_>> {
        let c = self.current()?;
        let class = self.stream_class().event(c.class)?;
        Some(EventRef {
            stream: self,
            class,
            current: c,
        })
    }
}

/// Where a stream's packets come from when a pool frames them.
struct Feed {
    pool: Arc<Pool>,
    /// This stream's jobs, in file order.
    jobs: VecDeque<usize>,
    /// A packet after the last job whose header could not be read.
    failed: Option<u64>,
}

/// The event a stream is on. Reading its name and time decodes nothing; its
/// fields are decoded when asked for.
pub struct EventRef<'s> {
    stream: &'s StreamFile,
    class: &'s EventClass,
    current: &'s Framed,
}

impl<'s> EventRef<'s> {
    pub fn name(&self) -> &'s str {
        &self.class.name
    }

    pub fn ts(&self) -> i64 {
        self.current.ns
    }

    pub fn cycles(&self) -> u64 {
        self.current.cycles
    }

    pub fn cpu(&self) -> Option<u32> {
        self.stream.packet.cpu
    }

    pub fn trace(&self) -> usize {
        self.stream.trace
    }

    /// The event's id in its stream class.
    pub fn class_id(&self) -> u64 {
        self.class.id
    }

    pub fn payload_type(&self) -> Option<&'s FieldType> {
        self.class.payload.as_ref()
    }

    /// Walks the payload into `sink` (the top-level structure included).
    pub fn visit_payload<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), CtfError> {
        self.replay()?;
        match (&self.class.payload_flat, &self.class.payload) {
            (Some(flat), Some(ty)) if flat.decodable() => {
                let s = self.stream;
                let mut cur = Cursor::new(s.bytes(), self.current.payload, s.packet.content_bits);
                flat.decode(ty, &mut cur, sink)
                    .map_err(|e| s.decode_error(e))?;
                s.shrank().map_or(Ok(()), Err)
            }
            _ => self.visit(self.class.payload.as_ref(), self.current.payload, sink),
        }
    }

    /// Walks the event context (event-specific, not the stream's) into `sink`.
    pub fn visit_context<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), CtfError> {
        self.replay()?;
        self.visit(
            self.class.context.as_ref(),
            self.current.event_context,
            sink,
        )
    }

    /// Puts back in the slots what this event's header and contexts stored,
    /// when later events were framed since and the payload may read them.
    #[inline]
    fn replay(&self) -> Result<(), CtfError> {
        let s = self.stream;
        if !s.replay[s.packet.stream] {
            return Ok(());
        }
        frame::replay(
            s.stream_class(),
            &s.slots,
            s.bytes(),
            self.current,
            s.packet.content_bits,
        )
        .map_err(|e| s.decode_error(e))
    }

    fn visit<S: Sink<'s>>(
        &self,
        ty: Option<&FieldType>,
        at: u64,
        sink: &mut S,
    ) -> Result<(), CtfError> {
        let Some(ty) = ty else { return Ok(()) };
        let s = self.stream;
        let mut cur = Cursor::new(s.bytes(), at, s.packet.content_bits);
        let mut st = State {
            slots: &s.slots,
            event_id: None,
            clock: self.current.cycles,
        };
        decode::walk(ty, None, &mut cur, &mut st, sink).map_err(|e| s.decode_error(e))?;
        // The payload's pages may have gone since the packet was framed.
        s.shrank().map_or(Ok(()), Err)
    }
}

impl<'s> crate::event::Event<'s> for EventRef<'s> {
    fn name(&self) -> &'s str {
        EventRef::name(self)
    }

    fn ts(&self) -> i64 {
        EventRef::ts(self)
    }

    fn cpu(&self) -> Option<u32> {
        EventRef::cpu(self)
    }

    fn class(&self) -> u64 {
        // Trace, stream class and event id, each far below its field's width.
        ((self.stream.trace as u64) << 44)
            | ((self.stream.packet.stream as u64) << 24)
            | self.class.id
    }

    fn visit_fields<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), crate::event::ReadError> {
        if self.class.payload.is_none() {
            sink.open(None, false);
            sink.close(false);
            return Ok(());
        }
        self.visit_payload(sink)
            .map_err(crate::event::ReadError::new)
    }
}
