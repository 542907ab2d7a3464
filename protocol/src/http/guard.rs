//! What keeps a web page from driving the local server (HTTP and
//! WebSocket alike), checked before any route runs:
//!
//! - `Host` must name this server: a loopback name (`localhost`,
//!   `127.0.0.1`, `[::1]`) or the bound address, with the port. A page on
//!   `attacker.example` whose name was rebound to 127.0.0.1 sends its own
//!   name, and is refused (DNS rebinding).
//! - `Origin`, which browsers send on cross-site requests (and WebSocket
//!   handshakes), must be absent or one given with `--cors-origin`: a
//!   "simple" cross-site POST, which needs no preflight, would otherwise
//!   open or delete traces even though the page cannot read the answer.
//! - A POST body must be `application/json` (the simple requests a page
//!   may send without preflight are `text/plain` and forms).
//! - CORS headers go only to the origins given with `--cors-origin`, never
//!   `*`.
//!
//! A handler that panics answers 500 here, and the server goes on.

use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::FutureExt;
use serde_json::json;

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: &str = "600";

/// Who may talk to one listening socket.
#[derive(Clone, Debug)]
pub struct Guard(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    bound: IpAddr,
    port: u16,
    /// Allowed origins, lower case, without a trailing slash.
    origins: Vec<String>,
}

fn refuse(status: StatusCode, title: &str, detail: String) -> Response {
    (status, Json(json!({"title": title, "detail": detail}))).into_response()
}

/// `host[:port]` split; IPv6 literals keep their brackets.
fn split_host(value: &str) -> Option<(&str, Option<&str>)> {
    if value.starts_with('[') {
        let end = value.find(']')?;
        let (name, rest) = value.split_at(end + 1);
        return match rest {
            "" => Some((name, None)),
            _ => Some((name, Some(rest.strip_prefix(':')?))),
        };
    }
    match value.split_once(':') {
        Some((name, port)) => Some((name, Some(port))),
        None => Some((value, None)),
    }
}

fn normalize_origin(o: &str) -> String {
    o.trim().trim_end_matches('/').to_ascii_lowercase()
}

impl Guard {
    /// For a socket bound to `bound:port`, CORS allowed for `origins`.
    pub fn new(bound: IpAddr, port: u16, origins: &[String]) -> Guard {
        Guard(Arc::new(Inner {
            bound,
            port,
            origins: origins.iter().map(|o| normalize_origin(o)).collect(),
        }))
    }

    /// Whether `Host: value` names this server.
    fn host_allowed(&self, value: &str) -> bool {
        let Some((name, port)) = split_host(value) else {
            return false;
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>() == Ok(self.0.port),
            None => self.0.port == 80,
        };
        let name = name.to_ascii_lowercase();
        let literal = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .ok();
        let name_ok = name == "localhost"
            || literal.is_some_and(|ip| {
                ip.is_loopback()
                    || ip == self.0.bound
                    // Bound to every interface: any address of this host.
                    // An address, unlike a name, cannot be rebound.
                    || self.0.bound.is_unspecified()
            });
        port_ok && name_ok
    }

    /// The request's `Origin` when it is one of the allowed; `Err` (the
    /// origin as sent) when it is present and not allowed.
    fn origin(&self, headers: &HeaderMap) -> Result<Option<HeaderValue>, String> {
        let Some(value) = headers.get(header::ORIGIN) else {
            return Ok(None);
        };
        let text = value.to_str().unwrap_or("");
        if self.0.origins.contains(&normalize_origin(text)) {
            return Ok(Some(value.clone()));
        }
        Err(text.to_string())
    }
}

/// Whether the POST carries a body (or says what its body is).
fn has_body(headers: &HeaderMap) -> bool {
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    length.is_some_and(|n| n > 0)
        || headers.contains_key(header::TRANSFER_ENCODING)
        || headers.contains_key(header::CONTENT_TYPE)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

fn cors(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.append(header::VARY, HeaderValue::from_static("origin"));
}

/// The middleware: refusals first, then the route, its panic caught.
pub async fn check(State(guard): State<Guard>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if let Some(host) = headers.get(header::HOST) {
        let text = host.to_str().unwrap_or("");
        if !guard.host_allowed(text) {
            return refuse(
                StatusCode::FORBIDDEN,
                "Forbidden host",
                format!(
                    "Host {text:?} does not name this server: use localhost, 127.0.0.1 or [::1] \
                     (or the address it listens on) with port {}",
                    guard.0.port
                ),
            );
        }
    }
    let origin = match guard.origin(headers) {
        Ok(o) => o,
        Err(text) => {
            return refuse(
                StatusCode::FORBIDDEN,
                "Forbidden origin",
                format!(
                    "requests from web pages are refused unless their origin is allowed \
                     (sextant serve --cors-origin ORIGIN); this one came from {text:?}"
                ),
            )
        }
    };
    if req.method() == Method::OPTIONS {
        if let Some(origin) = origin {
            return preflight(origin);
        }
    }
    if req.method() == Method::POST && has_body(headers) && !is_json(headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported media type",
            "a request body must be JSON, sent with Content-Type: application/json".into(),
        );
    }
    let mut resp = match AssertUnwindSafe(next.run(req)).catch_unwind().await {
        Ok(r) => r,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            eprintln!("sextant: a request failed: {what}");
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Internal error",
                format!("the request failed: {what}"),
            )
        }
    };
    if let Some(origin) = origin {
        cors(resp.headers_mut(), origin);
    }
    resp
}

/// The answer to an allowed origin's preflight.
fn preflight(origin: HeaderValue) -> Response {
    let mut resp = StatusCode::NO_CONTENT.into_response();
    let h = resp.headers_mut();
    cors(h, origin);
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type"),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static(PREFLIGHT_MAX_AGE),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let g = Guard::new("127.0.0.1".parse().unwrap(), 8080, &[]);
        for ok in [
            "localhost:8080",
            "LOCALHOST:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "127.0.0.2:8080",
        ] {
            assert!(g.host_allowed(ok), "{ok}");
        }
        for bad in [
            "attacker.example:8080",
            "localhost",
            "localhost:80",
            "localhost:8081",
            "127.0.0.1:8080x",
            "[::1",
            "10.0.0.5:8080",
            "localhost.attacker.example:8080",
            "",
        ] {
            assert!(!g.host_allowed(bad), "{bad}");
        }
        let any = Guard::new("0.0.0.0".parse().unwrap(), 80, &[]);
        assert!(any.host_allowed("10.0.0.5"));
        assert!(any.host_allowed("[fe80::1]:80"));
        assert!(!any.host_allowed("box.example"));
        let v6 = Guard::new("fe80::1".parse().unwrap(), 9, &[]);
        assert!(v6.host_allowed("[FE80::1]:9"));
    }

    #[test]
    fn origins_and_types() {
        let g = Guard::new(
            "127.0.0.1".parse().unwrap(),
            1,
            &["http://localhost:3000/".into()],
        );
        let mut h = HeaderMap::new();
        assert_eq!(g.origin(&h).unwrap(), None);
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://LOCALHOST:3000"),
        );
        assert!(g.origin(&h).unwrap().is_some());
        h.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert!(g.origin(&h).is_err());

        let mut h = HeaderMap::new();
        assert!(!has_body(&h));
        h.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
        assert!(!has_body(&h));
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("Application/JSON; charset=utf-8"),
        );
        assert!(has_body(&h) && is_json(&h));
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert!(!is_json(&h));
    }
}
