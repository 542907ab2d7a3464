//! `sextant capture stm`: CoreSight STM traces (MIPI STPv2) decoded into
//! CTF. The input is what a CoreSight sink stores (formatter frames
//! interleaving several trace sources; the STM's own chosen by trace ID) or
//! a bare STP stream. Every data packet becomes an `stm_data` event, flags,
//! triggers and errors their own events, and the SyS-T messages they carry
//! `syst_message` events. One CTF stream per STM master.

pub mod decoder;
pub mod device;
pub mod frames;
pub mod syst;

use std::collections::HashMap;
use std::path::PathBuf;

use crate::ctf::writer::{
    Clock, CtfWriter, EnvValue, EventClass, FieldType, FieldValue, StreamId, TraceSpec, WriteError,
};

use decoder::{Decoder, Message, Packet};

/// How the capture's bytes are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// CoreSight formatter frames; the STM's trace ID, or the only one present.
    Formatted { trace_id: Option<u8> },
    /// A bare STP stream.
    Raw,
}

#[derive(Debug, thiserror::Error)]
pub enum StmError {
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{}: {message}", path.display())]
    Device { path: PathBuf, message: String },
}

/// What a decoding found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub trace_id: Option<u8>,
    pub packets: u64,
    pub data: u64,
    pub flags: u64,
    pub triggers: u64,
    /// MERR and GERR packets: the STM lost data.
    pub errors: u64,
    pub syst: u64,
    pub events: u64,
    pub masters: Vec<u16>,
    /// The clock frequency the timestamps were written with, and where it
    /// came from.
    pub freq: u64,
    pub freq_source: &'static str,
    pub warnings: Vec<String>,
}

const DATA: usize = 0;
const FLAG: usize = 1;
const TRIGGER: usize = 2;
const ERROR: usize = 3;
const SYST: usize = 4;

fn classes() -> Vec<EventClass> {
    let u = |bits| FieldType::int(bits, false);
    let at = || {
        vec![
            ("master".to_string(), u(16)),
            ("channel".to_string(), u(16)),
        ]
    };
    let with = |mut v: Vec<(String, FieldType)>, more: &[(&str, FieldType)]| {
        v.extend(more.iter().map(|(n, t)| (n.to_string(), *t)));
        v
    };
    vec![
        EventClass {
            name: "stm_data".into(),
            fields: with(
                at(),
                &[
                    ("size", u(8)),
                    ("value", FieldType::hex(64)),
                    ("marked", u(8)),
                    ("timestamped", u(8)),
                ],
            ),
        },
        EventClass {
            name: "stm_flag".into(),
            fields: with(at(), &[("timestamped", u(8))]),
        },
        EventClass {
            name: "stm_trigger".into(),
            fields: with(at(), &[("value", u(8)), ("timestamped", u(8))]),
        },
        EventClass {
            name: "stm_error".into(),
            fields: with(at(), &[("scope", FieldType::String), ("value", u(8))]),
        },
        EventClass {
            name: "syst_message".into(),
            fields: with(
                at(),
                &[
                    ("guid", FieldType::String),
                    ("type", u(8)),
                    ("subtype", u(8)),
                    ("severity", u(8)),
                    ("syst_timestamp", u(64)),
                    ("text", FieldType::String),
                    ("payload", FieldType::Bytes),
                ],
            ),
        },
    ]
}

/// A SyS-T message being gathered on one master/channel.
struct Pending {
    bytes: Vec<u8>,
}

struct Converter {
    writer: CtfWriter,
    streams: HashMap<u16, StreamId>,
    last_ts: u64,
    pending: HashMap<(u16, u16), Pending>,
    report: Report,
    clamped: u64,
}

impl Converter {
    fn stream(&mut self, master: u16) -> Result<StreamId, WriteError> {
        if let Some(s) = self.streams.get(&master) {
            return Ok(*s);
        }
        let s = self
            .writer
            .add_stream(&format!("master_{master}"), &[u64::from(master)])?;
        self.streams.insert(master, s);
        Ok(s)
    }

