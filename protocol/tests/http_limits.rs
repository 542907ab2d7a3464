//! The server's limits, each a clear answer instead of a crash or a hang:
//! past the budget of open traces, 503 with Retry-After; a client that
//! disconnects cancels its request's work; SIGTERM lets the request in
//! flight finish, then the process exits 0.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::server::Server;
use serde_json::{json, Value};

/// Sends `POST path` with `body` on a fresh connection, without reading.
fn start_post(srv: &Server, path: &str, body: &Value) -> TcpStream {
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST /tsp/api{path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        srv.addr,
        body.len()
    )
    .unwrap();
    s
}

/// The whole answer, head and body.
fn read_all(mut s: TcpStream) -> String {
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    resp
}

fn model_body(name: &str) -> Value {
    json!({"name": name, "sourceTypeId": "sextant.execution-model",
           "parameters": serde_json::from_str::<Value>(common::SWITCH_MODEL).unwrap()})
}

/// A server allowed to open the big trace, which is open and indexed in an
/// experiment; (server, experiment UUID, the trace's directory).
fn big_experiment(tag: &str, args: &[&str]) -> (Server, String, std::path::PathBuf) {
    let dir = common::big_trace(tag);
    let root = dir.display().to_string();
    let mut all = vec!["--allow-root", root.as_str()];
    all.extend_from_slice(args);
    let srv = Server::start_with(&all);
    let uri = dir.join("switches.txt").display().to_string();
    let (exp, _) = srv.open_trace("big", &uri);
    (srv, exp, dir)
}

#[test]
fn past_the_budget_of_open_traces_503_with_retry_after() {
    let srv = Server::start_with(&["--max-traces", "1"]);
    let (st, _) = srv.post(
        "/traces",
        &json!({"parameters": {"uri": "fixtures/scenario-a/ctf"}}),
    );
    assert_eq!(st, 200);
    let s = start_post(
        &srv,
        "/traces",
        &json!({"parameters": {"uri": "fixtures/scenario-a/trace.txt"}}),
    );
    let resp = read_all(s);
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 503"), "{resp}");
    assert!(
        head.to_ascii_lowercase().contains("\r\nretry-after: 5"),
        "{head}"
    );
    assert!(
        body.contains("Server busy") && body.contains("--max-traces"),
        "{body}"
    );
    // The server goes on: the open trace is still served.
    let (st, traces) = srv.get("/traces");
    assert_eq!((st, traces.as_array().map(Vec::len)), (200, Some(1)));
}

#[test]
fn a_client_that_disconnects_cancels_its_work() {
    let (srv, exp, dir) = big_experiment("disconnect", &[]);
    let path = format!("/experiments/{exp}/outputs/sextant.executions");
    let abandoned = start_post(&srv, &path, &model_body("abandoned"));
    std::thread::sleep(Duration::from_millis(50));
    drop(abandoned);
    // A run of the same model, started after: when it is done, the
    // abandoned one would be too, had it not been cancelled.
    let (st, kept) = srv.post(&path, &model_body("kept"));
    assert_eq!(st, 200, "{kept}");
    std::thread::sleep(Duration::from_secs(1));
    let (st, outputs) = srv.get(&format!("/experiments/{exp}/outputs"));
    assert_eq!(st, 200);
    let text = outputs.to_string();
    assert!(text.contains("kept"), "{text}");
    assert!(!text.contains("abandoned"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sigterm_lets_the_request_in_flight_finish() {
    let (mut srv, exp, dir) = big_experiment("sigterm", &[]);
    let path = format!("/experiments/{exp}/outputs/sextant.executions");
    let in_flight = start_post(&srv, &path, &model_body("in flight"));
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: kill(2) on the server's pid; no memory is involved.
    let r = unsafe { libc::kill(srv.pid() as i32, libc::SIGTERM) };
    assert_eq!(r, 0);
    let resp = read_all(in_flight);
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(resp.contains("sextant.executions.comparison:"), "{resp}");
    let st = srv
        .wait_exit(Duration::from_secs(25))
        .expect("still running 25 s after SIGTERM");
    assert!(st.success(), "{st:?}");
    assert!(
        TcpStream::connect(&srv.addr).is_err(),
        "still accepting connections"
    );
    let _ = std::fs::remove_dir_all(dir);
}
