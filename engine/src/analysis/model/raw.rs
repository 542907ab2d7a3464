//! The model as written, read by serde: every key, before the checks, and
//! serde's errors turned into errors naming the field.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::time::{Instant, Nanos, Span};
use super::ModelError;

pub(super) const ROOT: &str = "(root)";

/// serde's message, with its path; "missing field `x`" and "unknown field
/// `x`" move the field into the path.
pub(super) fn serde_error(e: serde_path_to_error::Error<serde_json::Error>) -> ModelError {
    // "." is the root; "?" a key not read yet (at a syntax error).
    let path = e.path().to_string();
    let path = path
        .trim_start_matches('.')
        .trim_end_matches('?')
        .trim_end_matches('.');
    let path = path.to_string();
    let (msg, at) = split_location(e.inner());
    if let Some(rest) = msg.strip_prefix("missing field `") {
        if let Some(field) = rest.strip_suffix('`') {
            return ModelError::new(join(&path, field), "required field is missing");
        }
    }
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        if let Some((field, expected)) = rest.split_once('`') {
            // serde_path_to_error already puts the unknown key in the path.
            let p = if path.ends_with(field) {
                path.clone()
            } else {
                join(&path, field)
            };
            let expected = expected.trim_start_matches(',').trim().replace('`', "");
            return ModelError::new(p, format!("unknown field ({expected})"));
        }
    }
    ModelError::new(
        if path.is_empty() {
            ROOT.to_string()
        } else {
            path
        },
        format!("{}{at}", user_words(&msg)),
    )
}

/// serde's "invalid type: string \"x\", expected i64" as "expected an
/// integer, found string \"x\"": what was expected first, in the words of
/// the format rather than of Rust's types.
fn user_words(msg: &str) -> String {
    let msg = msg.replace('`', "\"");
    let Some((found, expected)) = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))
        .and_then(|m| m.split_once(", expected "))
    else {
        return msg;
    };
    let expected = match expected {
        "i64" | "i128" => "an integer",
        "u64" => "an integer, 0 or more",
        "a boolean" => "true or false",
        e => e,
    };
    let found = match found {
        "map" => "an object",
        "sequence" => "an array",
        "null" => "null",
        f => f,
    };
    format!("expected {expected}, found {found}")
}

/// serde_json's message without its position, and the position as
/// " (line l, column c)" (empty when there is none: a `Value` was read).
pub(super) fn split_location(e: &serde_json::Error) -> (String, String) {
    let full = e.to_string();
    if e.line() == 0 {
        return (full, String::new());
    }
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(m) => (
            m.to_string(),
            format!(" (line {}, column {})", e.line(), e.column()),
        ),
        None => (full, String::new()),
    }
}

/// Deserializes `T` from a JSON object only: serde's derived structs also
/// accept an array of their fields in order, which the format does not allow.
pub(super) struct MapOnly<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOnly<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = MapOnly<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MapOnly<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(MapOnly)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

pub(super) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The model as written: every key, before the checks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawModel {
    pub(super) name: String,
    #[serde(default, deserialize_with = "present")]
    pub(super) description: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub(super) mode: Option<ModeName>,
    #[serde(default, deserialize_with = "present")]
    pub(super) threads: Option<MapOnly<RawThreads>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) events: Option<Vec<MapOnly<RawEvent>>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) start: Option<MapOnly<RawEvent>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) end: Option<MapOnly<RawEvent>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) start_threads: Option<MapOnly<RawThreads>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) end_threads: Option<MapOnly<RawThreads>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) time_range: Option<MapOnly<RawTimeRange>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) max_executions: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    pub(super) chained: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    pub(super) nested: Option<Box<MapOnly<RawModel>>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) deadline: Option<Nanos<Span>>,
}

/// An optional key: absent is `None`, `null` is an error (as in the schema).
pub(super) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ModeName {
    SameTid,
    DifferentTids,
}

impl<'de> Deserialize<'de> for ModeName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "same_tid" => Ok(ModeName::SameTid),
            "different_tids" => Ok(ModeName::DifferentTids),
            _ => Err(de::Error::custom(format!(
                "unknown variant \"{s}\", expected one of same_tid, different_tids"
            ))),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawThreads {
    #[serde(default, deserialize_with = "present")]
    pub(super) tids: Option<Vec<i64>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) process: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTimeRange {
    #[serde(default, deserialize_with = "present")]
    pub(super) start: Option<Nanos<Instant>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) end: Option<Nanos<Instant>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEvent {
    pub(super) name: String,
    #[serde(default)]
    pub(super) fields: RawFields,
}

/// `fields` in the order written; a key written twice is an error.
#[derive(Default)]
pub(super) struct RawFields(pub(super) Vec<(String, RawValue)>);

impl<'de> Deserialize<'de> for RawFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawFields;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object mapping field names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawFields, A::Error> {
                let mut out: Vec<(String, RawValue)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format!("key \"{key}\" is written twice")));
                    }
                    let v = map.next_value::<RawValue>()?;
                    out.push((key, v));
                }
                Ok(RawFields(out))
            }
        }
        d.deserialize_map(V)
    }
}

pub(super) enum RawValue {
    Int(i128),
    Str(String),
}

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RawValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawValue, E> {
                Ok(RawValue::Int(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawValue, E> {
                Ok(RawValue::Int(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawValue, E> {
                Ok(RawValue::Str(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}
