//! Reading CTF fields out of a packet: bit-level integers in both byte orders,
//! and a walk over a field type that hands values to a `Sink` or skips them.

use std::cell::Cell;

use crate::value::{Scalar, Sink};

use super::types::*;

/// A position in a packet, in bits, and the end of its content.
#[derive(Debug, Clone, Copy)]
pub struct Cursor<'d> {
    pub data: &'d [u8],
    pub pos: u64,
    pub end: u64,
}

/// A decoding failure at a bit position of the packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub bit: u64,
    pub message: String,
}

fn fail<T>(bit: u64, message: impl Into<String>) -> Result<T, DecodeError> {
    Err(DecodeError {
        bit,
        message: message.into(),
    })
}

/// What a walk changes besides the cursor: referenced values, and the event
/// header's id and clock.
pub struct State<'s> {
    pub slots: &'s [Cell<i64>],
    pub event_id: Option<u64>,
    /// The stream's clock, in cycles; clock-mapped integers advance it.
    pub clock: u64,
}

impl<'d> Cursor<'d> {
    pub fn new(data: &'d [u8], pos: u64, end: u64) -> Self {
        Cursor { data, pos, end }
    }

    #[inline]
    fn align(&mut self, align: u32) -> Result<(), DecodeError> {
        let p = align_up(self.pos, align);
        if p > self.end {
            return fail(
                self.pos,
                "alignment padding runs past the end of the packet content",
            );
        }
        self.pos = p;
        Ok(())
    }

    #[inline]
    fn need(&self, bits: u64, what: &str) -> Result<(), DecodeError> {
        if self.end - self.pos < bits {
            return Err(self.past_end(bits, what));
        }
        Ok(())
    }

    #[cold]
    fn past_end(&self, bits: u64, what: &str) -> DecodeError {
        DecodeError {
            bit: self.pos,
            message: format!(
                "{what} of {bits} bits runs past the end of the packet content ({} bits left)",
                self.end - self.pos
            ),
        }
    }

    /// Reads an unsigned integer of `bits` (1..=64) at the cursor.
    #[inline(always)]
    pub fn read_uint(&mut self, bits: u8, order: ByteOrder) -> Result<u64, DecodeError> {
        self.need(bits as u64, "integer")?;
        let v = read_bits(self.data, self.pos, bits, order);
        self.pos += bits as u64;
        Ok(v)
    }
}

/// The bits `[pos, pos + bits)` of `data` as an unsigned integer. CTF numbers
/// bits from the least significant bit of each byte in little-endian fields and
/// from the most significant in big-endian ones. The caller checked the bounds.
#[inline(always)]
pub fn read_bits(data: &[u8], pos: u64, bits: u8, order: ByteOrder) -> u64 {
    let byte = (pos >> 3) as usize;
    let shift = (pos & 7) as u32;
    let mask = u64::MAX >> (64 - bits as u32);
    // One unaligned 8-byte load covers every field that fits in it.
    if shift + bits as u32 <= 64 {
        if let Some(w) = data.get(byte..byte + 8) {
            let w: [u8; 8] = w.try_into().expect("8 bytes");
            return match order {
                ByteOrder::Little => (u64::from_le_bytes(w) >> shift) & mask,
                ByteOrder::Big => (u64::from_be_bytes(w) >> (64 - shift - bits as u32)) & mask,
            };
        }
    }
    read_bits_tail(data, byte, shift, bits, mask, order)
}

/// Fields near the end of the data, or spanning nine bytes.
#[inline(never)]
fn read_bits_tail(
    data: &[u8],
    byte: usize,
    shift: u32,
    bits: u8,
    mask: u64,
    order: ByteOrder,
) -> u64 {
    let n = (shift as usize + bits as usize).div_ceil(8);
    let mut buf = [0u8; 16];
    match order {
        ByteOrder::Little => {
            buf[..n].copy_from_slice(&data[byte..byte + n]);
            ((u128::from_le_bytes(buf) >> shift) as u64) & mask
        }
        ByteOrder::Big => {
            buf[16 - n..].copy_from_slice(&data[byte..byte + n]);
            let x = u128::from_be_bytes(buf);
            ((x >> (n as u32 * 8 - shift - bits as u32)) as u64) & mask
        }
    }
}

#[inline]
fn sign_extend(v: u64, bits: u8) -> i64 {
    let s = 64 - bits as u32;
    ((v << s) as i64) >> s
}

/// A sink that ignores everything: skipping a field is walking it into this.
pub struct Discard;

