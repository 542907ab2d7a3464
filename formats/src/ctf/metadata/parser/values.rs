//! The values of TSDL block attributes (`byte_order = le;`, `size = 32;`)
//! and their conversions, with errors naming the metadata line.

use super::super::ast::{ByteOrder, Encoding, TypeDecl};
use super::super::MetadataError;

/// The right-hand side of `name = value;` inside a block.
#[derive(Debug)]
pub(super) enum Value {
    Int(i128),
    Str(String),
    /// `le`, `TRUE`, `clock.monotonic.value`...
    Path(Vec<String>),
}

pub(super) enum Dim {
    Fixed(u64),
    Path(Vec<String>),
}

pub(super) enum BlockValue {
    Value(Value),
    Type(TypeDecl),
}

/// babeltrace2 shows LTTng's `_tid` as `tid`: TSDL identifiers get a leading
/// underscore to dodge keywords, and readers strip it.
pub(super) fn strip_underscore(name: String) -> String {
    match name.strip_prefix('_') {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => name,
    }
}

pub(super) fn key_str(key: &[String]) -> String {
    key.join(".")
}

pub(super) fn uint(key: &[String], v: &Value, line: u32) -> Result<u64, MetadataError> {
    match v {
        Value::Int(i) if *i >= 0 && *i <= u64::MAX as i128 => Ok(*i as u64),
        _ => Err(MetadataError::at(
            line,
            format!("`{}` must be a non-negative integer", key.join(".")),
        )),
    }
}

/// `major` or `minor` of the trace block: this reader reads CTF 1.8 only,
/// and another version's layout would be misread, not refused later.
pub(super) fn version(
    key: &[String],
    v: &Value,
    expected: u64,
    line: u32,
) -> Result<u64, MetadataError> {
    let n = uint(key, v, line)?;
    if n != expected {
        return Err(MetadataError::at(
            line,
            format!(
                "trace `{}` = {n}: this reader reads CTF 1.8, the spec expects `major = 1; minor = 8;`",
                key.join(".")
            ),
        ));
    }
    Ok(n)
}

pub(super) fn boolean(v: &Value, line: u32) -> Result<bool, MetadataError> {
    match v {
        Value::Int(i) => Ok(*i != 0),
        Value::Path(p) if p.len() == 1 => match p[0].to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(MetadataError::at(
                line,
                format!("expected a boolean, found `{other}`"),
            )),
        },
        _ => Err(MetadataError::at(line, "expected a boolean")),
    }
}

pub(super) fn byte_order(v: &Value, line: u32) -> Result<Option<ByteOrder>, MetadataError> {
    match v {
        Value::Path(p) if p.len() == 1 => match p[0].as_str() {
            "le" => Ok(Some(ByteOrder::Little)),
            "be" | "network" => Ok(Some(ByteOrder::Big)),
            "native" => Ok(None),
            other => Err(MetadataError::at(
                line,
                format!("unknown byte_order `{other}`"),
            )),
        },
        _ => Err(MetadataError::at(line, "bad byte_order")),
    }
}

pub(super) fn encoding(v: &Value, line: u32) -> Result<Encoding, MetadataError> {
    match v {
        Value::Path(p) if p.len() == 1 => match p[0].to_ascii_lowercase().as_str() {
            "none" => Ok(Encoding::None),
            "utf8" => Ok(Encoding::Utf8),
            "ascii" => Ok(Encoding::Ascii),
            other => Err(MetadataError::at(
                line,
                format!("unknown encoding `{other}`"),
            )),
        },
        _ => Err(MetadataError::at(line, "bad encoding")),
    }
}

pub(super) fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let hex: Vec<u8> = s.bytes().filter(|b| *b != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        out[i] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}
