//! What only stdio has (the cases both transports share are in
//! `rpc_session.rs`): LSP framing errors, the end of stdin ending the
//! process, and the client's process (`processId`) watched.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::rpc::Stdio;
use serde_json::{json, Value};

fn error_code(e: &Value) -> i64 {
    e["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no code in {e}"))
}

/// Asks something that works, to show the session goes on.
fn alive(s: &mut Stdio) {
    assert_eq!(s.request("tsp/health", json!({}))["status"], "UP");
}

#[test]
fn a_malformed_frame_costs_that_frame() {
    let (mut s, _) = Stdio::initialized(&[], &[]);
    // Bad Content-Length, missing Content-Length: parse errors, id null.
    s.send_raw(b"Content-Length: twelve\r\n\r\n{\"x\":1}");
    let r = s.wait_for("a parse error", |v| v.get("error").is_some());
    assert_eq!(
        (error_code(&r["error"]), &r["id"]),
        (-32700, &Value::Null),
        "{r}"
    );
    alive(&mut s);
    s.send_raw(b"X-Nothing: 1\r\n\r\n");
    let r = s.wait_for("a parse error", |v| v.get("error").is_some());
    assert_eq!(error_code(&r["error"]), -32700, "{r}");
    alive(&mut s);
    // A declared length over the limit.
    s.send_raw(b"Content-Length: 99999999999\r\n\r\n");
    let r = s.wait_for("a parse error", |v| v.get("error").is_some());
    assert!(
        r["error"]["data"].as_str().unwrap().contains("limit"),
        "{r}"
    );
    alive(&mut s);
}

#[test]
fn closing_stdin_ends_the_process() {
    let (mut s, _) = Stdio::initialized(&["--port", "0"], &[]);
    // Even with an HTTP server beside it: the sidecar ends with its parent.
    s.address("http");
    s.close_stdin();
    let t = Instant::now();
    assert_eq!(s.wait_exit().code(), Some(0));
    eprintln!("exited {:?} after stdin closed", t.elapsed());
}

/// An editor killed without closing its pipes: the sidecar sees that the
/// `processId` it was given is gone, and ends (code 1: no shutdown came).
#[test]
fn the_death_of_the_client_process_ends_the_session() {
    let mut parent = Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("starting a stand-in parent");
    let mut s = Stdio::start(&[]);
    s.request(
        "initialize",
        json!({"processId": parent.id(), "capabilities": {}}),
    );
    s.notify("initialized", json!({}));
    alive(&mut s);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        s.try_exit().is_none(),
        "sextant ended while its client's process lived"
    );
    parent.kill().unwrap();
    parent.wait().unwrap();
    let t = Instant::now();
    assert_eq!(s.wait_exit().code(), Some(1));
    let took = t.elapsed();
    eprintln!("exited {took:?} after the client's process died");
    // Polled every 200 ms: within a second, with room for a loaded machine.
    assert!(took < Duration::from_secs(3), "{took:?}");
    // With no processId (null), nothing is watched.
    let (mut s, _) = Stdio::initialized(&[], &[]);
    alive(&mut s);
}

/// The WebSocket methods are not for stdio, which gets every change as a
/// notification.
#[test]
fn subscriptions_are_for_websocket() {
    let (mut s, _) = Stdio::initialized(&[], &[]);
    let e = s.call("sextant/subscribeSync", json!([])).unwrap_err();
    assert_eq!(error_code(&e), -32601, "{e}");
}