    fn emit(
        &mut self,
        master: u16,
        class: usize,
        ts: u64,
        fields: &[FieldValue<'_>],
    ) -> Result<(), WriteError> {
        // STP time is one clock for all masters: it only goes back after a
        // gap or on corrupt data.
        let ts = if ts < self.last_ts {
            self.clamped += 1;
            self.last_ts
        } else {
            ts
        };
        self.last_ts = ts;
        let s = self.stream(master)?;
        self.writer.event(s, class, ts, &[], fields)?;
        self.report.events += 1;
        Ok(())
    }

    fn message(&mut self, m: &Message) -> Result<(), WriteError> {
        self.report.packets += 1;
        let at = [
            FieldValue::UInt(u64::from(m.master)),
            FieldValue::UInt(u64::from(m.channel)),
        ];
        let ts_flag = FieldValue::UInt(u64::from(m.timestamped));
        match m.packet {
            Packet::Data {
                size,
                value,
                marked,
            } => {
                self.report.data += 1;
                self.emit(
                    m.master,
                    DATA,
                    m.ts,
                    &[
                        at[0],
                        at[1],
                        FieldValue::UInt(u64::from(size.bits())),
                        FieldValue::UInt(value),
                        FieldValue::UInt(u64::from(marked)),
                        ts_flag,
                    ],
                )?;
                let key = (m.master, m.channel);
                if size == decoder::DataSize::D4 {
                    // Not byte data: whatever was being gathered is not SyS-T.
                    self.pending.remove(&key);
                } else {
                    let p = self
                        .pending
                        .entry(key)
                        .or_insert(Pending { bytes: Vec::new() });
                    // A message is bounded: a channel that never flags is not SyS-T.
                    if p.bytes.len() < 1 << 16 {
                        p.bytes.extend_from_slice(
                            &value.to_le_bytes()[..usize::from(size.bits() / 8)],
                        );
                    }
                }
            }
            Packet::Flag => {
                self.report.flags += 1;
                self.emit(m.master, FLAG, m.ts, &[at[0], at[1], ts_flag])?;
                if let Some(p) = self.pending.remove(&(m.master, m.channel)) {
                    if let Some(s) = syst::parse(&p.bytes) {
                        self.report.syst += 1;
                        // String messages (type 2) carry text, NUL-terminated or not.
                        let text: &[u8] = if s.kind == 2 { &s.payload } else { b"" };
                        // At the FLAG that completes it: its data packets,
                        // other masters' among them, came before, and the
                        // header's own time is its first `stm_data`.
                        self.emit(
                            m.master,
                            SYST,
                            m.ts,
                            &[
                                at[0],
                                at[1],
                                FieldValue::Str(s.guid.as_bytes()),
                                FieldValue::UInt(u64::from(s.kind)),
                                FieldValue::UInt(u64::from(s.subtype)),
                                FieldValue::UInt(u64::from(s.severity)),
                                FieldValue::UInt(s.timestamp.unwrap_or(0)),
                                FieldValue::Str(
                                    &String::from_utf8_lossy(text).into_owned().into_bytes(),
                                ),
                                FieldValue::Bytes(&s.payload),
                            ],
                        )?;
                    }
                }
            }
            Packet::Trig(v) => {
                self.report.triggers += 1;
                self.emit(
                    m.master,
                    TRIGGER,
                    m.ts,
                    &[at[0], at[1], FieldValue::UInt(u64::from(v)), ts_flag],
                )?;
            }
            Packet::Merr(v) | Packet::Gerr(v) => {
                self.report.errors += 1;
                let scope: &[u8] = if matches!(m.packet, Packet::Merr(_)) {
                    b"master"
                } else {
                    b"global"
                };
                self.report.warnings.push(format!(
                    "byte {}: the STM lost data ({} error, master {})",
                    m.offset,
                    String::from_utf8_lossy(scope),
                    m.master
                ));
                self.emit(
                    m.master,
                    ERROR,
                    m.ts,
                    &[
                        at[0],
                        at[1],
                        FieldValue::Str(scope),
                        FieldValue::UInt(u64::from(v)),
                    ],
                )?;
            }
            Packet::Freq(f) => {
                if f > 0 && self.report.freq_source != "--freq" {
                    if self.report.freq_source == "FREQ packet" && self.report.freq != u64::from(f)
                    {
                        self.report.warnings.push(format!(
                            "byte {}: the timestamp frequency changes from {} Hz to {f} Hz; the first is used",
                            m.offset, self.report.freq
                        ));
                    } else if self.report.freq_source != "FREQ packet" {
                        self.report.freq = u64::from(f);
                        self.report.freq_source = "FREQ packet";
                    }
                }
            }
            Packet::Async | Packet::Version(_) => {
                // Decoding (re)starts: a message cut by a gap is not whole.
                self.pending.clear();
            }
            Packet::Null | Packet::M8(_) | Packet::C8(_) | Packet::C16(_) => {}
        }
        Ok(())
    }
}

/// Decodes a capture into a CTF trace at `out`. `freq`: the STM clock
/// frequency when the stream has no FREQ packet (or to override it).
pub fn decode_to_ctf(
    data: &[u8],
    input: Input,
    freq: Option<u64>,
    out: &std::path::Path,
) -> Result<Report, StmError> {
    let mut report = Report {
        freq: freq.unwrap_or(1_000_000_000),
        freq_source: if freq.is_some() { "--freq" } else { "none" },
        ..Report::default()
    };
    // (source bytes, runs between gaps, file offset of a byte).
    let demuxed;
    let (source, runs): (Option<&frames::SourceBytes>, Vec<(usize, &[u8])>) = match input {
        Input::Raw => (None, vec![(0, data)]),
        Input::Formatted { trace_id } => {
            demuxed = frames::demux(data);
            report.warnings.extend(demuxed.warnings.iter().cloned());
            let ids: Vec<String> = demuxed
                .sources
                .keys()
                .map(|i| format!("{i:#04x}"))
                .collect();
            let id = match trace_id {
                Some(id) => id,
                None if demuxed.sources.len() == 1 => *demuxed.sources.keys().next().unwrap_or(&0),
                None if demuxed.sources.is_empty() => {
                    return Err(StmError::Input(
                        "no trace data in the formatter frames (is it a bare STP stream? then --raw)"
                            .into(),
                    ))
                }
                None => {
                    return Err(StmError::Input(format!(
                        "several trace sources are interleaved (IDs {}): choose the STM's with --trace-id",
                        ids.join(", ")
                    )))
                }
            };
            let Some(s) = demuxed.sources.get(&id) else {
                return Err(StmError::Input(format!(
                    "no data for trace ID {id:#04x} (IDs present: {})",
                    if ids.is_empty() {
                        "none".into()
                    } else {
                        ids.join(", ")
                    }
                )));
            };
            report.trace_id = Some(id);
            (Some(s), s.runs())
        }
    };
    let spec = TraceSpec {
        clock: Clock {
            name: "stm".into(),
            description: "CoreSight STM timestamp counter".into(),
            freq: report.freq,
            offset_s: 0,
        },
        env: vec![
            ("domain".into(), EnvValue::Text("stm".into())),
            (
                "tracer_name".into(),
                EnvValue::Text("sextant-capture-stm".into()),
            ),
            (
                "trace_id".into(),
                EnvValue::Int(report.trace_id.map_or(-1, i64::from)),
            ),
        ],
        source_fields: vec!["master".into()],
        event_context: Vec::new(),
        classes: classes(),
    };
    let mut conv = Converter {
        writer: CtfWriter::create(out, spec)?,
        streams: HashMap::new(),
        last_ts: 0,
        pending: HashMap::new(),
        report,
        clamped: 0,
    };
    let mut dec: Option<Decoder<'_>> = None;
    for (start, bytes) in runs {
        let d = match dec.as_mut() {
            Some(d) => {
                d.resume(bytes, start as u64);
                d
            }
            None => dec.insert(Decoder::new(bytes)),
        };
        while let Some(m) = d.next_message() {
            conv.message(&m)?;
        }
        for w in d.take_warnings() {
            // Offsets in a demuxed source are also given in the file.
            let w = match (source, w.strip_prefix("byte ")) {
                (Some(s), Some(rest)) => {
                    let (n, tail) = rest.split_once(':').unwrap_or((rest, ""));
                    let i: usize = n.parse().unwrap_or(0);
                    format!(
                        "trace ID {:#04x}, byte {i} (frame at file byte {}):{tail}",
                        conv.report.trace_id.unwrap_or(0),
                        s.file_offset(i)
                    )
                }
                _ => w,
            };
            conv.report.warnings.push(w);
        }
    }
    if let Some(d) = &dec {
        if d.skipped_nibbles > 0 {
            conv.report.warnings.push(format!(
                "{} bytes skipped while looking for an ASYNC packet",
                d.skipped_nibbles.div_ceil(2)
            ));
        }
    }
    if conv.clamped > 0 {
        conv.report.warnings.push(format!(
            "{} packets with a timestamp before the previous one were written at the previous one's time",
            conv.clamped
        ));
    }
    if conv.report.freq_source == "none" && conv.report.events > 0 {
        conv.report.warnings.push(
            "no FREQ packet and no --freq: timestamps are written as if the STM clock counted nanoseconds"
                .into(),
        );
    }
    let mut report = conv.report;
    report.masters = {
        let mut m: Vec<u16> = conv.streams.keys().copied().collect();
        m.sort_unstable();
        m
    };
    let mut writer = conv.writer;
    writer.set_clock_freq(report.freq);
    writer.finish()?;
    Ok(report)
}

#[cfg(test)]
mod tests;
