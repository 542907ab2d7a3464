//! BTF traces end to end, against computations made here from the files'
//! text with plain string splitting (not the reader): running intervals per
//! task on the three traces of `../shared/traces/btf`, task instances of the
//! TA Simulator trace with their runnables and polling, and the errors of
//! malformed files (line and column, or `--lenient` counts), a 1 GiB line
//! among them. The tests on `../shared` skip with a message when it is absent.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{sextant, shared_dir, skip_shared, valid_json_output};
use serde_json::Value;

fn btf(name: &str) -> Option<PathBuf> {
    let p = shared_dir()?.join("traces/btf").join(name);
    p.is_file().then_some(p)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

// ---------------------------------------------------------------------------
// The independent reading: lines split on commas.

struct Text {
    /// Nanoseconds per unit of the time column.
    ns: i64,
    /// The data rows, split into (at most 8) fields, trimmed.
    rows: Vec<Vec<String>>,
}

fn read_text(path: &Path) -> Text {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ns = 1;
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(scale) = line.strip_prefix("#timeScale ") {
            ns = match scale.trim() {
                "ns" => 1,
                "us" => 1_000,
                "ms" => 1_000_000,
                "s" => 1_000_000_000,
                other => panic!("time scale {other}"),
            };
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        rows.push(line.splitn(8, ',').map(|f| f.trim().to_string()).collect());
    }
    Text { ns, rows }
}

/// A task as the test identifies it: the FreeRTOS number of `[c/nnnn]Name`
/// (the core prefix is not part of the task), else the name.
fn task_key(name: &str) -> String {
    match name.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((prefix, _)) => prefix
            .split('/')
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            .to_string(),
        None => name.to_string(),
    }
}

