//! Turns declarations into decodable layouts: one `StreamClass` per stream with
//! its event classes, field references resolved to slots (CTF 1.8 §7.3.2 scoping:
//! relative paths look in the enclosing structures first, then in the earlier
//! dynamic scopes; absolute paths name their scope).

use std::collections::HashMap;

use super::flat::FlatPayload;
use super::header::HeaderPlan;
use super::metadata::ast::*;
use super::types::*;

/// The six dynamic scopes, in decoding order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    PacketHeader = 0,
    PacketContext = 1,
    EventHeader = 2,
    StreamEventContext = 3,
    EventContext = 4,
    EventFields = 5,
}

const ABSOLUTE: [(&[&str], Root); 6] = [
    (&["trace", "packet", "header"], Root::PacketHeader),
    (&["stream", "packet", "context"], Root::PacketContext),
    (&["stream", "event", "header"], Root::EventHeader),
    (&["stream", "event", "context"], Root::StreamEventContext),
    (&["event", "context"], Root::EventContext),
    (&["event", "fields"], Root::EventFields),
];

/// Position of a declaration in its scope: root, then member indices.
/// `ELEMENT` stands for "an element of this array/sequence".
type Addr = Vec<u32>;
const ELEMENT: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct EventClass {
    pub id: u64,
    pub name: Box<str>,
    pub context: Option<FieldType>,
    pub payload: Option<FieldType>,
    /// The payload as runs and strings, when moving past it needs no values.
    pub payload_flat: Option<FlatPayload>,
}

#[derive(Debug, Clone)]
pub struct StreamClass {
    pub id: u64,
    pub packet_header: Option<FieldType>,
    pub packet_context: Option<FieldType>,
    pub event_header: Option<FieldType>,
    /// The event header as fixed offsets, when it has one of the usual shapes.
    pub header_plan: Option<HeaderPlan>,
    pub event_context: Option<FieldType>,
    /// Event classes by id; ids are small and dense in practice.
    pub events: Vec<Option<EventClass>>,
    pub slot_count: usize,
    /// Index into `Layout::clocks` of the clock the timestamps sample.
    pub clock: Option<usize>,
}

impl StreamClass {
    pub fn event(&self, id: u64) -> Option<&EventClass> {
        self.events.get(usize::try_from(id).ok()?)?.as_ref()
    }
}

#[derive(Debug, Clone)]
pub struct Clock {
    pub name: String,
    pub freq: u64,
    /// Offset of the clock's zero from its origin, in ns.
    pub offset_ns: i128,
    /// The clock's identity (LTTng: the machine's boot ID), when declared:
    /// traces whose clocks share it were recorded on one running system.
    pub uuid: Option<String>,
}

impl Clock {
    /// Nanoseconds from the origin for a raw clock value. Saturates rather than
    /// wrapping: a clock offset beyond ±292 years is a metadata oddity, not a
    /// reason to invent times.
    #[inline]
    pub fn ns_from_origin(&self, cycles: u64) -> i64 {
        if self.freq == 1_000_000_000 {
            if let (Ok(c), Ok(o)) = (i64::try_from(cycles), i64::try_from(self.offset_ns)) {
                if let Some(ns) = c.checked_add(o) {
                    return ns;
                }
            }
        }
        let ns = if self.freq == 1_000_000_000 {
            cycles as i128
        } else {
            cycles as i128 * 1_000_000_000 / self.freq as i128
        };
        (ns + self.offset_ns).clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub byte_order: ByteOrder,
    pub uuid: Option<[u8; 16]>,
    pub env: Vec<(String, EnvValue)>,
    pub clocks: Vec<Clock>,
    /// Packet header compiled alone, to find the stream of a packet.
    pub packet_header: Option<FieldType>,
    pub streams: Vec<StreamClass>,
    /// Oddities in the metadata that did not stop the reading.
    pub warnings: Vec<String>,
}

impl Layout {
    pub fn stream(&self, id: u64) -> Option<&StreamClass> {
        self.streams.iter().find(|s| s.id == id)
    }
}

/// A metadata inconsistency found while resolving, with the metadata line when
/// the problem belongs to an event block.
#[derive(Debug, Clone)]
pub struct LayoutError {
    pub line: Option<u32>,
    pub message: String,
}

fn err<T>(line: Option<u32>, message: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError {
        line,
        message: message.into(),
    })
}