impl<'d> Sink<'d> for Discard {
    #[inline]
    fn scalar(&mut self, _: Option<&str>, _: Scalar<'d>) {}
    #[inline]
    fn open(&mut self, _: Option<&str>, _: bool) {}
    #[inline]
    fn close(&mut self, _: bool) {}
}

/// Moves past a field; reads values only where the layout needs them.
#[inline]
pub fn skip(ty: &FieldType, cur: &mut Cursor<'_>, st: &mut State<'_>) -> Result<(), DecodeError> {
    if let (false, Some(bits)) = (ty.has_effects, ty.fixed_bits) {
        cur.align(ty.align)?;
        cur.need(bits, "field")?;
        cur.pos += bits;
        return Ok(());
    }
    walk(ty, None, cur, st, &mut Discard)
}

/// Decodes a field, giving every value to `sink`.
pub fn walk<'d, S: Sink<'d>>(
    ty: &FieldType,
    name: Option<&str>,
    cur: &mut Cursor<'d>,
    st: &mut State<'_>,
    sink: &mut S,
) -> Result<(), DecodeError> {
    match &ty.kind {
        Kind::Int(i) => {
            cur.align(ty.align)?;
            let raw = cur.read_uint(i.bits, i.order)?;
            let signed = sign_extend(raw, i.bits);
            if let Some(s) = i.store {
                st.slots[s as usize].set(if i.signed { signed } else { raw as i64 });
            }
            match i.role {
                Role::Plain => {}
                Role::EventId => st.event_id = Some(raw),
                Role::Clock => st.clock = advance_clock(st.clock, raw, i.bits),
            }
            sink.scalar(
                name,
                if i.signed {
                    Scalar::Signed(signed)
                } else {
                    Scalar::Unsigned(raw)
                },
            );
        }
        Kind::VarInt(v) => {
            cur.align(8)?;
            let (raw, bits) = read_leb128(cur)?;
            let (value, stored) = if v.signed {
                let s = if bits < 64 {
                    sign_extend(raw, bits as u8)
                } else {
                    raw as i64
                };
                (Scalar::Signed(s), s)
            } else {
                (Scalar::Unsigned(raw), raw as i64)
            };
            if let Some(s) = v.store {
                st.slots[s as usize].set(stored);
            }
            match v.role {
                Role::Plain => {}
                Role::EventId => st.event_id = Some(raw),
                // A whole value, not the low bits of one.
                Role::Clock => st.clock = raw,
            }
            sink.scalar(name, value);
        }
        Kind::Float { bits, order } => {
            cur.align(ty.align)?;
            let raw = cur.read_uint(*bits, *order)?;
            let v = if *bits == 32 {
                f32::from_bits(raw as u32) as f64
            } else {
                f64::from_bits(raw)
            };
            sink.scalar(name, Scalar::Float(v));
        }
        Kind::Str => {
            cur.align(8)?;
            let start = (cur.pos / 8) as usize;
            let end = (cur.end / 8) as usize;
            let Some(len) = memchr::memchr(0, &cur.data[start..end]) else {
                return fail(
                    cur.pos,
                    "string without terminating null byte before the end of the packet content",
                );
            };
            sink.scalar(name, Scalar::Str(&cur.data[start..start + len]));
            cur.pos += (len as u64 + 1) * 8;
        }
        Kind::Text { len } => {
            let n = match len {
                TextLen::Fixed(n) => *n,
                TextLen::Slot(s) => length(st, *s, cur.pos)?,
            };
            cur.align(8)?;
            cur.need(n.saturating_mul(8), "text array")?;
            let start = (cur.pos / 8) as usize;
            let bytes = &cur.data[start..start + n as usize];
            let text = memchr::memchr(0, bytes).map_or(bytes, |z| &bytes[..z]);
            sink.scalar(name, Scalar::Str(text));
            cur.pos += n * 8;
        }
        Kind::Struct(fields) => {
            cur.align(ty.align)?;
            sink.open(name, false);
            for f in fields.iter() {
                walk(&f.ty, Some(&f.name), cur, st, sink)?;
            }
            sink.close(false);
        }
        // Arrays and sequences are aligned on their elements' alignment even
        // when empty (CTF 1.8 §4.2.3, §4.2.4; LTTng writes them so).
        Kind::Array { elem, len } => {
            cur.align(ty.align)?;
            list(elem, *len, name, cur, st, sink)?
        }
        Kind::Sequence { elem, len } => {
            let n = length(st, *len, cur.pos)?;
            cur.align(ty.align)?;
            list(elem, n, name, cur, st, sink)?;
        }
        Kind::Variant {
            tag,
            options,
            select,
        } => {
            let v = st.slots[*tag as usize].get() as i128;
            // An unsigned 64-bit tag above i64::MAX was stored wrapped.
            let chosen = select
                .iter()
                .find(|(lo, hi, _)| {
                    (*lo..=*hi).contains(&v) || (*lo..=*hi).contains(&(v as u64 as i128))
                })
                .map(|(_, _, o)| *o);
            let Some(o) = chosen else {
                return fail(cur.pos, format!("variant tag value {v} selects no option"));
            };
            walk(&options[o].ty, name, cur, st, sink)?;
        }
    }
    Ok(())
}

/// The longest LEB128 integer CTF 2 allows: 10 bytes hold 64 bits.
const LEB128_MAX_BYTES: u64 = 10;

/// Reads a LEB128 integer at a byte boundary: its low 64 bits and how many
/// bits its groups hold (for sign extension).
fn read_leb128(cur: &mut Cursor<'_>) -> Result<(u64, u32), DecodeError> {
    let start = cur.pos;
    let mut value = 0u64;
    let mut shift = 0u32;
    for _ in 0..LEB128_MAX_BYTES {
        cur.need(8, "variable-length integer byte")?;
        let byte = cur.data[(cur.pos / 8) as usize];
        cur.pos += 8;
        if shift < 64 {
            value |= u64::from(byte & 0x7F) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok((value, shift));
        }
    }
    fail(
        start,
        format!("variable-length integer longer than {LEB128_MAX_BYTES} bytes (more than 64 bits)"),
    )
}

/// Elements a list may hold beyond the bits left in the packet, when they
/// may be empty (structures without members, or of variable size).
const MAX_EMPTY_ELEMENTS: u64 = 1 << 16;

fn list<'d, S: Sink<'d>>(
    elem: &FieldType,
    n: u64,
    name: Option<&str>,
    cur: &mut Cursor<'d>,
    st: &mut State<'_>,
    sink: &mut S,
) -> Result<(), DecodeError> {
    // Every element takes at least a bit, or is empty (a structure without
    // members): a count above the bits left, and above what any real trace
    // holds of empty elements, is corrupt data, not a reason to loop for a
    // long time.
    let room = cur.end - cur.pos;
    let most = match elem.fixed_bits {
        Some(bits) if bits > 0 => room,
        _ => room.max(MAX_EMPTY_ELEMENTS),
    };
    if n > most {
        return fail(
            cur.pos,
            format!("{n} elements cannot fit in what is left of the packet"),
        );
    }
    sink.open(name, true);
    for _ in 0..n {
        walk(elem, None, cur, st, sink)?;
    }
    sink.close(true);
    Ok(())
}

fn length(st: &State<'_>, slot: Slot, bit: u64) -> Result<u64, DecodeError> {
    let v = st.slots[slot as usize].get();
    u64::try_from(v).or_else(|_| fail(bit, format!("negative sequence length {v}")))
}

/// Updates a clock from a sample of its `bits` low bits (CTF 1.8 §8: a narrower
/// value that is smaller than the clock's low bits means they wrapped).
#[inline]
pub fn advance_clock(clock: u64, sample: u64, bits: u8) -> u64 {
    if bits >= 64 {
        return sample;
    }
    let mask = (1u64 << bits) - 1;
    let mut next = (clock & !mask) | sample;
    if sample < (clock & mask) {
        next = next.wrapping_add(1u64 << bits);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_in_both_orders() {
        // 0b1010_1100, 0b0101_0011
        let d = [0xAC, 0x53, 0, 0, 0, 0, 0, 0, 0, 0];
        // little endian: bit 0 is the LSB of byte 0.
        assert_eq!(read_bits(&d, 0, 4, ByteOrder::Little), 0xC);
        assert_eq!(read_bits(&d, 4, 8, ByteOrder::Little), 0x3A);
        // big endian: bit 0 is the MSB of byte 0.
        assert_eq!(read_bits(&d, 0, 4, ByteOrder::Big), 0xA);
        assert_eq!(read_bits(&d, 4, 8, ByteOrder::Big), 0xC5);
        assert_eq!(read_bits(&d, 0, 16, ByteOrder::Big), 0xAC53);
        assert_eq!(read_bits(&d, 0, 16, ByteOrder::Little), 0x53AC);
        let all = [0xFF; 9];
        assert_eq!(read_bits(&all, 3, 64, ByteOrder::Little), u64::MAX);
        assert_eq!(read_bits(&all, 5, 64, ByteOrder::Big), u64::MAX);
        assert_eq!(sign_extend(0b101, 3), -3);
        // Near the end of the data the short path is taken: same results.
        assert_eq!(read_bits(&d[..2], 4, 8, ByteOrder::Big), 0xC5);
        assert_eq!(read_bits(&d[..2], 4, 8, ByteOrder::Little), 0x3A);
        assert_eq!(read_bits(&d[..2], 0, 16, ByteOrder::Big), 0xAC53);
    }

    #[test]
    fn clock_wraps_forward() {
        assert_eq!(advance_clock(0x1_0000_0010, 0x20, 27), 0x1_0000_0020);
        assert_eq!(advance_clock(0x7FF_FFF0, 0x5, 27), 0x800_0005);
        assert_eq!(advance_clock(5, 3, 64), 3);
    }
}
