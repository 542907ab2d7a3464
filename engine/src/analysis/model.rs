//! Execution models: what the user says an "execution" is, as JSON
//! (`schemas/execution-model.schema.json`), parsed and checked into a form
//! where the wrong states cannot be written down.
//!
//! ```json
//! { "name": "rt_high job", "mode": "same_tid",
//!   "threads": { "tids": [12, 13], "process": "^rt_high$" },
//!   "events": [ { "name": "syscall_exit_clock_nanosleep" },
//!               { "name": "syscall_entry_clock_nanosleep", "fields": {"which_clock": 1} } ],
//!   "deadline": 1000000 }
//! ```
//!
//! The checked form:
//! - the mode is an enum that holds only what that mode uses: `same_tid` has
//!   its ordered events, its thread filter and its (single-level, `same_tid`)
//!   nested model; `different_tids` has one start and one end event, a thread
//!   filter for each side (`threads` already resolved against
//!   `start_threads` / `end_threads`) and `chained`;
//! - thread filters hold compiled regexes; field constraints are typed
//!   (exact integer, exact string, `"$tid"`, masked), sorted by field, with at
//!   most one `"$tid"` per event;
//! - the nested model is its own type, so it cannot nest again.
//!
//! Every error names the offending field by its path in the JSON
//! (`events[1].fields.flags&x: mask is not an integer ...`): syntax and type
//! errors come from serde through `serde_path_to_error`, the semantic checks
//! build their paths themselves.
//!
//! Keys of the other mode are errors, not ignored (`start` in a `same_tid`
//! model, `chained` or `nested` in a `different_tids` one), and so are unknown
//! keys and `null` values.

use std::collections::BTreeSet;
use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

use regex::Regex;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::value::Scalar;

/// A model that failed to parse or check: `path` names the offending field in
/// the JSON (`events[1].fields.flags&x`, `threads.process`, `(root)`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ModelError {
    pub path: String,
    pub message: String,
}

impl ModelError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ModelError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// A checked execution model.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionModel {
    /// Non-empty (not only whitespace).
    pub name: String,
    pub description: Option<String>,
    pub mode: Mode,
    /// Only executions within this range of trace time.
    pub time_range: Option<TimeRange>,
    /// Stop after this many executions.
    pub max_executions: Option<NonZeroU64>,
    /// Nanoseconds, positive: an execution longer than this misses its deadline.
    pub deadline: Option<i64>,
}

/// How events make up an execution.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// Each execution is on one thread: `events` (at least one) occur in this
    /// order on that thread, not necessarily consecutively. An event with a
    /// `"$tid"` field may occur on another thread: it counts for the thread
    /// named by that field.
    SameTid {
        threads: ThreadFilter,
        /// Never empty.
        events: Vec<EventPattern>,
        /// A second-level model, matched only inside this model's executions,
        /// on the same thread.
        nested: Option<Box<NestedModel>>,
    },
    /// Each execution starts with `start` on a thread accepted by
    /// `start_threads` and ends with `end` on a thread accepted by
    /// `end_threads` (the model's `threads` is already applied to both).
    DifferentTids {
        start: EventPattern,
        end: EventPattern,
        start_threads: ThreadFilter,
        end_threads: ThreadFilter,
        /// The end event also starts the next execution.
        chained: bool,
    },
}

impl Mode {
    /// The JSON spelling: `same_tid` or `different_tids`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Mode::SameTid { .. } => "same_tid",
            Mode::DifferentTids { .. } => "different_tids",
        }
    }
}

/// The second-level model of a `same_tid` model: always `same_tid`, on its
/// parent's thread, never nested further.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedModel {
    pub name: String,
    pub description: Option<String>,
    /// Never empty.
    pub events: Vec<EventPattern>,
    /// Nanoseconds, positive.
    pub deadline: Option<i64>,
}

/// Which threads a model looks at. Both parts must accept the thread; an
/// absent part accepts every thread (`ThreadFilter::default()` accepts all).
#[derive(Debug, Clone, Default)]
pub struct ThreadFilter {
    /// Never empty when present.
    pub tids: Option<BTreeSet<i64>>,
    /// Searched (not anchored: write `^...$`) in the thread's command name at
    /// the time of the event.
    pub process: Option<Regex>,
}

impl ThreadFilter {
    pub fn matches(&self, tid: i64, comm: &str) -> bool {
        self.tids.as_ref().is_none_or(|t| t.contains(&tid))
            && self.process.as_ref().is_none_or(|r| r.is_match(comm))
    }

    /// True when the filter accepts every thread.
    pub fn is_any(&self) -> bool {
        self.tids.is_none() && self.process.is_none()
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(t) = &self.tids {
            m.insert("tids".into(), json!(t.iter().collect::<Vec<_>>()));
        }
        if let Some(r) = &self.process {
            m.insert("process".into(), json!(r.as_str()));
        }
        Value::Object(m)
    }
}

/// Regexes compare by their source text.
impl PartialEq for ThreadFilter {
    fn eq(&self, other: &Self) -> bool {
        self.tids == other.tids
            && self.process.as_ref().map(Regex::as_str) == other.process.as_ref().map(Regex::as_str)
    }
}

/// A range of trace time (nanoseconds, as event timestamps), both ends
/// included; `start <= end` when both are given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Option<i64>,
    pub end: Option<i64>,
}

