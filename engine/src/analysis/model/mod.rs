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
//!
//! Modules: the checked types here; `raw` (the model as written, read by
//! serde with paths in its errors), `time` (its times, in ns or with a
//! unit), `check` (raw to checked), `json` (checked back to JSON), `preset`
//! (ready-made models); against a trace: `census` (what the trace holds,
//! taken in the pass), `unmatched` (why an answer is empty), `closest`
//! (names nearest to a misspelt one), `request` (a model or preset as a
//! command asks for it, found with the census in one pass).

pub mod census;
mod check;
mod closest;
mod json;
mod preset;
mod raw;
pub mod request;
#[cfg(test)]
mod tests;
mod time;
pub mod unmatched;

use std::collections::BTreeSet;
use std::num::NonZeroU64;

use regex::Regex;
use serde_json::Value;

use crate::value::Scalar;
pub use preset::Preset;

/// The value of a field constraint naming the execution's thread.
const TID_VARIABLE: &str = "$tid";

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
}

/// Parses and checks a model from JSON text.
pub fn parse_model(json: &str) -> Result<ExecutionModel, ModelError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let raw: raw::MapOnly<raw::RawModel> =
        serde_path_to_error::deserialize(&mut de).map_err(raw::serde_error)?;
    de.end().map_err(|e| {
        let (msg, at) = raw::split_location(&e);
        ModelError::new(raw::ROOT, format!("{msg}{at}"))
    })?;
    check::check_model(raw.0)
}

/// Parses and checks a model already read as JSON (a protocol parameter).
pub fn model_from_value(json: &Value) -> Result<ExecutionModel, ModelError> {
    let raw: raw::MapOnly<raw::RawModel> =
        serde_path_to_error::deserialize(json).map_err(raw::serde_error)?;
    check::check_model(raw.0)
}