pub fn build(meta: &MetadataDecl) -> Result<Layout, LayoutError> {
    let byte_order = meta.trace.byte_order.unwrap_or(ByteOrder::Little);
    let mut warnings = meta.warnings.clone();
    let clocks: Vec<Clock> = meta
        .clocks
        .iter()
        .map(|c| {
            // Some producers put nanoseconds in `offset_s`; the offset then
            // leaves the 64-bit range of ns-from-origin. Trace Compass ignores
            // such an offset and so do we, saying so.
            let seconds_ns = c
                .offset_s
                .checked_mul(1_000_000_000)
                .filter(|ns| i64::try_from(*ns).is_ok());
            let cycles_ns = c
                .offset
                .checked_mul(1_000_000_000)
                .map(|ns| ns / c.freq as i128)
                .filter(|ns| i64::try_from(*ns).is_ok());
            for (what, ok, value) in [("offset_s", seconds_ns.is_some(), c.offset_s), ("offset", cycles_ns.is_some(), c.offset)] {
                if !ok {
                    warnings.push(format!(
                        "clock `{}`: {what} = {value} is beyond the 64-bit nanosecond range; ignored",
                        c.name
                    ));
                }
            }
            Clock {
                name: c.name.clone(),
                freq: c.freq,
                offset_ns: seconds_ns.unwrap_or(0) + cycles_ns.unwrap_or(0),
                uuid: c.uuid.clone(),
            }
        })
        .collect();

    let implicit_stream = StreamDecl::default();
    let stream_decls: Vec<&StreamDecl> = if meta.streams.is_empty() {
        vec![&implicit_stream]
    } else {
        meta.streams.iter().collect()
    };
    if stream_decls.len() > 1 && stream_decls.iter().any(|s| s.id.is_none()) {
        return err(None, "several stream blocks, but one has no id");
    }

    let single_stream = stream_decls.len() == 1;
    let mut streams = Vec::new();
    for sd in &stream_decls {
        let sid = sd.id.unwrap_or(0);
        let events: Vec<&EventDecl> = meta
            .events
            .iter()
            .filter(|e| e.stream_id.map_or(single_stream, |s| s == sid))
            .collect();
        streams.push(compile_stream(meta, sd, sid, &events, byte_order, &clocks)?);
    }
    for e in &meta.events {
        if let Some(s) = e.stream_id {
            if !stream_decls.iter().any(|sd| sd.id.unwrap_or(0) == s) {
                return err(
                    Some(e.line),
                    format!("event `{}` names unknown stream {s}", e.name),
                );
            }
        }
    }
    let packet_header = streams.first().and_then(|s| s.packet_header.clone());
    Ok(Layout {
        byte_order,
        uuid: meta.trace.uuid,
        env: meta.env.clone(),
        clocks,
        packet_header,
        streams,
        warnings,
    })
}

