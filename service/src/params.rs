//! Errors of the service, and request parameters read from JSON with errors
//! that name the offending field (`parameters.requested_timerange.start`).

use serde_json::{json, Value};

/// What went wrong, in the protocol's terms; transports map it to a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    Forbidden,
    NotFound,
    /// The analysis cannot run (e.g. the trace failed to index).
    MethodNotAllowed,
    NotAcceptable,
    Conflict,
    PayloadTooLarge,
    Internal,
    /// The server is at its budget (open traces, indexing at once); the
    /// client may retry later (`RETRY_AFTER_SECONDS`).
    Unavailable,
}

/// Seconds a client told the server is busy should wait before retrying.
pub const RETRY_AFTER_SECONDS: u32 = 5;

/// The most times (`nbTimes`, `requested_times`) or items one request may
/// ask for: Trace Compass's own cap.
pub const MAX_SAMPLES: usize = 65_536;

impl ErrorKind {
    pub fn http_status(self) -> u16 {
        match self {
            ErrorKind::BadRequest => 400,
            ErrorKind::Forbidden => 403,
            ErrorKind::NotFound => 404,
            ErrorKind::MethodNotAllowed => 405,
            ErrorKind::NotAcceptable => 406,
            ErrorKind::Conflict => 409,
            ErrorKind::PayloadTooLarge => 413,
            ErrorKind::Internal => 500,
            ErrorKind::Unavailable => 503,
        }
    }
}

/// An `ErrorResponse`: `{"title", "detail"}`, plus for some conflicts the
/// existing object (`TraceErrorResponse`'s `trace`, `experiment`).
#[derive(Debug, Clone)]
pub struct ServiceError {
    pub kind: ErrorKind,
    pub title: String,
    pub detail: String,
    pub extra: Option<(&'static str, Value)>,
}

impl ServiceError {
    pub fn new(kind: ErrorKind, title: impl Into<String>, detail: impl Into<String>) -> Self {
        ServiceError {
            kind,
            title: title.into(),
            detail: detail.into(),
            extra: None,
        }
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, "Bad request", detail)
    }

    pub fn not_found(what: &str, detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, format!("No such {what}"), detail)
    }

    /// The server is at its budget: `detail` says which and what to do.
    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unavailable, "Server busy", detail)
            .with("retryAfter", Value::from(RETRY_AFTER_SECONDS))
    }

    pub fn with(mut self, key: &'static str, value: Value) -> Self {
        self.extra = Some((key, value));
        self
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({"title": self.title, "detail": self.detail});
        if let Some((k, x)) = &self.extra {
            v[*k] = x.clone();
        }
        v
    }
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.title, self.detail)
    }
}

pub type Result<T> = std::result::Result<T, ServiceError>;

/// A JSON object of parameters, with the path used in error messages.
#[derive(Debug, Clone)]
pub struct Params<'a> {
    v: &'a Value,
    path: String,
}

/// The `parameters` object of a request body.
pub fn parameters(body: &Value) -> Result<Params<'_>> {
    if !body.is_object() {
        return Err(ServiceError::bad_request(
            "the request body must be a JSON object {\"parameters\": {...}}",
        ));
    }
    match body.get("parameters") {
        Some(v) if v.is_object() => Ok(Params {
            v,
            path: "parameters".into(),
        }),
        Some(_) => Err(ServiceError::bad_request("parameters: expected an object")),
        None => Err(ServiceError::bad_request("missing field: parameters")),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An integer, also accepted as a string of digits (JSON big integers).
fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_u64().map(|u| u.min(i64::MAX as u64) as i64))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
                    .map(|f| f as i64)
            }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

impl<'a> Params<'a> {
    fn field(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    fn missing(&self, name: &str) -> ServiceError {
        ServiceError::bad_request(format!("missing field: {}", self.field(name)))
    }

    fn wrong(&self, name: &str, expected: &str, got: &Value) -> ServiceError {
        ServiceError::bad_request(format!(
            "{}: expected {expected}, got {}",
            self.field(name),
            kind_of(got)
        ))
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.v.get(name).filter(|v| !v.is_null())
    }

    /// A field as given (absent or null: `None`).
    pub fn raw(&self, name: &str) -> Option<&'a Value> {
        self.get(name)
    }

