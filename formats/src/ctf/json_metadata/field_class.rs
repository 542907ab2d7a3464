//! CTF 2 field classes as TSDL declarations: fixed-length bit arrays, bit
//! maps, booleans and integers become integers (enumerations when they have
//! mappings), variable-length integers LEB128 integers, strings and BLOBs
//! arrays or sequences of bytes, optionals two-option variants; members with
//! a role take the name CTF 1.8 reserves for that field, which is how the
//! packet and event readers find them.

use std::collections::HashMap;

use serde_json::Value;

use super::super::metadata::ast::{ByteOrder, Encoding, EnumMapping, IntDecl, TypeDecl};
use super::fragments::Ptr;
use super::{location, JsonMetadataError};

/// Field class aliases by name, as declared (their roles and clock depend on
/// where they are used).
pub(super) type Aliases = HashMap<String, Value>;

/// The scopes whose roles have CTF 1.8 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    PacketHeader,
    PacketContext,
    EventHeader,
    Other,
}

pub(super) const ROLE_NAMES: [(Scope, &str, &str); 12] = [
    (Scope::PacketHeader, "packet-magic-number", "magic"),
    (Scope::PacketHeader, "metadata-stream-uuid", "uuid"),
    (Scope::PacketHeader, "data-stream-class-id", "stream_id"),
    (Scope::PacketHeader, "data-stream-id", "stream_instance_id"),
    (Scope::PacketContext, "packet-total-length", "packet_size"),
    (
        Scope::PacketContext,
        "packet-content-length",
        "content_size",
    ),
    (
        Scope::PacketContext,
        "default-clock-timestamp",
        "timestamp_begin",
    ),
    (
        Scope::PacketContext,
        "packet-end-default-clock-timestamp",
        "timestamp_end",
    ),
    (
        Scope::PacketContext,
        "discarded-event-record-counter-snapshot",
        "events_discarded",
    ),
    (
        Scope::PacketContext,
        "packet-sequence-number",
        "packet_seq_num",
    ),
    (Scope::EventHeader, "event-record-class-id", "id"),
    (Scope::EventHeader, "default-clock-timestamp", "timestamp"),
];

/// Roles whose integer samples the data stream's default clock.
const CLOCK_ROLES: [&str; 2] = [
    "default-clock-timestamp",
    "packet-end-default-clock-timestamp",
];

/// Aliases naming aliases, and structures in structures, nest at most this
/// deep: deeper is a loop or an attack, not a trace.
const MAX_DEPTH: u32 = 200;

/// The field class under `key` of a fragment (a scope: it must be a structure).
pub(super) fn optional_root(
    fragment: &Value,
    root: &Ptr,
    key: &str,
    scope: Scope,
    aliases: &Aliases,
    clock: Option<&str>,
) -> Result<Option<TypeDecl>, JsonMetadataError> {
    let Some(v) = fragment.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let at = root.key(key);
    let c = Converter {
        aliases,
        scope,
        clock,
    };
    let t = c.convert(v, &at, 0)?;
    if !matches!(t, TypeDecl::Struct { .. }) {
        return Err(at.error("the field class of a scope must be a structure"));
    }
    Ok(Some(t))
}

struct Converter<'a> {
    aliases: &'a Aliases,
    scope: Scope,
    clock: Option<&'a str>,
}

