//! Synthetic CTF traces for tests and fuzzing: a layout (random, or given),
//! its TSDL, stream files written by an encoder of our own, and the values
//! every event must decode to.
//!
//! The encoder places fields by CTF 1.8's layout rules (alignment of every
//! field and structure, bit packing in both byte orders, variants aligned by
//! their chosen option), written independently of the decoders: what they
//! read back must be what was written here.

mod encode;
mod random;
mod ty;

use std::fmt::Write as _;
use std::path::Path;

use super::types::ByteOrder;
use crate::value::Value;
use encode::{fit, BitWriter, Encoder};
use ty::order_name;
pub use ty::{IntSpec, Ty};

/// Where choices come from: a seeded generator, or a fuzzer's bytes (zeros
/// once they run out, so that any input gives a trace).
pub enum Choices<'a> {
    Seeded(u64),
    Bytes(&'a [u8]),
}

impl Choices<'_> {
    fn u64(&mut self) -> u64 {
        match self {
            Choices::Seeded(s) => {
                // splitmix64
                *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = *s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            }
            Choices::Bytes(b) => {
                let n = b.len().min(8);
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(&b[..n]);
                *b = &b[n..];
                u64::from_le_bytes(w)
            }
        }
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.u64() % n
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// The event header layouts of real tracers, with their alignments.
#[derive(Debug, Clone, Copy)]
pub enum Header {
    /// LTTng's `event_header_compact`: a 5-bit id whose value 31 selects an
    /// extended form with a 32-bit id and a 64-bit timestamp; else a 27-bit
    /// timestamp. Alignments of the structure, uint32_t and uint64_t.
    Compact { align: u32, a32: u32, a64: u32 },
    /// LTTng's `event_header_large`: a 16-bit id (65535 selects the extended
    /// form), else a 32-bit timestamp. Alignments of the structure (and of
    /// uint16_t), uint32_t and uint64_t.
    Large { align: u32, a32: u32, a64: u32 },
    /// perf's: `struct { uint32 id; uint64 timestamp; }`.
    Plain,
}

impl Header {
    fn tsdl(&self) -> String {
        let u = |bits: u32, align: u32, map: bool| {
            IntSpec::new(bits as u8, align).tsdl(map.then_some("c"))
        };
        match *self {
            Header::Compact { align, a32, a64 } => format!(
                "struct {{\n\t\tenum : {} {{ compact = 0 ... 30, extended = 31 }} id;\n\t\tvariant <id> {{\n\t\t\tstruct {{ {} timestamp; }} compact;\n\t\t\tstruct {{ {} id; {} timestamp; }} extended;\n\t\t}} v;\n\t}} align({align})",
                u(5, 1, false),
                u(27, 1, true),
                u(32, a32, false),
                u(64, a64, true)
            ),
            Header::Large { align, a32, a64 } => format!(
                "struct {{\n\t\tenum : {} {{ compact = 0 ... 65534, extended = 65535 }} id;\n\t\tvariant <id> {{\n\t\t\tstruct {{ {} timestamp; }} compact;\n\t\t\tstruct {{ {} id; {} timestamp; }} extended;\n\t\t}} v;\n\t}} align({align})",
                u(16, align, false),
                u(32, a32, true),
                u(32, a32, false),
                u(64, a64, true)
            ),
            Header::Plain => format!(
                "struct {{ {} id; {} timestamp; }} align(8)",
                u(32, 8, false),
                u(64, 8, true)
            ),
        }
    }

    /// Writes the header of an event of class `id` at `ts` cycles, the
    /// stream's clock standing at `clock`.
    fn write(&self, w: &mut BitWriter, id: u64, ts: u64, clock: u64, order: ByteOrder) {
        let (tag_bits, escape, ts_bits, align, a32, a64) = match *self {
            Header::Plain => {
                w.align(8);
                w.int(id, 32, 8, order);
                w.int(ts, 64, 8, order);
                return;
            }
            Header::Compact { align, a32, a64 } => (5, 31, 27, align, a32, a64),
            Header::Large { align, a32, a64 } => (16, 65535, 32, align, a32, a64),
        };
        w.align(align as u64);
        let tag_align = if tag_bits == 16 { align } else { 1 } as u64;
        if id < escape && ts - clock < 1 << ts_bits {
            w.int(id, tag_bits, tag_align, order);
            let compact_align = if ts_bits == 32 { a32 } else { 1 } as u64;
            w.int(fit(ts, ts_bits), ts_bits, compact_align, order);
        } else {
            w.int(escape, tag_bits, tag_align, order);
            w.align(a32.max(a64) as u64);
            w.int(id, 32, a32 as u64, order);
            w.int(ts, 64, a64 as u64, order);
        }
    }
}

/// An event class of a synthetic trace.
#[derive(Debug, Clone)]
pub struct Class {
    pub id: u64,
    pub name: String,
    pub context: Option<Vec<(String, Ty)>>,
    pub payload: Option<Vec<(String, Ty)>>,
}

/// A synthetic layout: everything but the values.
#[derive(Debug, Clone)]
pub struct Spec {
    pub order: ByteOrder,
    pub header: Header,
    /// Clock frequency (Hz) and offset (s).
    pub freq: u64,
    pub offset_s: i64,
    pub stream_context: Option<Vec<(String, Ty)>>,
    pub classes: Vec<Class>,
    /// Strings the payloads' string fields take (random text when empty).
    pub words: Vec<String>,
}

/// What an event must decode to.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub ns: i64,
    pub cycles: u64,
    pub name: String,
    pub context: Option<Value>,
    pub payload: Option<Value>,
}

