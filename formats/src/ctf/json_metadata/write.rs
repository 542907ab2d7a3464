//! CTF 1.8 declarations written as CTF 2 metadata: what the CTF writer
//! emits when asked for CTF 2, and how a CTF 1.8 trace becomes a CTF 2 one
//! with the same data stream files (the layouts are the same bits; only
//! the description changes).
//!
//! Reserved names get their roles, enum-tagged variants selector ranges,
//! and field references absolute locations when they point into an earlier
//! scope, relative ones (`null` to go up a structure) when they point into
//! an enclosing structure of the same scope.

use serde_json::{json, Map, Value};

use super::super::layout::{header_clock, select_by_label, text_elem};
use super::super::metadata::ast::*;
use super::field_class::{Scope, ROLE_NAMES};
use super::location::ORIGINS;
use super::RS;

/// Why declarations cannot be written as CTF 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToJsonError(pub String);

/// The metadata of `meta` as a CTF 2 JSON text sequence.
pub fn to_json_sequence(meta: &MetadataDecl) -> Result<String, ToJsonError> {
    let order = meta.trace.byte_order.unwrap_or(ByteOrder::Little);
    let mut fragments = Vec::new();
    let mut preamble = json!({"type": "preamble", "version": 2});
    let mut trace = json!({"type": "trace-class"});
    if let Some(u) = meta.trace.uuid {
        preamble["uuid"] = json!(u);
        trace["uuid"] = json!(u);
    }
    fragments.push(preamble);
    if !meta.env.is_empty() {
        let env: Map<String, Value> = meta
            .env
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    EnvValue::Int(i) => json_int(*i),
                    EnvValue::Str(s) => json!(s),
                };
                (k.clone(), v)
            })
            .collect();
        trace["environment"] = Value::Object(env);
    }
    fn roots_of<'m>(
        meta: &'m MetadataDecl,
        stream: Option<&'m StreamDecl>,
        event: Option<&'m EventDecl>,
    ) -> [Option<&'m TypeDecl>; 6] {
        [
            meta.trace.packet_header.as_ref(),
            stream.and_then(|s| s.packet_context.as_ref()),
            stream.and_then(|s| s.event_header.as_ref()),
            stream.and_then(|s| s.event_context.as_ref()),
            event.and_then(|e| e.context.as_ref()),
            event.and_then(|e| e.fields.as_ref()),
        ]
    }
    let writer = |roots| Writer { order, roots };
    if let Some(h) = &meta.trace.packet_header {
        trace["packet-header-field-class"] =
            writer(roots_of(meta, None, None)).scope(h, 0, Scope::PacketHeader)?;
    }
    fragments.push(trace);
    for c in &meta.clocks {
        let mut clock = json!({
            "type": "clock-class",
            "id": c.name,
            "name": c.name,
            "frequency": c.freq,
            "offset-from-origin": {"seconds": json_int(c.offset_s), "cycles": json_int(c.offset)},
        });
        if let Some(d) = &c.description {
            clock["description"] = json!(d);
        }
        fragments.push(clock);
    }
    let implicit = StreamDecl::default();
    let streams: Vec<&StreamDecl> = if meta.streams.is_empty() {
        vec![&implicit]
    } else {
        meta.streams.iter().collect()
    };
    for s in &streams {
        let id = s.id.unwrap_or(0);
        let clock = stream_clock(meta, s);
        let mut dsc = json!({"type": "data-stream-class", "id": id});
        if let Some(c) = clock {
            dsc["default-clock-class-id"] = json!(c);
        }
        let w = writer(roots_of(meta, Some(s), None));
        for (key, t, i, scope) in [
            (
                "packet-context-field-class",
                &s.packet_context,
                1,
                Scope::PacketContext,
            ),
            (
                "event-record-header-field-class",
                &s.event_header,
                2,
                Scope::EventHeader,
            ),
            (
                "event-record-common-context-field-class",
                &s.event_context,
                3,
                Scope::Other,
            ),
        ] {
            if let Some(t) = t {
                dsc[key] = w.scope(t, i, scope)?;
            }
        }
        fragments.push(dsc);
        for e in meta
            .events
            .iter()
            .filter(|e| e.stream_id.map_or(streams.len() == 1, |x| x == id))
        {
            let mut erc =
                json!({"type": "event-record-class", "data-stream-class-id": id, "name": e.name});
            if let Some(eid) = e.id {
                erc["id"] = json!(eid);
            }
            let w = writer(roots_of(meta, Some(s), Some(e)));
            if let Some(t) = &e.context {
                erc["specific-context-field-class"] = w.scope(t, 4, Scope::Other)?;
            }
            if let Some(t) = &e.fields {
                erc["payload-field-class"] = w.scope(t, 5, Scope::Other)?;
            }
            fragments.push(erc);
        }
    }
    let mut out = String::new();
    for f in fragments {
        out.push(RS as char);
        out.push_str(&serde_json::to_string_pretty(&f).map_err(|e| ToJsonError(e.to_string()))?);
        out.push('\n');
    }
    Ok(out)
}