impl Converter<'_> {
    /// The field class object `v` stands for (an alias name is replaced by
    /// its field class).
    fn resolve<'v>(&'v self, mut v: &'v Value, at: &Ptr) -> Result<&'v Value, JsonMetadataError> {
        for _ in 0..MAX_DEPTH {
            match v {
                Value::String(name) => {
                    v = self.aliases.get(name).ok_or_else(|| {
                        at.error(format!(
                            "unknown field class alias `{name}` (an alias must be declared in an earlier fragment)"
                        ))
                    })?;
                }
                Value::Object(_) => return Ok(v),
                _ => return Err(at.error("expected a field class (an object or an alias name)")),
            }
        }
        Err(at.error("field class aliases refer to each other in a loop"))
    }

    fn convert(&self, v: &Value, at: &Ptr, depth: u32) -> Result<TypeDecl, JsonMetadataError> {
        if depth > MAX_DEPTH {
            return Err(at.error("field classes nested too deeply"));
        }
        let fc = self.resolve(v, at)?;
        let ty = at.str_field(fc, "type")?;
        let unsupported = |what: &str| {
            Err(at
                .key("type")
                .error(format!("{what} are not supported yet")))
        };
        Ok(match ty {
            "fixed-length-bit-array"
            | "fixed-length-bit-map"
            | "fixed-length-boolean"
            | "fixed-length-unsigned-integer"
            | "fixed-length-unsigned-enumeration" => self.fixed_int(fc, at, false)?,
            "fixed-length-signed-integer" | "fixed-length-signed-enumeration" => {
                self.fixed_int(fc, at, true)?
            }
            "variable-length-unsigned-integer" | "variable-length-unsigned-enumeration" => {
                TypeDecl::VarInt { signed: false }
            }
            "variable-length-signed-integer" | "variable-length-signed-enumeration" => {
                TypeDecl::VarInt { signed: true }
            }
            "fixed-length-floating-point-number" => {
                let bits = at.key("length").uint(at.get(fc, "length"))?;
                // IEEE 754 binary formats: exponent and significand digits.
                let (exp_dig, mant_dig) = match bits {
                    16 => (5, 11),
                    32 => (8, 24),
                    64 => (11, 53),
                    128 => (15, 113),
                    n => {
                        return Err(at.key("length").error(format!(
                            "floating point number of {n} bits: the spec expects 16, 32, 64 or 128"
                        )))
                    }
                };
                TypeDecl::Float {
                    exp_dig,
                    mant_dig,
                    align: alignment(fc, at)?,
                    byte_order: Some(byte_order(fc, at)?),
                }
            }
            "null-terminated-string" => {
                string_encoding(fc, at)?;
                TypeDecl::Str(Encoding::Utf8)
            }
            "static-length-string" => {
                string_encoding(fc, at)?;
                TypeDecl::Array {
                    elem: Box::new(byte(Encoding::Utf8)),
                    len: at.key("length").uint(at.get(fc, "length"))?,
                }
            }
            "dynamic-length-string" => {
                string_encoding(fc, at)?;
                TypeDecl::Sequence {
                    elem: Box::new(byte(Encoding::Utf8)),
                    len: length_location(fc, at)?,
                }
            }
            "static-length-blob" => TypeDecl::Array {
                elem: Box::new(byte(Encoding::None)),
                len: at.key("length").uint(at.get(fc, "length"))?,
            },
            "dynamic-length-blob" => TypeDecl::Sequence {
                elem: Box::new(byte(Encoding::None)),
                len: length_location(fc, at)?,
            },
            "structure" => self.structure(fc, at, depth)?,
            "static-length-array" | "dynamic-length-array" => {
                if fc
                    .get("minimum-alignment")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    > 1
                {
                    return unsupported("arrays with a minimum alignment");
                }
                let ea = at.key("element-field-class");
                let elem = Box::new(self.convert(
                    at.required(fc, "element-field-class")?,
                    &ea,
                    depth + 1,
                )?);
                if ty == "static-length-array" {
                    TypeDecl::Array {
                        elem,
                        len: at.key("length").uint(at.get(fc, "length"))?,
                    }
                } else {
                    TypeDecl::Sequence {
                        elem,
                        len: length_location(fc, at)?,
                    }
                }
            }
            "optional" => self.optional(fc, at, depth)?,
            "variant" => self.variant(fc, at, depth)?,
            "variable-length-floating-point-number" => {
                return unsupported("variable-length floating point numbers")
            }
            other => {
                return Err(at
                    .key("type")
                    .error(format!("unknown field class type `{other}`")))
            }
        })
    }

    fn fixed_int(&self, fc: &Value, at: &Ptr, signed: bool) -> Result<TypeDecl, JsonMetadataError> {
        let size = at.key("length").uint(at.get(fc, "length"))?;
        if !(1..=64).contains(&size) {
            return Err(at.key("length").error(format!(
                "fixed-length integer of {size} bits: this reader reads 1 to 64"
            )));
        }
        let order = byte_order(fc, at)?;
        if let Some(bit_order) = fc.get("bit-order") {
            let natural = match order {
                ByteOrder::Little => "first-to-last",
                ByteOrder::Big => "last-to-first",
            };
            if bit_order.as_str() != Some(natural) {
                return Err(at.key("bit-order").error(format!(
                    "bit order {bit_order} against the byte order is not supported yet"
                )));
            }
        }
        let roles = roles(fc, at)?;
        let container = IntDecl {
            size: size as u32,
            align: alignment(fc, at)?,
            signed,
            byte_order: Some(order),
            base: match fc.get("preferred-display-base").and_then(Value::as_u64) {
                Some(b @ (2 | 8 | 16)) => b as u32,
                _ => 10,
            },
            encoding: Encoding::None,
            clock: roles
                .iter()
                .any(|r| CLOCK_ROLES.contains(&r.as_str()))
                .then(|| self.clock.map(str::to_string))
                .flatten(),
        };
        let Some(mappings) = fc.get("mappings") else {
            return Ok(TypeDecl::Int(container));
        };
        let at = at.key("mappings");
        let Some(mappings) = mappings.as_object() else {
            return Err(at.error("expected an object of labels and their ranges"));
        };
        let mut out = Vec::new();
        for (label, ranges) in mappings {
            for (lo, hi) in ranges_of(ranges, &at.key(label))? {
                out.push(EnumMapping {
                    label: label.clone(),
                    lo,
                    hi,
                });
            }
        }
        Ok(TypeDecl::Enum {
            container,
            mappings: out,
        })
    }

    fn structure(&self, fc: &Value, at: &Ptr, depth: u32) -> Result<TypeDecl, JsonMetadataError> {
        let min_align = match fc.get("minimum-alignment") {
            None => 1,
            Some(a) => power_of_two(a, &at.key("minimum-alignment"))?,
        };
        let mut fields: Vec<(String, TypeDecl)> = Vec::new();
        if let Some(members) = fc.get("member-classes") {
            let at = at.key("member-classes");
            let members = members
                .as_array()
                .ok_or_else(|| at.error("expected an array of member classes"))?;
            for (i, m) in members.iter().enumerate() {
                let mat = at.index(i);
                let name = mat.str_field(m, "name")?;
                let fat = mat.key("field-class");
                let fv = mat.required(m, "field-class")?;
                let t = self.convert(fv, &fat, depth + 1)?;
                let roles = roles(self.resolve(fv, &fat)?, &fat)?;
                let name = ROLE_NAMES
                    .iter()
                    .find(|(s, r, _)| *s == self.scope && roles.iter().any(|x| x == r))
                    .map_or(name, |(_, _, n)| *n)
                    .to_string();
                if fields.iter().any(|(n, _)| *n == name) {
                    return Err(mat.key("name").error(format!(
                        "two members named `{name}` (a role's member takes its CTF 1.8 name)"
                    )));
                }
                fields.push((name, t));
            }
        }
        Ok(TypeDecl::Struct { fields, min_align })
    }

    /// An optional is a variant of the field and nothing: present when the
    /// selector is within the ranges (integer selector) or true (boolean).
    fn optional(&self, fc: &Value, at: &Ptr, depth: u32) -> Result<TypeDecl, JsonMetadataError> {
        let tag = location::path(
            at.required(fc, "selector-field-location")?,
            &at.key("selector-field-location"),
        )?;
        let present = match fc.get("selector-field-ranges") {
            Some(r) => ranges_of(r, &at.key("selector-field-ranges"))?,
            None => vec![(i128::MIN, -1), (1, i128::MAX)],
        };
        let field = self.convert(
            at.required(fc, "field-class")?,
            &at.key("field-class"),
            depth + 1,
        )?;
        let absent = TypeDecl::Struct {
            fields: Vec::new(),
            min_align: 1,
        };
        // The first option whose ranges hold the selector is chosen: the
        // catch-all range of "absent" applies only when "present" does not.
        Ok(TypeDecl::Variant {
            tag: Some(tag),
            options: vec![("present".into(), field), ("absent".into(), absent)],
            ranges: Some(vec![present, vec![(i128::MIN, i128::MAX)]]),
        })
    }

    fn variant(&self, fc: &Value, at: &Ptr, depth: u32) -> Result<TypeDecl, JsonMetadataError> {
        let tag = location::path(
            at.required(fc, "selector-field-location")?,
            &at.key("selector-field-location"),
        )?;
        let oat = at.key("options");
        let options = at
            .required(fc, "options")?
            .as_array()
            .ok_or_else(|| oat.error("expected an array of options"))?;
        let mut out = Vec::new();
        let mut ranges = Vec::new();
        for (i, o) in options.iter().enumerate() {
            let at = oat.index(i);
            let name = at.opt_str(o, "name")?.unwrap_or_default();
            let t = self.convert(
                at.required(o, "field-class")?,
                &at.key("field-class"),
                depth + 1,
            )?;
            ranges.push(ranges_of(
                at.required(o, "selector-field-ranges")?,
                &at.key("selector-field-ranges"),
            )?);
            out.push((name, t));
        }
        Ok(TypeDecl::Variant {
            tag: Some(tag),
            options: out,
            ranges: Some(ranges),
        })
    }
}

