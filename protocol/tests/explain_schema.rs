//! `sextant explain --format json` validates against
//! schemas/explain-result.schema.json: on both fixtures (CTF and ftrace
//! text), for the longest execution and another one, and on a shared trace
//! with futex waits when present.

mod common;

use common::{repo_root, shared_dir, skip_shared, valid_json_output};
use serde_json::Value;

fn check(args: &[&str]) -> Value {
    valid_json_output("explain-result.schema.json", args)
}

#[test]
fn explain_results_validate() {
    let root = repo_root();
    let periodic = root.join("schemas/examples/periodic-rt_high.json");
    let periodic = periodic.to_str().unwrap();
    for trace in ["fixtures/scenario-a/ctf", "fixtures/scenario-a/trace.txt"] {
        let trace = root.join(trace);
        let t = trace.to_str().unwrap();
        let doc = check(&[
            "explain",
            t,
            "--model",
            periodic,
            "--longest",
            "--format",
            "json",
        ]);
        // The schema allows empty lists; the longest job of scenario a has a
        // path, an inversion and message-queue activity.
        assert!(doc["critical_path"].as_array().unwrap().len() > 1);
        assert_eq!(doc["inversion"], true);
        assert!(!doc["facilities"]["mq"].as_array().unwrap().is_empty());
        check(&[
            "explain",
            t,
            "--model",
            periodic,
            "--execution",
            "10",
            "--format",
            "json",
        ]);
    }
    // Scenario b's workers, from their fork by rt_timer to their exit.
    let worker = r#"{"name":"worker","mode":"different_tids","start":{"name":"sched_process_fork","fields":{"child_tid":"$tid"}},"end":{"name":"sched_process_exit","fields":{"tid":"$tid"}},"start_threads":{"process":"^rt_timer$"}}"#;
    let b = root.join("fixtures/scenario-b/ctf");
    check(&[
        "explain",
        b.to_str().unwrap(),
        "--model",
        worker,
        "--longest",
        "--format",
        "json",
    ]);
}

#[test]
fn futex_waits_validate_on_a_shared_trace() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let trace = shared.join("traces/ctf/many-threads");
    let model = r#"{"name":"futex wait","events":[{"name":"syscall_entry_futex","fields":{"op&127":0}},{"name":"syscall_exit_futex"}]}"#;
    let doc = check(&[
        "explain",
        trace.to_str().unwrap(),
        "--model",
        model,
        "--longest",
        "--format",
        "json",
    ]);
    assert!(!doc["facilities"]["futex_waits"]
        .as_array()
        .unwrap()
        .is_empty());
}
