//! Payloads as flat runs: the fast path for skipping and decoding.
//!
//! A payload without sequences or variants is a series of fixed-size runs and
//! null-terminated strings (perf writes every `comm` as a string). Adjacent
//! fixed fields merge into one run whenever their offsets do not depend on the
//! data: skipping a `sched_switch` is then a few additions and two `memchr`s,
//! and decoding it checks bounds once per run instead of once per field.

use crate::value::{Scalar, Sink};

use super::decode::{read_bits, Cursor, DecodeError};
use super::types::{align_up, ByteOrder, FieldType, Kind, TextLen};

/// A top-level payload member at a fixed offset within its run.
#[derive(Debug, Clone, PartialEq)]
struct Placed {
    offset: u64,
    /// Index of the member in the payload structure (for its name).
    member: usize,
    kind: Scalarish,
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

#[derive(Debug, Clone, PartialEq)]
enum Op {
    /// Align to `align`, then `bits` of fixed fields (inner padding included).
    Run {
        align: u32,
        bits: u64,
        fields: Vec<Placed>,
    },
    /// A null-terminated string member.
    Str { member: usize },
}

#[derive(Debug, Clone)]
pub struct FlatPayload {
    ops: Box<[Op]>,
    /// False when a run hides a nested structure or array: good for skipping,
    /// but decoding must walk the type to keep the nesting.
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
        }];
        let mut decodable = true;
        for (i, m) in members.iter().enumerate() {
            let scalar = match &m.ty.kind {
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
            };
            match (m.ty.fixed_bits, scalar, &m.ty.kind) {
                (Some(bits), scalar, _) => {
                    decodable &= scalar.is_some();
                    let placed = scalar.map(|kind| Placed {
                        offset: 0,
                        member: i,
                        kind,
                    });
                    push_run(&mut ops, m.ty.align, bits, placed);
                }
                (None, _, Kind::Str) => ops.push(Op::Str { member: i }),
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
        let Kind::Struct(members) = &ty.kind else {
            unreachable!("plans are made from structures")
        };
        sink.open(None, false);
        for op in self.ops.iter() {
            match op {
                Op::Run {
                    align,
                    bits,
                    fields,
                } => {
                    let base = run_start(cur, *align, *bits)?;
                    for f in fields {
                        let at = base + f.offset;
                        let name = Some(&*members[f.member].name);
                        let v = match f.kind {
                            Scalarish::Int {
                                bits,
                                signed: false,
                                order,
                            } => Scalar::Unsigned(read_bits(cur.data, at, bits, order)),
                            Scalarish::Int {
                                bits,
                                signed: true,
                                order,
                            } => {
                                let raw = read_bits(cur.data, at, bits, order);
                                let s = 64 - bits as u32;
                                Scalar::Signed(((raw << s) as i64) >> s)
                            }
                            Scalarish::Float { bits: 32, order } => Scalar::Float(f32::from_bits(
                                read_bits(cur.data, at, 32, order) as u32,
                            )
                                as f64),
                            Scalarish::Float { order, .. } => {
                                Scalar::Float(f64::from_bits(read_bits(cur.data, at, 64, order)))
                            }
                            Scalarish::Text { bytes } => {
                                let s = (at / 8) as usize;
                                let b = &cur.data[s..s + bytes as usize];
                                Scalar::Str(memchr::memchr(0, b).map_or(b, |z| &b[..z]))
                            }
                        };
                        sink.scalar(name, v);
                    }
                    cur.pos = base + bits;
                }
                Op::Str { member } => {
                    let s = string(cur)?;
                    sink.scalar(Some(&members[*member].name), Scalar::Str(s));
                }
            }
        }
        sink.close(false);
        Ok(())
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
    let Some(len) = cur.data.get(s..e).and_then(|b| memchr::memchr(0, b)) else {
        return Err(DecodeError {
            bit: cur.pos,
            message: "string without terminating null byte before the end of the packet content"
                .into(),
        });
    };
    cur.pos = start + (len as u64 + 1) * 8;
    Ok(&cur.data[s..s + len])
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
fn push_run(ops: &mut Vec<Op>, align: u32, bits: u64, placed: Option<Placed>) {
    if let Some(Op::Run {
        align: a,
        bits: b,
        fields,
    }) = ops.last_mut()
    {
        if align <= *a {
            let offset = align_up(*b, align);
            fields.extend(placed.map(|p| Placed { offset, ..p }));
            *b = offset + bits;
            return;
        }
    }
    ops.push(Op::Run {
        align,
        bits,
        fields: placed.into_iter().collect(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctf::decode::{walk, State};
    use crate::ctf::types::{Field, IntType, Role};
    use crate::value::ValueBuilder;

    fn int(bits: u8, align: u32, signed: bool) -> FieldType {
        FieldType::with_align(
            Kind::Int(IntType {
                bits,
                signed,
                order: ByteOrder::Little,
                store: None,
                role: Role::Plain,
            }),
            align,
        )
    }

    fn strukt(fields: Vec<FieldType>) -> FieldType {
        let fields: Vec<Field> = fields
            .into_iter()
            .enumerate()
            .map(|(i, ty)| Field {
                name: format!("f{i}").into(),
                ty,
            })
            .collect();
        FieldType::new(Kind::Struct(fields.into()))
    }

    /// u32 (align 8), string, u8 (align 8), i64 (align 32), 3-bit, string.
    fn sample() -> (FieldType, Vec<u8>) {
        let t = strukt(vec![
            int(32, 8, false),
            FieldType::new(Kind::Str),
            int(8, 8, false),
            int(64, 32, true),
            int(3, 1, false),
            FieldType::new(Kind::Str),
        ]);
        let mut d = vec![1, 2, 3, 4, b'a', b'b', 0, 9];
        d.extend((-2i64).to_le_bytes());
        d.push(0b101);
        d.extend(b"c\0");
        (t, d)
    }

    #[test]
    fn runs_merge_and_strings_split_them() {
        let (t, d) = sample();
        let plan = FlatPayload::new(&t).unwrap();
        let shape: Vec<_> = plan
            .ops
            .iter()
            .map(|o| match o {
                Op::Run { align, bits, .. } => (*align, *bits),
                Op::Str { .. } => (0, 0),
            })
            .collect();
        assert_eq!(shape, vec![(32, 32), (0, 0), (8, 8), (32, 67), (0, 0)]);
        let mut cur = Cursor::new(&d, 0, d.len() as u64 * 8);
        plan.skip(&mut cur).unwrap();
        assert_eq!(cur.pos, d.len() as u64 * 8);
        let short = &d[..d.len() - 1];
        let mut cur = Cursor::new(short, 0, short.len() as u64 * 8);
        assert!(plan.skip(&mut cur).is_err());
    }

    #[test]
    fn decoding_equals_the_walk() {
        let (t, d) = sample();
        let plan = FlatPayload::new(&t).unwrap();
        assert!(plan.decodable());
        let mut fast = ValueBuilder::default();
        let mut cur = Cursor::new(&d, 0, d.len() as u64 * 8);
        plan.decode(&t, &mut cur, &mut fast).unwrap();
        let mut slow = ValueBuilder::default();
        let mut cur2 = Cursor::new(&d, 0, d.len() as u64 * 8);
        let mut st = State {
            slots: &[],
            event_id: None,
            clock: 0,
        };
        walk(&t, None, &mut cur2, &mut st, &mut slow).unwrap();
        assert_eq!(cur.pos, cur2.pos);
        let (fast, slow) = (fast.finish().unwrap(), slow.finish().unwrap());
        assert_eq!(fast, slow);
        assert_eq!(fast.get("f3").and_then(|v| v.as_i64()), Some(-2));
    }
}
