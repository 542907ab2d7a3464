//! A CTF writer: a trace directory with a `metadata` file (TSDL for CTF 1.8,
//! JSON fragments for CTF 2: `CtfVersion`) and
//! one data stream file per source (a CPU, an STM master), cut into packets
//! whose context says their time range, their size, the source and how many
//! events the source lost so far.
//!
//! One stream class, little-endian, byte-aligned fields: every reader of CTF
//! 1.8 (babeltrace2, Trace Compass, ours) reads it without surprises. Field
//! names are written with a leading underscore, as LTTng does, so that no
//! field collides with a TSDL keyword; readers strip it.

mod ctf2;
mod metadata;
mod packet;

pub use ctf2::{rewrite_as_ctf2, RewriteError};

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use packet::Packet;

/// Content bytes of a packet before it is closed (events never span packets).
const PACKET_TARGET: usize = 256 * 1024;

/// The type of one payload field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Integer of 8, 16, 32 or 64 bits.
    Int { bits: u8, signed: bool, hex: bool },
    /// UTF-8 text, null-terminated.
    String,
    /// Bytes with their count before them (a `_NAME_length` field, then a
    /// sequence of `uint8`).
    Bytes,
}

impl FieldType {
    pub const fn int(bits: u8, signed: bool) -> FieldType {
        FieldType::Int {
            bits,
            signed,
            hex: false,
        }
    }
    pub const fn hex(bits: u8) -> FieldType {
        FieldType::Int {
            bits,
            signed: false,
            hex: true,
        }
    }
}

/// A value for one field, in the order of the class's fields.
#[derive(Debug, Clone, Copy)]
pub enum FieldValue<'a> {
    Int(i64),
    UInt(u64),
    Str(&'a [u8]),
    Bytes(&'a [u8]),
}

#[derive(Debug, Clone)]
pub struct EventClass {
    pub name: String,
    pub fields: Vec<(String, FieldType)>,
}

/// The trace's clock: event timestamps are counts of it.
#[derive(Debug, Clone)]
pub struct Clock {
    pub name: String,
    pub description: String,
    /// Counts per second.
    pub freq: u64,
    /// Seconds from the epoch of the clock's origin (0: the values are the
    /// source clock's own, e.g. CLOCK_MONOTONIC).
    pub offset_s: i64,
}

/// What a trace holds, declared before any event is written.
#[derive(Debug, Clone)]
pub struct TraceSpec {
    pub clock: Clock,
    /// `env` block: (key, text or integer).
    pub env: Vec<(String, EnvValue)>,
    /// Unsigned 32-bit packet context fields after the standard ones (e.g.
    /// `cpu_id`), one value per stream.
    pub source_fields: Vec<String>,
    /// Stream event context fields (e.g. the thread of each event), given
    /// with every event.
    pub event_context: Vec<(String, FieldType)>,
    pub classes: Vec<EventClass>,
}

#[derive(Debug, Clone)]
pub enum EnvValue {
    Text(String),
    Int(i64),
}

/// Why a write failed: the file system, or a value that does not fit its
/// declaration (a bug of the caller, reported rather than written wrong).
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    // `error`, not `source`: the message already carries it, and a
    // `source` would print it twice in an error's chain.
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: io::Error },
    #[error("{0}")]
    Mismatch(String),
}

impl WriteError {
    fn io(path: &Path, error: io::Error) -> WriteError {
        WriteError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// The version of CTF a writer describes its trace in. The data streams are
/// the same bits in both; CTF 2 describes them with JSON fragments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CtfVersion {
    #[default]
    V1_8,
    V2,
}

/// A stream of the trace, as `CtfWriter::add_stream` returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamId(usize);

/// What was written, per stream and in total.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub events: u64,
    pub discarded: u64,
    pub packets: u64,
    pub bytes: u64,
    /// (stream file name, events, discarded) in the order streams were added.
    pub streams: Vec<(String, u64, u64)>,
}

struct Stream {
    name: String,
    path: PathBuf,
    file: File,
    source: Vec<u64>,
    packet: Packet,
    /// Cumulative, as the packet context's `events_discarded` is.
    discarded: u64,
    /// `events_discarded` of the last packet written.
    reported: u64,
    last_ts: u64,
    events: u64,
}

