//! One kernel model per host: a folder holding traces of several machines
//! (or boots) is read one host at a time, never as one model that mixes
//! their threads and CPUs.

mod common;

use std::path::Path;

use common::{
    copy_into, repo_root, run_json, sextant, shared_dir, skip_shared, valid_json_output, TempDir,
};
use serde_json::Value;

/// A folder holding two recordings of different boots (their clocks'
/// UUIDs differ, no hostname is written): `a` and `b`.
fn two_boots(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("two");
    for (name, fixture) in [("a", "scenario-a/ctf"), ("b", "scenario-b/ctf")] {
        std::fs::create_dir_all(&root).unwrap();
        let copy = copy_into(&repo_root().join("fixtures").join(fixture), &root);
        std::fs::rename(&copy, root.join(name)).unwrap();
    }
    root
}

/// (start, end, tid, duration) of each execution, in start order.
fn keys<'a>(executions: impl Iterator<Item = &'a Value>) -> Vec<(i64, i64, i64, i64)> {
    let mut v: Vec<_> = executions
        .map(|e| {
            let n = |k: &str| e[k].as_i64().unwrap();
            (n("start"), n("end"), n("tid"), n("duration"))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn each_host_is_read_on_its_own_and_named() {
    let tmp = TempDir::new("hosts-two-boots");
    let root = two_boots(tmp.path());
    let root_s = root.to_str().unwrap();
    let both = valid_json_output(
        "analyze-result.schema.json",
        &[
            "analyze",
            root_s,
            "--preset",
            "running",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert_eq!(both["hosts"], serde_json::json!(["a", "b"]));
    for host in ["a", "b"] {
        let alone = run_json(&[
            "analyze",
            root.join(host).to_str().unwrap(),
            "--preset",
            "running",
            "--format",
            "json",
            "--no-store",
        ]);
        assert!(alone.get("hosts").is_none(), "one host is not named");
        let mine = both["executions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["host"] == host);
        let alone_keys = keys(alone["executions"].as_array().unwrap().iter());
        assert!(!alone_keys.is_empty());
        assert_eq!(
            keys(mine),
            alone_keys,
            "host {host}: the same executions as its trace alone"
        );
        let picked = run_json(&[
            "analyze", root_s, "--host", host, "--preset", "running", "--format", "json",
        ]);
        assert_eq!(
            keys(picked["executions"].as_array().unwrap().iter()),
            alone_keys
        );
    }

    // explain reads the longest execution's own host, and says which.
    let longest = both["executions"][0].clone();
    let explained = valid_json_output(
        "explain-result.schema.json",
        &[
            "explain",
            root_s,
            "--preset",
            "running",
            "--longest",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert_eq!(explained["host"], longest["host"]);
    assert_eq!(explained["execution"]["start"], longest["start"]);
    assert_eq!(explained["execution"]["tid"], longest["tid"]);

    // The table names each execution's host.
    let out = sextant(&[
        "analyze", root_s, "--preset", "running", "--format", "table",
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    let header = table.lines().find(|l| l.contains("rank")).unwrap();
    assert!(header.contains("host"), "{table}");
}

#[test]
fn commands_that_need_one_host_say_so() {
    let tmp = TempDir::new("hosts-need-one");
    let root = two_boots(tmp.path());
    let root_s = root.to_str().unwrap();
    let out = sextant(&["discover", root_s, "--process", "^rt_high$"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 different hosts")
            && err.contains("a: 1 trace(s)")
            && err.contains("--host"),
        "{err}"
    );
    let out = sextant(&["analyze", root_s, "--host", "c", "--preset", "running"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no host `c`") && err.contains("b: 1 trace(s)"),
        "{err}"
    );
    let out = sextant(&[
        "export",
        root_s,
        "--states",
        "--out",
        tmp.path().join("s.csv").to_str().unwrap(),
    ]);
    assert!(!out.status.success(), "export mixes no hosts");
    // A listing of events has no model: every host's events, merged.
    let dump = sextant(&["dump", root_s, "--format", "none"]);
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
}

/// `export` of a model on a folder of two hosts writes every host's
/// executions with a `host` column, the same bytes as `analyze`'s CSV
/// (whose hosts the test above checks against each host read alone).
#[test]
fn export_names_each_execution_host() {
    let tmp = TempDir::new("hosts-export");
    let root = two_boots(tmp.path());
    let root_s = root.to_str().unwrap();
    let out = tmp.path().join("x.csv");
    let export = sextant(&[
        "export",
        root_s,
        "--preset",
        "running",
        "--out",
        out.to_str().unwrap(),
        "--no-store",
    ]);
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let analyze = sextant(&[
        "analyze",
        root_s,
        "--preset",
        "running",
        "--format",
        "csv",
        "--sort",
        "start",
        "--no-store",
    ]);
    assert!(analyze.status.success());
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written, String::from_utf8(analyze.stdout).unwrap());
    let header = written.lines().next().unwrap();
    assert!(header.ends_with(",host"), "{header}");
    let hosts: std::collections::BTreeSet<&str> = written
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(hosts, ["a", "b"].into_iter().collect());
}

/// The two virtual machines of Trace Compass's synchronisation test traces:
/// per host the thread counts each machine has, never the 139 of both mixed.
#[test]
fn synctraces_are_two_machines() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let sync = shared.join("traces/ctf/synctraces");
    let doc = run_json(&[
        "analyze",
        sync.to_str().unwrap(),
        "--preset",
        "whole-thread",
        "--format",
        "json",
        "--no-store",
    ]);
    assert_eq!(doc["hosts"], serde_json::json!(["VM3", "VM1"]));
    let mut threads = std::collections::BTreeMap::<String, std::collections::BTreeSet<i64>>::new();
    for e in doc["executions"].as_array().unwrap() {
        threads
            .entry(e["host"].as_str().unwrap().to_string())
            .or_default()
            .insert(e["tid"].as_i64().unwrap());
    }
    let counts: Vec<(String, usize)> = threads.into_iter().map(|(h, t)| (h, t.len())).collect();
    assert_eq!(counts, [("VM1".to_string(), 78), ("VM3".to_string(), 89)]);
}
