//! `sextant analyze --format json` validates against
//! schemas/analyze-result.schema.json, for every kind of model and preset on
//! the fixtures (and on a shared trace when present).

mod common;

use common::{repo_root, shared_dir, valid_json_output};
use serde_json::Value;

fn check(args: &[&str]) -> Value {
    valid_json_output("analyze-result.schema.json", args)
}

#[test]
fn every_mode_validates() {
    let root = repo_root();
    let a = root.join("fixtures/scenario-a/ctf");
    let b = root.join("fixtures/scenario-b/ctf");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let periodic = root.join("schemas/examples/periodic-rt_high.json");
    let doc = check(&[
        "analyze",
        a,
        "--model",
        periodic.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(doc["executions"].as_array().unwrap().len() > 90);
    assert!(doc["executions"][0]["deadline_miss"].is_boolean());
    // Each rt_high job, and inside it the wait for rt_low's reply.
    let nested = r#"{"name":"job","threads":{"process":"^rt_high$"},
        "events":[{"name":"syscall_exit_clock_nanosleep"},{"name":"syscall_entry_clock_nanosleep"}],
        "nested":{"name":"reply","events":[{"name":"syscall_entry_mq_timedreceive"},{"name":"syscall_exit_mq_timedreceive"}]}}"#;
    let doc = check(&["analyze", a, "--model", nested, "--format", "json"]);
    let inner = doc["executions"][0]["nested"]
        .as_array()
        .expect("nested executions");
    assert!(!inner.is_empty());
    let worker = root.join("schemas/examples/fork-exit-worker.json");
    check(&[
        "analyze",
        b,
        "--model",
        worker.to_str().unwrap(),
        "--format",
        "json",
    ]);
    for preset in ["running", "blocking", "whole-thread", "periodic"] {
        let doc = check(&[
            "analyze",
            a,
            "--preset",
            preset,
            "--process",
            "^rt_",
            "--format",
            "json",
            "--top",
            "5",
        ]);
        assert!(doc["stats"].is_object(), "{preset} found executions");
    }
    // No execution at all: stats is null, still valid.
    let none = r#"{"name":"none","events":[{"name":"no_such_event"}]}"#;
    let doc = check(&["analyze", a, "--model", none, "--format", "json"]);
    assert!(doc["stats"].is_null());
}

#[test]
fn shared_trace_validates() {
    let Some(shared) = shared_dir() else {
        return common::skip_shared();
    };
    let t = shared.join("traces/ctf/many-threads");
    let doc = check(&[
        "analyze",
        t.to_str().unwrap(),
        "--preset",
        "blocking",
        "--format",
        "json",
        "--top",
        "50",
    ]);
    assert_eq!(doc["executions"].as_array().unwrap().len(), 50);
}
