//! Payloads as flat runs: the fast path for skipping and decoding.
//!
//! A payload without sequences or variants is a series of fixed-size runs and
//! null-terminated strings (perf writes every `comm` as a string). Adjacent
//! fixed fields merge into one run whenever their offsets do not depend on the
//! data: skipping a `sched_switch` is then a few additions and two `memchr`s,
//! and decoding it checks bounds once per run instead of once per field.
//! Fixed-size arrays and structures are runs too (perf's `sys_enter` ends in
//! `u64 args[6]`): their values are placed like the others, with marks where
//! the walk would open and close them.

use crate::value::{Scalar, Sink};

use super::decode::{read_bits, Cursor, DecodeError};
use super::types::{align_up, ByteOrder, FieldType, Kind, TextLen};

/// A payload value at a fixed offset within its run: a member, or an
/// element or member of a fixed-size array or structure member.
#[derive(Debug, Clone, PartialEq)]
struct Placed {
    offset: u64,
    /// Its name, here rather than read from the structure's members (large
    /// records, one cache line or more apart) for every value; none for an
    /// array's elements.
    name: Option<Box<str>>,
    kind: Scalarish,
    /// An integer or float of 1, 2, 4 or 8 bytes on a byte boundary of its
    /// run: its width in bytes.
    whole: Option<u8>,
    /// How it is read when its run starts on a byte with 8 bytes to spare.
    word: Option<Word>,
}

/// A little-endian integer of 1, 2, 4 or 8 bytes on a byte of its run, read
/// as the 8 bytes there, masked and sign-extended: one code path for every
/// width and sign. A jump per width and sign was most of the payload's cost
/// in a perf trace, whose 27 classes interleave and defeat the branch
/// predictor; here only the signedness is chosen, and without a jump.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Word {
    /// Its byte in the run.
    at: u32,
    mask: u64,
    /// 64 minus its width: the shifts that sign-extend it.
    shift: u32,
    signed: bool,
}

impl Word {
    fn new(offset: u64, kind: Scalarish) -> Option<Word> {
        let Scalarish::Int {
            bits,
            signed,
            order: ByteOrder::Little,
        } = kind
        else {
            return None;
        };
        if !offset.is_multiple_of(8) || !matches!(bits, 8 | 16 | 32 | 64) {
            return None;
        }
        Some(Word {
            at: u32::try_from(offset / 8).ok()?,
            mask: u64::MAX >> (64 - bits),
            shift: 64 - u32::from(bits),
            signed,
        })
    }

    /// Its value in `wide`: its run and at least 8 bytes after it.
    #[inline(always)]
    fn read<'d>(self, wide: &[u8]) -> Scalar<'d> {
        let at = self.at as usize;
        let raw = u64::from_le_bytes(wide[at..at + 8].try_into().expect("8 bytes")) & self.mask;
        let extended = ((raw << self.shift) as i64) >> self.shift;
        match self.signed {
            true => Scalar::Signed(extended),
            false => Scalar::Unsigned(raw),
        }
    }
}

impl Placed {
    /// The value of this field in a run starting at bit `base` (at byte
    /// `byte` when that is a whole byte). The caller checked the run's bounds.
    #[inline(always)]
    fn read<'d>(&self, data: &'d [u8], base: u64, byte: Option<usize>) -> Scalar<'d> {
        let at = base + self.offset;
        let (bits, order) = match self.kind {
            Scalarish::Int { bits, order, .. } | Scalarish::Float { bits, order } => (bits, order),
            Scalarish::Text { bytes } => {
                let s = (at / 8) as usize;
                let b = &data[s..s + bytes as usize];
                return Scalar::Str(memchr::memchr(0, b).map_or(b, |z| &b[..z]));
            }
        };
        let raw = match (self.whole, byte) {
            (Some(n), Some(b)) => whole(data, b + (self.offset / 8) as usize, n, order),
            _ => read_bits(data, at, bits, order),
        };
        match self.kind {
            Scalarish::Int { signed: false, .. } => Scalar::Unsigned(raw),
            Scalarish::Int { signed: true, .. } => {
                let s = 64 - bits as u32;
                Scalar::Signed(((raw << s) as i64) >> s)
            }
            Scalarish::Float { bits: 32, .. } => Scalar::Float(f32::from_bits(raw as u32) as f64),
            _ => Scalar::Float(f64::from_bits(raw)),
        }
    }
}