impl TimeRange {
    pub fn contains(&self, ts: i64) -> bool {
        self.start.is_none_or(|s| s <= ts) && self.end.is_none_or(|e| ts <= e)
    }
}

/// One event of a model: a name and tests on its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventPattern {
    /// Canonical (LTTng-style, `sched_switch`) or the tracer's own spelling;
    /// kept as written.
    pub name: String,
    /// Sorted by field; at most one `Tid`.
    pub constraints: Vec<FieldConstraint>,
}

impl EventPattern {
    /// A pattern with no field constraints.
    pub fn named(name: &str) -> Self {
        EventPattern {
            name: name.to_string(),
            constraints: Vec::new(),
        }
    }

    /// The field whose value is the execution's thread (`"field": "$tid"`).
    pub fn tid_field(&self) -> Option<&str> {
        self.constraints.iter().find_map(|c| match c {
            FieldConstraint::Tid { field } => Some(field.as_str()),
            _ => None,
        })
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        if !self.constraints.is_empty() {
            let fields: Map<String, Value> = self
                .constraints
                .iter()
                .map(FieldConstraint::to_json)
                .collect();
            m.insert("fields".into(), Value::Object(fields));
        }
        Value::Object(m)
    }
}

/// A test on one payload field.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FieldConstraint {
    /// `"field": 1`: the integer value equals (signed or unsigned fields; the
    /// range covers both `i64` and `u64`).
    Int { field: String, value: i128 },
    /// `"field": "text"`: the string value equals.
    Str { field: String, value: String },
    /// `"field": "$tid"`: the value is the execution's thread id.
    Tid { field: String },
    /// `"field&mask": value`: the integer value ANDed with `mask` equals
    /// `value` (signed values are taken as their two's complement bits).
    /// `mask != 0` and `value & !mask == 0`.
    Masked {
        field: String,
        mask: u64,
        value: u64,
    },
}

impl FieldConstraint {
    /// The payload field this constraint reads.
    pub fn field(&self) -> &str {
        match self {
            FieldConstraint::Int { field, .. }
            | FieldConstraint::Str { field, .. }
            | FieldConstraint::Tid { field }
            | FieldConstraint::Masked { field, .. } => field,
        }
    }

    /// Whether `v`, the value of `self.field()`, passes, `tid` being the
    /// execution's thread (used by `Tid` only). Floats never pass.
    pub fn accepts(&self, v: Scalar<'_>, tid: i64) -> bool {
        match self {
            FieldConstraint::Int { value, .. } => match v {
                Scalar::Signed(x) => i128::from(x) == *value,
                Scalar::Unsigned(x) => i128::from(x) == *value,
                _ => false,
            },
            FieldConstraint::Str { value, .. } => {
                matches!(v, Scalar::Str(s) if s == value.as_bytes())
            }
            FieldConstraint::Tid { .. } => v.as_i64() == Some(tid),
            FieldConstraint::Masked { mask, value, .. } => match v {
                Scalar::Signed(x) => (x as u64) & mask == *value,
                Scalar::Unsigned(x) => x & mask == *value,
                _ => false,
            },
        }
    }

    fn to_json(&self) -> (String, Value) {
        match self {
            FieldConstraint::Int { field, value } => {
                // Within i64 or u64 by construction.
                let v = match i64::try_from(*value) {
                    Ok(i) => json!(i),
                    Err(_) => json!(*value as u64),
                };
                (field.clone(), v)
            }
            FieldConstraint::Str { field, value } => (field.clone(), json!(value)),
            FieldConstraint::Tid { field } => (field.clone(), json!(TID_VARIABLE)),
            FieldConstraint::Masked { field, mask, value } => {
                (format!("{field}&{mask:#x}"), json!(value))
            }
        }
    }
}

const TID_VARIABLE: &str = "$tid";

impl ExecutionModel {
    /// The model as JSON in the schema's format; `parse_model` of it gives back
    /// an equal model. `threads` is written per side for `different_tids`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("mode".into(), json!(self.mode.as_str()));
        match &self.mode {
            Mode::SameTid {
                threads,
                events,
                nested,
            } => {
                if !threads.is_any() {
                    m.insert("threads".into(), threads.to_json());
                }
                m.insert("events".into(), events_json(events));
                if let Some(n) = nested {
                    m.insert("nested".into(), n.to_json());
                }
            }
            Mode::DifferentTids {
                start,
                end,
                start_threads,
                end_threads,
                chained,
            } => {
                m.insert("start".into(), start.to_json());
                m.insert("end".into(), end.to_json());
                if !start_threads.is_any() {
                    m.insert("start_threads".into(), start_threads.to_json());
                }
                if !end_threads.is_any() {
                    m.insert("end_threads".into(), end_threads.to_json());
                }
                m.insert("chained".into(), json!(chained));
            }
        }
        if let Some(r) = &self.time_range {
            let mut t = Map::new();
            if let Some(s) = r.start {
                t.insert("start".into(), json!(s));
            }
            if let Some(e) = r.end {
                t.insert("end".into(), json!(e));
            }
            m.insert("time_range".into(), Value::Object(t));
        }
        if let Some(n) = self.max_executions {
            m.insert("max_executions".into(), json!(n.get()));
        }
        if let Some(d) = self.deadline {
            m.insert("deadline".into(), json!(d));
        }
        Value::Object(m)
    }
}

impl NestedModel {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("mode".into(), json!("same_tid"));
        m.insert("events".into(), events_json(&self.events));
        if let Some(d) = self.deadline {
            m.insert("deadline".into(), json!(d));
        }
        Value::Object(m)
    }
}