pub struct CtfWriter {
    dir: PathBuf,
    version: CtfVersion,
    spec: TraceSpec,
    uuid: [u8; 16],
    streams: Vec<Stream>,
    packets: u64,
    bytes: u64,
}

impl CtfWriter {
    /// Creates `dir` (which must not exist or be empty) and its metadata.
    pub fn create(dir: &Path, spec: TraceSpec) -> Result<CtfWriter, WriteError> {
        CtfWriter::create_versioned(dir, spec, CtfVersion::V1_8)
    }

    /// `create`, describing the trace in the given version of CTF.
    pub fn create_versioned(
        dir: &Path,
        spec: TraceSpec,
        version: CtfVersion,
    ) -> Result<CtfWriter, WriteError> {
        if dir.exists() {
            let mut entries = std::fs::read_dir(dir).map_err(|e| WriteError::io(dir, e))?;
            if entries.next().is_some() {
                return Err(WriteError::io(
                    dir,
                    io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        "the output directory exists and is not empty",
                    ),
                ));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
        for class in &spec.classes {
            check_names(&class.name, &class.fields)?;
        }
        check_names("event context", &spec.event_context)?;
        let w = CtfWriter {
            dir: dir.to_path_buf(),
            version,
            spec,
            uuid: new_uuid(),
            streams: Vec::new(),
            packets: 0,
            bytes: 0,
        };
        w.write_metadata()?;
        Ok(w)
    }

    pub fn spec(&self) -> &TraceSpec {
        &self.spec
    }

    /// Changes the clock frequency (a source that says its frequency only
    /// once decoding is under way); the metadata is rewritten at `finish`.
    pub fn set_clock_freq(&mut self, freq: u64) {
        self.spec.clock.freq = freq.max(1);
    }

    /// Adds a stream file `name` with the values of the spec's
    /// `source_fields` for its packets.
    pub fn add_stream(&mut self, name: &str, source: &[u64]) -> Result<StreamId, WriteError> {
        if source.len() != self.spec.source_fields.len() {
            return Err(WriteError::Mismatch(format!(
                "stream {name}: {} source values for {} source fields",
                source.len(),
                self.spec.source_fields.len()
            )));
        }
        if name == "metadata" || name.starts_with('.') || name.contains('/') {
            return Err(WriteError::Mismatch(format!(
                "bad stream file name {name:?}"
            )));
        }
        let path = self.dir.join(name);
        let file = File::create(&path).map_err(|e| WriteError::io(&path, e))?;
        self.streams.push(Stream {
            name: name.to_string(),
            path,
            file,
            source: source.to_vec(),
            packet: Packet::new(self.uuid, source),
            discarded: 0,
            reported: 0,
            last_ts: 0,
            events: 0,
        });
        Ok(StreamId(self.streams.len() - 1))
    }

    /// Appends an event of class `class` (index in the spec) at clock value
    /// `ts`, which must not be before the stream's previous event.
    pub fn event(
        &mut self,
        stream: StreamId,
        class: usize,
        ts: u64,
        context: &[FieldValue<'_>],
        fields: &[FieldValue<'_>],
    ) -> Result<(), WriteError> {
        let Some(decl) = self.spec.classes.get(class) else {
            return Err(WriteError::Mismatch(format!("no event class {class}")));
        };
        let s = &mut self.streams[stream.0];
        if ts < s.last_ts {
            return Err(WriteError::Mismatch(format!(
                "stream {}: event {} at {ts} before the previous one at {}",
                s.name, decl.name, s.last_ts
            )));
        }
        s.packet
            .push(
                class as u32,
                ts,
                (&self.spec.event_context, context),
                (&decl.fields, fields),
            )
            .map_err(|m| WriteError::Mismatch(format!("{}: {m}", decl.name)))?;
        s.last_ts = ts;
        s.events += 1;
        if s.packet.content_len() >= PACKET_TARGET {
            self.flush(stream)?;
        }
        Ok(())
    }

    /// Records that the source lost `n` events after the ones written so far:
    /// the current packet is closed, and the next one says so.
    pub fn discarded(&mut self, stream: StreamId, n: u64) -> Result<(), WriteError> {
        if n == 0 {
            return Ok(());
        }
        self.flush(stream)?;
        let s = &mut self.streams[stream.0];
        s.discarded += n;
        Ok(())
    }

    /// Events written so far, over all streams.
    pub fn events(&self) -> u64 {
        self.streams.iter().map(|s| s.events).sum()
    }

    /// Bytes of stream data written so far, including the open packets.
    pub fn bytes(&self) -> u64 {
        self.bytes
            + self
                .streams
                .iter()
                .map(|s| s.packet.content_len() as u64)
                .sum::<u64>()
    }

    fn flush(&mut self, stream: StreamId) -> Result<(), WriteError> {
        let s = &mut self.streams[stream.0];
        if s.packet.is_empty() {
            return Ok(());
        }
        self.write_packet(stream)?;
        let s = &mut self.streams[stream.0];
        s.packet = Packet::new(self.uuid, &s.source);
        Ok(())
    }

    /// Closes the stream's current packet (with its discarded count so far)
    /// and appends it to the stream file.
    fn write_packet(&mut self, stream: StreamId) -> Result<(), WriteError> {
        let s = &mut self.streams[stream.0];
        let bytes = s.packet.finish(s.discarded, s.last_ts);
        s.reported = s.discarded;
        s.file
            .write_all(bytes)
            .map_err(|e| WriteError::io(&s.path, e))?;
        self.bytes += bytes.len() as u64;
        self.packets += 1;
        Ok(())
    }

    /// Closes every packet and rewrites the metadata. A stream that lost
    /// events after its last packet gets an empty packet saying so, so that
    /// no loss goes unreported.
    pub fn finish(mut self) -> Result<Summary, WriteError> {
        for i in 0..self.streams.len() {
            self.flush(StreamId(i))?;
            if self.streams[i].discarded > self.streams[i].reported {
                self.write_packet(StreamId(i))?;
            }
            let s = &mut self.streams[i];
            s.file.flush().map_err(|e| WriteError::io(&s.path, e))?;
        }
        self.write_metadata()?;
        Ok(Summary {
            events: self.events(),
            discarded: self.streams.iter().map(|s| s.discarded).sum(),
            packets: self.packets,
            bytes: self.bytes,
            streams: self
                .streams
                .iter()
                .map(|s| (s.name.clone(), s.events, s.discarded))
                .collect(),
        })
    }

    fn write_metadata(&self) -> Result<(), WriteError> {
        let path = self.dir.join("metadata");
        let mut text = metadata::tsdl(&self.spec, &self.uuid);
        if self.version == CtfVersion::V2 {
            // One description of the layout, TSDL, translated: the two
            // versions cannot drift apart.
            let decl = crate::ctf::metadata::parse_text(&text)
                .map_err(|e| WriteError::Mismatch(format!("generated TSDL: {e}")))?;
            text = crate::ctf::json_metadata::write::to_json_sequence(&decl)
                .map_err(|e| WriteError::Mismatch(format!("generated metadata as CTF 2: {e}")))?;
        }
        std::fs::write(&path, text).map_err(|e| WriteError::io(&path, e))
    }
}

fn check_names(what: &str, fields: &[(String, FieldType)]) -> Result<(), WriteError> {
    for (i, (name, _)) in fields.iter().enumerate() {
        let ok = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !ok || fields[..i].iter().any(|(n, _)| n == name) {
            return Err(WriteError::Mismatch(format!(
                "{what}: field name {name:?} is not a unique identifier"
            )));
        }
    }
    Ok(())
}

/// A random (version 4) UUID for the trace, from the kernel's generator, or
/// from the time and process when there is none.
fn new_uuid() -> [u8; 16] {
    let mut u = [0u8; 16];
    let filled = File::open("/dev/urandom")
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut u))
        .is_ok();
    if !filled {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        u.copy_from_slice(&(t ^ ((std::process::id() as u128) << 64)).to_le_bytes());
    }
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}

#[cfg(test)]
pub(crate) mod tests;