/// The clock the stream's event header samples, as `layout` picks it.
fn stream_clock<'m>(meta: &'m MetadataDecl, s: &StreamDecl) -> Option<&'m str> {
    match header_clock(s.event_header.as_ref()) {
        Some(n) => meta
            .clocks
            .iter()
            .find(|c| c.name == n)
            .map(|c| c.name.as_str()),
        None if meta.clocks.len() == 1 => Some(meta.clocks[0].name.as_str()),
        None => None,
    }
}

fn json_int(i: i128) -> Value {
    match (i64::try_from(i), u64::try_from(i)) {
        (Ok(v), _) => json!(v),
        (_, Ok(v)) => json!(v),
        _ => json!(i.to_string()),
    }
}

struct Writer<'m> {
    order: ByteOrder,
    /// The six scopes of the event class being written, for locations.
    roots: [Option<&'m TypeDecl>; 6],
}

/// Members visible to a field reference: those declared before it in each
/// enclosing structure, innermost last.
type Frames<'a> = Vec<&'a [(String, TypeDecl)]>;

impl<'m> Writer<'m> {
    fn scope(&self, t: &'m TypeDecl, root: usize, scope: Scope) -> Result<Value, ToJsonError> {
        self.field(t, root, scope, &mut Vec::new(), &[])
    }

    fn field(
        &self,
        t: &'m TypeDecl,
        root: usize,
        scope: Scope,
        frames: &mut Frames<'m>,
        roles: &[&str],
    ) -> Result<Value, ToJsonError> {
        Ok(match t {
            TypeDecl::Int(i) => self.int(i, roles),
            TypeDecl::Enum {
                container,
                mappings,
            } => {
                let mut v = self.int(container, roles);
                let mut m = Map::new();
                for e in mappings {
                    let ranges = m.entry(e.label.clone()).or_insert_with(|| json!([]));
                    if let Value::Array(a) = ranges {
                        a.push(json!([json_int(e.lo), json_int(e.hi)]));
                    }
                }
                v["mappings"] = Value::Object(m);
                v
            }
            TypeDecl::VarInt { signed } => {
                let ty = if *signed {
                    "variable-length-signed-integer"
                } else {
                    "variable-length-unsigned-integer"
                };
                with_roles(json!({"type": ty}), roles)
            }
            TypeDecl::Float {
                exp_dig,
                mant_dig,
                align,
                byte_order,
            } => json!({
                "type": "fixed-length-floating-point-number",
                "length": exp_dig + mant_dig,
                "byte-order": order_name(byte_order.unwrap_or(self.order)),
                "alignment": align,
            }),
            TypeDecl::Str(_) => json!({"type": "null-terminated-string"}),
            TypeDecl::Struct { fields, min_align } => {
                let mut members = Vec::new();
                for (i, (name, ft)) in fields.iter().enumerate() {
                    frames.push(&fields[..i]);
                    let roles = roles_of(scope, name, ft);
                    let v = self.field(ft, root, scope, frames, &roles);
                    frames.pop();
                    members.push(json!({"name": name, "field-class": v?}));
                }
                let mut v = json!({"type": "structure", "member-classes": members});
                if *min_align > 1 {
                    v["minimum-alignment"] = json!(min_align);
                }
                v
            }
            TypeDecl::Array { elem, len } => match text_elem(elem) == Some(true) {
                true => json!({"type": "static-length-string", "length": len}),
                false => json!({
                    "type": "static-length-array",
                    "length": len,
                    "element-field-class": self.field(elem, root, scope, frames, &[])?,
                }),
            },
            TypeDecl::Sequence { elem, len } => {
                let loc = self.location(len, root, frames)?;
                match text_elem(elem) == Some(true) {
                    true => json!({"type": "dynamic-length-string", "length-field-location": loc}),
                    false => json!({
                        "type": "dynamic-length-array",
                        "length-field-location": loc,
                        "element-field-class": self.field(elem, root, scope, frames, &[])?,
                    }),
                }
            }
            TypeDecl::Variant {
                tag,
                options,
                ranges,
            } => {
                let tag = tag
                    .as_ref()
                    .ok_or_else(|| ToJsonError("a variant without a tag".into()))?;
                let loc = self.location(tag, root, frames)?;
                let per_option: Vec<Vec<(i128, i128)>> = match ranges {
                    Some(r) => r.clone(),
                    None => {
                        let mappings = self.tag_mappings(tag, root, frames)?;
                        let select = select_by_label(mappings, options);
                        (0..options.len())
                            .map(|o| {
                                select
                                    .iter()
                                    .filter(|s| s.2 == o)
                                    .map(|s| (s.0, s.1))
                                    .collect()
                            })
                            .collect()
                    }
                };
                let mut out = Vec::new();
                for ((name, ot), r) in options.iter().zip(per_option) {
                    // An option no tag value selects cannot be written (CTF 2
                    // wants at least one range) and could never be read.
                    if r.is_empty() {
                        continue;
                    }
                    let ranges: Vec<Value> = r
                        .iter()
                        .map(|(lo, hi)| json!([json_int(*lo), json_int(*hi)]))
                        .collect();
                    out.push(json!({
                        "name": name,
                        "selector-field-ranges": ranges,
                        "field-class": self.field(ot, root, scope, frames, &[])?,
                    }));
                }
                json!({"type": "variant", "selector-field-location": loc, "options": out})
            }
        })
    }