fn compile_stream(
    meta: &MetadataDecl,
    sd: &StreamDecl,
    sid: u64,
    events: &[&EventDecl],
    order: ByteOrder,
    clocks: &[Clock],
) -> Result<StreamClass, LayoutError> {
    let stream_roots: [Option<&TypeDecl>; 4] = [
        meta.trace.packet_header.as_ref(),
        sd.packet_context.as_ref(),
        sd.event_header.as_ref(),
        sd.event_context.as_ref(),
    ];
    // Pass 1: resolve every reference in every scope of this stream to the address
    // of its target, and give each target a slot.
    let mut slots = Slots::default();
    for (i, root) in stream_roots.iter().enumerate() {
        if let Some(t) = root {
            let mut r = Resolver {
                roots: roots_with(&stream_roots, None, None),
                slots: &mut slots,
                line: None,
                event: None,
            };
            r.walk(t, vec![i as u32], &mut Vec::new())?;
        }
    }
    for (n, e) in events.iter().enumerate() {
        for (i, root) in [(4u32, e.context.as_ref()), (5, e.fields.as_ref())] {
            if let Some(t) = root {
                let mut r = Resolver {
                    roots: roots_with(&stream_roots, e.context.as_ref(), e.fields.as_ref()),
                    slots: &mut slots,
                    line: Some(e.line),
                    event: Some(n),
                };
                r.walk(t, vec![i], &mut Vec::new())?;
            }
        }
    }

    // Pass 2: compile, attaching slots to their targets.
    let compile_root = |root: Root, t: Option<&TypeDecl>, line: Option<u32>, event| {
        t.map(|t| {
            Compiler {
                slots: &slots,
                order,
                root,
                line,
                event,
            }
            .compile(t, &mut vec![root as u32])
        })
        .transpose()
    };
    let packet_header = compile_root(Root::PacketHeader, stream_roots[0], None, None)?;
    let packet_context = compile_root(Root::PacketContext, stream_roots[1], None, None)?;
    let event_header = compile_root(Root::EventHeader, stream_roots[2], None, None)?;
    let event_context = compile_root(Root::StreamEventContext, stream_roots[3], None, None)?;

    let mut classes: Vec<Option<EventClass>> = Vec::new();
    for (n, e) in events.iter().enumerate() {
        let id = match e.id {
            Some(id) => id,
            None if events.len() == 1 => 0,
            None => return err(Some(e.line), format!("event `{}` has no id", e.name)),
        };
        let idx = usize::try_from(id)
            .ok()
            .filter(|i| *i < 1 << 20)
            .ok_or_else(|| LayoutError {
                line: Some(e.line),
                message: format!("event id {id} is too large"),
            })?;
        if classes.len() <= idx {
            classes.resize(idx + 1, None);
        }
        if classes[idx].is_some() {
            return err(
                Some(e.line),
                format!("event id {id} declared twice in stream {sid}"),
            );
        }
        let name = if e.name.is_empty() {
            format!("event{n}")
        } else {
            e.name.clone()
        };
        classes[idx] = Some(EventClass {
            id,
            name: name.into(),
            context: compile_root(
                Root::EventContext,
                e.context.as_ref(),
                Some(e.line),
                Some(n),
            )?,
            payload_flat: None,
            payload: compile_root(Root::EventFields, e.fields.as_ref(), Some(e.line), Some(n))?,
        });
        if let Some(c) = classes[idx].as_mut() {
            c.payload_flat = c.payload.as_ref().and_then(FlatPayload::new);
        }
    }

    let clock = header_clock(sd.event_header.as_ref())
        .and_then(|name| clocks.iter().position(|c| c.name == name))
        .or_else(|| (clocks.len() == 1).then_some(0));
    Ok(StreamClass {
        id: sid,
        packet_header,
        packet_context,
        header_plan: event_header.as_ref().and_then(HeaderPlan::new),
        event_header,
        event_context,
        events: classes,
        slot_count: slots.next as usize,
        clock,
    })
}

/// The clock named by a clock-mapped integer in the event header, if any.
pub(crate) fn header_clock(t: Option<&TypeDecl>) -> Option<String> {
    match t? {
        TypeDecl::Int(i) => i.clock.clone(),
        TypeDecl::Enum { container, .. } => container.clock.clone(),
        TypeDecl::Struct { fields, .. }
        | TypeDecl::Variant {
            options: fields, ..
        } => fields.iter().find_map(|(_, t)| header_clock(Some(t))),
        TypeDecl::Array { elem, .. } | TypeDecl::Sequence { elem, .. } => header_clock(Some(elem)),
        _ => None,
    }
}

fn roots_with<'a>(
    stream: &[Option<&'a TypeDecl>; 4],
    ctx: Option<&'a TypeDecl>,
    fields: Option<&'a TypeDecl>,
) -> [Option<&'a TypeDecl>; 6] {
    [stream[0], stream[1], stream[2], stream[3], ctx, fields]
}

