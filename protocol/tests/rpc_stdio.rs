//! `sextant serve --stdio` as a client sees it: life cycle, malformed input,
//! pipelining, cancellation and progress.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

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
fn lifecycle_and_malformed_input() {
    let (mut s, init) = Stdio::initialized(&[], &[]);
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

    // Invalid JSON.
    s.send_raw(b"Content-Length: 9\r\n\r\n{\"jsonrpc");
    let r = s.wait_for("a parse error", |v| v.get("error").is_some());
    assert_eq!(error_code(&r["error"]), -32700, "{r}");
    alive(&mut s);

    // Valid JSON that is no request.
    s.send_raw(&common::rpc::frame(&json!([1, 2])));
    let r = s.wait_for("an invalid request", |v| v.get("error").is_some());
    assert_eq!(error_code(&r["error"]), -32600, "{r}");
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

    assert_eq!(s.request("shutdown", Value::Null), Value::Null);
    let e = s.call("tsp/health", json!({})).unwrap_err();
    assert_eq!(error_code(&e), -32600, "a request after shutdown: {e}");
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit().code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_code_1() {
    let (mut s, _) = Stdio::initialized(&[], &[]);
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit().code(), Some(1));
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

#[test]
fn a_thousand_pipelined_requests() {
    let (mut s, _) = Stdio::initialized(&[], &[]);
    let exp = s.open_scenario_a("pipe");
    let n = 1000;
    let mut batch = Vec::new();
    for i in 0..n {
        let (method, params) = match i % 3 {
            0 => ("tsp/health", json!({})),
            1 => ("tsp/experiments/get", json!({"expUUID": exp})),
            _ => ("tsp/outputs/list", json!({"expUUID": exp})),
        };
        batch.extend(common::rpc::frame(
            &json!({"jsonrpc": "2.0", "id": format!("r{i}"), "method": method, "params": params}),
        ));
    }
    let t = Instant::now();
    s.send_raw(&batch);
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
    eprintln!("{n} pipelined requests answered in {:?}", t.elapsed());
    assert!(seen.iter().all(|x| *x));
}

/// A synthetic ftrace trace long enough that its work can be watched and
/// cancelled (about 0.3 s of reading): two CPUs switching among 8 threads.
fn big_trace() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sextant-rpc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("switches.txt");
    if !path.exists() {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(out, "# tracer: nop").unwrap();
        let name = |k: usize| (4600 + k, format!("w{k}"));
        let mut cur = [name(0), name(1)];
        for i in 0..300_000usize {
            let cpu = i % 2;
            let t = 1000.0 + i as f64 * 1e-6;
            let (pp, pc) = cur[cpu].clone();
            let (np, nc) = name((i * 7) % 8);
            let state = if i % 3 == 0 { "S" } else { "R" };
            writeln!(out, "{pc:>16}-{pp:<5} [{cpu:03}] d..2. {t:12.6}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={state} ==> next_comm={nc} next_pid={np} next_prio=120").unwrap();
            cur[cpu] = (np, nc);
        }
    }
    dir
}

const SWITCH_MODEL: &str = r#"{"name": "switch to switch", "mode": "same_tid", "threads": {"process": "^w"},
    "events": [{"name": "sched_switch"}, {"name": "sched_switch"}]}"#;

fn create_params(exp: &str, name: &str, token: Option<&str>) -> Value {
    let mut p = json!({"expUUID": exp, "outputId": "sextant.executions", "name": name,
        "sourceTypeId": "sextant.execution-model",
        "parameters": serde_json::from_str::<Value>(SWITCH_MODEL).unwrap()});
    if let Some(t) = token {
        p["workDoneToken"] = json!(t);
    }
    p
}

#[test]
fn cancellation_and_progress() {
    let dir = big_trace();
    let (mut s, _) = Stdio::initialized(&[], &[&dir]);
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
    let t = s.request(
        "tsp/traces/open",
        json!({"parameters": {"uri": uri}, "workDoneToken": "idx2"}),
    );
    assert_eq!(t["indexingStatus"], "COMPLETED", "{t}");
    let exp = s.request(
        "tsp/experiments/create",
        json!({"parameters": {"name": "big", "traces": [t["UUID"]]}}),
    );
    let exp = exp["UUID"].as_str().unwrap().to_string();

    // Cancelling a model run stops it: its outputs never appear.
    let id = s.start_request("tsp/outputs/create", create_params(&exp, "cancelled", None));
    s.notify("$/cancelRequest", json!({"id": id}));
    let r = s.response(&json!(id));
    assert_eq!(error_code(&r["error"]), -32800, "{r}");
    alive(&mut s);
    let outputs = s.request("tsp/outputs/list", json!({"expUUID": exp}));
    assert!(!outputs.to_string().contains("cancelled"), "{outputs}");

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

    // Indexing progress of the traces/open above was reported too.
    let _ = std::fs::remove_dir_all(&dir);
}