/// Per task: the number of running intervals and their summed time. An
/// interval opens at start / resume / poll_parking and closes at preempt /
/// terminate / wait / park (polling holds the core, so poll and run neither
/// open nor close one); a FreeRTOS creation (a preempt noted `create`)
/// closes nothing. Intervals whose opening the trace does not show, and
/// empty ones, are not counted.
fn running_by_task(t: &Text) -> BTreeMap<String, (u64, i64)> {
    let mut open: BTreeMap<String, i64> = BTreeMap::new();
    let mut out: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for r in &t.rows {
        if r[3] != "T" && r[3] != "I" {
            continue;
        }
        let ts = r[0].parse::<i64>().unwrap() * t.ns;
        let key = task_key(&r[4]);
        let note = r.get(7).map_or("", String::as_str);
        match r[6].as_str() {
            "start" | "resume" | "poll_parking" => {
                open.insert(key, ts);
            }
            "preempt" if note.starts_with("create") => {}
            "preempt" | "terminate" | "wait" | "park" => {
                if let Some(from) = open.remove(&key) {
                    if ts > from {
                        let e = out.entry(key).or_default();
                        e.0 += 1;
                        e.1 += ts - from;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn analyze(trace: &Path, args: &[&str]) -> Value {
    let mut all = vec!["analyze", s(trace)];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    valid_json_output("analyze-result.schema.json", &all)
}

/// Executions grouped by task (FreeRTOS: by thread id, the task number;
/// otherwise by name): count and summed `field`.
fn by_task(doc: &Value, freertos: bool, field: &str) -> BTreeMap<String, (u64, i64)> {
    let mut out: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for x in doc["executions"].as_array().unwrap() {
        let key = if freertos {
            x["tid"].as_i64().unwrap().to_string()
        } else {
            x["end_comm"].as_str().unwrap().to_string()
        };
        let e = out.entry(key).or_default();
        e.0 += 1;
        e.1 += x[field].as_i64().unwrap();
    }
    out
}

#[test]
fn running_intervals_per_task_match_the_text() {
    let Some(dir) = shared_dir() else {
        return skip_shared();
    };
    for (name, freertos) in [
        ("freertos-example-4cores.btf", true),
        ("freertos-example.btf", true),
        ("ta-simulator-20140219-123819.btf", false),
    ] {
        let path = dir.join("traces/btf").join(name);
        let expected = running_by_task(&read_text(&path));
        assert!(expected.len() >= 10, "{name}: {} tasks", expected.len());
        let doc = analyze(&path, &["--preset", "running"]);
        assert_eq!(by_task(&doc, freertos, "running"), expected, "{name}");
        assert_eq!(by_task(&doc, freertos, "duration"), expected, "{name}");
        assert!(
            doc["trace"]["warnings"].as_array().unwrap().is_empty(),
            "{name}: {}",
            doc["trace"]["warnings"]
        );
    }
}

#[test]
fn task_instances_of_the_ta_simulator() {
    let Some(path) = btf("ta-simulator-20140219-123819.btf") else {
        return skip_shared();
    };
    let t = read_text(&path);
    // Activations and terminations per (task, instance); runnables per
    // (task, task instance); polling per (task, instance).
    let mut activated: BTreeMap<(String, String), i64> = BTreeMap::new();
    let mut expected: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    let mut instances: BTreeMap<(String, i64), (i64, u64, i64)> = BTreeMap::new();
    let mut runnables: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut polling_since: BTreeMap<(String, String), i64> = BTreeMap::new();
    let mut polling: BTreeMap<(String, String), i64> = BTreeMap::new();
    for r in &t.rows {
        let ts = r[0].parse::<i64>().unwrap() * t.ns;
        let key = (r[4].clone(), r[5].clone());
        match (r[3].as_str(), r[6].as_str()) {
            ("T", "activate") => {
                activated.insert(key, ts);
            }
            ("T", "terminate") => {
                if let Some(a) = activated.remove(&key) {
                    let e = expected.entry(r[4].clone()).or_default();
                    e.0 += 1;
                    e.1 += ts - a;
                    let n = runnables.remove(&key).unwrap_or(0);
                    let p = polling.remove(&key).unwrap_or(0);
                    instances.insert((r[4].clone(), a), (ts - a, n, p));
                }
            }
            ("T", "poll") => {
                polling_since.insert(key, ts);
            }
            ("T", "run" | "park") => {
                if let Some(from) = polling_since.remove(&key) {
                    *polling.entry(key).or_default() += ts - from;
                }
            }
            ("R", "terminate") => {
                *runnables.entry((r[1].clone(), r[2].clone())).or_default() += 1;
            }
            _ => {}
        }
    }
    assert_eq!(
        expected.values().map(|e| e.0).sum::<u64>(),
        1643,
        "terminated instances in the text"
    );
    assert_eq!(expected.len(), 11, "tasks");
    let doc = analyze(&path, &["--preset", "task-instance"]);
    assert_eq!(by_task(&doc, false, "duration"), expected);
    let xs = doc["executions"].as_array().unwrap();
    let mut polled = 0;
    for x in xs {
        let i = |k: &str| x[k].as_i64().unwrap();
        let b = |k: &str| x["btf"][k].as_i64().unwrap();
        let (duration, nested, poll) =
            instances[&(x["end_comm"].as_str().unwrap().to_string(), i("start"))];
        assert_eq!(i("duration"), duration);
        assert_eq!(
            i("running") + i("preempted") + i("blocked") + i("waiting"),
            duration,
            "{x}"
        );
        let states = [
            "active", "ready", "running", "polling", "waiting", "parking",
        ];
        assert_eq!(states.iter().map(|k| b(k)).sum::<i64>(), duration, "{x}");
        assert_eq!(b("polling"), poll, "{x}");
        assert_eq!(
            x["nested"].as_array().map_or(0, Vec::len) as u64,
            nested,
            "{x}"
        );
        assert_eq!(x["btf"]["entity"], x["end_comm"]);
        polled += u64::from(poll > 0);
        for r in x["nested"].as_array().into_iter().flatten() {
            assert!(
                r["start"].as_i64() >= x["start"].as_i64()
                    && r["end"].as_i64() <= x["end"].as_i64(),
                "{r}"
            );
            assert!(
                r["btf"]["entity"].as_str().unwrap().starts_with("FUNC_"),
                "{r}"
            );
        }
    }
    assert_eq!(polled, 11, "instances that polled a semaphore");
    // A model naming BTF actions (schemas/examples/btf-task-instance.json)
    // finds the same instances of every task whose instances never overlap;
    // where one is activated while another of its task lives, the model,
    // keyed by thread, restarts and pairs activations and terminations of
    // different instances: the preset tells instances apart.
    let mut live: BTreeMap<&str, u64> = BTreeMap::new();
    let mut overlaps: BTreeMap<&str, u64> = BTreeMap::new();
    for r in t.rows.iter().filter(|r| r[3] == "T") {
        match r[6].as_str() {
            "activate" => {
                let n = live.entry(&r[4]).or_default();
                if *n > 0 {
                    *overlaps.entry(&r[4]).or_default() += 1;
                }
                *n += 1;
            }
            "terminate" => *live.get_mut(r[4].as_str()).unwrap() -= 1,
            _ => {}
        }
    }
    assert_eq!(overlaps.values().sum::<u64>(), 15, "{overlaps:?}");
    let model = common::repo_root().join("schemas/examples/btf-task-instance.json");
    let by_model = analyze(&path, &["--model", s(&model)]);
    let found = by_task(&by_model, false, "duration");
    for (task, counts) in &expected {
        if overlaps.contains_key(task.as_str()) {
            assert_ne!(found[task], *counts, "{task}");
        } else {
            assert_eq!(found[task], *counts, "{task}");
        }
    }
}

#[test]
fn files_are_recognised_by_content() {
    let Some(path) = btf("freertos-example.btf") else {
        return skip_shared();
    };
    let dir = Scratch::new("content");
    let link = dir.0.join("trace.data");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let a = analyze(&link, &["--preset", "running"]);
    let b = analyze(&path, &["--preset", "running"]);
    assert_eq!(a["executions"], b["executions"]);
}

// ---------------------------------------------------------------------------
// Malformed files

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sextant-btf-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, text: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `sextant analyze FILE --preset running` must fail with `FILE` + `suffix`
/// on stderr.
fn fails_with(file: &Path, extra: &[&str], suffix: &str) {
    let mut args = vec![
        "analyze",
        s(file),
        "--preset",
        "running",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = sextant(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{file:?}: {err}");
    let expected = format!("sextant: error: {}{suffix}", file.display());
    assert!(err.starts_with(&expected), "{err}\nexpected: {expected}");
}

const HEAD: &str = "#version 2.2.0\n#creator test\n#timeScale ns\n0,TIMER,0,T,TASK,0,activate\n100,Core_0,0,T,TASK,0,start\n";

#[test]
fn malformed_files_are_errors_naming_line_and_column() {
    let dir = Scratch::new("malformed");
    let cases: [(&str, String, &str); 6] = [
        (
            "truncated.btf",
            format!("{HEAD}200,Core_0,0,T"),
            ":6:15: truncated row: 4 fields, a BTF row has 7 or 8",
        ),
        (
            "number.btf",
            format!("{HEAD}2O0,Core_0,0,T,TASK,0,preempt\n"),
            ":6:2: time `2O0` is not a non-negative integer",
        ),
        (
            "instance.btf",
            format!("{HEAD}200,Core_0,0,T,TASK,#,preempt\n"),
            ":6:21: target instance `#` is not an integer",
        ),
        (
            "scale.btf",
            HEAD.replace("#timeScale ns", "#timeScale ks"),
            ":3:12: unknown time scale `ks` (ps, ns, us, ms or s)",
        ),
        (
            "backwards.btf",
            format!("{HEAD}# a comment\n50,Core_0,0,T,TASK,0,preempt\n"),
            ":7:1: time 50 is earlier than the previous row's 100: BTF rows are in time order",
        ),
        (
            "headless.btf",
            "0,TIMER,0,T,TASK,0,activate\n100,Core_0,0,T,TASK,0,start\n".into(),
            ": missing header: no `#version` line before the first row",
        ),
    ];
    for (name, text, suffix) in &cases {
        let f = dir.file(name, text.as_bytes());
        fails_with(&f, &[], suffix);
    }
    let empty = dir.file("empty.btf", b"");
    fails_with(&empty, &[], ": empty file: not a trace");
    // --lenient reads on: the malformed row is skipped and counted.
    for (name, _, _) in &cases[..5] {
        let f = dir.0.join(name);
        if *name == "scale.btf" {
            continue;
        }
        let doc = analyze(&f, &["--preset", "whole-thread", "--lenient"]);
        let w = doc["trace"]["warnings"].as_array().unwrap();
        assert_eq!(w.len(), 1, "{name}: {w:?}");
        assert!(
            w[0].as_str()
                .unwrap()
                .starts_with("1 malformed row skipped (--lenient), the first: line "),
            "{w:?}"
        );
        assert_eq!(doc["executions"].as_array().unwrap().len(), 1, "{name}");
    }
}

/// A file whose third line is 1 GiB long (sparse: it takes no disk space):
/// the reader stops at the line's first MiB, without reading it all.
#[test]
fn a_one_gib_line_is_refused_without_reading_it() {
    let dir = Scratch::new("huge");
    let path = dir.0.join("huge.btf");
    let head = b"#version 2.2.0\n#timeScale ns\n0,Core_0,0,T,TASK,0,start,";
    std::fs::write(&path, head).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    fails_with(
        &path,
        &[],
        ":3:1: line longer than 1 MiB: not a BTF row (a row is eight short fields)",
    );
    let doc = analyze(&path, &["--preset", "running", "--lenient"]);
    assert_eq!(doc["trace"]["events"], 0);
    let w = doc["trace"]["warnings"].as_array().unwrap();
    assert!(
        w[0].as_str()
            .unwrap()
            .contains("line 3, column 1: line longer than 1 MiB"),
        "{w:?}"
    );
}

// ---------------------------------------------------------------------------
// explain and discover

/// Per task: its intervals on `core` between [from, to] (a task runs on the
/// core named by the source of its start / resume until its preempt /
/// terminate / wait / poll_parking... closing row).
fn on_core(t: &Text, core: &str, from: i64, to: i64) -> BTreeMap<String, Vec<(i64, i64)>> {
    let mut open: BTreeMap<String, i64> = BTreeMap::new();
    let mut out: BTreeMap<String, Vec<(i64, i64)>> = BTreeMap::new();
    for r in t.rows.iter().filter(|r| r[3] == "T" && r[1] == core) {
        let ts = r[0].parse::<i64>().unwrap() * t.ns;
        match r[6].as_str() {
            "start" | "resume" | "poll_parking" => {
                open.insert(r[4].clone(), ts);
            }
            "preempt" | "terminate" | "wait" | "park" => {
                if let Some(a) = open.remove(&r[4]) {
                    let (a, b) = (a.max(from), ts.min(to));
                    if b > a {
                        out.entry(r[4].clone()).or_default().push((a, b));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The longest task instance of the TA Simulator trace, explained on its
/// core: its critical path is its own time line (it never waits), and who
/// held it back is who ran on its core while it was ready, as the text says.
#[test]
fn explain_a_task_instance() {
    let Some(path) = btf("ta-simulator-20140219-123819.btf") else {
        return skip_shared();
    };
    let t = read_text(&path);
    let doc = analyze(&path, &["--preset", "task-instance", "--top", "1"]);
    let x = &doc["executions"][0];
    let (start, end) = (x["start"].as_i64().unwrap(), x["end"].as_i64().unwrap());
    let name = x["end_comm"].as_str().unwrap();
    assert_eq!(x["cpus"], serde_json::json!([1]), "{x}");
    let explained = valid_json_output(
        "explain-result.schema.json",
        &[
            "explain",
            s(&path),
            "--preset",
            "task-instance",
            "--longest",
            "--cpus",
            "1",
            "--format",
            "json",
        ],
    );
    let path_pieces = explained["critical_path"].as_array().unwrap();
    assert_eq!(path_pieces.first().unwrap()["start"].as_i64(), Some(start));
    assert_eq!(path_pieces.last().unwrap()["end"].as_i64(), Some(end));
    let mut ready = Vec::new();
    for p in path_pieces {
        assert_eq!(p["comm"], name, "{p}");
        if matches!(p["state"].as_str(), Some("preempted" | "waiting_cpu")) {
            ready.push((p["start"].as_i64().unwrap(), p["end"].as_i64().unwrap()));
        }
    }
    let held: i64 = ready.iter().map(|(a, b)| b - a).sum();
    assert_eq!(
        held,
        x["preempted"].as_i64().unwrap() + x["waiting"].as_i64().unwrap()
    );
    // Who ran on Core_1 while it was ready: the text's intervals, cut to
    // the path's ready pieces.
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    for (task, spans) in on_core(&t, "Core_1", start, end) {
        for (a, b) in spans {
            for (c, d) in &ready {
                let (lo, hi) = (a.max(*c), b.min(*d));
                if hi > lo {
                    *expected.entry(task.clone()).or_default() += hi - lo;
                }
            }
        }
    }
    assert!(expected.len() >= 3, "{expected:?}");
    let culprits: BTreeMap<String, i64> = explained["culprits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["comm"].as_str().unwrap().to_string(),
                c["duration"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(culprits, expected);
}

#[test]
fn discover_the_jobs_of_a_task() {
    let Some(path) = btf("ta-simulator-20140219-123819.btf") else {
        return skip_shared();
    };
    let out = sextant(&[
        "discover",
        s(&path),
        "--process",
        "^TASK_5MS$",
        "--start-event",
        "T_activate",
        "--within-job",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let patterns = doc["patterns"].as_array().unwrap();
    assert!(!patterns.is_empty(), "{doc}");
    // The task's instances (100 in the text) each activate, start, run a
    // runnable and terminate.
    let t = read_text(&path);
    let jobs = t
        .rows
        .iter()
        .filter(|r| r[4] == "TASK_5MS" && r[6] == "activate")
        .count() as u64;
    let whole = patterns.iter().find(|p| {
        let e: Vec<&str> = p["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        e.contains(&"T_activate")
            && e.contains(&"T_start")
            && e.contains(&"R_start")
            && e.contains(&"T_terminate")
    });
    let whole = whole.unwrap_or_else(|| panic!("no whole-job pattern in {doc}"));
    assert!(
        whole["support"].as_u64().unwrap() + 1 >= jobs,
        "{whole} of {jobs} jobs"
    );
}
