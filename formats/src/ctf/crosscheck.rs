//! Every decoding path against the reference walk, event by event.
//!
//! The reader has several ways to get through an event: the header read at
//! fixed offsets (`header`), payloads as flat runs (`flat`), the fixed-size
//! shortcut of `decode::skip`, and the generic walk (`decode::walk`), which
//! is the reference: the simplest code, one match arm per CTF type. Two
//! decoders of one layout can drift apart; this module decodes every event of
//! a trace by every path and says where the first one disagrees: other
//! fields, another end position, another header id or clock, an error on one
//! path only. Then it checks the reader itself (stream by stream, and the
//! merge of all streams) against the reference events; when streams end in
//! an error, the merge read with `--lenient` (on one thread and on two)
//! against the events before each error.

use std::path::{Path, PathBuf};

use super::decode::{self, Cursor, DecodeError, Discard, State};
use super::error::CtfError;
use super::layout::{EventClass, StreamClass};
use super::merge::CtfReader;
use super::stream::StreamFile;
use super::trace::{find_traces, CtfTrace};
use super::types::FieldType;
use crate::value::{Scalar, Sink, Value, ValueBuilder};

/// What a check went through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub events: u64,
    pub streams: usize,
    /// Streams that end in a decoding error (at the same event on every path).
    pub failed_streams: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The trace cannot be opened at all (metadata, files).
    #[error(transparent)]
    Open(#[from] CtfError),
    /// Two paths disagree on an event.
    #[error("{}: byte {offset}: {what}", path.display())]
    Mismatch {
        path: PathBuf,
        offset: u64,
        what: String,
    },
}

/// Checks every event of every trace at or under `root`.
pub fn check(root: &Path) -> Result<Report, CheckError> {
    let mut report = Report::default();
    let mut traces = Vec::new();
    for dir in find_traces(root)? {
        traces.push(CtfTrace::open(&dir)?);
    }
    let mut sequences = Vec::new();
    for (t, trace) in traces.iter().enumerate() {
        for path in &trace.streams {
            let s = check_stream(path, trace, t)?;
            report.events += s.events.len() as u64;
            report.streams += 1;
            report.failed_streams += usize::from(s.failed);
            sequences.push(s);
        }
    }
    // A stream whose error only payload decoding meets yields the event
    // that fails: then no merge gives exactly the events before the error.
    if !traces.is_empty() && sequences.iter().all(|s| !s.fails_in_payload) {
        let failed = report.failed_streams;
        if failed > 0 {
            check_merge(traces.clone(), &sequences, failed, 2)?;
        }
        check_merge(traces, &sequences, failed, 1)?;
    }
    Ok(report)
}

/// One stream's events as the reference decoded them: time, class, and a
/// digest of the payload; and whether the stream ended in an error.
struct Sequence {
    path: PathBuf,
    events: Vec<(i64, u64)>,
    failed: bool,
    /// Failed, and the reader frames the failing event (its payload fails).
    fails_in_payload: bool,
}

/// An event decoded by the reference walk.
struct Reference {
    /// Bit positions: end of the header, the stream's event context, the
    /// class's context; end of the event.
    header_end: u64,
    stream_context_end: u64,
    context_end: u64,
    end: u64,
    id: Option<u64>,
    clock: u64,
    class: u64,
    context: Option<Value>,
    payload: Option<Value>,
}

fn mismatch(path: &Path, offset: u64, what: impl Into<String>) -> CheckError {
    CheckError::Mismatch {
        path: path.to_path_buf(),
        offset,
        what: what.into(),
    }
}

