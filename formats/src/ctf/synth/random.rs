//! Random layouts: every CTF type, alignments from 1 to 64 bits, both byte
//! orders, the real tracers' event headers.

use super::ty::{IntSpec, Ty};
use super::{Choices, Class, Header, Spec};
use crate::ctf::types::ByteOrder;

/// A generator of random layouts.
struct Layouts<'c, 'a> {
    ch: &'c mut Choices<'a>,
    names: u32,
}

impl Layouts<'_, '_> {
    fn name(&mut self) -> String {
        self.names += 1;
        format!("f{}", self.names)
    }

    fn int(&mut self) -> IntSpec {
        let order = match self.ch.below(6) {
            0 => Some(ByteOrder::Big),
            1 => Some(ByteOrder::Little),
            _ => None,
        };
        // A byte holds bits of one byte order only: fields in the other
        // order are whole, aligned bytes.
        let (bits, align) = match order {
            Some(_) => (self.ch.pick(&[8, 16, 32, 64]), self.ch.pick(&[8, 16, 32])),
            None => (
                self.ch
                    .pick(&[1, 3, 5, 8, 8, 12, 16, 16, 27, 32, 32, 35, 63, 64, 64]),
                self.ch.pick(&[1, 1, 8, 8, 16, 32, 64]),
            ),
        };
        IntSpec {
            bits,
            signed: self.ch.chance(40),
            align,
            order,
            text: false,
        }
    }

    fn scalar(&mut self) -> Ty {
        match self.ch.below(10) {
            0..=4 => Ty::Int(self.int()),
            5 => Ty::Float {
                double: self.ch.chance(50),
                align: self.ch.pick(&[1, 8, 32, 64]),
                order: None,
            },
            6 | 7 => Ty::Str,
            _ => Ty::Array(
                Box::new(Ty::Int(IntSpec {
                    text: true,
                    ..IntSpec::new(8, 8)
                })),
                self.ch.below(20),
            ),
        }
    }

    /// Members of a structure, `depth` levels deep at most.
    fn fields(&mut self, depth: u32) -> Vec<(String, Ty)> {
        let mut out = Vec::new();
        for _ in 0..self.ch.below(6) + usize::from(depth == 0) as u64 {
            match self.ch.below(12) {
                0 if depth < 2 => {
                    let f = self.fields(depth + 1);
                    let a = self.ch.pick(&[1, 8, 32, 64]);
                    out.push((self.name(), Ty::Struct(f, a)));
                }
                1 if depth < 2 => {
                    let len = self.name();
                    let bits = self.ch.pick(&[3, 8, 16, 32]);
                    out.push((
                        len.clone(),
                        Ty::Int(IntSpec::new(bits, self.ch.pick(&[1, 8]))),
                    ));
                    if self.ch.chance(50) {
                        let s = self.scalar();
                        out.push((self.name(), s));
                    }
                    let elem = if self.ch.chance(30) {
                        Ty::Int(IntSpec {
                            text: true,
                            ..IntSpec::new(8, 8)
                        })
                    } else if depth == 0 && self.ch.chance(30) {
                        Ty::Struct(self.fields(depth + 1), 1)
                    } else {
                        self.scalar()
                    };
                    out.push((self.name(), Ty::Seq(Box::new(elem), len)));
                }
                2 if depth < 2 => {
                    let tag = self.name();
                    let k = 1 + self.ch.below(3) as usize;
                    let mut labels = Vec::new();
                    let mut options = Vec::new();
                    let mut next = 0i64;
                    for _ in 0..k {
                        let label = self.name();
                        let width = self.ch.below(3) as i64;
                        labels.push((label.clone(), next, next + width));
                        next += width + 1;
                        let t = if self.ch.chance(40) {
                            Ty::Struct(self.fields(depth + 1), 1)
                        } else {
                            self.scalar()
                        };
                        options.push((label, t));
                    }
                    let container = IntSpec {
                        signed: self.ch.chance(30),
                        ..IntSpec::new(self.ch.pick(&[5, 8, 16]), self.ch.pick(&[1, 8]))
                    };
                    out.push((tag.clone(), Ty::Enum(container, labels)));
                    out.push((self.name(), Ty::Variant(tag, options)));
                }
                3 if depth < 2 => {
                    let e = self.scalar();
                    let n = self.ch.below(4);
                    out.push((self.name(), Ty::Array(Box::new(e), n)));
                }
                _ => {
                    let s = self.scalar();
                    out.push((self.name(), s));
                }
            }
        }
        out
    }
}

impl Spec {
    /// A random layout.
    pub fn random(ch: &mut Choices<'_>) -> Spec {
        let a = |ch: &mut Choices<'_>| ch.pick(&[8u32, 16, 32, 64]);
        let header = match ch.below(3) {
            0 => Header::Compact {
                align: ch.pick(&[8, 32]),
                a32: a(ch).min(32),
                a64: a(ch),
            },
            1 => Header::Large {
                align: ch.pick(&[8, 16]),
                a32: a(ch).min(32),
                a64: a(ch),
            },
            _ => Header::Plain,
        };
        let mut layouts = Layouts { ch, names: 0 };
        let stream_context = layouts
            .ch
            .chance(25)
            .then(|| layouts.fields(1))
            .filter(|f| !f.is_empty());
        let n = 1 + layouts.ch.below(6);
        let mut classes = Vec::new();
        for k in 0..n {
            // Ids beyond the compact escapes too, to exercise extended headers.
            let id = if layouts.ch.chance(20) { k + 40 } else { k };
            let context = layouts
                .ch
                .chance(15)
                .then(|| layouts.fields(1))
                .filter(|f| !f.is_empty());
            let payload = layouts.ch.chance(95).then(|| layouts.fields(0));
            classes.push(Class {
                id,
                name: format!("event_{k}"),
                context,
                payload,
            });
        }
        let ch = layouts.ch;
        Spec {
            order: if ch.chance(25) {
                ByteOrder::Big
            } else {
                ByteOrder::Little
            },
            header,
            freq: ch.pick(&[1_000_000_000, 1_000_000_000, 1_000_000, 2_500_000_000]),
            offset_s: ch.pick(&[0, 1_400_000_000]),
            stream_context,
            classes,
            words: Vec::new(),
        }
    }
}
