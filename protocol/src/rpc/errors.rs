//! Service errors as JSON-RPC errors, the same on every JSON-RPC transport:
//! a 400-class bad request is InvalidParams (-32602), the other HTTP
//! statuses get server-defined codes; `message` is the title, `data` the
//! HTTP error body with its status.

use serde_json::Value;

use crate::service::ServiceError;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// The code of an error answering with HTTP status `status`.
pub fn code_of(status: u16) -> i64 {
    match status {
        400 => INVALID_PARAMS,
        404 => -32001,
        403 => -32003,
        405 => -32005,
        406 => -32006,
        409 => -32009,
        413 => -32013,
        // Busy: `data.retryAfter` says when to try again.
        503 => -32053,
        _ => INTERNAL_ERROR,
    }
}

/// `(code, message, data)`.
pub fn parts(e: &ServiceError) -> (i64, String, Value) {
    let status = e.kind.http_status();
    let mut data = e.to_json();
    data["status"] = Value::from(status);
    (code_of(status), e.title.clone(), data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::ErrorKind;

    #[test]
    fn codes_follow_the_status() {
        let (code, message, data) = parts(&ServiceError::bad_request("x: missing"));
        assert_eq!((code, message.as_str()), (-32602, "Bad request"));
        assert_eq!(data["status"], 400);
        assert_eq!(data["detail"], "x: missing");
        let e = ServiceError::new(ErrorKind::Conflict, "Conflict", "taken");
        assert_eq!(parts(&e).0, -32009);
        assert_eq!(parts(&ServiceError::not_found("trace", "no")).0, -32001);
        let (code, _, data) = parts(&ServiceError::unavailable("busy"));
        assert_eq!((code, data["status"].as_i64()), (-32053, Some(503)));
        assert_eq!(data["retryAfter"], 5);
    }
}