/// A byte of a string (UTF-8 text) or a BLOB (no encoding).
fn byte(encoding: Encoding) -> TypeDecl {
    TypeDecl::Int(IntDecl {
        size: 8,
        align: 8,
        signed: false,
        byte_order: Some(ByteOrder::Little),
        base: if encoding == Encoding::None { 16 } else { 10 },
        encoding,
        clock: None,
    })
}

fn string_encoding(fc: &Value, at: &Ptr) -> Result<(), JsonMetadataError> {
    match fc.get("encoding").map(|e| e.as_str()) {
        None | Some(Some("utf-8")) => Ok(()),
        Some(Some(e @ ("utf-16be" | "utf-16le" | "utf-32be" | "utf-32le"))) => Err(at
            .key("encoding")
            .error(format!("{e} strings are not supported yet (UTF-8 only)"))),
        Some(_) => Err(at.key("encoding").error(
            "unknown encoding: the spec expects utf-8, utf-16be, utf-16le, utf-32be or utf-32le",
        )),
    }
}

fn length_location(fc: &Value, at: &Ptr) -> Result<Vec<String>, JsonMetadataError> {
    location::path(
        at.required(fc, "length-field-location")?,
        &at.key("length-field-location"),
    )
}

fn byte_order(fc: &Value, at: &Ptr) -> Result<ByteOrder, JsonMetadataError> {
    match fc.get("byte-order").map(|b| b.as_str()) {
        // The default when a producer leaves it out.
        None | Some(Some("little-endian")) => Ok(ByteOrder::Little),
        Some(Some("big-endian")) => Ok(ByteOrder::Big),
        Some(_) => Err(at
            .key("byte-order")
            .error("the spec expects \"little-endian\" or \"big-endian\"")),
    }
}

