//! An answer of the service: a JSON tree, or JSON text written once.
//!
//! Viewport answers (time-graph states of tens of thousands of rows) are
//! megabytes: building them as a `Value` tree and serializing it costs
//! hundreds of allocations per row, and a cached tree would be deep-copied
//! for every client. Those are written straight from typed rows into text,
//! kept in the cache as shared text, and sent as they are.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::params::{ErrorKind, Result, ServiceError};

#[derive(Debug, Clone)]
pub enum Reply {
    Tree(Value),
    Text {
        json: Arc<RawValue>,
        /// Its status is COMPLETED (the cache keeps only those).
        completed: bool,
    },
}

impl From<Value> for Reply {
    fn from(v: Value) -> Reply {
        Reply::Tree(v)
    }
}

/// The TSP data envelope, its keys in the order a `Value` tree writes them
/// (sorted), so that both forms of one answer are the same bytes.
#[derive(Serialize)]
struct Envelope<'a, T> {
    model: &'a T,
    status: Status,
    #[serde(rename = "statusMessage")]
    status_message: &'a str,
}

impl Reply {
    /// `{model, status, statusMessage}` written as text. `model` must hold
    /// no fractional numbers (`short_floats` is for trees) and write its
    /// object keys sorted, as a tree would.
    pub fn data<T: Serialize>(model: &T, status: Status, message: &str) -> Result<Reply> {
        let text = serde_json::to_string(&Envelope {
            model,
            status,
            status_message: message,
        })
        .map_err(internal)?;
        Ok(Reply::Text {
            json: Arc::from(RawValue::from_string(text).map_err(internal)?),
            completed: status == Status::Completed,
        })
    }

    /// A complete answer: `{model, status: COMPLETED, statusMessage}`.
    pub fn completed<T: Serialize>(model: &T) -> Result<Reply> {
        Reply::data(model, Status::Completed, "Completed")
    }

    pub fn is_completed(&self) -> bool {
        match self {
            Reply::Tree(v) => v.get("status").and_then(Value::as_str) == Some("COMPLETED"),
            Reply::Text { completed, .. } => *completed,
        }
    }

    /// The same answer as shared text: what the cache keeps, so that a hit
    /// copies a pointer.
    pub fn into_text(self) -> Result<Reply> {
        match self {
            Reply::Tree(mut v) => {
                let completed = v.get("status").and_then(Value::as_str) == Some("COMPLETED");
                short_floats(&mut v);
                let text = serde_json::to_string(&v).map_err(internal)?;
                Ok(Reply::Text {
                    json: Arc::from(RawValue::from_string(text).map_err(internal)?),
                    completed,
                })
            }
            text => Ok(text),
        }
    }

    /// As a tree, for transports whose framework wants one (JSON-RPC).
    pub fn into_value(self) -> Result<Value> {
        match self {
            Reply::Tree(v) => Ok(v),
            Reply::Text { json, .. } => serde_json::from_str(json.get()).map_err(internal),
        }
    }
}

impl Serialize for Reply {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Reply::Tree(v) => v.serialize(s),
            Reply::Text { json, .. } => json.serialize(s),
        }
    }
}

fn internal(e: serde_json::Error) -> ServiceError {
    ServiceError::new(
        ErrorKind::Internal,
        "Internal error",
        format!("writing an answer: {e}"),
    )
}

/// A TSP response's status (`ResponseStatus` in the specification).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// The answer is whole; only these are cached.
    Completed,
    /// Work under way (indexing, a filter's count): ask again.
    Running,
    Failed,
}

/// A data response: `{"model", "status", "statusMessage"}`.
pub fn data(mut model: Value, status: Status, message: impl Into<String>) -> Value {
    short_floats(&mut model);
    json!({"model": model, "status": status, "statusMessage": message.into()})
}

/// A complete data response, the common case.
pub fn completed(model: Value) -> Value {
    data(model, Status::Completed, "Completed")
}

/// Fractional numbers written in at most 15 characters: json-bigint (the TS
/// client's parser) hands any longer number to `BigInt()`, which throws on a
/// fraction, and the whole response is lost (`29.042327880859375`).
pub fn short_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(0.0);
            if n.to_string().len() <= 15 {
                return;
            }
            for digits in (1..15).rev() {
                let r: f64 = format!("{:.*e}", digits - 1, f).parse().unwrap_or(f);
                if let Some(m) = serde_json::Number::from_f64(r) {
                    if m.to_string().len() <= 15 {
                        *n = m;
                        return;
                    }
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(short_floats),
        Value::Object(o) => o.values_mut().for_each(short_floats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_stay_short() {
        let mut v = json!([
            29.042327880859375,
            -0.000_123_456_789_012_345_67,
            1.5,
            376.0,
            12345678901234567u64,
            1e300 / 3.0
        ]);
        short_floats(&mut v);
        assert_eq!(v[0].to_string(), "29.042327880859");
        assert_eq!(v[2], json!(1.5));
        assert_eq!(v[4], json!(12345678901234567u64));
        for (i, x) in v.as_array().unwrap().iter().enumerate() {
            assert!(i == 4 || x.to_string().len() <= 15, "{x}");
        }
    }

    use serde_json::json;

    #[derive(Serialize)]
    struct Row {
        #[serde(rename = "entryId")]
        entry_id: i64,
        states: Vec<i64>,
    }

    #[test]
    fn text_and_tree_are_the_same_bytes() {
        let rows = vec![Row {
            entry_id: 3,
            states: vec![1, 2],
        }];
        let text = Reply::completed(&json!({"rows": [{"entryId": 3, "states": [1, 2]}]})).unwrap();
        let typed = Reply::completed(&std::collections::BTreeMap::from([("rows", &rows)])).unwrap();
        let tree = Reply::Tree(super::data(
            json!({"rows": [{"entryId": 3, "states": [1, 2]}]}),
            Status::Completed,
            "Completed",
        ));
        let as_text = |r: &Reply| serde_json::to_string(r).unwrap();
        assert_eq!(as_text(&text), as_text(&tree));
        assert_eq!(as_text(&typed), as_text(&tree));
        assert_eq!(as_text(&tree.clone().into_text().unwrap()), as_text(&tree));
        assert!(typed.is_completed());
        assert_eq!(typed.into_value().unwrap(), tree.into_value().unwrap());
        let running = Reply::data(&json!({}), Status::Running, "Indexing").unwrap();
        assert!(!running.is_completed());
        assert!(!running.into_text().unwrap().is_completed());
    }
}