/// An unsigned integer of `n` (1, 2, 4 or 8) bytes at byte `at`.
#[inline(always)]
fn whole(data: &[u8], at: usize, n: u8, order: ByteOrder) -> u64 {
    fn take<const N: usize>(data: &[u8], at: usize) -> [u8; N] {
        data[at..at + N].try_into().expect("N bytes")
    }
    match (n, order) {
        (1, _) => data[at] as u64,
        (2, ByteOrder::Little) => u16::from_le_bytes(take(data, at)) as u64,
        (2, ByteOrder::Big) => u16::from_be_bytes(take(data, at)) as u64,
        (4, ByteOrder::Little) => u32::from_le_bytes(take(data, at)) as u64,
        (4, ByteOrder::Big) => u32::from_be_bytes(take(data, at)) as u64,
        (_, ByteOrder::Little) => u64::from_le_bytes(take(data, at)),
        (_, ByteOrder::Big) => u64::from_be_bytes(take(data, at)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Scalarish {
    Int {
        bits: u8,
        signed: bool,
        order: ByteOrder,
    },
    Float {
        bits: u8,
        order: ByteOrder,
    },
    Text {
        bytes: u64,
    },
}

/// Where a fixed-size array or structure opens or closes among a run's
/// values: what the walk tells its sink there.
#[derive(Debug, Clone, PartialEq)]
enum Nest {
    Open { name: Option<Box<str>>, list: bool },
    Close { list: bool },
}

impl Nest {
    #[inline]
    fn tell<'d, S: Sink<'d>>(&self, sink: &mut S) {
        match self {
            Nest::Open { name, list } => sink.open(name.as_deref(), *list),
            Nest::Close { list } => sink.close(*list),
        }
    }
}

/// Values placed from the start of a fixed-size member, and the marks of
/// its nesting, each before the value of its index.
#[derive(Debug, Default)]
struct Placement {
    fields: Vec<Placed>,
    nest: Vec<(usize, Nest)>,
}

/// Most values and marks a member may be placed as: each takes a `Placed`
/// or a mark in the plan, and an array of thousands of non-text bytes is
/// better walked than held as a plan of hundreds of kilobytes.
const MAX_PLACED: usize = 256;

impl Placement {
    /// Places `ty`, at bit `at` of the member, named `name`. `None` when it
    /// holds something else than integers, floats and text arrays, or too
    /// many of them.
    fn add(&mut self, ty: &FieldType, name: Option<&str>, at: u64) -> Option<()> {
        if self.fields.len() + self.nest.len() >= MAX_PLACED {
            return None;
        }
        match &ty.kind {
            Kind::Struct(fields) => {
                let members = fields.iter().map(|f| (&f.ty, Some(&*f.name)));
                self.nested(name, false, at, members)
            }
            Kind::Array { elem, len } => {
                let elements = (0..*len).map(|_| (&**elem, None));
                self.nested(name, true, at, elements)
            }
            _ => {
                self.fields.push(Placed {
                    offset: at,
                    name: name.map(Into::into),
                    kind: scalar(ty)?,
                    whole: None,
                    word: None,
                });
                Some(())
            }
        }
    }

    /// Places a structure's members or an array's elements, between the
    /// marks that open and close it.
    fn nested<'t>(
        &mut self,
        name: Option<&str>,
        list: bool,
        at: u64,
        members: impl Iterator<Item = (&'t FieldType, Option<&'t str>)>,
    ) -> Option<()> {
        let name = name.map(Into::into);
        self.nest
            .push((self.fields.len(), Nest::Open { name, list }));
        // Each aligned as the walk aligns it: the member starts aligned to
        // the largest of their alignments, so offsets from it are fixed.
        let mut offset = at;
        for (t, n) in members {
            offset = align_up(offset, t.align);
            self.add(t, n, offset)?;
            offset += t.fixed_bits?;
        }
        self.nest.push((self.fields.len(), Nest::Close { list }));
        Some(())
    }
}

/// How a value of type `ty` is read, when it is one without nesting.
fn scalar(ty: &FieldType) -> Option<Scalarish> {
    match &ty.kind {
        Kind::Int(int) => Some(Scalarish::Int {
            bits: int.bits,
            signed: int.signed,
            order: int.order,
        }),
        Kind::Float { bits, order } => Some(Scalarish::Float {
            bits: *bits,
            order: *order,
        }),
        Kind::Text {
            len: TextLen::Fixed(n),
        } => Some(Scalarish::Text { bytes: *n }),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Op {
    /// Align to `align`, then `bits` of fixed fields (inner padding included).
    Run {
        align: u32,
        bits: u64,
        fields: Vec<Placed>,
        nest: Vec<(usize, Nest)>,
    },
    /// A null-terminated string member, and its name.
    Str { name: Box<str> },
}

#[derive(Debug, Clone)]
pub struct FlatPayload {
    ops: Box<[Op]>,
    /// False when a run hides a member that could not be placed (an array
    /// of more than `MAX_PLACED` values): good for skipping, but decoding
    /// must walk the type.
    decodable: bool,
}

impl FlatPayload {
    /// A plan for a payload structure, or `None` when moving past it needs
    /// values (sequence lengths, variant tags, stored integers).
    pub fn new(ty: &FieldType) -> Option<FlatPayload> {
        let Kind::Struct(members) = &ty.kind else {
            return None;
        };
        if ty.has_effects {
            return None;
        }
        let mut ops = vec![Op::Run {
            align: ty.align,
            bits: 0,
            fields: Vec::new(),
            nest: Vec::new(),
        }];
        let mut decodable = true;
        for m in members.iter() {
            match (m.ty.fixed_bits, &m.ty.kind) {
                (Some(bits), _) => {
                    let mut placed = Placement::default();
                    if placed.add(&m.ty, Some(&m.name), 0).is_none() {
                        decodable = false;
                        placed = Placement::default();
                    }
                    push_run(&mut ops, m.ty.align, bits, placed);
                }
                (None, Kind::Str) => ops.push(Op::Str {
                    name: m.name.clone(),
                }),
                _ => return None,
            }
        }
        Some(FlatPayload {
            ops: ops.into(),
            decodable,
        })
    }

    pub fn decodable(&self) -> bool {
        self.decodable
    }

    #[inline]
    pub fn skip(&self, cur: &mut Cursor<'_>) -> Result<(), DecodeError> {
        for op in self.ops.iter() {
            match op {
                Op::Run { align, bits, .. } => {
                    cur.pos = run_start(cur, *align, *bits)?;
                    cur.pos += bits;
                }
                Op::Str { .. } => {
                    string(cur)?;
                }
            }
        }
        Ok(())
    }

    /// Decodes the payload `ty` (the structure this plan was made from).
    /// Only when `decodable()`.
    #[inline]
    pub fn decode<'d, S: Sink<'d>>(
        &self,
        ty: &FieldType,
        cur: &mut Cursor<'d>,
        sink: &mut S,
    ) -> Result<(), DecodeError> {
        // Names are in the plan; the structure is the one it was made from.
        debug_assert!(matches!(ty.kind, Kind::Struct(_)));
        sink.open(None, false);
        for op in self.ops.iter() {
            match op {
                Op::Run {
                    align,
                    bits,
                    fields,
                    nest,
                } => {
                    let base = run_start(cur, *align, *bits)?;
                    // A run that starts on a byte, with 8 bytes to spare after
                    // it (all but the end of a packet), reads its integers as
                    // words; otherwise each field is read on its own.
                    let byte = (base % 8 == 0).then_some((base / 8) as usize);
                    let wide =
                        byte.and_then(|b| cur.data.get(b..b + bits.div_ceil(8) as usize + 8));
                    let at = Origin {
                        data: cur.data,
                        base,
                        byte,
                        wide,
                    };
                    let mut from = 0;
                    for (to, mark) in nest {
                        at.emit(&fields[from..*to], sink);
                        mark.tell(sink);
                        from = *to;
                    }
                    at.emit(&fields[from..], sink);
                    cur.pos = base + bits;
                }
                Op::Str { name } => {
                    let s = string(cur)?;
                    sink.scalar(Some(name), Scalar::Str(s));
                }
            }
        }
        sink.close(false);
        Ok(())
    }
}

/// A run's place in the packet, for reading its values.
#[derive(Clone, Copy)]
struct Origin<'d, 'w> {
    data: &'d [u8],
    /// Its first bit, and its byte when it starts on one.
    base: u64,
    byte: Option<usize>,
    /// The run and 8 bytes after it, when the packet has them.
    wide: Option<&'w [u8]>,
}

impl<'d> Origin<'d, '_> {
    /// Gives the values of `fields`, of this run, to `sink`.
    #[inline(always)]
    fn emit<S: Sink<'d>>(&self, fields: &[Placed], sink: &mut S) {
        match self.wide {
            Some(wide) => {
                for f in fields {
                    let v = match f.word {
                        Some(w) => w.read(wide),
                        None => f.read(self.data, self.base, self.byte),
                    };
                    sink.scalar(f.name.as_deref(), v);
                }
            }
            None => {
                for f in fields {
                    sink.scalar(f.name.as_deref(), f.read(self.data, self.base, self.byte));
                }
            }
        }
    }
}

/// Where a run starts, after checking that it fits in the packet content.
#[inline]
fn run_start(cur: &Cursor<'_>, align: u32, bits: u64) -> Result<u64, DecodeError> {
    let p = align_up(cur.pos, align);
    if p + bits > cur.end {
        return Err(past_end(cur.pos, cur.end));
    }
    Ok(p)
}

/// Reads a null-terminated string and moves past it.
#[inline]
fn string<'d>(cur: &mut Cursor<'d>) -> Result<&'d [u8], DecodeError> {
    let start = align_up(cur.pos, 8);
    let (s, e) = ((start / 8) as usize, (cur.end / 8) as usize);
    let Some(len) = cur.data.get(s..e).and_then(find_nul) else {
        return Err(DecodeError {
            bit: cur.pos,
            message: "string without terminating null byte before the end of the packet content"
                .into(),
        });
    };
    cur.pos = start + (len as u64 + 1) * 8;
    Ok(&cur.data[s..s + len])
}