/// An address made unique across the stream: addresses in the event scopes
/// of different classes look alike (`[EventFields, 2]`), so they carry the
/// class (its index in the stream's list).
type Key = (Option<usize>, Addr);

fn key(event: Option<usize>, addr: &Addr) -> Key {
    let in_event = addr
        .first()
        .is_some_and(|r| *r >= Root::EventContext as u32);
    (event.filter(|_| in_event), addr.clone())
}

#[derive(Default)]
struct Slots {
    /// Targets of references (integers whose value later fields need).
    by_addr: HashMap<Key, Slot>,
    /// References, by the address of the sequence or variant making them.
    refs: HashMap<Key, Reference>,
    next: u16,
}

#[derive(Clone)]
struct Reference {
    slot: Slot,
    /// For a variant: tag value ranges (inclusive) and the option each selects.
    select: Vec<(i128, i128, usize)>,
}

impl Slots {
    fn get_or_add(&mut self, addr: Key) -> Result<Slot, LayoutError> {
        if let Some(s) = self.by_addr.get(&addr) {
            return Ok(*s);
        }
        let s = self.next;
        self.next = self.next.checked_add(1).ok_or_else(|| LayoutError {
            line: None,
            message: "too many field references".into(),
        })?;
        self.by_addr.insert(addr, s);
        Ok(s)
    }
}

/// One enclosing structure while walking: its members and how many of them are
/// declared before the current field (only those are visible).
struct Frame<'a> {
    fields: &'a [(String, TypeDecl)],
    addr: Addr,
    visible: usize,
}

