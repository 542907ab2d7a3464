//! The JSON-RPC session as a client sees it, over both transports: one
//! table of cases, each run over stdio (`serve --stdio`) and over WebSocket
//! (`serve --ws`). Answers and errors, the life cycle (`shutdown` with
//! absent, null or empty params), notifications (sync, `$/cancelRequest`),
//! pipelining, per-request cancellation and `$/progress`.

mod common;

use std::path::Path;
use std::time::Instant;

use common::rpc::{Rpc, Transport};
use serde_json::{json, Value};

type Case = fn(Transport);

const CASES: &[(&str, Case)] = &[
    ("answers_and_errors", answers_and_errors),
    ("shutdown_params", shutdown_params),
    ("exit_without_shutdown", exit_without_shutdown),
    ("notifications", notifications),
    ("pipelined", pipelined),
    ("cancellation_and_progress", cancellation_and_progress),
];

fn run_all(transport: Transport) {
    for (name, case) in CASES {
        eprintln!("-- {name} over {transport:?}");
        case(transport);
    }
}

#[test]
fn over_stdio() {
    run_all(Transport::Stdio);
}

#[test]
fn over_websocket() {
    run_all(Transport::WebSocket);
}

fn session(t: Transport, roots: &[&Path]) -> (Rpc, Value) {
    Rpc::initialized_on(t, &[], roots)
}

fn error_code(e: &Value) -> i64 {
    e["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no code in {e}"))
}

/// Asks something that works, to show the session goes on.
fn alive(s: &mut Rpc) {
    assert_eq!(s.request("tsp/health", json!({}))["status"], "UP");
}

fn answers_and_errors(t: Transport) {
    let (mut s, init) = session(t, &[]);
    let caps = &init["capabilities"]["experimental"];
    assert_eq!(caps["protocolVersion"], "0.6.0");
    let methods: Vec<&str> = caps["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    for m in [
        "tsp/experiments/create",
        "tsp/timeGraph/states",
        "sextant/getSelection",
    ] {
        assert!(methods.contains(&m), "{m} missing from {methods:?}");
    }
    assert_eq!(caps["configTypes"][0]["id"], "sextant.execution-model");
    assert_eq!(init["serverInfo"]["name"], "sextant");

    // A second initialize is refused.
    let e = s
        .call("initialize", json!({"capabilities": {}}))
        .unwrap_err();
    assert_eq!(error_code(&e), -32600, "{e}");

    // Invalid JSON.
    s.send_message(b"{\"jsonrpc");
    let r = s.wait_for("a parse error", |v| v.get("error").is_some());
    assert_eq!(
        (error_code(&r["error"]), &r["id"]),
        (-32700, &Value::Null),
        "{r}"
    );
    alive(&mut s);

    // Valid JSON that is no request.
    s.send(&json!([1, 2]));
    let r = s.wait_for("an invalid request", |v| v.get("error").is_some());
    assert_eq!(error_code(&r["error"]), -32600, "{r}");
    s.send(&json!({"jsonrpc": "2.0", "id": 7}));
    let r = s.wait_for("an invalid request", |v| v.get("error").is_some());
    assert_eq!(
        (error_code(&r["error"]), &r["id"]),
        (-32600, &json!(7)),
        "{r}"
    );
    alive(&mut s);

    // Unknown method.
    let e = s.call("tsp/nothing", json!({})).unwrap_err();
    assert_eq!(error_code(&e), -32601, "{e}");
    alive(&mut s);

    // Wrong params: InvalidParams with the HTTP error in data.
    let e = s
        .call("tsp/experiments/get", json!({"expUUID": 3}))
        .unwrap_err();
    assert_eq!(error_code(&e), -32602, "{e}");
    assert_eq!(e["data"]["status"], 400);
    assert!(
        e["data"]["detail"].as_str().unwrap().contains("expUUID"),
        "{e}"
    );
    let e = s
        .call(
            "tsp/experiments/create",
            json!({"parameters": {"name": "x"}}),
        )
        .unwrap_err();
    assert_eq!(
        (error_code(&e), &e["message"]),
        (-32602, &json!("Bad request")),
        "{e}"
    );
    // Not found and forbidden: server-defined codes.
    let e = s
        .call(
            "tsp/experiments/get",
            json!({"expUUID": "0b8f6d1e-7c1a-4e0a-9a51-2f4c6f7b8d90"}),
        )
        .unwrap_err();
    assert_eq!(
        (error_code(&e), &e["data"]["status"]),
        (-32001, &json!(404)),
        "{e}"
    );
    let e = s
        .call("tsp/traces/open", json!({"parameters": {"uri": "/etc"}}))
        .unwrap_err();
    assert_eq!(
        (error_code(&e), &e["data"]["status"]),
        (-32003, &json!(403)),
        "{e}"
    );
    // Absent params are an empty body.
    let id = s.next_id_for_test();
    s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tsp/experiments/list"}));
    assert_eq!(s.response(&json!(id))["result"], json!([]));
}

