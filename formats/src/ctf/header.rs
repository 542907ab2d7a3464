//! Event headers read without walking their type.
//!
//! Every event starts with a header, so its cost is paid millions of times.
//! Real headers have two shapes: a flat structure of integers (perf: `id`,
//! `timestamp`) and LTTng's compact/large headers, an `id` whose escape value
//! selects an extended structure with the real id and a full timestamp. Both
//! become fixed bit offsets here; any other header falls back to the walk.

use super::decode::{advance_clock, read_bits, Cursor, DecodeError};
use super::types::{align_up, ByteOrder, FieldType, Kind, Role, Slot};

/// An integer of the header at a fixed offset from the header's start.
#[derive(Debug, Clone)]
struct PlacedInt {
    offset: u64,
    bits: u8,
    order: ByteOrder,
}

/// The integers that matter (id, clock) at fixed offsets, and where the shape ends.
#[derive(Debug, Clone)]
struct Flat {
    id: Option<PlacedInt>,
    clock: Option<PlacedInt>,
    end: u64,
}

#[derive(Debug, Clone)]
pub struct HeaderPlan {
    align: u32,
    prefix: Flat,
    /// The LTTng variant: its tag, and per tag range the option's integers
    /// (offsets still from the header's start).
    variant: Option<(PlacedInt, Vec<TaggedOption>)>,
}

/// Inclusive tag range and the option it selects.
type TaggedOption = (i128, i128, Flat);

/// What a header says.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    pub id: Option<u64>,
    pub clock: u64,
}

impl HeaderPlan {
    /// A plan for `ty`, or `None` when it is not one of the fixed shapes.
    pub fn new(ty: &FieldType) -> Option<HeaderPlan> {
        let Kind::Struct(fields) = &ty.kind else {
            return None;
        };
        let mut prefix = Flat {
            id: None,
            clock: None,
            end: 0,
        };
        // Integers stored for later fields, by slot: only a variant tag may be.
        let mut stored = Vec::new();
        let mut variant = None;
        for (i, f) in fields.iter().enumerate() {
            match &f.ty.kind {
                Kind::Variant {
                    tag,
                    options,
                    select,
                } if i + 1 == fields.len() => {
                    let t = stored.iter().position(|(slot, _)| slot == tag)?;
                    let (_, tag_int) = stored.swap_remove(t);
                    let mut opts = Vec::new();
                    for (lo, hi, o) in select.iter() {
                        let mut flat = Flat {
                            id: None,
                            clock: None,
                            end: prefix.end,
                        };
                        let mut inner = Vec::new();
                        place(&options[*o].ty, &mut flat, ty.align, &mut inner)?;
                        if !inner.is_empty() {
                            return None;
                        }
                        opts.push((*lo, *hi, flat));
                    }
                    variant = Some((tag_int, opts));
                }
                _ => place(&f.ty, &mut prefix, ty.align, &mut stored)?,
            }
        }
        if !stored.is_empty() {
            return None;
        }
        Some(HeaderPlan {
            align: ty.align,
            prefix,
            variant,
        })
    }

    /// Reads the header at the cursor and moves past it.
    #[inline(always)]
    pub fn read(&self, cur: &mut Cursor<'_>, mut clock: u64) -> Result<Header, DecodeError> {
        let start = align_up(cur.pos, self.align);
        let mut id = None;
        let flat = match &self.variant {
            None => &self.prefix,
            Some((t, options)) => {
                check(cur, start, t.offset + t.bits as u64)?;
                let v = read_bits(cur.data, start + t.offset, t.bits, t.order) as i128;
                match options.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&v)) {
                    Some((_, _, f)) => {
                        // The prefix's own id counts unless the option has one.
                        self.apply(&self.prefix, cur, start, &mut id, &mut clock)?;
                        f
                    }
                    None => {
                        return Err(DecodeError {
                            bit: start,
                            message: format!("event header tag value {v} selects no option"),
                        })
                    }
                }
            }
        };
        self.apply(flat, cur, start, &mut id, &mut clock)?;
        cur.pos = start + flat.end;
        Ok(Header { id, clock })
    }

    #[inline(always)]
    fn apply(
        &self,
        flat: &Flat,
        cur: &Cursor<'_>,
        start: u64,
        id: &mut Option<u64>,
        clock: &mut u64,
    ) -> Result<(), DecodeError> {
        check(cur, start, flat.end)?;
        if let Some(i) = &flat.id {
            *id = Some(read_bits(cur.data, start + i.offset, i.bits, i.order));
        }
        if let Some(c) = &flat.clock {
            let v = read_bits(cur.data, start + c.offset, c.bits, c.order);
            *clock = advance_clock(*clock, v, c.bits);
        }
        Ok(())
    }
}

#[inline]
fn check(cur: &Cursor<'_>, start: u64, bits: u64) -> Result<(), DecodeError> {
    if start + bits > cur.end {
        return Err(DecodeError {
            bit: cur.pos,
            message: format!(
                "event header of {bits} bits runs past the end of the packet content ({} bits left)",
                cur.end.saturating_sub(cur.pos)
            ),
        });
    }
    Ok(())
}

/// Appends the integers of `ty` (an integer, or a structure of them) at their
/// offsets; those stored for later fields go to `stored` with their slot.
/// Offsets are fixed only when no alignment exceeds the header's.
fn place(
    ty: &FieldType,
    flat: &mut Flat,
    header_align: u32,
    stored: &mut Vec<(Slot, PlacedInt)>,
) -> Option<()> {
    if ty.align > header_align {
        return None;
    }
    flat.end = align_up(flat.end, ty.align);
    match &ty.kind {
        Kind::Int(i) => {
            let placed = PlacedInt {
                offset: flat.end,
                bits: i.bits,
                order: i.order,
            };
            if let Some(slot) = i.store {
                stored.push((slot, placed.clone()));
            }
            // Later integers of a role replace earlier ones, as in the walk;
            // a second clock sample in one header would not, so refuse it.
            match i.role {
                Role::Plain => {}
                Role::EventId => flat.id = Some(placed),
                Role::Clock if flat.clock.is_some() => return None,
                Role::Clock => flat.clock = Some(placed),
            }
            flat.end += i.bits as u64;
        }
        Kind::Struct(fields) => {
            for f in fields.iter() {
                place(&f.ty, flat, header_align, stored)?;
            }
        }
        _ => return None,
    }
    Some(())
}
