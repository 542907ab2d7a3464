//! A web page must not drive the local server: a foreign `Host` (DNS
//! rebinding), a foreign `Origin` (cross-site requests, WebSocket
//! hijacking) and non-JSON bodies (the "simple" requests a page sends
//! without a preflight) are refused, over HTTP and WebSocket; CORS headers
//! go only to the origins given with `--cors-origin`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::server::Server;
use serde_json::Value;

const ALLOWED: &str = "http://localhost:3000";
const FOREIGN: &str = "http://attacker.example";

struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// One request with exactly these headers (and `Connection: close`).
fn send(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut resp = String::new();
    let _ = s.read_to_string(&mut resp);
    let (head, body) = resp.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

fn port(addr: &str) -> &str {
    addr.rsplit(':').next().unwrap()
}

#[test]
fn hosts_that_do_not_name_the_server_are_refused() {
    let srv = Server::start();
    let p = port(&srv.addr);
    for host in [
        format!("localhost:{p}"),
        format!("127.0.0.1:{p}"),
        format!("[::1]:{p}"),
    ] {
        let a = send(&srv.addr, "GET", "/tsp/api/health", &[("Host", &host)], "");
        assert_eq!(a.status, 200, "{host}: {}", a.body);
    }
    for host in [
        format!("attacker.example:{p}"),
        "localhost".to_string(),
        format!("localhost:{}", p.parse::<u16>().unwrap().wrapping_add(1)),
    ] {
        let a = send(&srv.addr, "GET", "/tsp/api/health", &[("Host", &host)], "");
        assert_eq!(a.status, 403, "{host}: {}", a.body);
        assert_eq!(a.json()["title"], "Forbidden host", "{}", a.body);
    }
}

#[test]
fn a_cross_site_simple_request_opens_nothing() {
    let srv = Server::start();
    let host = srv.addr.clone();
    let body = r#"{"parameters": {"uri": "fixtures/scenario-a/ctf", "name": "x"}}"#;
    // What any page can send without a preflight.
    let a = send(
        &srv.addr,
        "POST",
        "/tsp/api/traces",
        &[
            ("Host", &host),
            ("Origin", FOREIGN),
            ("Content-Type", "text/plain"),
        ],
        body,
    );
    assert_eq!(a.status, 403, "{}", a.body);
    assert_eq!(a.json()["title"], "Forbidden origin");
    assert!(
        a.header("access-control-allow-origin").is_none(),
        "{}",
        a.head
    );
    // Without an Origin, still not JSON: 415.
    let a = send(
        &srv.addr,
        "POST",
        "/tsp/api/traces",
        &[("Host", &host), ("Content-Type", "text/plain")],
        body,
    );
    assert_eq!(a.status, 415, "{}", a.body);
    let a = send(
        &srv.addr,
        "POST",
        "/tsp/api/traces",
        &[("Host", &host)],
        body,
    );
    assert_eq!(a.status, 415, "no Content-Type: {}", a.body);
    // Nothing was opened.
    assert_eq!(srv.get("/traces"), (200, serde_json::json!([])));
    // JSON, with or without a charset, is taken.
    let a = send(
        &srv.addr,
        "POST",
        "/tsp/api/traces",
        &[
            ("Host", &host),
            ("Content-Type", "application/json; charset=utf-8"),
        ],
        body,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    // A foreign origin may not read or delete either.
    let a = send(
        &srv.addr,
        "GET",
        "/tsp/api/traces",
        &[("Host", &host), ("Origin", FOREIGN)],
        "",
    );
    assert_eq!(a.status, 403, "{}", a.body);
    // No origin is allowed by default, and CORS never says `*`.
    let a = send(
        &srv.addr,
        "OPTIONS",
        "/tsp/api/traces",
        &[
            ("Host", &host),
            ("Origin", ALLOWED),
            ("Access-Control-Request-Method", "POST"),
        ],
        "",
    );
    assert_eq!(a.status, 403, "{}", a.body);
    assert!(!a.head.contains('*'), "{}", a.head);
}

#[test]
fn allowed_origins_get_cors_headers() {
    let srv = Server::start_with(&["--cors-origin", ALLOWED]);
    let host = srv.addr.clone();
    let a = send(
        &srv.addr,
        "OPTIONS",
        "/tsp/api/traces",
        &[
            ("Host", &host),
            ("Origin", ALLOWED),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ],
        "",
    );
    assert_eq!(a.status, 204, "{}", a.head);
    assert_eq!(
        a.header("access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    assert!(a
        .header("access-control-allow-methods")
        .is_some_and(|m| m.contains("POST")));
    assert!(a
        .header("access-control-allow-headers")
        .is_some_and(|m| m.contains("content-type")));
    let a = send(
        &srv.addr,
        "GET",
        "/tsp/api/health",
        &[("Host", &host), ("Origin", ALLOWED)],
        "",
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.header("access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    assert!(a
        .header("vary")
        .is_some_and(|v| v.to_ascii_lowercase().contains("origin")));
    // Errors carry them too, so that the page can read why.
    let a = send(
        &srv.addr,
        "GET",
        "/tsp/api/experiments/nope",
        &[("Host", &host), ("Origin", ALLOWED)],
        "",
    );
    assert_eq!(a.status, 404, "{}", a.body);
    assert_eq!(
        a.header("access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    // Without an Origin (scripts, the VS Code extension host): no CORS header.
    let a = send(&srv.addr, "GET", "/tsp/api/health", &[("Host", &host)], "");
    assert_eq!(a.status, 200);
    assert!(
        a.header("access-control-allow-origin").is_none(),
        "{}",
        a.head
    );
    // Another origin is still refused.
    let a = send(
        &srv.addr,
        "GET",
        "/tsp/api/health",
        &[("Host", &host), ("Origin", FOREIGN)],
        "",
    );
    assert_eq!(a.status, 403, "{}", a.body);
}

/// The WebSocket handshake, with these extra headers: the HTTP status.
fn ws_handshake(addr: &str, host: &str, origin: Option<&str>) -> u16 {
    let mut headers = vec![
        ("Host", host),
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];
    if let Some(o) = origin {
        headers.push(("Origin", o));
    }
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = "GET / HTTP/1.1\r\n".to_string();
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = [0u8; 512];
    let n = s.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]);
    head.split(' ').nth(1).unwrap().parse().unwrap()
}

#[test]
fn websocket_handshakes_are_guarded_too() {
    let (s, _) = common::rpc::Stdio::initialized(&["--ws", "0", "--cors-origin", ALLOWED], &[]);
    let addr = s.address("ws");
    let p = port(&addr).to_string();
    let local = format!("localhost:{p}");
    assert_eq!(ws_handshake(&addr, &local, None), 101);
    assert_eq!(ws_handshake(&addr, &local, Some(ALLOWED)), 101);
    assert_eq!(ws_handshake(&addr, &local, Some(FOREIGN)), 403);
    assert_eq!(
        ws_handshake(&addr, &format!("attacker.example:{p}"), None),
        403
    );
}