/// The first null byte of `b`. Strings in traces are mostly short (thread
/// names): the first 16 bytes are looked at a word at a time before handing
/// the rest to `memchr`, whose setup costs more than such a string.
#[inline(always)]
fn find_nul(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    if let Some(words) = b.get(..16) {
        for (i, w) in words.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            // The lowest flagged byte is the first zero (flags above it may be
            // false, from the borrow, but never below).
            let zero = x.wrapping_sub(ONES) & !x & HIGHS;
            if zero != 0 {
                return Some(i * 8 + (zero.trailing_zeros() / 8) as usize);
            }
        }
        return memchr::memchr(0, &b[16..]).map(|n| n + 16);
    }
    memchr::memchr(0, b)
}

#[cold]
fn past_end(pos: u64, end: u64) -> DecodeError {
    DecodeError {
        bit: pos,
        message: format!(
            "field runs past the end of the packet content ({} bits left)",
            end.saturating_sub(pos)
        ),
    }
}

/// Appends a fixed member, merging it into the previous run when that run's
/// alignment fixes the padding between them.
fn push_run(ops: &mut Vec<Op>, align: u32, bits: u64, placed: Placement) {
    let merge = matches!(ops.last(), Some(Op::Run { align: a, .. }) if align <= *a);
    if !merge {
        ops.push(Op::Run {
            align,
            bits: 0,
            fields: Vec::new(),
            nest: Vec::new(),
        });
    }
    let Some(Op::Run {
        bits: b,
        fields,
        nest,
        ..
    }) = ops.last_mut()
    else {
        unreachable!("a run was pushed above if the last op was not one");
    };
    let offset = align_up(*b, align);
    let first = fields.len();
    nest.extend(placed.nest.into_iter().map(|(i, m)| (first + i, m)));
    fields.extend(placed.fields.into_iter().map(|p| {
        let offset = offset + p.offset;
        Placed {
            offset,
            whole: whole_bytes(offset, p.kind),
            word: Word::new(offset, p.kind),
            ..p
        }
    }));
    *b = offset + bits;
}

fn whole_bytes(offset: u64, kind: Scalarish) -> Option<u8> {
    match kind {
        Scalarish::Int { bits, .. } | Scalarish::Float { bits, .. }
            if offset.is_multiple_of(8) && matches!(bits, 8 | 16 | 32 | 64) =>
        {
            Some(bits / 8)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