fn check_stream(path: &Path, trace: &CtfTrace, index: usize) -> Result<Sequence, CheckError> {
    let mut reference = StreamFile::open(path, trace.layout.clone(), index)?;
    let mut reader = StreamFile::open(path, trace.layout.clone(), index)?;
    let mut out = Sequence {
        path: path.to_path_buf(),
        events: Vec::new(),
        failed: false,
        fails_in_payload: false,
    };
    let mut clock = 0;
    loop {
        let start = match reference.load_next_packet() {
            Ok(Some(start)) => start,
            Ok(None) => break,
            Err(e) => {
                // The reader must fail on the same packet.
                return match reader.advance() {
                    Err(_) => {
                        out.failed = true;
                        Ok(out)
                    }
                    Ok(more) => Err(mismatch(
                        path,
                        reference.packet().offset,
                        format!("the packet cannot be read ({e}) but the reader went on ({more})"),
                    )),
                };
            }
        };
        let mut pos = start;
        clock = reference.packet().ts_begin.unwrap_or(clock);
        while pos < reference.packet().content_bits {
            let at = reference.packet().offset + pos / 8;
            let here = |what: String| mismatch(path, at, what);
            let ev = match walk_event(&reference, pos, clock) {
                Ok(ev) => ev,
                Err(e) => {
                    // Every path must fail on this event: the reader's
                    // `advance`, or its payload decoding.
                    let failed = match reader.advance() {
                        Err(_) => true,
                        Ok(false) => false,
                        Ok(true) => {
                            out.fails_in_payload = true;
                            reader.event().is_some_and(|ev| {
                                ev.visit_payload(&mut Discard).is_err()
                                    || ev.visit_context(&mut Discard).is_err()
                            })
                        }
                    };
                    if !failed {
                        return Err(here(format!(
                            "the reference walk fails ({}) but the reader does not",
                            e.message
                        )));
                    }
                    out.failed = true;
                    return Ok(out);
                }
            };
            compare_paths(&reference, pos, clock, &ev).map_err(here)?;
            compare_reader(&mut reader, &reference, &ev).map_err(here)?;
            let ns = match reference.stream_class().clock {
                Some(c) => reference.layout().clocks[c].ns_from_origin(ev.clock),
                None => ev.clock as i64,
            };
            out.events.push((ns, digest(ev.class, ev.payload.as_ref())));
            pos = ev.end;
            clock = ev.clock;
        }
    }
    match reader.advance() {
        Ok(false) => Ok(out),
        Ok(true) => Err(mismatch(
            path,
            reader.packet().offset,
            "the reader yields an event after the last one",
        )),
        Err(e) => Err(mismatch(
            path,
            reader.packet().offset,
            format!("the reader fails after the last event: {e}"),
        )),
    }
}

/// Decodes the event at `pos` with the generic walk only.
fn walk_event(s: &StreamFile, pos: u64, clock: u64) -> Result<Reference, DecodeError> {
    let sc = s.stream_class();
    let mut cur = Cursor::new(s.bytes(), pos, s.packet().content_bits);
    let mut st = State {
        slots: s.slots(),
        event_id: None,
        clock,
    };
    if let Some(h) = &sc.event_header {
        decode::walk(h, None, &mut cur, &mut st, &mut Discard)?;
    }
    let header_end = cur.pos;
    if let Some(c) = &sc.event_context {
        decode::walk(c, None, &mut cur, &mut st, &mut Discard)?;
    }
    let stream_context_end = cur.pos;
    let class = class_of(sc, st.event_id, pos)?;
    let value = |ty: &Option<FieldType>, cur: &mut Cursor<'_>, st: &mut State<'_>| {
        ty.as_ref()
            .map(|t| {
                let mut v = ValueBuilder::default();
                decode::walk(t, None, cur, st, &mut v).map(|()| v.finish())
            })
            .transpose()
            .map(Option::flatten)
    };
    let context = value(&class.context, &mut cur, &mut st)?;
    let context_end = cur.pos;
    let payload = value(&class.payload, &mut cur, &mut st)?;
    if cur.pos == pos {
        return Err(DecodeError {
            bit: pos,
            message: "event of size zero".into(),
        });
    }
    Ok(Reference {
        header_end,
        stream_context_end,
        context_end,
        end: cur.pos,
        id: st.event_id,
        clock: st.clock,
        class: class.id,
        context,
        payload,
    })
}

fn class_of(sc: &StreamClass, id: Option<u64>, pos: u64) -> Result<&EventClass, DecodeError> {
    let id = match id {
        Some(id) => id,
        None if sc.events.len() == 1 => 0,
        None => {
            return Err(DecodeError {
                bit: pos,
                message: "no event id".into(),
            })
        }
    };
    sc.event(id).ok_or(DecodeError {
        bit: pos,
        message: format!("unknown event id {id}"),
    })
}

