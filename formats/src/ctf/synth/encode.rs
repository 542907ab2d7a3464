//! The encoder: values placed by CTF 1.8's layout rules, bit by bit.

use std::collections::HashMap;

use super::ty::{is_text, IntSpec, Ty};
use super::Choices;
use crate::ctf::types::ByteOrder;
use crate::value::Value;

/// Bits written in CTF order: a little-endian field's least significant bit
/// at the lowest bit position (bit 0 of a byte is its least significant), a
/// big-endian field's most significant bit first (bit 0 of a byte is its most
/// significant).
#[derive(Default)]
pub struct BitWriter {
    pub bytes: Vec<u8>,
    pub pos: u64,
}

impl BitWriter {
    pub fn align(&mut self, bits: u64) {
        self.pos = self.pos.div_ceil(bits) * bits;
        self.grow();
    }

    fn grow(&mut self) {
        let need = self.pos.div_ceil(8) as usize;
        if self.bytes.len() < need {
            self.bytes.resize(need, 0);
        }
    }

    fn set_bit(&mut self, at: u64, bit: bool, order: ByteOrder) {
        let b = &mut self.bytes[(at / 8) as usize];
        let shift = match order {
            ByteOrder::Little => at % 8,
            ByteOrder::Big => 7 - at % 8,
        };
        *b = (*b & !(1 << shift)) | ((bit as u8) << shift);
    }

    /// Writes the `bits` low bits of `v` at `at`.
    pub fn put_at(&mut self, at: u64, v: u64, bits: u8, order: ByteOrder) {
        let end = self.pos.max(at + bits as u64);
        let saved = self.pos;
        self.pos = end;
        self.grow();
        self.pos = saved;
        for i in 0..bits as u64 {
            let bit = match order {
                ByteOrder::Little => (v >> i) & 1 == 1,
                ByteOrder::Big => (v >> (bits as u64 - 1 - i)) & 1 == 1,
            };
            self.set_bit(at + i, bit, order);
        }
    }

    /// Aligns, then writes the `bits` low bits of `v`; returns where.
    pub fn int(&mut self, v: u64, bits: u8, align: u64, order: ByteOrder) -> u64 {
        self.align(align);
        let at = self.pos;
        self.put_at(at, v, bits, order);
        self.pos += bits as u64;
        self.grow();
        at
    }

    pub fn raw(&mut self, b: &[u8]) {
        self.align(8);
        self.bytes.extend_from_slice(b);
        self.pos += b.len() as u64 * 8;
    }
}

pub(super) fn fit(v: u64, bits: u8) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Values an encoder must write at a given field, decided before the field
/// (sequence lengths, variant tags come before what they govern).
type Forced = HashMap<String, i64>;

pub(super) struct Encoder<'c, 'a, 'w> {
    pub(super) ch: &'c mut Choices<'a>,
    pub(super) native: ByteOrder,
    /// Strings to pick from (random text when empty).
    pub(super) words: &'w [String],
}