fn events_json(events: &[EventPattern]) -> Value {
    Value::Array(events.iter().map(EventPattern::to_json).collect())
}

// ---------------------------------------------------------------------------
// Parsing

/// Parses and checks a model from JSON text.
pub fn parse_model(json: &str) -> Result<ExecutionModel, ModelError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let raw: MapOnly<RawModel> = serde_path_to_error::deserialize(&mut de).map_err(serde_error)?;
    de.end().map_err(|e| {
        let (msg, at) = split_location(&e);
        ModelError::new(ROOT, format!("{msg}{at}"))
    })?;
    check_model(raw.0)
}

/// Parses and checks a model already read as JSON (a protocol parameter).
pub fn model_from_value(json: &Value) -> Result<ExecutionModel, ModelError> {
    let raw: MapOnly<RawModel> = serde_path_to_error::deserialize(json).map_err(serde_error)?;
    check_model(raw.0)
}

const ROOT: &str = "(root)";

/// serde's message, with its path; "missing field `x`" and "unknown field
/// `x`" move the field into the path.
fn serde_error(e: serde_path_to_error::Error<serde_json::Error>) -> ModelError {
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
        format!("{}{at}", msg.replace('`', "\"")),
    )
}

/// serde_json's message without its position, and the position as
/// " (line l, column c)" (empty when there is none: a `Value` was read).
fn split_location(e: &serde_json::Error) -> (String, String) {
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
struct MapOnly<T>(T);

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

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The model as written: every key, before the checks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    name: String,
    #[serde(default, deserialize_with = "present")]
    description: Option<String>,
    #[serde(default, deserialize_with = "present")]
    mode: Option<ModeName>,
    #[serde(default, deserialize_with = "present")]
    threads: Option<MapOnly<RawThreads>>,
    #[serde(default, deserialize_with = "present")]
    events: Option<Vec<MapOnly<RawEvent>>>,
    #[serde(default, deserialize_with = "present")]
    start: Option<MapOnly<RawEvent>>,
    #[serde(default, deserialize_with = "present")]
    end: Option<MapOnly<RawEvent>>,
    #[serde(default, deserialize_with = "present")]
    start_threads: Option<MapOnly<RawThreads>>,
    #[serde(default, deserialize_with = "present")]
    end_threads: Option<MapOnly<RawThreads>>,
    #[serde(default, deserialize_with = "present")]
    time_range: Option<MapOnly<RawTimeRange>>,
    #[serde(default, deserialize_with = "present")]
    max_executions: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    chained: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    nested: Option<Box<MapOnly<RawModel>>>,
    #[serde(default, deserialize_with = "present")]
    deadline: Option<i64>,
}