/// Clients differ in what `shutdown` carries: LSP4J and
/// vscode-languageclient send nothing or null, others `{}`.
fn shutdown_params(t: Transport) {
    for params in [None, Some(Value::Null), Some(json!({}))] {
        let (mut s, _) = session(t, &[]);
        let id = s.next_id_for_test();
        let mut req = json!({"jsonrpc": "2.0", "id": id, "method": "shutdown"});
        if let Some(p) = &params {
            req["params"] = p.clone();
        }
        s.send(&req);
        let r = s.response(&json!(id));
        assert_eq!(
            r.get("result"),
            Some(&Value::Null),
            "params {params:?}: {r}"
        );
        let e = s.call("tsp/health", json!({})).unwrap_err();
        assert_eq!(error_code(&e), -32600, "a request after shutdown: {e}");
        let mut exit = json!({"jsonrpc": "2.0", "method": "exit"});
        if let Some(p) = &params {
            exit["params"] = p.clone();
        }
        s.send(&exit);
        let end = s.wait_end();
        if t == Transport::Stdio {
            assert_eq!(end, Some(0), "params {params:?}");
        }
    }
    // Params shutdown has no use for are still refused.
    let (mut s, _) = session(t, &[]);
    let e = s.call("shutdown", json!({"x": 1})).unwrap_err();
    assert_eq!(error_code(&e), -32602, "{e}");
}

fn exit_without_shutdown(t: Transport) {
    let (mut s, _) = session(t, &[]);
    s.notify("exit", Value::Null);
    let end = s.wait_end();
    if t == Transport::Stdio {
        assert_eq!(end, Some(1));
    }
}

/// Notifications are taken (not answered): a sync change sent as one is
/// what `sextant/getSelection` then answers; a bad one, a `$/cancelRequest`
/// of nothing and an unknown notification are ignored.
fn notifications(t: Transport) {
    let (mut s, _) = session(t, &[]);
    let exp = "6b1f0c9e-0000-4000-8000-000000000001";
    let range =
        |a: i64, b: i64| json!({"experimentUUID": exp, "start": a, "end": b, "source": "me"});
    s.notify(
        "sextant/windowChanged",
        json!({"experimentUUID": exp, "start": 9, "end": 1}),
    );
    s.notify("sextant/selectionChanged", range(10, 20));
    s.notify("sextant/windowChanged", range(0, 100));
    s.notify("$/cancelRequest", json!({"id": 12345}));
    s.notify("sextant/noSuchNotification", json!({}));
    let cur = s.request("sextant/getSelection", json!({"experimentUUID": exp}));
    assert_eq!(
        cur,
        json!({"experimentUUID": exp, "selection": range(10, 20), "window": range(0, 100)})
    );
    // Sent as a request, a change is answered null (or refused when bad).
    assert_eq!(
        s.request("sextant/selectionChanged", range(30, 40)),
        Value::Null
    );
    let e = s
        .call(
            "sextant/selectionChanged",
            json!({"experimentUUID": exp, "start": 9, "end": 1}),
        )
        .unwrap_err();
    assert_eq!(error_code(&e), -32602, "{e}");
    // Nothing answered the notifications.
    let log = s.log.lock().unwrap();
    let stray: Vec<&Value> = log
        .iter()
        .filter(|m| m.get("id") == Some(&Value::Null))
        .collect();
    assert!(stray.is_empty(), "answers to notifications: {stray:?}");
}

fn pipelined(t: Transport) {
    let (mut s, _) = session(t, &[]);
    let exp = s.open_scenario_a("pipe");
    let n = 1000;
    let t0 = Instant::now();
    for i in 0..n {
        let (method, params) = match i % 3 {
            0 => ("tsp/health", json!({})),
            1 => ("tsp/experiments/get", json!({"expUUID": exp})),
            _ => ("tsp/outputs/list", json!({"expUUID": exp})),
        };
        s.send(
            &json!({"jsonrpc": "2.0", "id": format!("r{i}"), "method": method, "params": params}),
        );
    }
    let mut seen = vec![false; n];
    for _ in 0..n {
        let r = s.wait_for("a response", |v| {
            v.get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| id.starts_with('r'))
        });
        let i: usize = r["id"].as_str().unwrap()[1..].parse().unwrap();
        assert!(!seen[i], "two answers to r{i}");
        seen[i] = true;
        let ok = match i % 3 {
            0 => r["result"]["status"] == "UP",
            1 => r["result"]["UUID"] == json!(exp),
            _ => r["result"].as_array().is_some_and(|a| !a.is_empty()),
        };
        assert!(ok, "wrong answer to r{i}: {r}");
    }
    eprintln!("{n} pipelined requests answered in {:?}", t0.elapsed());
}

