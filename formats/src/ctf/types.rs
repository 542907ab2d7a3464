//! Field types ready for decoding: every reference resolved to a slot, every
//! byte order known, fixed sizes precomputed so that skipping a field whose
//! value nobody asked for is a single addition.

pub use super::metadata::ast::ByteOrder;

/// Index into the per-stream table of integers that later fields refer to
/// (sequence lengths, variant tags). Resolving paths to slots once, when the
/// metadata is loaded, keeps name lookups out of the decoding loop.
pub type Slot = u16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An ordinary field.
    Plain,
    /// `id` in an event header: selects the event class.
    EventId,
    /// An integer mapped to the stream's clock (`timestamp`): updates it.
    Clock,
}

#[derive(Debug, Clone)]
pub struct IntType {
    pub bits: u8,
    pub signed: bool,
    pub order: ByteOrder,
    pub store: Option<Slot>,
    pub role: Role,
}

/// A LEB128 integer: its size is known only by reading it.
#[derive(Debug, Clone)]
pub struct VarIntType {
    pub signed: bool,
    pub store: Option<Slot>,
    pub role: Role,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: Box<str>,
    pub ty: FieldType,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Int(IntType),
    VarInt(VarIntType),
    Float {
        bits: u8,
        order: ByteOrder,
    },
    /// Null-terminated string.
    Str,
    Struct(Box<[Field]>),
    Array {
        elem: Box<FieldType>,
        len: u64,
    },
    Sequence {
        elem: Box<FieldType>,
        len: Slot,
    },
    /// Array or sequence of byte-sized text-encoded integers (`char comm[16]`):
    /// shown as a string, like babeltrace2 does.
    Text {
        len: TextLen,
    },
    Variant {
        tag: Slot,
        options: Box<[Field]>,
        /// Tag value ranges (inclusive) and the option each selects.
        select: Box<[(i128, i128, usize)]>,
    },
}

#[derive(Debug, Clone, Copy)]
pub enum TextLen {
    Fixed(u64),
    Slot(Slot),
}

#[derive(Debug, Clone)]
pub struct FieldType {
    pub kind: Kind,
    /// Alignment in bits (a power of two).
    pub align: u32,
    /// Size in bits when it does not depend on the data.
    pub fixed_bits: Option<u64>,
    /// Whether decoding it must look at values (slots to fill, header roles):
    /// when false and the size is fixed, skipping is an addition.
    pub has_effects: bool,
}

impl FieldType {
    pub fn new(kind: Kind) -> FieldType {
        let (align, fixed_bits, has_effects) = match &kind {
            Kind::Int(i) => (
                0,
                Some(i.bits as u64),
                i.store.is_some() || i.role != Role::Plain,
            ),
            Kind::VarInt(v) => (8, None, v.store.is_some() || v.role != Role::Plain),
            Kind::Float { bits, .. } => (0, Some(*bits as u64), false),
            Kind::Str => (8, None, false),
            Kind::Struct(fields) => {
                let align = fields.iter().map(|f| f.ty.align).max().unwrap_or(1);
                let mut size = Some(0u64);
                for f in fields.iter() {
                    size = match (size, f.ty.fixed_bits) {
                        (Some(s), Some(b)) => Some(align_up(s, f.ty.align) + b),
                        _ => None,
                    };
                }
                // A struct whose start is aligned to `align` has the same layout
                // wherever it is, so its fixed size is meaningful.
                (align, size, fields.iter().any(|f| f.ty.has_effects))
            }
            Kind::Array { elem, len } => (
                elem.align,
                elem.fixed_bits.and_then(|b| match len {
                    0 => Some(0),
                    n => align_up(b, elem.align).checked_mul(n - 1)?.checked_add(b),
                }),
                elem.has_effects,
            ),
            Kind::Sequence { elem, .. } => (elem.align, None, elem.has_effects),
            Kind::Text {
                len: TextLen::Fixed(n),
            } => (8, Some(n * 8), false),
            Kind::Text {
                len: TextLen::Slot(_),
            } => (8, None, false),
            // A variant has no alignment of its own: the chosen option aligns itself.
            Kind::Variant { options, .. } => (1, None, options.iter().any(|o| o.ty.has_effects)),
        };
        FieldType {
            kind,
            align: align.max(1),
            fixed_bits,
            has_effects,
        }
    }

    /// Same as `new`, with an explicit minimum alignment (struct `align(n)`,
    /// integer `align = n`).
    pub fn with_align(kind: Kind, align: u32) -> FieldType {
        let mut t = FieldType::new(kind);
        t.align = t.align.max(align);
        t
    }

    /// Looks up a direct member of a struct type.
    pub fn member(&self, name: &str) -> Option<&Field> {
        match &self.kind {
            Kind::Struct(fields) => fields.iter().find(|f| &*f.name == name),
            _ => None,
        }
    }
}

pub fn align_up(pos: u64, align: u32) -> u64 {
    let a = align as u64;
    (pos + a - 1) & !(a - 1)
}
