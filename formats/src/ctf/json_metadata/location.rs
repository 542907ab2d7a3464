//! Field locations (CTF2-SPEC-2.0 §5.4) as the paths of TSDL scopes that
//! `layout` resolves: an origin becomes the scope's absolute prefix
//! (`event-record-payload` → `event.fields`), a relative location stays a
//! relative path, looked up in the enclosing structures first.

use serde_json::Value;

use super::fragments::Ptr;
use super::JsonMetadataError;

/// Each CTF 2 origin with the absolute TSDL prefix of its scope, in
/// decoding order (the writer walks it the other way).
pub(super) const ORIGINS: [(&str, &[&str]); 6] = [
    ("packet-header", &["trace", "packet", "header"]),
    ("packet-context", &["stream", "packet", "context"]),
    ("event-record-header", &["stream", "event", "header"]),
    (
        "event-record-common-context",
        &["stream", "event", "context"],
    ),
    ("event-record-specific-context", &["event", "context"]),
    ("event-record-payload", &["event", "fields"]),
];

/// The path a location names. Accepts the final form (`{"origin": ...,
/// "path": [...]}`) and the drafts' (an array whose first element is the
/// origin), which Trace Compass's samples use.
pub(super) fn path(v: &Value, at: &Ptr) -> Result<Vec<String>, JsonMetadataError> {
    let (origin, names, names_at): (Option<&str>, &[Value], Ptr) = match v {
        Value::Object(o) => {
            let origin = match o.get("origin") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.as_str()),
                Some(_) => return Err(at.key("origin").error("expected a string")),
            };
            let names = o
                .get("path")
                .and_then(Value::as_array)
                .ok_or_else(|| at.key("path").error("expected an array of member names"))?;
            (origin, names.as_slice(), at.key("path"))
        }
        Value::Array(a) => match a.split_first() {
            Some((Value::String(first), rest)) if origin_prefix(first).is_some() => {
                (Some(first.as_str()), rest, at.clone())
            }
            _ => return Err(at.index(0).error("expected the origin of the location")),
        },
        _ => return Err(at.error("expected a field location (an object with `path`)")),
    };
    let mut out: Vec<String> = match origin {
        Some(o) => origin_prefix(o)
            .ok_or_else(|| {
                at.key("origin").error(format!(
                    "unknown origin `{o}`: the spec expects packet-header, packet-context, event-record-header, event-record-common-context, event-record-specific-context or event-record-payload"
                ))
            })?
            .iter()
            .map(|s| s.to_string())
            .collect(),
        None => Vec::new(),
    };
    let skip = usize::from(matches!(v, Value::Array(_)));
    for (i, n) in names.iter().enumerate() {
        match n {
            Value::String(s) => out.push(s.clone()),
            // `null` goes up one structure in a relative location; the
            // relative lookup searches the enclosing structures anyway.
            Value::Null if origin.is_none() => {}
            _ => return Err(names_at.index(i + skip).error("expected a member name")),
        }
    }
    if out.is_empty() {
        return Err(at.error("empty field location"));
    }
    Ok(out)
}

fn origin_prefix(origin: &str) -> Option<&'static [&'static str]> {
    ORIGINS.iter().find(|(o, _)| *o == origin).map(|(_, p)| *p)
}