/// Posting a model named `name` (each name its own model, so that each
/// post is a pass over the trace, not a read of what the trace's store kept
/// from an earlier post).
fn create_params(exp: &str, name: &str, token: Option<&str>) -> Value {
    let mut model = serde_json::from_str::<Value>(common::SWITCH_MODEL).unwrap();
    model["name"] = json!(name);
    let mut p = json!({"expUUID": exp, "outputId": "sextant.executions", "name": name,
        "sourceTypeId": "sextant.execution-model", "parameters": model});
    if let Some(t) = token {
        p["workDoneToken"] = json!(t);
    }
    p
}

fn cancellation_and_progress(t: Transport) {
    let dir = common::big_trace(&format!("{t:?}"));
    let (mut s, _) = session(t, &[&dir]);
    let uri = dir.join("switches.txt").display().to_string();

    // Cancelling the wait for indexing: RequestCancelled; the indexing goes
    // on (the trace is shared), so the next open finds it.
    let id = s.start_request(
        "tsp/traces/open",
        json!({"parameters": {"uri": uri}, "workDoneToken": "idx"}),
    );
    s.notify("$/cancelRequest", json!({"id": id}));
    let r = s.response(&json!(id));
    assert_eq!(error_code(&r["error"]), -32800, "{r}");
    let tr = s.request(
        "tsp/traces/open",
        json!({"parameters": {"uri": uri}, "workDoneToken": "idx2"}),
    );
    assert_eq!(tr["indexingStatus"], "COMPLETED", "{tr}");
    let exp = s.request(
        "tsp/experiments/create",
        json!({"parameters": {"name": "big", "traces": [tr["UUID"]]}}),
    );
    let exp = exp["UUID"].as_str().unwrap().to_string();

    // Cancelling one of two model runs stops that one only: its outputs
    // never appear, the other's do.
    let kept = s.start_request("tsp/outputs/create", create_params(&exp, "kept", None));
    let id = s.start_request("tsp/outputs/create", create_params(&exp, "cancelled", None));
    s.notify("$/cancelRequest", json!({"id": id}));
    let r = s.response(&json!(id));
    assert_eq!(error_code(&r["error"]), -32800, "{r}");
    let r = s.response(&json!(kept));
    assert!(r.get("result").is_some(), "{r}");
    alive(&mut s);
    let outputs = s.request("tsp/outputs/list", json!({"expUUID": exp}));
    assert!(!outputs.to_string().contains("cancelled"), "{outputs}");
    assert!(outputs.to_string().contains("kept"), "{outputs}");

    // Progress: begin, reports with growing percentages, end; then the result.
    s.take_notifications("$/progress");
    let d = s.request(
        "tsp/outputs/create",
        create_params(&exp, "watched", Some("run")),
    );
    assert!(
        d["id"]
            .as_str()
            .unwrap()
            .starts_with("sextant.executions.comparison:"),
        "{d}"
    );
    // `end` goes out as the request ends: wait for it.
    s.wait_for("the end of progress", |v| {
        v["params"]["token"] == "run" && v["params"]["value"]["kind"] == "end"
    });
    let mut seen: Vec<Value> = s
        .take_notifications("$/progress")
        .into_iter()
        .map(|n| n["params"].clone())
        .collect();
    seen.retain(|p| p["token"] == "run");
    assert_eq!(
        seen.first().map(|p| p["value"]["kind"].clone()),
        Some(json!("begin")),
        "{seen:?}"
    );
    let pcts: Vec<i64> = seen
        .iter()
        .filter(|p| p["value"]["kind"] == "report")
        .map(|p| p["value"]["percentage"].as_i64().unwrap())
        .collect();
    assert!(pcts.len() >= 2, "reports: {pcts:?}");
    assert!(
        pcts.windows(2).all(|w| w[0] < w[1]) && pcts.iter().all(|p| (0..=100).contains(p)),
        "{pcts:?}"
    );
    eprintln!("progress reports: {pcts:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
