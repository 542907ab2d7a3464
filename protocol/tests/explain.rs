//! `sextant explain` against expectations computed without sextant: the
//! scenarios' ground truth (fixtures/scenario-*/ground-truth*.tsv: thread
//! ids, kernel priorities, the medium threads' and the hog's bursts) and, for
//! `../shared`'s many-threads, the futex waiters recomputed from babeltrace2's
//! decoding (tests/oracle/bt2_jsonl.py) with a per-CPU current-thread table.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use common::{repo_root, sextant, shared_dir, skip_shared, tsv};
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    repo_root().join("fixtures").join(rel)
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn explain_json(trace: &Path, args: &[&str]) -> Value {
    let mut all = vec!["explain", path_str(trace)];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = sextant(&all);
    assert!(
        out.status.success(),
        "sextant {all:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("explain --format json prints one JSON document")
}

/// name → (tid, kernel prio) from a `.threads` file.
fn threads(path: &Path) -> HashMap<String, (i64, i64)> {
    tsv(path)
        .into_iter()
        .filter_map(|r| {
            Some((
                r["name"].clone(),
                (r["tid"].parse().ok()?, r["kernel_prio"].parse().ok()?),
            ))
        })
        .collect()
}

/// name → "FIFO/RR 80": the priority as the scenario set it, as explain
/// writes it when the trace does not say FIFO or RR.
fn set_priorities(path: &Path) -> HashMap<String, String> {
    tsv(path)
        .into_iter()
        .filter(|r| r["policy"] == "SCHED_FIFO")
        .map(|r| (r["name"].clone(), format!("FIFO/RR {}", r["rt_priority"])))
        .collect()
}

fn num(r: &HashMap<String, String>, k: &str) -> i64 {
    r[k].parse()
        .unwrap_or_else(|_| panic!("ground truth field {k}: {}", r[k]))
}

/// The path covers the execution exactly, piece after piece, and every
/// nanosecond of it goes to one cause.
fn check_cover(doc: &Value) {
    let e = &doc["execution"];
    let path = doc["critical_path"].as_array().expect("critical_path[]");
    assert!(!path.is_empty());
    assert_eq!(
        path[0]["start"], e["start"],
        "path starts with the execution"
    );
    assert_eq!(path[path.len() - 1]["end"], e["end"], "path ends with it");
    for w in path.windows(2) {
        assert_eq!(w[0]["end"], w[1]["start"], "contiguous pieces: {w:?}");
    }
    let costs: i64 = doc["causes"]
        .as_array()
        .expect("causes[]")
        .iter()
        .map(|c| c["cost"].as_i64().unwrap())
        .sum();
    assert_eq!(Some(costs), e["duration"].as_i64(), "causes cover the path");
}

fn check_scenario_a(trace: &Path, gt: &Path) {
    let names = threads(&gt.with_extension("tsv.threads"));
    let set = set_priorities(&gt.with_extension("tsv.threads"));
    let (high, high_prio) = names["rt_high"];
    let (low, _) = names["rt_low"];
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let doc = explain_json(trace, &["--model", path_str(&model), "--longest"]);
    check_cover(&doc);
    let e = &doc["execution"];
    assert_eq!(e["tid"], high);
    assert_eq!(doc["prio"], high_prio, "rt_high's kernel priority");
    // The ground truth's slowest period is the one explained.
    let rows = tsv(gt);
    let worst = rows
        .iter()
        .max_by_key(|r| num(r, "response_ns"))
        .expect("periods");
    let (start, end) = (e["start"].as_i64().unwrap(), e["end"].as_i64().unwrap());
    assert!(
        num(worst, "release") <= start && start <= num(worst, "high_got"),
        "the longest execution is period {}",
        worst["period"]
    );
    // The path goes through rt_low, preempted.
    let path = doc["critical_path"].as_array().unwrap();
    assert!(
        path.iter()
            .any(|p| p["tid"] == low && p["state"] == "preempted"),
        "rt_low is on the path, preempted: {path:?}"
    );
    // Each medium thread of the burst held it back for its burst, at its
    // priority, which is lower than rt_high's: inversions.
    let culprits = doc["culprits"].as_array().expect("culprits[]");
    let bursts: Vec<&str> = worst["burst"].split('+').collect();
    assert!(!bursts.contains(&"none"));
    for b in &bursts {
        let name = format!("rt_{b}");
        let (tid, prio) = names[&name];
        let c = culprits
            .iter()
            .find(|c| c["tid"] == tid)
            .unwrap_or_else(|| panic!("{name} is not in the complement: {culprits:?}"));
        assert_eq!(c["prio"], prio, "{name}'s priority");
        assert_eq!(c["inversion"], true, "{name} is an inversion");
        let burst = num(worst, &format!("{b}_end")) - num(worst, &format!("{b}_start"));
        let held = c["duration"].as_i64().unwrap();
        assert!(
            (held - burst).abs() * 10 < burst,
            "{name} held the path {held} ns, its burst lasted {burst} ns"
        );
    }
    // The diagnosis names the medium threads first — every one of the
    // burst, their times summed when several took turns —, then rt_low they
    // preempted and rt_high waiting on it, with the priorities as set.
    let diagnosis = doc["diagnosis"].as_str().unwrap();
    assert!(diagnosis.starts_with("rt_med"), "{diagnosis}");
    for b in &bursts {
        let med = format!("rt_{b} ({})", set[&format!("rt_{b}")]);
        assert!(diagnosis.contains(&med), "{med} in: {diagnosis}");
    }
    if bursts.len() > 1 {
        assert!(diagnosis.contains(" in all, "), "{diagnosis}");
    }
    assert!(
        diagnosis.contains(&format!("preempted rt_low ({})", set["rt_low"]))
            && diagnosis.contains(&format!("while rt_high ({}) waited", set["rt_high"]))
            && diagnosis.contains("priority inversion"),
        "{diagnosis}"
    );
    assert_eq!(doc["inversion"], true);
    assert!(doc["relations"]["direct"]
        .as_array()
        .unwrap()
        .contains(&low.into()));
    // rt_high waits on the reply queue, empty until rt_low sends.
    let mq = doc["facilities"]["mq"].as_array().unwrap();
    assert!(
        mq.iter()
            .any(|m| m["state"] == "QUEUE_EMPTY_WHILE_RECEIVERS"
                && m["receivers"].as_array().unwrap().contains(&high.into())
                && m["end"].as_i64().unwrap() - m["start"].as_i64().unwrap() > (end - start) / 2),
        "rt_high waits on an empty queue for most of the job: {mq:?}"
    );
}

#[test]
fn scenario_a_ctf_inversion_through_rt_low() {
    check_scenario_a(
        &fixture("scenario-a/ctf"),
        &fixture("scenario-a/ground-truth.tsv"),
    );
}

#[test]
fn scenario_a_ftrace_inversion_through_rt_low() {
    check_scenario_a(
        &fixture("scenario-a/trace.txt"),
        &fixture("scenario-a/ground-truth-ftrace.tsv"),
    );
}

#[test]
fn scenario_a_each_med1_period_names_rt_med1() {
    // Period 6 of the ftrace run: med1 only (README). Executions are one per
    // period, from period 0.
    let trace = fixture("scenario-a/trace.txt");
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let doc = explain_json(&trace, &["--model", path_str(&model), "--execution", "6"]);
    check_cover(&doc);
    let d = doc["diagnosis"].as_str().unwrap();
    assert!(
        d.starts_with("rt_med1 (FIFO/RR 50) preempted rt_low (FIFO/RR 10)")
            && d.contains("priority inversion"),
        "{d}"
    );
}

const WORKER_MODEL: &str = r#"{"name":"worker","mode":"different_tids","start":{"name":"sched_process_fork","fields":{"child_tid":"$tid"}},"end":{"name":"sched_process_exit","fields":{"tid":"$tid"}},"start_threads":{"process":"^rt_timer$"}}"#;

#[test]
fn scenario_b_names_the_misconfigured_hog() {
    let names = threads(&fixture("scenario-b/ground-truth.tsv.threads"));
    let (hog, hog_prio) = names["rt_hog"];
    let doc = explain_json(
        &fixture("scenario-b/ctf"),
        &["--model", WORKER_MODEL, "--longest"],
    );
    check_cover(&doc);
    // The longest worker is one the ground truth says a hog burst delayed.
    let tid = doc["execution"]["tid"].as_i64().unwrap();
    let row = tsv(&fixture("scenario-b/ground-truth.tsv"))
        .into_iter()
        .find(|r| num(r, "tid") == tid)
        .expect("the worker is in the ground truth");
    assert_ne!(num(&row, "hog"), -1, "worker {tid} overlaps a hog burst");
    let culprits = doc["culprits"].as_array().unwrap();
    let c = culprits
        .iter()
        .find(|c| c["tid"] == hog)
        .expect("rt_hog held it back");
    assert_eq!(c["prio"], hog_prio);
    assert_eq!(c["related"], false);
    let d = doc["diagnosis"].as_str().unwrap();
    assert!(d.starts_with("rt_hog (FIFO/RR 65) "), "{d}");
    let main = doc["causes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["interference"] == true)
        .expect("interference");
    assert_eq!(main["by"]["tid"], hog);
    assert_eq!(main["by"]["prio"], hog_prio);
}

#[test]
fn bad_parameters_are_clear_errors() {
    let trace = fixture("scenario-a/ctf");
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let out = sextant(&[
        "explain",
        path_str(&trace),
        "--model",
        path_str(&model),
        "--execution",
        "100000",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no execution 100000") && err.contains("indices 0 to"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let none = r#"{"name":"never","events":[{"name":"no_such_event"}]}"#;
    let out = sextant(&["explain", path_str(&trace), "--model", none, "--longest"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("found none"));
    let out = sextant(&[
        "explain",
        path_str(&trace),
        "--model",
        path_str(&model),
        "--longest",
        "--execution",
        "1",
    ]);
    assert!(
        !out.status.success(),
        "--longest and --execution exclude each other"
    );
    let out = sextant(&["explain", path_str(&trace), "--model", path_str(&model)]);
    assert!(
        !out.status.success(),
        "one of --longest, --execution is required"
    );
}

#[test]
fn text_output_names_the_inversion() {
    let trace = fixture("scenario-a/ctf");
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let out = sextant(&[
        "explain",
        path_str(&trace),
        "--model",
        path_str(&model),
        "--longest",
        "--format",
        "text",
        "--cpus",
        "0",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PRIORITY INVERSION"), "{text}");
    assert!(
        text.contains("diagnosis: rt_med") && text.contains("preempted rt_low (FIFO/RR 10)"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// many-threads (../shared): futex waiters, recomputed from babeltrace2

fn oracle_lines(trace: &Path) -> Option<Vec<Value>> {
    let ok = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import bt2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3-bt2 is missing under CI"
        );
        eprintln!(
            "skipped: babeltrace2 Python bindings not installed (apt-get install python3-bt2)"
        );
        return None;
    }
    let out = std::process::Command::new("/usr/bin/python3")
        .arg(repo_root().join("tests/oracle/bt2_jsonl.py"))
        .arg(trace)
        .output()
        .expect("running the oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        out.stdout
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("JSON line"))
            .collect(),
    )
}

#[test]
fn many_threads_futex_waits_show_waiters() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let trace = shared.join("traces/ctf/many-threads");
    let model = r#"{"name":"futex wait","events":[{"name":"syscall_entry_futex","fields":{"op&127":0}},{"name":"syscall_exit_futex"}]}"#;
    let doc = explain_json(&trace, &["--model", model, "--longest"]);
    check_cover(&doc);
    let waits = doc["facilities"]["futex_waits"].as_array().unwrap();
    assert!(!waits.is_empty(), "futex waits in the range");
    let tid = doc["execution"]["tid"].as_i64().unwrap();
    assert!(
        waits
            .iter()
            .any(|w| w["waiters"].as_array().unwrap().contains(&tid.into())),
        "the analysed thread is among the waiters"
    );
    let Some(events) = oracle_lines(&trace) else {
        return;
    };
    // Waiters at every interval's midpoint, replayed from babeltrace2's events.
    let mut probes: Vec<(i64, u64, BTreeSet<i64>)> = waits
        .iter()
        .map(|w| {
            let mid = (w["start"].as_i64().unwrap() + w["end"].as_i64().unwrap()) / 2;
            let set = w["waiters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_i64().unwrap())
                .collect();
            (mid, w["uaddr"].as_u64().unwrap(), set)
        })
        .collect();
    probes.sort_by_key(|p| p.0);
    let mut current: HashMap<u64, i64> = HashMap::new();
    let mut in_wait: HashMap<i64, u64> = HashMap::new();
    let mut k = 0;
    for ev in &events {
        let ts = ev["ts"].as_i64().unwrap();
        while k < probes.len() && probes[k].0 < ts {
            let (mid, uaddr, want) = &probes[k];
            let got: BTreeSet<i64> = in_wait
                .iter()
                .filter(|(_, u)| *u == uaddr)
                .map(|(t, _)| *t)
                .collect();
            assert_eq!(&got, want, "waiters of futex {uaddr:#x} at {mid}");
            k += 1;
        }
        let cpu = ev["cpu"].as_u64().unwrap_or(0);
        let f = &ev["fields"];
        match ev["name"].as_str().unwrap() {
            "sched_switch" => {
                current.insert(cpu, f["next_tid"].as_i64().unwrap());
            }
            "syscall_entry_futex" => {
                let Some(&tid) = current.get(&cpu) else {
                    continue;
                };
                if matches!(f["op"].as_i64().unwrap() & !384, 0 | 6 | 9 | 11 | 13) {
                    in_wait.insert(tid, f["uaddr"].as_u64().unwrap());
                }
            }
            "syscall_exit_futex" => {
                if let Some(tid) = current.get(&cpu) {
                    in_wait.remove(tid);
                }
            }
            _ => {}
        }
    }
    assert_eq!(k, probes.len(), "every probe checked");
}