/// An optional key: absent is `None`, `null` is an error (as in the schema).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ModeName {
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
struct RawThreads {
    #[serde(default, deserialize_with = "present")]
    tids: Option<Vec<i64>>,
    #[serde(default, deserialize_with = "present")]
    process: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimeRange {
    #[serde(default, deserialize_with = "present")]
    start: Option<i64>,
    #[serde(default, deserialize_with = "present")]
    end: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: String,
    #[serde(default)]
    fields: RawFields,
}

/// `fields` in the order written; a key written twice is an error.
#[derive(Default)]
struct RawFields(Vec<(String, RawValue)>);

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

enum RawValue {
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

fn check_model(raw: RawModel) -> Result<ExecutionModel, ModelError> {
    let name = check_name(raw.name, "name")?;
    let mode_name = raw.mode.unwrap_or(ModeName::SameTid);
    let mode = match mode_name {
        ModeName::SameTid => {
            let hint = if raw.mode.is_none() {
                " (mode defaults to same_tid)"
            } else {
                ""
            };
            for (key, given) in [
                ("start", raw.start.is_some()),
                ("end", raw.end.is_some()),
                ("start_threads", raw.start_threads.is_some()),
                ("end_threads", raw.end_threads.is_some()),
            ] {
                if given {
                    return Err(ModelError::new(
                        key,
                        format!("only used in mode different_tids; same_tid models list their \"events\"{hint}"),
                    ));
                }
            }
            if raw.chained.is_some() {
                return Err(ModelError::new(
                    "chained",
                    format!(
                        "only meaningful in mode different_tids (the end event starting the next execution); \
                         a same_tid execution always starts at its first event{hint}"
                    ),
                ));
            }
            let threads = check_threads(raw.threads.map(|t| t.0), "threads")?;
            let events = check_events(raw.events, "events")?;
            let nested = match raw.nested {
                Some(n) => Some(Box::new(check_nested(n.0, "nested")?)),
                None => None,
            };
            Mode::SameTid {
                threads,
                events,
                nested,
            }
        }
        ModeName::DifferentTids => {
            if raw.events.is_some() {
                return Err(ModelError::new(
                    "events",
                    "not used in mode different_tids: give one \"start\" and one \"end\" event",
                ));
            }
            if raw.nested.is_some() {
                return Err(ModelError::new(
                    "nested",
                    "only a same_tid model can have a nested model",
                ));
            }
            let start = raw
                .start
                .ok_or_else(|| ModelError::new("start", "required in mode different_tids"))?;
            let end = raw
                .end
                .ok_or_else(|| ModelError::new("end", "required in mode different_tids"))?;
            let start = check_event(start.0, "start")?;
            let end = check_event(end.0, "end")?;
            let threads = check_threads(raw.threads.map(|t| t.0), "threads")?;
            let start_threads = match raw.start_threads {
                Some(t) => check_threads(Some(t.0), "start_threads")?,
                None => threads.clone(),
            };
            let end_threads = match raw.end_threads {
                Some(t) => check_threads(Some(t.0), "end_threads")?,
                None => threads,
            };
            Mode::DifferentTids {
                start,
                end,
                start_threads,
                end_threads,
                chained: raw.chained.unwrap_or(false),
            }
        }
    };
    let time_range = match raw.time_range {
        None => None,
        Some(MapOnly(RawTimeRange { start, end })) => {
            if let (Some(s), Some(e)) = (start, end) {
                if s > e {
                    return Err(ModelError::new(
                        "time_range",
                        format!("start ({s}) is after end ({e})"),
                    ));
                }
            }
            Some(TimeRange { start, end })
        }
    };
    let max_executions = match raw.max_executions {
        None => None,
        Some(n) => Some(
            NonZeroU64::new(n)
                .ok_or_else(|| ModelError::new("max_executions", "must be a positive integer"))?,
        ),
    };
    Ok(ExecutionModel {
        name,
        description: raw.description,
        mode,
        time_range,
        max_executions,
        deadline: check_deadline(raw.deadline, "deadline")?,
    })
}

fn check_nested(raw: RawModel, path: &str) -> Result<NestedModel, ModelError> {
    let name = check_name(raw.name, &join(path, "name"))?;
    if raw.mode == Some(ModeName::DifferentTids) {
        return Err(ModelError::new(
            join(path, "mode"),
            "a nested model is same_tid only",
        ));
    }
    for (key, given, why) in [
        ("nested", raw.nested.is_some(), "models nest one level only"),
        (
            "threads",
            raw.threads.is_some(),
            "a nested model runs on its parent's thread",
        ),
        (
            "start",
            raw.start.is_some(),
            "a nested model is same_tid: list its \"events\"",
        ),
        (
            "end",
            raw.end.is_some(),
            "a nested model is same_tid: list its \"events\"",
        ),
        (
            "start_threads",
            raw.start_threads.is_some(),
            "a nested model runs on its parent's thread",
        ),
        (
            "end_threads",
            raw.end_threads.is_some(),
            "a nested model runs on its parent's thread",
        ),
        (
            "chained",
            raw.chained.is_some(),
            "only meaningful in mode different_tids",
        ),
        (
            "time_range",
            raw.time_range.is_some(),
            "set it on the top-level model",
        ),
        (
            "max_executions",
            raw.max_executions.is_some(),
            "set it on the top-level model",
        ),
    ] {
        if given {
            return Err(ModelError::new(
                join(path, key),
                format!("not allowed in a nested model: {why}"),
            ));
        }
    }
    Ok(NestedModel {
        name,
        description: raw.description,
        events: check_events(raw.events, &join(path, "events"))?,
        deadline: check_deadline(raw.deadline, &join(path, "deadline"))?,
    })
}

fn check_name(name: String, path: &str) -> Result<String, ModelError> {
    if name.trim().is_empty() {
        return Err(ModelError::new(path, "must not be empty"));
    }
    Ok(name)
}

fn check_deadline(d: Option<i64>, path: &str) -> Result<Option<i64>, ModelError> {
    match d {
        Some(d) if d <= 0 => Err(ModelError::new(
            path,
            format!("must be a positive number of nanoseconds, not {d}"),
        )),
        d => Ok(d),
    }
}

fn check_threads(raw: Option<RawThreads>, path: &str) -> Result<ThreadFilter, ModelError> {
    let Some(raw) = raw else {
        return Ok(ThreadFilter::default());
    };
    let tids = match raw.tids {
        None => None,
        Some(t) => {
            if t.is_empty() {
                return Err(ModelError::new(
                    join(path, "tids"),
                    "empty: no thread would match (leave \"tids\" out to accept every thread)",
                ));
            }
            if let Some(i) = t.iter().position(|&x| x < 0) {
                return Err(ModelError::new(
                    format!("{}[{i}]", join(path, "tids")),
                    "a thread id is not negative",
                ));
            }
            Some(t.into_iter().collect())
        }
    };
    let process = match raw.process {
        None => None,
        Some(p) => Some(Regex::new(&p).map_err(|e| {
            // regex's syntax errors draw the pattern over several lines; keep the last.
            let msg = e.to_string();
            let last = msg.lines().last().unwrap_or_default();
            let last = last.strip_prefix("error: ").unwrap_or(last);
            ModelError::new(
                join(path, "process"),
                format!("invalid regular expression: {last}"),
            )
        })?),
    };
    Ok(ThreadFilter { tids, process })
}

fn check_events(
    raw: Option<Vec<MapOnly<RawEvent>>>,
    path: &str,
) -> Result<Vec<EventPattern>, ModelError> {
    let raw = raw.ok_or_else(|| ModelError::new(path, "required in mode same_tid"))?;
    if raw.is_empty() {
        return Err(ModelError::new(path, "must list at least one event"));
    }
    raw.into_iter()
        .enumerate()
        .map(|(i, e)| check_event(e.0, &format!("{path}[{i}]")))
        .collect()
}

fn check_event(raw: RawEvent, path: &str) -> Result<EventPattern, ModelError> {
    let name = check_name(raw.name, &join(path, "name"))?;
    let fields_path = join(path, "fields");
    let mut constraints: Vec<FieldConstraint> = Vec::new();
    for (key, value) in raw.fields.0 {
        let kpath = join(&fields_path, &key);
        let c = check_constraint(&key, value, &kpath)?;
        if matches!(c, FieldConstraint::Tid { .. }) {
            if let Some(other) = constraints.iter().find_map(|c| match c {
                FieldConstraint::Tid { field } => Some(field),
                _ => None,
            }) {
                return Err(ModelError::new(
                    kpath,
                    format!("only one field of an event can be \"$tid\" (\"{other}\" already is)"),
                ));
            }
        }
        if let FieldConstraint::Masked { field, mask, .. } = &c {
            if constraints
                .iter()
                .any(|o| matches!(o, FieldConstraint::Masked { field: f, mask: m, .. } if f == field && m == mask))
            {
                return Err(ModelError::new(kpath, "the same field and mask are already constrained"));
            }
        }
        constraints.push(c);
    }
    constraints.sort_by(|a, b| a.field().cmp(b.field()).then_with(|| a.cmp(b)));
    Ok(EventPattern { name, constraints })
}

fn is_field_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const FIELD_NAME_RULE: &str =
    "not a field name: letters, digits and '_', not starting with a digit \
     (a mask is written \"field&mask\", e.g. \"flags&0x3\")";

fn check_constraint(key: &str, value: RawValue, path: &str) -> Result<FieldConstraint, ModelError> {
    let Some((field, mask)) = key.split_once('&') else {
        if !is_field_name(key) {
            return Err(ModelError::new(path, FIELD_NAME_RULE));
        }
        let field = key.to_string();
        return match value {
            RawValue::Int(value) => Ok(FieldConstraint::Int { field, value }),
            RawValue::Str(s) if s == TID_VARIABLE => Ok(FieldConstraint::Tid { field }),
            RawValue::Str(s) if s.starts_with('$') => Err(ModelError::new(
                path,
                format!("unknown variable \"{s}\": the only variable is \"$tid\""),
            )),
            RawValue::Str(value) => Ok(FieldConstraint::Str { field, value }),
        };
    };
    if field.is_empty() {
        return Err(ModelError::new(path, "field name missing before '&'"));
    }
    if !is_field_name(field) {
        return Err(ModelError::new(path, FIELD_NAME_RULE));
    }
    let parsed = match mask.strip_prefix("0x").or_else(|| mask.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !mask.is_empty() && mask.bytes().all(|b| b.is_ascii_digit()) => {
            mask.parse::<u64>().ok()
        }
        None => None,
    };
    let Some(mask) = parsed else {
        return Err(ModelError::new(
            path,
            "mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
        ));
    };
    if mask == 0 {
        return Err(ModelError::new(
            path,
            "mask is 0: the test would not read the field",
        ));
    }
    let value = match value {
        RawValue::Int(v) => u64::try_from(v)
            .map_err(|_| ModelError::new(path, "a masked value must be a non-negative integer"))?,
        RawValue::Str(_) => {
            return Err(ModelError::new(
                path,
                "a masked value must be an integer, not a string",
            ));
        }
    };
    if value & !mask != 0 {
        return Err(ModelError::new(
            path,
            format!("value {value:#x} has bits outside mask {mask:#x}: it would never match"),
        ));
    }
    Ok(FieldConstraint::Masked {
        field: field.to_string(),
        mask,
        value,
    })
}

// ---------------------------------------------------------------------------
// Presets

/// Ready-made models. The first three are defined by thread states and are
/// implemented by the matcher itself; `Periodic` is an ordinary model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    WholeThread,
    Running,
    Blocking,
    Periodic,
    TaskInstance,
}

const PRESETS: &[(&str, &str)] = &[
    ("whole-thread", "each thread as one execution, from its first to its last event"),
    ("running", "each contiguous interval in which a thread runs on a CPU"),
    ("blocking", "each interval in which a thread is blocked (scheduled out while not runnable)"),
    (
        "periodic",
        "each job of a periodic thread: from the return of clock_nanosleep to its next call, on the same thread",
    ),
    (
        "task-instance",
        "each instance of a BTF task or ISR, from its activation to its termination, with its runnables nested",
    ),
];

impl Preset {
    /// Every preset: its name (as `FromStr` takes it) and a description.
    pub fn all() -> &'static [(&'static str, &'static str)] {
        PRESETS
    }