/// The other ways through the event at `pos` against the reference `ev`.
fn compare_paths(s: &StreamFile, pos: u64, clock: u64, ev: &Reference) -> Result<(), String> {
    let sc = s.stream_class();
    let cursor = |at: u64| Cursor::new(s.bytes(), at, s.packet().content_bits);
    let mut st = State {
        slots: s.slots(),
        event_id: None,
        clock,
    };
    if let Some(plan) = &sc.header_plan {
        let mut cur = cursor(pos);
        let h = plan
            .read(&mut cur, clock)
            .map_err(|e| format!("header plan fails: {}", e.message))?;
        if (h.id, h.clock, cur.pos) != (ev.id, ev.clock, ev.header_end) {
            return Err(format!(
                "header plan reads id {:?}, clock {}, end {}; the walk id {:?}, clock {}, end {}",
                h.id, h.clock, cur.pos, ev.id, ev.clock, ev.header_end
            ));
        }
    }
    let class = sc.event(ev.class).expect("the walk found it");
    let skips = [
        (
            "stream event context",
            &sc.event_context,
            ev.header_end,
            ev.stream_context_end,
        ),
        (
            "event context",
            &class.context,
            ev.stream_context_end,
            ev.context_end,
        ),
        ("payload", &class.payload, ev.context_end, ev.end),
    ];
    for (what, ty, from, to) in skips {
        if let Some(ty) = ty {
            let mut cur = cursor(from);
            decode::skip(ty, &mut cur, &mut st)
                .map_err(|e| format!("skipping the {what} fails: {}", e.message))?;
            if cur.pos != to {
                return Err(format!(
                    "skipping the {what} ends at bit {}, the walk at {to}",
                    cur.pos
                ));
            }
        }
    }
    if let (Some(flat), Some(ty)) = (&class.payload_flat, &class.payload) {
        let mut cur = cursor(ev.context_end);
        flat.skip(&mut cur)
            .map_err(|e| format!("flat skip fails: {}", e.message))?;
        if cur.pos != ev.end {
            return Err(format!(
                "flat skip ends at bit {}, the walk at {}",
                cur.pos, ev.end
            ));
        }
        if flat.decodable() {
            let mut cur = cursor(ev.context_end);
            let mut v = ValueBuilder::default();
            flat.decode(ty, &mut cur, &mut v)
                .map_err(|e| format!("flat decoding fails: {}", e.message))?;
            let v = v.finish();
            if !same(v.as_ref(), ev.payload.as_ref()) || cur.pos != ev.end {
                return Err(format!(
                    "flat decoding gives {v:?} ending at bit {}; the walk {:?} ending at {}",
                    cur.pos, ev.payload, ev.end
                ));
            }
        }
    }
    Ok(())
}

/// The reader's next event against the reference `ev`.
fn compare_reader(reader: &mut StreamFile, s: &StreamFile, ev: &Reference) -> Result<(), String> {
    match reader.advance() {
        Ok(true) => {}
        Ok(false) => return Err("the reader ends before this event".into()),
        Err(e) => return Err(format!("the reader fails ({e}), the walk does not")),
    }
    let e = reader.event().ok_or("the reader has no current event")?;
    let class = s.stream_class().event(ev.class).expect("the walk found it");
    if (e.name(), e.cycles()) != (&*class.name, ev.clock) {
        return Err(format!(
            "the reader gives {} at {} cycles, the walk {} at {}",
            e.name(),
            e.cycles(),
            class.name,
            ev.clock
        ));
    }
    for (what, mine, theirs) in [
        ("payload", visit(|v| e.visit_payload(v)), &ev.payload),
        ("context", visit(|v| e.visit_context(v)), &ev.context),
    ] {
        let mine = mine.map_err(|err| format!("the reader's {what} fails: {err}"))?;
        if !same(mine.as_ref(), theirs.as_ref()) {
            return Err(format!(
                "the reader's {what} is {mine:?}, the walk's {theirs:?}"
            ));
        }
    }
    Ok(())
}

fn visit(
    f: impl FnOnce(&mut ValueBuilder) -> Result<(), CtfError>,
) -> Result<Option<Value>, CtfError> {
    let mut v = ValueBuilder::default();
    f(&mut v)?;
    Ok(v.finish())
}

/// The merged reader against the reference events of every stream, merged
/// by (time, stream) as the reader promises. With `failed` streams, read
/// with `--lenient` on `jobs` framers: each failed stream ends at its error,
/// with one warning each, and the others are read whole.
fn check_merge(
    traces: Vec<CtfTrace>,
    sequences: &[Sequence],
    failed: usize,
    jobs: usize,
) -> Result<(), CheckError> {
    let mut reader = CtfReader::from_traces(traces)?
        .lenient(failed > 0)
        .with_jobs(jobs);
    let mut heads = vec![0usize; sequences.len()];
    let mut n = 0u64;
    loop {
        let next = (0..sequences.len())
            .filter(|&i| heads[i] < sequences[i].events.len())
            .min_by_key(|&i| (sequences[i].events[heads[i]].0, i));
        let more = reader.advance()?;
        let Some(i) = next else {
            if more {
                let path = &sequences[0].path;
                return Err(mismatch(
                    path,
                    0,
                    "the merge yields more events than the streams hold",
                ));
            }
            let damaged = reader.warnings().damaged.len();
            if damaged != failed {
                let path = &sequences[0].path;
                let what = format!("{failed} streams fail but {damaged} are reported damaged");
                return Err(mismatch(path, 0, what));
            }
            return Ok(());
        };
        let expected = sequences[i].events[heads[i]];
        heads[i] += 1;
        let here =
            |what: String| mismatch(&sequences[i].path, 0, format!("merged event {n}: {what}"));
        if !more {
            return Err(here("the merge ends early".into()));
        }
        let e = reader.event().expect("advanced");
        let mut d = Digest::default();
        e.visit_payload(&mut d)?;
        let payload = e.payload_type().map(|_| d.0);
        let got = (e.ts(), digest_of(e.class_id(), payload));
        if got != expected {
            return Err(here(format!(
                "the merge gives ts {} (digest {:#x}), the streams ts {} (digest {:#x})",
                got.0, got.1, expected.0, expected.1
            )));
        }
        n += 1;
    }
}