impl Encoder<'_, '_, '_> {
    fn int_value(&mut self, i: &IntSpec, forced: Option<i64>) -> (u64, Value) {
        let raw = match forced {
            Some(v) => v as u64,
            None => match self.ch.below(4) {
                0 => 0,
                1 => u64::MAX,
                _ => self.ch.u64(),
            },
        };
        let raw = fit(raw, i.bits);
        let value = if i.signed {
            let s = 64 - i.bits as u32;
            Value::Signed(((raw << s) as i64) >> s)
        } else {
            Value::Unsigned(raw)
        };
        (raw, value)
    }

    fn write(&mut self, ty: &Ty, w: &mut BitWriter, forced: Option<i64>) -> Value {
        match ty {
            Ty::Int(i) | Ty::Enum(i, _) => {
                let (raw, v) = self.int_value(i, forced);
                w.int(raw, i.bits, i.align as u64, i.order.unwrap_or(self.native));
                v
            }
            Ty::Float {
                double,
                align,
                order,
            } => {
                let order = order.unwrap_or(self.native);
                let x = self.ch.pick(&[0.0, -1.5, 2222.0, 1.25e-3, 1e16, -0.0]);
                if *double {
                    w.int(f64::to_bits(x), 64, *align as u64, order);
                    Value::Float(x)
                } else {
                    w.int(f32::to_bits(x as f32) as u64, 32, *align as u64, order);
                    Value::Float(x as f32 as f64)
                }
            }
            Ty::Str => {
                let s = match self.words.len() {
                    0 => self.text(24, false),
                    n => self.words[self.ch.below(n as u64) as usize]
                        .as_bytes()
                        .to_vec(),
                };
                w.raw(&s);
                w.raw(&[0]);
                Value::Str(String::from_utf8_lossy(&s).into_owned())
            }
            Ty::Struct(fields, _) => {
                w.align(ty.align());
                Value::Struct(self.members(fields, w))
            }
            Ty::Array(e, n) => self.list(e, *n, w),
            Ty::Seq(e, _) => self.list(e, forced.unwrap_or(0) as u64, w),
            Ty::Variant(..) => unreachable!("written by `members`, which knows the tag"),
        }
    }

    /// Printable bytes, possibly empty; with NULs inside when `nuls`.
    fn text(&mut self, max: u64, nuls: bool) -> Vec<u8> {
        let n = self.ch.below(max + 1);
        (0..n)
            .map(|_| {
                if nuls && self.ch.chance(10) {
                    0
                } else {
                    b'a' + self.ch.below(26) as u8
                }
            })
            .collect()
    }

    fn list(&mut self, e: &Ty, n: u64, w: &mut BitWriter) -> Value {
        if let Ty::Int(i) = e {
            if is_text(i) {
                let mut bytes = self.text(n, true);
                bytes.resize(n as usize, 0);
                w.raw(&bytes);
                let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
                return Value::Str(String::from_utf8_lossy(&bytes[..end]).into_owned());
            }
        }
        // An array is aligned on its elements' alignment, even when empty.
        w.align(e.align());
        Value::List((0..n).map(|_| self.write(e, w, None)).collect())
    }

    pub(super) fn members(
        &mut self,
        fields: &[(String, Ty)],
        w: &mut BitWriter,
    ) -> Vec<(String, Value)> {
        // Decide what later fields govern: sequence lengths, variant options.
        let mut forced = Forced::new();
        let mut chosen = HashMap::new();
        for (name, t) in fields {
            match t {
                Ty::Seq(_, len) => {
                    let n = self.ch.below(4) as i64;
                    forced.insert(len.clone(), n);
                    forced.insert(name.clone(), n);
                }
                Ty::Variant(tag, options) => {
                    let o = self.ch.below(options.len() as u64) as usize;
                    let Some((_, Ty::Enum(_, labels))) = fields.iter().find(|(n, _)| n == tag)
                    else {
                        unreachable!("variant tags are sibling enums")
                    };
                    let (_, lo, hi) = labels
                        .iter()
                        .find(|(l, ..)| *l == options[o].0)
                        .expect("one label per option");
                    let v = lo + self.ch.below((hi - lo) as u64 + 1) as i64;
                    forced.insert(tag.clone(), v);
                    chosen.insert(name.clone(), o);
                }
                _ => {}
            }
        }
        fields
            .iter()
            .map(|(name, t)| {
                let v = match t {
                    Ty::Variant(_, options) => {
                        let o = chosen[name];
                        self.write(&options[o].1, w, None)
                    }
                    t => self.write(t, w, forced.get(name).copied()),
                };
                // Readers drop the underscore TSDL names take to dodge keywords.
                let shown = name.strip_prefix('_').filter(|n| !n.is_empty());
                (shown.unwrap_or(name).to_string(), v)
            })
            .collect()
    }
}