    pub fn name(&self) -> &'static str {
        PRESETS[*self as usize].0
    }

    pub fn description(&self) -> &'static str {
        PRESETS[*self as usize].1
    }

    /// The preset as a model on `threads`; `None` for the state-based presets
    /// (whole-thread, running, blocking) and BTF task instances, which no
    /// event sequence of one thread describes.
    pub fn model(&self, threads: ThreadFilter) -> Option<ExecutionModel> {
        match self {
            Preset::WholeThread | Preset::Running | Preset::Blocking | Preset::TaskInstance => None,
            Preset::Periodic => Some(ExecutionModel {
                name: self.name().to_string(),
                description: Some(self.description().to_string()),
                mode: Mode::SameTid {
                    threads,
                    events: vec![
                        EventPattern::named("syscall_exit_clock_nanosleep"),
                        EventPattern::named("syscall_entry_clock_nanosleep"),
                    ],
                    nested: None,
                },
                time_range: None,
                max_executions: None,
                deadline: None,
            }),
        }
    }
}

impl FromStr for Preset {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self, ModelError> {
        const ALL: [Preset; 5] = [
            Preset::WholeThread,
            Preset::Running,
            Preset::Blocking,
            Preset::Periodic,
            Preset::TaskInstance,
        ];
        ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            ModelError::new(
                "preset",
                format!(
                    "unknown preset \"{s}\", expected one of {}",
                    names.join(", ")
                ),
            )
        })
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(json: &str) -> String {
        match parse_model(json) {
            Ok(m) => panic!("accepted: {m:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn roundtrip(m: &ExecutionModel) {
        let j = m.to_json();
        let back = model_from_value(&j).unwrap_or_else(|e| panic!("{e} in {j}"));
        assert_eq!(&back, m);
        let text = serde_json::to_string_pretty(&j).unwrap();
        assert_eq!(&parse_model(&text).unwrap(), m);
    }

    #[test]
    fn brief_example() {
        let m = parse_model(
            r#"{ "name": "rt_high job", "mode": "same_tid",
                 "threads": { "tids": [13, 12, 13], "process": "^rt_high$" },
                 "events": [ { "name": "syscall_exit_clock_nanosleep" },
                             { "name": "syscall_entry_clock_nanosleep", "fields": {"which_clock": 1} } ],
                 "deadline": 1000000 }"#,
        )
        .unwrap();
        assert_eq!(m.name, "rt_high job");
        assert_eq!(m.deadline, Some(1_000_000));
        let Mode::SameTid {
            threads,
            events,
            nested,
        } = &m.mode
        else {
            panic!("{m:?}")
        };
        assert!(nested.is_none());
        assert_eq!(threads.tids, Some([12, 13].into_iter().collect()));
        assert!(threads.matches(12, "rt_high"));
        assert!(!threads.matches(12, "rt_high2"));
        assert!(!threads.matches(14, "rt_high"));
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[0],
            EventPattern::named("syscall_exit_clock_nanosleep")
        );
        assert_eq!(
            events[1].constraints,
            vec![FieldConstraint::Int {
                field: "which_clock".into(),
                value: 1
            }]
        );
        assert_eq!(events[1].tid_field(), None);
        roundtrip(&m);
    }

    #[test]
    fn default_mode_and_constraint_kinds() {
        let m = parse_model(
            r#"{ "name": "futex wait",
                 "events": [ { "name": "syscall_entry_futex",
                               "fields": { "op&0x7f": 0, "uaddr": 18446744073709551615,
                                           "val": -3, "comm": "w", "flags&3": 1 } },
                             { "name": "sched_switch", "fields": { "prev_tid": "$tid" } } ],
                 "time_range": { "start": 5 },
                 "max_executions": 3 }"#,
        )
        .unwrap();
        let Mode::SameTid {
            threads, events, ..
        } = &m.mode
        else {
            panic!()
        };
        assert!(threads.is_any());
        assert!(threads.matches(1, "anything"));
        use FieldConstraint::*;
        assert_eq!(
            events[0].constraints,
            vec![
                Str {
                    field: "comm".into(),
                    value: "w".into()
                },
                Masked {
                    field: "flags".into(),
                    mask: 3,
                    value: 1
                },
                Masked {
                    field: "op".into(),
                    mask: 0x7f,
                    value: 0
                },
                Int {
                    field: "uaddr".into(),
                    value: u64::MAX as i128
                },
                Int {
                    field: "val".into(),
                    value: -3
                },
            ]
        );
        assert_eq!(events[1].tid_field(), Some("prev_tid"));
        assert_eq!(
            m.time_range,
            Some(TimeRange {
                start: Some(5),
                end: None
            })
        );
        assert!(m.time_range.unwrap().contains(5) && !m.time_range.unwrap().contains(4));
        assert_eq!(m.max_executions.map(NonZeroU64::get), Some(3));
        roundtrip(&m);
    }

    #[test]
    fn constraint_accepts() {
        use FieldConstraint::*;
        let masked = Masked {
            field: "op".into(),
            mask: 0x7f,
            value: 0,
        };
        assert!(masked.accepts(Scalar::Signed(128), 0)); // FUTEX_WAIT | PRIVATE
        assert!(!masked.accepts(Scalar::Signed(129), 0));
        assert!(masked.accepts(Scalar::Unsigned(256), 0));
        assert!(!masked.accepts(Scalar::Float(0.0), 0));
        let big = Int {
            field: "p".into(),
            value: u64::MAX as i128,
        };
        assert!(big.accepts(Scalar::Unsigned(u64::MAX), 0));
        assert!(!big.accepts(Scalar::Signed(-1), 0));
        let neg = Int {
            field: "p".into(),
            value: -1,
        };
        assert!(neg.accepts(Scalar::Signed(-1), 0));
        assert!(!neg.accepts(Scalar::Unsigned(u64::MAX), 0));
        let tid = Tid {
            field: "tid".into(),
        };
        assert!(tid.accepts(Scalar::Signed(42), 42) && tid.accepts(Scalar::Unsigned(42), 42));
        assert!(!tid.accepts(Scalar::Signed(41), 42));
        let s = Str {
            field: "comm".into(),
            value: "rt".into(),
        };
        assert!(s.accepts(Scalar::Str(b"rt"), 0) && !s.accepts(Scalar::Str(b"rt2"), 0));
    }

    #[test]
    fn different_tids_resolves_threads() {
        let m = parse_model(
            r#"{ "name": "worker", "mode": "different_tids",
                 "threads": { "process": "^rt_" },
                 "start": { "name": "sched_process_fork", "fields": { "child_tid": "$tid" } },
                 "end": { "name": "sched_process_exit", "fields": { "tid": "$tid" } },
                 "end_threads": { "tids": [7] },
                 "chained": true, "deadline": 5 }"#,
        )
        .unwrap();
        let Mode::DifferentTids {
            start,
            end,
            start_threads,
            end_threads,
            chained,
        } = &m.mode
        else {
            panic!()
        };
        assert!(*chained);
        assert_eq!(start.tid_field(), Some("child_tid"));
        assert_eq!(end.tid_field(), Some("tid"));
        assert_eq!(start_threads.process.as_ref().unwrap().as_str(), "^rt_");
        assert!(start_threads.tids.is_none());
        assert!(end_threads.process.is_none());
        assert!(end_threads.matches(7, "x") && !end_threads.matches(8, "rt_x"));
        roundtrip(&m);
        // chained defaults to false
        let m = parse_model(
            r#"{"name":"w","mode":"different_tids","start":{"name":"a"},"end":{"name":"b"}}"#,
        )
        .unwrap();
        assert!(matches!(m.mode, Mode::DifferentTids { chained: false, .. }));
        roundtrip(&m);
    }

    #[test]
    fn nested_model() {
        let m = parse_model(
            r#"{ "name": "job", "events": [ {"name": "a"}, {"name": "b"} ],
                 "nested": { "name": "lock", "mode": "same_tid", "deadline": 10,
                             "events": [ {"name": "syscall_entry_futex"}, {"name": "syscall_exit_futex"} ] } }"#,
        )
        .unwrap();
        let Mode::SameTid {
            nested: Some(n), ..
        } = &m.mode
        else {
            panic!()
        };
        assert_eq!(n.name, "lock");
        assert_eq!(n.deadline, Some(10));
        assert_eq!(n.events.len(), 2);
        roundtrip(&m);
    }

    #[test]
    fn presets() {
        for (name, desc) in Preset::all() {
            let p: Preset = name.parse().unwrap();
            assert_eq!(p.name(), *name);
            assert_eq!(p.to_string(), *name);
            assert_eq!(p.description(), *desc);
        }
        assert_eq!(
            "periodc".parse::<Preset>().unwrap_err().to_string(),
            "preset: unknown preset \"periodc\", expected one of whole-thread, running, blocking, periodic, task-instance"
        );
        for p in [
            Preset::WholeThread,
            Preset::Running,
            Preset::Blocking,
            Preset::TaskInstance,
        ] {
            assert!(p.model(ThreadFilter::default()).is_none());
        }
        let threads = ThreadFilter {
            tids: None,
            process: Some(Regex::new("^rt_high$").unwrap()),
        };
        let m = Preset::Periodic.model(threads.clone()).unwrap();
        let Mode::SameTid {
            threads: t,
            events,
            nested: None,
        } = &m.mode
        else {
            panic!()
        };
        assert_eq!(*t, threads);
        assert_eq!(events[0].name, "syscall_exit_clock_nanosleep");
        assert_eq!(events[1].name, "syscall_entry_clock_nanosleep");
        roundtrip(&m);
    }

    /// Each error: where, and what.
    #[test]
    fn error_messages() {
        let cases: &[(&str, &str)] = &[
            // syntax and types, through serde_path_to_error
            (
                r#"{"name":"x","mode":"sametid","events":[{"name":"a"}]}"#,
                "mode: unknown variant \"sametid\", expected one of same_tid, different_tids (line 1, column 28)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"deadine":5}"#,
                "deadine: unknown field (expected one of name, description, mode, threads, events, start, end, \
                 start_threads, end_threads, time_range, max_executions, chained, nested, deadline)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","feilds":{}}]}"#,
                "events[0].feilds: unknown field (expected name or fields)",
            ),
            (r#"{"events":[{"name":"a"}]}"#, "name: required field is missing"),
            (
                r#"{"name":"x","events":[{"fields":{}}]}"#,
                "events[0].name: required field is missing",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"prio":1.5}}]}"#,
                "events[0].fields.prio: invalid type: floating point \"1.5\", expected an integer or a string (line 1, column 54)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"prio":1,"prio":2}}]}"#,
                "events[0].fields: key \"prio\" is written twice (line 1, column 59)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"deadline":null}"#,
                "deadline: invalid type: null, expected i64 (line 1, column 51)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"max_executions":-1}"#,
                "max_executions: invalid value: integer \"-1\", expected u64 (line 1, column 55)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":["12"]}}"#,
                "threads.tids[0]: invalid type: string \"12\", expected i64 (line 1, column 59)",
            ),
            ("[1]", "(root): invalid type: sequence, expected an object (line 1, column 0)"),
            (
                r#"{"name":"x","events":[["a"]]}"#,
                "events[0]: invalid type: sequence, expected an object (line 1, column 22)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}]} x"#,
                "(root): trailing characters (line 1, column 38)",
            ),
            (
                r#"{"name":"x","#,
                "(root): EOF while parsing a value (line 1, column 12)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a",}]}"#,
                "events[0]: trailing comma (line 1, column 35)",
            ),
            // semantic checks
            (r#"{"name":" ","events":[{"name":"a"}]}"#, "name: must not be empty"),
            (r#"{"name":"x"}"#, "events: required in mode same_tid"),
            (r#"{"name":"x","events":[]}"#, "events: must list at least one event"),
            (r#"{"name":"x","events":[{"name":""}]}"#, "events[0].name: must not be empty"),
            (
                r#"{"name":"x","events":[{"name":"a"},{"name":"b","fields":{"flags&x":1}}]}"#,
                "events[1].fields.flags&x: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&0x":1}}]}"#,
                "events[0].fields.flags&0x: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&99999999999999999999":1}}]}"#,
                "events[0].fields.flags&99999999999999999999: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"&3":1}}]}"#,
                "events[0].fields.&3: field name missing before '&'",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&0":0}}]}"#,
                "events[0].fields.flags&0: mask is 0: the test would not read the field",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":4}}]}"#,
                "events[0].fields.flags&3: value 0x4 has bits outside mask 0x3: it would never match",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":-1}}]}"#,
                "events[0].fields.flags&3: a masked value must be a non-negative integer",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":"$tid"}}]}"#,
                "events[0].fields.flags&3: a masked value must be an integer, not a string",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":1,"flags&0x3":1}}]}"#,
                "events[0].fields.flags&0x3: the same field and mask are already constrained",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"prev tid":1}}]}"#,
                "events[0].fields.prev tid: not a field name: letters, digits and '_', not starting with a digit \
                 (a mask is written \"field&mask\", e.g. \"flags&0x3\")",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"tid":"$TID"}}]}"#,
                "events[0].fields.tid: unknown variable \"$TID\": the only variable is \"$tid\"",
            ),
            (
                r#"{"name":"x","events":[{"name":"a","fields":{"tid":"$tid","next_tid":"$tid"}}]}"#,
                "events[0].fields.next_tid: only one field of an event can be \"$tid\" (\"tid\" already is)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"threads":{"process":"^rt_("}}"#,
                "threads.process: invalid regular expression: unclosed group",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":[]}}"#,
                "threads.tids: empty: no thread would match (leave \"tids\" out to accept every thread)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":[1,-1]}}"#,
                "threads.tids[1]: a thread id is not negative",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"chained":true}"#,
                "chained: only meaningful in mode different_tids (the end event starting the next execution); \
                 a same_tid execution always starts at its first event (mode defaults to same_tid)",
            ),
            (
                r#"{"name":"x","mode":"same_tid","events":[{"name":"a"}],"chained":false}"#,
                "chained: only meaningful in mode different_tids (the end event starting the next execution); \
                 a same_tid execution always starts at its first event",
            ),
            (
                r#"{"name":"x","start":{"name":"a"},"end":{"name":"b"}}"#,
                "start: only used in mode different_tids; same_tid models list their \"events\" (mode defaults to same_tid)",
            ),
            (
                r#"{"name":"x","mode":"different_tids","start":{"name":"a"}}"#,
                "end: required in mode different_tids",
            ),
            (
                r#"{"name":"x","mode":"different_tids","end":{"name":"a"}}"#,
                "start: required in mode different_tids",
            ),
            (
                r#"{"name":"x","mode":"different_tids","events":[{"name":"a"}]}"#,
                "events: not used in mode different_tids: give one \"start\" and one \"end\" event",
            ),
            (
                r#"{"name":"x","mode":"different_tids","start":{"name":"a"},"end":{"name":"b"},
                    "nested":{"name":"n","events":[{"name":"c"}]}}"#,
                "nested: only a same_tid model can have a nested model",
            ),
            (
                r#"{"name":"x","mode":"different_tids","start":{"name":"a"},"end":{"name":"b"},
                    "end_threads":{"process":"("}}"#,
                "end_threads.process: invalid regular expression: unclosed group",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],
                    "nested":{"name":"m","events":[{"name":"d"}]}}}"#,
                "nested.nested: not allowed in a nested model: models nest one level only",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","mode":"different_tids",
                    "start":{"name":"c"},"end":{"name":"d"}}}"#,
                "nested.mode: a nested model is same_tid only",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],
                    "threads":{"tids":[1]}}}"#,
                "nested.threads: not allowed in a nested model: a nested model runs on its parent's thread",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c","fields":{"a&z":1}}]}}"#,
                "nested.events[0].fields.a&z: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],"deadline":0}}"#,
                "nested.deadline: must be a positive number of nanoseconds, not 0",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"deadline":-5}"#,
                "deadline: must be a positive number of nanoseconds, not -5",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"max_executions":0}"#,
                "max_executions: must be a positive integer",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"time_range":{"start":10,"end":9}}"#,
                "time_range: start (10) is after end (9)",
            ),
            (
                r#"{"name":"x","events":[{"name":"a"}],"time_range":{"begin":10}}"#,
                "time_range.begin: unknown field (expected start or end)",
            ),
        ];
        let mut wrong = Vec::new();
        for (json, want) in cases {
            let got = err(json);
            if got != *want {
                wrong.push(format!("{json}\n  got: {got}\n want: {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn errors_from_value_have_paths_too() {
        let v: Value = serde_json::from_str(r#"{"name":"x","mode":"different_tids","start":{"name":"a","fields":{"x":true}},"end":{"name":"b"}}"#).unwrap();
        assert_eq!(
            model_from_value(&v).unwrap_err().to_string(),
            "start.fields.x: invalid type: boolean \"true\", expected an integer or a string"
        );
    }
}
