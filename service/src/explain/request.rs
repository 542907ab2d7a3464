//! The parameters of a `sextant.explain` configuration
//! (schemas/explain-request.schema.json), read with errors naming the field.

use serde_json::Value;
use sextant_engine::analysis::executions::Execution;
use sextant_engine::analysis::explain::{self, request_for, Which};
use sextant_engine::analysis::model::ExecutionModel;

use crate::executions::parse_model;
use crate::params::{Result, ServiceError};

/// What to explain.
pub enum Subject<'a> {
    /// An execution of a model given inline.
    Model {
        model: Box<ExecutionModel>,
        which: Which,
    },
    /// An execution of a posted execution-model configuration.
    Configuration { id: &'a str, which: Which },
    /// A thread over a range.
    Thread { tid: i64, start: i64, end: i64 },
}

pub struct Asked<'a> {
    pub subject: Subject<'a>,
    pub cpus: Option<Vec<u32>>,
    pub replay_ns: i64,
}

impl Asked<'_> {
    pub fn request_for(&self, x: &Execution) -> explain::Request {
        request_for(x, self.cpus.clone(), self.replay_ns)
    }
}

/// As `sextant explain --replay-ms`.
const DEFAULT_REPLAY_MS: f64 = 100.0;

fn bad(field: &str, m: impl std::fmt::Display) -> ServiceError {
    ServiceError::bad_request(format!("parameters.{field}: {m}"))
}

fn integer(p: &Value, field: &str) -> Result<Option<i64>> {
    match p.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| bad(field, "expected an integer")),
    }
}

fn which(p: &Value) -> Result<Which> {
    match p.get("execution") {
        None | Some(Value::Null) => Ok(Which::Rank(0)),
        Some(Value::String(s)) if s == "longest" => Ok(Which::Rank(0)),
        Some(v) => v
            .as_u64()
            .and_then(|k| usize::try_from(k).ok())
            .map(Which::Rank)
            .ok_or_else(|| {
                bad(
                    "execution",
                    "expected a rank in duration order (0 is the longest) or \"longest\"",
                )
            }),
    }
}

/// Reads the parameters object of a posted configuration.
pub fn read(p: &Value) -> Result<Asked<'_>> {
    if !p.is_object() {
        return Err(ServiceError::bad_request("parameters: expected an object"));
    }
    let cpus = match p.get("cpus") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|c| c.as_u64().and_then(|c| u32::try_from(c).ok()))
                .collect::<Option<Vec<u32>>>()
                .ok_or_else(|| bad("cpus", "expected CPU numbers (integers, 0 or more)"))?,
        ),
        Some(_) => return Err(bad("cpus", "expected an array of CPU numbers")),
    };
    let replay_ms = match p.get("replayMs") {
        None | Some(Value::Null) => DEFAULT_REPLAY_MS,
        Some(v) => v
            .as_f64()
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .ok_or_else(|| bad("replayMs", "expected a number of milliseconds, 0 or more"))?,
    };
    let given: Vec<&str> = ["model", "configuration", "tid"]
        .into_iter()
        .filter(|f| p.get(*f).is_some_and(|v| !v.is_null()))
        .collect();
    let subject = match given.as_slice() {
        ["model"] => Subject::Model {
            model: Box::new(parse_model(&p["model"], "parameters.model")?),
            which: which(p)?,
        },
        ["configuration"] => Subject::Configuration {
            id: p["configuration"]
                .as_str()
                .ok_or_else(|| bad("configuration", "expected the id of a configuration"))?,
            which: which(p)?,
        },
        ["tid"] => {
            let tid = integer(p, "tid")?.unwrap_or_default();
            let start = integer(p, "start")?.ok_or_else(|| bad("start", "required with tid"))?;
            let end = integer(p, "end")?.ok_or_else(|| bad("end", "required with tid"))?;
            if end <= start {
                return Err(bad("end", "must be after start"));
            }
            Subject::Thread { tid, start, end }
        }
        [] => {
            return Err(ServiceError::bad_request(
                "parameters: give an execution (model or configuration, and execution) or a thread and a range (tid, start, end)",
            ))
        }
        several => {
            return Err(ServiceError::bad_request(format!(
                "parameters: {} exclude each other",
                several.join(", ")
            )))
        }
    };
    Ok(Asked {
        subject,
        cpus,
        replay_ns: (replay_ms * 1e6) as i64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(p: Value) -> String {
        match read(&p) {
            Err(e) => e.detail,
            Ok(_) => panic!("accepted {p}"),
        }
    }

    #[test]
    fn fields_are_checked() {
        assert!(
            err(json!({"configuration": "x", "execution": -1})).contains("parameters.execution")
        );
        assert!(err(json!({"tid": 3, "start": 10, "end": 5})).contains("parameters.end"));
        assert!(err(json!({"tid": 3, "end": 5})).contains("parameters.start"));
        assert!(err(json!({"tid": 3, "configuration": "x"})).contains("exclude"));
        assert!(err(json!({"configuration": "x", "cpus": [-1]})).contains("parameters.cpus"));
        assert!(err(json!({"configuration": "x", "replayMs": "a"})).contains("replayMs"));
        assert!(err(json!({"model": {"name": "m"}})).contains("parameters.model"));
        let p =
            json!({"configuration": "x", "execution": "longest", "cpus": [0, 2], "replayMs": 1.5});
        let a = read(&p).unwrap();
        assert_eq!(a.cpus, Some(vec![0, 2]));
        assert_eq!(a.replay_ns, 1_500_000);
        assert!(matches!(
            a.subject,
            Subject::Configuration {
                id: "x",
                which: Which::Rank(0)
            }
        ));
    }
}
