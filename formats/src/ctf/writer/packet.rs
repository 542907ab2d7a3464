//! One packet being filled: header and context first (patched when the packet
//! is closed), then the events. Layout as `metadata.rs` declares it.

use super::{FieldType, FieldValue};

/// CTF's packet magic number.
const MAGIC: u32 = 0xC1FC_1FC1;
/// magic (4) + uuid (16) + stream_id (4).
const HEADER: usize = 24;

pub(super) struct Packet {
    buf: Vec<u8>,
    first_ts: Option<u64>,
    last_ts: u64,
}

impl Packet {
    pub fn new(uuid: [u8; 16], source: &[u64]) -> Packet {
        let mut buf = Vec::with_capacity(super::PACKET_TARGET + 4096);
        buf.extend_from_slice(&MAGIC.to_le_bytes());
        buf.extend_from_slice(&uuid);
        buf.extend_from_slice(&0u32.to_le_bytes());
        // timestamp_begin, timestamp_end, content_size, packet_size,
        // events_discarded: patched by `finish`.
        buf.resize(HEADER + 5 * 8, 0);
        for v in source {
            buf.extend_from_slice(&(*v as u32).to_le_bytes());
        }
        Packet {
            buf,
            first_ts: None,
            last_ts: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.first_ts.is_none()
    }

    pub fn content_len(&self) -> usize {
        self.buf.len()
    }

    /// Appends one event: header (class id, timestamp), stream event context,
    /// payload. On a value that does not fit its declaration nothing is
    /// appended.
    pub fn push(
        &mut self,
        class: u32,
        ts: u64,
        context: (&[(String, FieldType)], &[FieldValue<'_>]),
        payload: (&[(String, FieldType)], &[FieldValue<'_>]),
    ) -> Result<(), String> {
        let mark = self.buf.len();
        self.buf.extend_from_slice(&class.to_le_bytes());
        self.buf.extend_from_slice(&ts.to_le_bytes());
        let r = push_values(&mut self.buf, context.0, context.1)
            .map_err(|e| format!("event context: {e}"))
            .and_then(|()| push_values(&mut self.buf, payload.0, payload.1));
        if r.is_err() {
            self.buf.truncate(mark);
            return r;
        }
        self.first_ts.get_or_insert(ts);
        self.last_ts = ts;
        Ok(())
    }

    /// Patches the context and gives the packet's bytes. An empty packet
    /// (one that only carries a discarded count) spans `at`.
    pub fn finish(&mut self, discarded: u64, at: u64) -> &[u8] {
        let begin = self.first_ts.unwrap_or(at);
        let end = if self.first_ts.is_some() {
            self.last_ts
        } else {
            at
        };
        let bits = (self.buf.len() as u64) * 8;
        let ctx = &mut self.buf[HEADER..HEADER + 40];
        ctx[0..8].copy_from_slice(&begin.to_le_bytes());
        ctx[8..16].copy_from_slice(&end.to_le_bytes());
        ctx[16..24].copy_from_slice(&bits.to_le_bytes());
        ctx[24..32].copy_from_slice(&bits.to_le_bytes());
        ctx[32..40].copy_from_slice(&discarded.to_le_bytes());
        &self.buf
    }
}

fn push_values(
    buf: &mut Vec<u8>,
    decl: &[(String, FieldType)],
    values: &[FieldValue<'_>],
) -> Result<(), String> {
    if decl.len() != values.len() {
        return Err(format!("{} values for {} fields", values.len(), decl.len()));
    }
    for ((name, ty), v) in decl.iter().zip(values) {
        match (*ty, *v) {
            (FieldType::Int { bits, .. }, FieldValue::Int(x)) => push_int(buf, bits, x as u64),
            (FieldType::Int { bits, .. }, FieldValue::UInt(x)) => push_int(buf, bits, x),
            (FieldType::String, FieldValue::Str(s)) => {
                // A string ends at its first NUL, as the tracer's did.
                let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
                buf.extend_from_slice(&s[..end]);
                buf.push(0);
            }
            (FieldType::Bytes, FieldValue::Bytes(b)) => {
                let n = u32::try_from(b.len())
                    .map_err(|_| format!("{name}: {} bytes is too long", b.len()))?;
                buf.extend_from_slice(&n.to_le_bytes());
                buf.extend_from_slice(b);
            }
            (ty, v) => return Err(format!("{name}: value {v:?} for a field of type {ty:?}")),
        }
    }
    Ok(())
}

/// The low `bits` of `x`, little-endian (the value is truncated as a C cast
/// would, which is what a tracer's field of that size holds).
fn push_int(buf: &mut Vec<u8>, bits: u8, x: u64) {
    let n = usize::from(bits / 8);
    buf.extend_from_slice(&x.to_le_bytes()[..n]);
}