struct Resolver<'a, 's> {
    roots: [Option<&'a TypeDecl>; 6],
    slots: &'s mut Slots,
    line: Option<u32>,
    /// The event class whose scopes are walked (index in the stream's list).
    event: Option<usize>,
}

impl<'a> Resolver<'a, '_> {
    fn walk(
        &mut self,
        t: &'a TypeDecl,
        addr: Addr,
        frames: &mut Vec<Frame<'a>>,
    ) -> Result<(), LayoutError> {
        match t {
            TypeDecl::Struct { fields, .. } => {
                frames.push(Frame {
                    fields,
                    addr: addr.clone(),
                    visible: 0,
                });
                for (i, (_, ft)) in fields.iter().enumerate() {
                    frames.last_mut().expect("pushed above").visible = i;
                    let mut a = addr.clone();
                    a.push(i as u32);
                    self.walk(ft, a, frames)?;
                }
                frames.pop();
            }
            TypeDecl::Variant {
                tag,
                options,
                ranges,
            } => {
                let Some(tag) = tag else {
                    return err(self.line, "variant without a tag");
                };
                let (target, decl) = self.resolve(tag, &addr, frames)?;
                let select = match (ranges, decl) {
                    (Some(ranges), _) => ranges
                        .iter()
                        .enumerate()
                        .flat_map(|(o, rs)| rs.iter().map(move |(lo, hi)| (*lo, *hi, o)))
                        .collect(),
                    (None, TypeDecl::Enum { mappings, .. }) => select_by_label(mappings, options),
                    (None, _) => {
                        return err(
                            self.line,
                            format!("variant tag `{}` is not an enum", tag.join(".")),
                        )
                    }
                };
                let slot = self.slots.get_or_add(key(self.event, &target))?;
                let reference = Reference { slot, select };
                self.slots.refs.insert(key(self.event, &addr), reference);
                for (i, (_, ot)) in options.iter().enumerate() {
                    let mut a = addr.clone();
                    a.push(i as u32);
                    self.walk(ot, a, frames)?;
                }
            }
            TypeDecl::Sequence { elem, len } => {
                let (target, _) = self.resolve(len, &addr, frames)?;
                let slot = self.slots.get_or_add(key(self.event, &target))?;
                let reference = Reference {
                    slot,
                    select: Vec::new(),
                };
                self.slots.refs.insert(key(self.event, &addr), reference);
                let mut a = addr;
                a.push(ELEMENT);
                self.walk(elem, a, frames)?;
            }
            TypeDecl::Array { elem, .. } => {
                let mut a = addr;
                a.push(ELEMENT);
                self.walk(elem, a, frames)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn resolve(
        &self,
        path: &[String],
        from: &Addr,
        frames: &[Frame<'a>],
    ) -> Result<(Addr, &'a TypeDecl), LayoutError> {
        let not_found = || LayoutError {
            line: self.line,
            message: format!(
                "field reference `{}` does not name an earlier integer field",
                path.join(".")
            ),
        };
        for (prefix, root) in ABSOLUTE {
            if path.len() > prefix.len() && path.iter().zip(prefix).all(|(a, b)| a == b) {
                let t = self.roots[root as usize].ok_or_else(not_found)?;
                return descend(t, vec![root as u32], &path[prefix.len()..]).ok_or_else(not_found);
            }
        }
        // Relative: enclosing structures, innermost first, earlier members only.
        for f in frames.iter().rev() {
            if let Some(i) = f.fields[..f.visible]
                .iter()
                .position(|(n, _)| *n == path[0])
            {
                let mut a = f.addr.clone();
                a.push(i as u32);
                return descend(&f.fields[i].1, a, &path[1..]).ok_or_else(not_found);
            }
        }
        // Then the earlier dynamic scopes, latest first.
        let current = from.first().copied().unwrap_or(0) as usize;
        for r in (0..current).rev() {
            if let Some(t) = self.roots[r] {
                if let Some(a) = descend(t, vec![r as u32], path) {
                    return Ok(a);
                }
            }
        }
        Err(not_found())
    }
}

/// Follows `path` through struct members; the end must be an integer or enum.
fn descend<'a>(t: &'a TypeDecl, mut addr: Addr, path: &[String]) -> Option<(Addr, &'a TypeDecl)> {
    match (t, path.split_first()) {
        (TypeDecl::Int(_) | TypeDecl::Enum { .. } | TypeDecl::VarInt { .. }, None) => {
            Some((addr, t))
        }
        (TypeDecl::Struct { fields, .. }, Some((head, rest))) => {
            let i = fields.iter().position(|(n, _)| n == head)?;
            addr.push(i as u32);
            descend(&fields[i].1, addr, rest)
        }
        _ => None,
    }
}

struct Compiler<'s> {
    slots: &'s Slots,
    order: ByteOrder,
    root: Root,
    line: Option<u32>,
    event: Option<usize>,
}

impl Compiler<'_> {
    fn compile(&self, t: &TypeDecl, addr: &mut Addr) -> Result<FieldType, LayoutError> {
        Ok(match t {
            TypeDecl::Int(d) => self.int(d, addr),
            TypeDecl::Enum { container, .. } => self.int(container, addr),
            TypeDecl::VarInt { signed } => FieldType::new(Kind::VarInt(VarIntType {
                signed: *signed,
                store: self.slots.by_addr.get(&key(self.event, addr)).copied(),
                role: Role::Plain,
            })),
            TypeDecl::Float {
                exp_dig,
                mant_dig,
                align,
                byte_order,
            } => {
                let bits = exp_dig + mant_dig;
                if bits != 32 && bits != 64 {
                    return err(
                        self.line,
                        format!("floating point of {exp_dig}+{mant_dig} bits is not supported (only 32 and 64)"),
                    );
                }
                FieldType::with_align(
                    Kind::Float {
                        bits: bits as u8,
                        order: byte_order.unwrap_or(self.order),
                    },
                    *align,
                )
            }
            TypeDecl::Str(_) => FieldType::new(Kind::Str),
            TypeDecl::Struct { fields, min_align } => {
                let mut out = Vec::with_capacity(fields.len());
                for (i, (name, ft)) in fields.iter().enumerate() {
                    addr.push(i as u32);
                    let mut ty = self.compile(ft, addr)?;
                    addr.pop();
                    if self.root == Root::EventHeader {
                        mark_header_role(name, &mut ty, ft);
                    }
                    out.push(Field {
                        name: name.as_str().into(),
                        ty,
                    });
                }
                FieldType::with_align(Kind::Struct(out.into()), *min_align)
            }
            TypeDecl::Array { elem, len } => {
                if let Some(text) = text_elem(elem) {
                    if text {
                        return Ok(FieldType::new(Kind::Text {
                            len: TextLen::Fixed(*len),
                        }));
                    }
                }
                addr.push(ELEMENT);
                let e = self.compile(elem, addr)?;
                addr.pop();
                FieldType::new(Kind::Array {
                    elem: Box::new(e),
                    len: *len,
                })
            }
            TypeDecl::Sequence { elem, .. } => {
                let slot = self.reference(addr)?.slot;
                if text_elem(elem) == Some(true) {
                    return Ok(FieldType::new(Kind::Text {
                        len: TextLen::Slot(slot),
                    }));
                }
                addr.push(ELEMENT);
                let e = self.compile(elem, addr)?;
                addr.pop();
                FieldType::new(Kind::Sequence {
                    elem: Box::new(e),
                    len: slot,
                })
            }
            TypeDecl::Variant { options, .. } => {
                let Reference { slot, select } = self.reference(addr)?.clone();
                let mut out = Vec::with_capacity(options.len());
                for (i, (name, ot)) in options.iter().enumerate() {
                    addr.push(i as u32);
                    let ty = self.compile(ot, addr)?;
                    addr.pop();
                    out.push(Field {
                        name: name.as_str().into(),
                        ty,
                    });
                }
                FieldType::new(Kind::Variant {
                    tag: slot,
                    options: out.into(),
                    select: select.into(),
                })
            }
        })
    }

    fn int(&self, d: &IntDecl, addr: &Addr) -> FieldType {
        FieldType::with_align(
            Kind::Int(IntType {
                bits: d.size as u8,
                signed: d.signed,
                order: d.byte_order.unwrap_or(self.order),
                store: self.slots.by_addr.get(&key(self.event, addr)).copied(),
                role: Role::Plain,
            }),
            d.align,
        )
    }

    /// The slot (and, for a variant tag, the enum ranges) pass 1 recorded for
    /// the reference made by the field at `site`.
    fn reference(&self, site: &Addr) -> Result<&Reference, LayoutError> {
        self.slots.refs.get(&key(self.event, site)).map_or_else(
            || err(self.line, "internal error: unresolved field reference"),
            Ok,
        )
    }
}

/// CTF 1.8 variants: the tag enum's labels name the options, underscores
/// stripped on both sides.
pub(crate) fn select_by_label(
    mappings: &[EnumMapping],
    options: &[(String, TypeDecl)],
) -> Vec<(i128, i128, usize)> {
    let mut select = Vec::new();
    for m in mappings {
        let label = m.label.strip_prefix('_').unwrap_or(&m.label);
        if let Some(o) = options
            .iter()
            .position(|(n, _)| n == label || *n == m.label)
        {
            select.push((m.lo, m.hi, o));
        }
    }
    select
}

/// Whether an array element is a byte-sized text-encoded integer.
pub(crate) fn text_elem(elem: &TypeDecl) -> Option<bool> {
    match elem {
        TypeDecl::Int(i) => Some(i.encoding != Encoding::None && i.size == 8 && i.align <= 8),
        _ => None,
    }
}

/// In the event header, `id` selects the class and clock-mapped integers (or
/// `timestamp` when nothing is mapped) advance the clock.
fn mark_header_role(name: &str, ty: &mut FieldType, decl: &TypeDecl) {
    let mapped = match decl {
        TypeDecl::Int(i) => i.clock.is_some(),
        TypeDecl::Enum { container, .. } => container.clock.is_some(),
        _ => false,
    };
    let role = match &mut ty.kind {
        Kind::Int(i) => &mut i.role,
        Kind::VarInt(v) => &mut v.role,
        _ => return,
    };
    if name == "id" {
        *role = Role::EventId;
    } else if mapped || name == "timestamp" {
        *role = Role::Clock;
    }
    ty.has_effects = true;
}