    fn int(&self, i: &IntDecl, roles: &[&str]) -> Value {
        let ty = if i.signed {
            "fixed-length-signed-integer"
        } else {
            "fixed-length-unsigned-integer"
        };
        let mut v = json!({
            "type": ty,
            "length": i.size,
            "byte-order": order_name(i.byte_order.unwrap_or(self.order)),
            "alignment": i.align,
        });
        if i.base != 10 {
            v["preferred-display-base"] = json!(i.base);
        }
        with_roles(v, roles)
    }

    /// The CTF 2 location of a TSDL field reference made from `root` inside
    /// `frames`.
    fn location(
        &self,
        path: &[String],
        root: usize,
        frames: &Frames<'m>,
    ) -> Result<Value, ToJsonError> {
        for (origin, prefix) in ORIGINS {
            if path.len() > prefix.len() && path.iter().zip(prefix.iter()).all(|(a, b)| a == b) {
                return Ok(json!({"origin": origin, "path": &path[prefix.len()..]}));
            }
        }
        // Relative: the innermost enclosing structure declaring the name,
        // reached by going up (`null`) from the requesting field's own.
        for (up, members) in frames.iter().rev().enumerate() {
            if members.iter().any(|(n, _)| *n == path[0]) {
                let mut p: Vec<Value> = std::iter::repeat_n(Value::Null, up).collect();
                p.extend(path.iter().map(|s| json!(s)));
                return Ok(json!({"path": p}));
            }
        }
        // Then the earlier scopes, latest first.
        for r in (0..root).rev() {
            if let Some(t) = self.roots[r] {
                if descend(t, path).is_some() {
                    return Ok(json!({"origin": ORIGINS[r].0, "path": path}));
                }
            }
        }
        Err(ToJsonError(format!(
            "field reference `{}` names no earlier field",
            path.join(".")
        )))
    }

    /// The enum mappings of a CTF 1.8 variant's tag.
    fn tag_mappings(
        &self,
        path: &[String],
        root: usize,
        frames: &Frames<'m>,
    ) -> Result<&'m [EnumMapping], ToJsonError> {
        let found = ORIGINS
            .iter()
            .enumerate()
            .find(|(_, (_, prefix))| {
                path.len() > prefix.len() && path.iter().zip(prefix.iter()).all(|(a, b)| a == b)
            })
            .and_then(|(r, (_, prefix))| descend(self.roots[r]?, &path[prefix.len()..]))
            .or_else(|| {
                frames.iter().rev().find_map(|members| {
                    let (_, t) = members.iter().find(|(n, _)| *n == path[0])?;
                    descend(t, &path[1..])
                })
            })
            .or_else(|| (0..root).rev().find_map(|r| descend(self.roots[r]?, path)));
        match found {
            Some(TypeDecl::Enum { mappings, .. }) => Ok(mappings),
            _ => Err(ToJsonError(format!(
                "variant tag `{}` is not an earlier enum",
                path.join(".")
            ))),
        }
    }
}

fn descend<'a>(t: &'a TypeDecl, path: &[String]) -> Option<&'a TypeDecl> {
    match path.split_first() {
        None => Some(t),
        Some((head, rest)) => match t {
            TypeDecl::Struct { fields, .. } => {
                let (_, ft) = fields.iter().find(|(n, _)| n == head)?;
                descend(ft, rest)
            }
            _ => None,
        },
    }
}

/// The roles CTF 2 gives the integer a CTF 1.8 scope reserves `name` for.
fn roles_of(scope: Scope, name: &str, t: &TypeDecl) -> Vec<&'static str> {
    if !matches!(
        t,
        TypeDecl::Int(_) | TypeDecl::Enum { .. } | TypeDecl::VarInt { .. }
    ) {
        return Vec::new();
    }
    ROLE_NAMES
        .iter()
        .filter(|(s, _, n)| *s == scope && *n == name)
        .map(|(_, r, _)| *r)
        .collect()
}

fn with_roles(mut v: Value, roles: &[&str]) -> Value {
    if !roles.is_empty() {
        v["roles"] = json!(roles);
    }
    v
}

fn order_name(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::Little => "little-endian",
        ByteOrder::Big => "big-endian",
    }
}