/// Whether two decodings are the same, floats bit for bit: a NaN decoded
/// alike by two paths is no disagreement (`==` would say it is).
fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_value(a, b),
        _ => false,
    }
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((nx, x), (ny, y))| nx == ny && same_value(x, y))
        }
        _ => a == b,
    }
}

/// A hash of an event's class and payload, to compare long sequences cheaply.
fn digest(class: u64, payload: Option<&Value>) -> u64 {
    let payload = payload.map(|v| {
        let mut d = Digest::default();
        replay(v, None, &mut d);
        d.0
    });
    digest_of(class, payload)
}

fn digest_of(class: u64, payload: Option<u64>) -> u64 {
    let mut d = Digest(class.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    d.mix(payload.map_or(0, |p| p ^ 1));
    d.0
}

fn replay<'v>(v: &'v Value, name: Option<&str>, sink: &mut impl Sink<'v>) {
    match v {
        Value::Unsigned(u) => sink.scalar(name, Scalar::Unsigned(*u)),
        Value::Signed(i) => sink.scalar(name, Scalar::Signed(*i)),
        Value::Float(f) => sink.scalar(name, Scalar::Float(*f)),
        Value::Str(s) => sink.scalar(name, Scalar::Str(s.as_bytes())),
        Value::List(l) => {
            sink.open(name, true);
            l.iter().for_each(|e| replay(e, None, sink));
            sink.close(true);
        }
        Value::Struct(m) => {
            sink.open(name, false);
            m.iter().for_each(|(n, e)| replay(e, Some(n), sink));
            sink.close(false);
        }
    }
}

/// FNV-style hash of the values and nesting a walk produces. Strings are
/// hashed as `ValueBuilder` keeps them (invalid UTF-8 replaced), so that a
/// digest of a `Value` equals the digest of the walk that built it.
#[derive(Default)]
struct Digest(u64);

impl Digest {
    fn mix(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x0100_0000_01B3).rotate_left(17);
    }
}

impl<'d> Sink<'d> for Digest {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
        name.unwrap_or_default()
            .bytes()
            .for_each(|b| self.mix(b as u64));
        match v {
            Scalar::Unsigned(u) => {
                self.mix(1);
                self.mix(u)
            }
            Scalar::Signed(i) => {
                self.mix(2);
                self.mix(i as u64)
            }
            Scalar::Float(f) => {
                self.mix(3);
                self.mix(f.to_bits())
            }
            Scalar::Str(s) => {
                self.mix(4);
                String::from_utf8_lossy(s)
                    .bytes()
                    .for_each(|b| self.mix(b as u64));
            }
        }
    }

    fn open(&mut self, name: Option<&str>, list: bool) {
        name.unwrap_or_default()
            .bytes()
            .for_each(|b| self.mix(b as u64));
        self.mix(if list { 5 } else { 6 });
    }

    fn close(&mut self, _: bool) {
        self.mix(7);
    }
}

/// Every stream's events as the reader gives them against what a synthetic
/// trace's writer put there.
pub fn check_expected(dir: &Path, synth: &super::synth::Synth) -> Result<(), CheckError> {
    let trace = CtfTrace::open(dir)?;
    for (path, expected) in trace.streams.iter().zip(&synth.expected) {
        let mut s = StreamFile::open(path, trace.layout.clone(), 0)?;
        for (k, want) in expected.iter().enumerate() {
            if !s.advance()? {
                return Err(mismatch(path, 0, format!("event {k} missing")));
            }
            let e = s.event().expect("advanced");
            let payload = visit(|v| e.visit_payload(v))?;
            let context = visit(|v| e.visit_context(v))?;
            let got = (e.name(), e.cycles(), e.ts(), &context, &payload);
            let exp = (
                want.name.as_str(),
                want.cycles,
                want.ns,
                &want.context,
                &want.payload,
            );
            if (got.0, got.1, got.2) != (exp.0, exp.1, exp.2)
                || !same(context.as_ref(), want.context.as_ref())
                || !same(payload.as_ref(), want.payload.as_ref())
            {
                let offset = s.packet().offset;
                return Err(mismatch(
                    path,
                    offset,
                    format!("event {k}: read {got:?}, written {exp:?}"),
                ));
            }
        }
        if s.advance()? {
            return Err(mismatch(
                path,
                s.packet().offset,
                "more events than written",
            ));
        }
    }
    if trace.streams.len() != synth.expected.len() {
        return Err(mismatch(dir, 0, "not the stream files written"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