    pub fn opt_str(&self, name: &str) -> Result<Option<&'a str>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.wrong(name, "a string", v)),
        }
    }

    pub fn str(&self, name: &str) -> Result<&'a str> {
        self.opt_str(name)?.ok_or_else(|| self.missing(name))
    }

    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(name, "true or false", v)),
        }
    }

    pub fn opt_i64(&self, name: &str) -> Result<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => as_i64(v)
                .map(Some)
                .ok_or_else(|| self.wrong(name, "an integer", v)),
        }
    }

    pub fn i64(&self, name: &str) -> Result<i64> {
        self.opt_i64(name)?.ok_or_else(|| self.missing(name))
    }

    /// A nested object; its fields' errors name the full path.
    pub fn opt_obj(&self, name: &str) -> Result<Option<Params<'a>>> {
        match self.get(name) {
            None => Ok(None),
            Some(v) if v.is_object() => Ok(Some(Params {
                v,
                path: self.field(name),
            })),
            Some(v) => Err(self.wrong(name, "an object", v)),
        }
    }

    /// A nested object that must be there.
    pub fn obj(&self, name: &str) -> Result<Params<'a>> {
        self.opt_obj(name)?.ok_or_else(|| self.missing(name))
    }

    pub fn opt_i64_array(&self, name: &str) -> Result<Option<Vec<i64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(a)) if a.len() > MAX_SAMPLES => {
                Err(ServiceError::bad_request(format!(
                    "{}: {} values, more than the {MAX_SAMPLES} a request may ask for",
                    self.field(name),
                    a.len()
                )))
            }
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    as_i64(v).ok_or_else(|| {
                        ServiceError::bad_request(format!(
                            "{}[{i}]: expected an integer, got {}",
                            self.field(name),
                            kind_of(v)
                        ))
                    })
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(v) => Err(self.wrong(name, "an array of integers", v)),
        }
    }

    pub fn str_array(&self, name: &str) -> Result<Vec<&'a str>> {
        match self.get(name) {
            None => Err(self.missing(name)),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str().ok_or_else(|| {
                        ServiceError::bad_request(format!(
                            "{}[{i}]: expected a string, got {}",
                            self.field(name),
                            kind_of(v)
                        ))
                    })
                })
                .collect(),
            Some(v) => Err(self.wrong(name, "an array of strings", v)),
        }
    }
}

/// `requested_timerange`: start, end and (optional) nbTimes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub start: i64,
    pub end: i64,
    pub nb_times: Option<i64>,
}

impl TimeRange {
    /// The duration one sample of the range stands for (`nbTimes`
    /// samples; exact when no number is given).
    pub fn resolution(&self) -> i64 {
        match self.nb_times {
            Some(n) => ((self.end - self.start) / n).max(1),
            None => 1,
        }
    }
}

impl<'a> Params<'a> {
    pub fn opt_time_range(&self) -> Result<Option<TimeRange>> {
        let Some(r) = self.opt_obj("requested_timerange")? else {
            return Ok(None);
        };
        let start = r.i64("start")?;
        let end = r.i64("end")?;
        if end < start {
            return Err(ServiceError::bad_request(format!(
                "{}: end ({end}) is before start ({start})",
                r.path
            )));
        }
        let nb_times = r.opt_i64("nbTimes")?;
        let path = &r.path;
        if let Some(n) = nb_times {
            if n < 1 {
                return Err(ServiceError::bad_request(format!(
                    "{path}.nbTimes: must be at least 1, got {n}"
                )));
            }
        }
        Ok(Some(TimeRange {
            start,
            end,
            // Finer sampling than this many times draws nothing more on a
            // screen; it would only make the answer huge.
            nb_times: nb_times.map(|n| n.min(MAX_SAMPLES as i64)),
        }))
    }

    pub fn time_range(&self) -> Result<TimeRange> {
        self.opt_time_range()?
            .ok_or_else(|| self.missing("requested_timerange"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field() {
        let body = json!({"parameters": {"requested_timerange": {"start": 1}}});
        let p = parameters(&body).unwrap();
        let e = p.time_range().unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadRequest);
        assert!(
            e.detail.contains("parameters.requested_timerange.end"),
            "{}",
            e.detail
        );
        let e = parameters(&json!({})).unwrap_err();
        assert!(e.detail.contains("parameters"));
        let body = json!({"parameters": {"uri": 3}});
        let e = parameters(&body).unwrap().str("uri").unwrap_err();
        assert!(e.detail.contains("parameters.uri: expected a string"));
    }

    #[test]
    fn samples_are_capped() {
        let body = json!({"parameters": {"requested_timerange":
            {"start": 0, "end": 10_000_000, "nbTimes": 1_000_000_000}}});
        let r = parameters(&body).unwrap().time_range().unwrap();
        assert_eq!(r.nb_times, Some(MAX_SAMPLES as i64));
        let ok = vec![1; MAX_SAMPLES];
        let body = json!({"parameters": {"requested_items": ok}});
        let items = parameters(&body).unwrap().opt_i64_array("requested_items");
        assert_eq!(items.unwrap().map(|v| v.len()), Some(MAX_SAMPLES));
        let too_many = vec![1; MAX_SAMPLES + 1];
        let body = json!({"parameters": {"requested_times": too_many}});
        let e = parameters(&body)
            .unwrap()
            .opt_i64_array("requested_times")
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadRequest);
        assert!(
            e.detail
                .contains("parameters.requested_times: 65537 values, more than the 65536"),
            "{}",
            e.detail
        );
    }
}