/// A written trace: metadata text, stream files and, per file, its events.
pub struct Synth {
    pub metadata: String,
    pub streams: Vec<(String, Vec<u8>)>,
    pub expected: Vec<Vec<Expected>>,
}

impl Synth {
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("metadata"), &self.metadata)?;
        for (name, bytes) in &self.streams {
            std::fs::write(dir.join(name), bytes)?;
        }
        Ok(())
    }
}

impl Spec {
    pub fn metadata(&self) -> String {
        let mut m = String::from("/* CTF 1.8 */\n");
        let u = |bits: u8, map: bool| IntSpec::new(bits, 8).tsdl(map.then_some("c"));
        let _ = write!(
            m,
            "trace {{\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = {};\n\tpacket.header := struct {{\n\t\t{} magic;\n\t\t{} stream_id;\n\t}};\n}};\n",
            order_name(self.order),
            u(32, false),
            u(32, false)
        );
        let _ = write!(
            m,
            "clock {{\n\tname = c;\n\tfreq = {};\n\toffset_s = {};\n}};\n",
            self.freq, self.offset_s
        );
        let _ = write!(
            m,
            "stream {{\n\tid = 0;\n\tevent.header := {};\n\tpacket.context := struct {{\n\t\t{} timestamp_begin;\n\t\t{} timestamp_end;\n\t\t{} content_size;\n\t\t{} packet_size;\n\t\t{} events_discarded;\n\t\t{} cpu_id;\n\t}};\n",
            self.header.tsdl(),
            u(64, true),
            u(64, true),
            u(64, false),
            u(64, false),
            u(32, false),
            u(32, false)
        );
        if let Some(c) = &self.stream_context {
            m.push_str("\tevent.context := ");
            Ty::Struct(c.clone(), 1).type_spec(&mut m, 1);
            m.push_str(";\n");
        }
        m.push_str("};\n");
        for c in &self.classes {
            let _ = write!(
                m,
                "event {{\n\tname = \"{}\";\n\tid = {};\n\tstream_id = 0;\n",
                c.name, c.id
            );
            for (what, fields) in [("context", &c.context), ("fields", &c.payload)] {
                if let Some(f) = fields {
                    let _ = write!(m, "\t{what} := ");
                    Ty::Struct(f.clone(), 1).type_spec(&mut m, 1);
                    m.push_str(";\n");
                }
            }
            m.push_str("};\n");
        }
        m
    }

    fn ns(&self, cycles: u64) -> i64 {
        let ns = self.offset_s as i128 * 1_000_000_000
            + cycles as i128 * 1_000_000_000 / self.freq as i128;
        ns as i64
    }

    /// Writes `streams` files of `packets` packets each, with up to `events`
    /// events per packet, classes and values chosen by `ch`.
    pub fn write(&self, ch: &mut Choices<'_>, streams: u32, packets: u32, events: u32) -> Synth {
        let mut out = Synth {
            metadata: self.metadata(),
            streams: Vec::new(),
            expected: Vec::new(),
        };
        let order = self.order;
        for s in 0..streams {
            let mut file = Vec::new();
            let mut expected = Vec::new();
            let mut clock = 1000 + ch.below(1 << 20);
            for _ in 0..packets {
                let mut w = BitWriter::default();
                w.int(0xC1FC_1FC1, 32, 8, order);
                w.int(0, 32, 8, order);
                let begin = clock;
                w.int(begin, 64, 8, order);
                let end_at = w.int(0, 64, 8, order);
                let content_at = w.int(0, 64, 8, order);
                let size_at = w.int(0, 64, 8, order);
                w.int(0, 32, 8, order);
                w.int(s as u64, 32, 8, order);
                let n = ch.below(events as u64 + 1);
                let mut ts = begin;
                for _ in 0..n {
                    ts += match ch.below(8) {
                        0 => 0,
                        1 => 1 << 27,
                        2 => 1 << 32,
                        3 => ch.below(1 << 40),
                        _ => ch.below(5000),
                    };
                    let class = &self.classes[ch.below(self.classes.len() as u64) as usize];
                    self.header.write(&mut w, class.id, ts, clock, order);
                    clock = ts;
                    let mut enc = Encoder {
                        ch,
                        native: order,
                        words: &self.words,
                    };
                    let mut scope = |fields: &Option<Vec<(String, Ty)>>, w: &mut BitWriter| {
                        fields.as_ref().map(|f| {
                            let t = Ty::Struct(f.clone(), 1);
                            w.align(t.align());
                            Value::Struct(enc.members(f, w))
                        })
                    };
                    scope(&self.stream_context, &mut w);
                    let context = scope(&class.context, &mut w);
                    let payload = scope(&class.payload, &mut w);
                    expected.push(Expected {
                        ns: self.ns(ts),
                        cycles: ts,
                        name: class.name.clone(),
                        context,
                        payload,
                    });
                }
                let content = w.pos;
                let padding = ch.below(64) * 8;
                let size = content.div_ceil(8) * 8 + padding;
                w.put_at(end_at, ts, 64, order);
                w.put_at(content_at, content, 64, order);
                w.put_at(size_at, size, 64, order);
                w.bytes.resize((size / 8) as usize, 0);
                file.extend_from_slice(&w.bytes);
            }
            out.streams.push((format!("stream_{s}"), file));
            out.expected.push(expected);
        }
        out
    }
}