fn alignment(fc: &Value, at: &Ptr) -> Result<u32, JsonMetadataError> {
    match fc.get("alignment") {
        None => Ok(1),
        Some(a) => power_of_two(a, &at.key("alignment")),
    }
}

fn power_of_two(v: &Value, at: &Ptr) -> Result<u32, JsonMetadataError> {
    v.as_u64()
        .filter(|a| a.is_power_of_two() && *a <= 1 << 20)
        .map(|a| a as u32)
        .ok_or_else(|| at.error(format!("expected a power of two (bits), found {v}")))
}

fn roles(fc: &Value, at: &Ptr) -> Result<Vec<String>, JsonMetadataError> {
    let Some(roles) = fc.get("roles") else {
        return Ok(Vec::new());
    };
    let at = at.key("roles");
    roles
        .as_array()
        .ok_or_else(|| at.error("expected an array of role names"))?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            r.as_str()
                .map(str::to_string)
                .ok_or_else(|| at.index(i).error("expected a role name"))
        })
        .collect()
}

/// An integer range set: `[[lo, hi], ...]`, inclusive.
fn ranges_of(v: &Value, at: &Ptr) -> Result<Vec<(i128, i128)>, JsonMetadataError> {
    let ranges = v
        .as_array()
        .ok_or_else(|| at.error("expected an array of [lower, upper] ranges"))?;
    let mut out = Vec::with_capacity(ranges.len());
    for (i, r) in ranges.iter().enumerate() {
        let rat = at.index(i);
        let (Some(lo), Some(hi)) = (r.get(0), r.get(1)) else {
            return Err(rat.error("expected a range: [lower, upper]"));
        };
        let (lo, hi) = (rat.index(0).int(lo)?, rat.index(1).int(hi)?);
        if hi < lo {
            return Err(rat.error(format!("empty range [{lo}, {hi}]")));
        }
        out.push((lo, hi));
    }
    Ok(out)
}
