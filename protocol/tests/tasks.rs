//! `sextant tasks` against ground truth nobody tuned to: the taskset
//! program's own truth (fixtures/taskset), scenario-a's rt_high (its
//! program's ground truth and the shipped model), and the TA simulator's
//! task names, which say their periods.

mod common;

use common::{repo_root, run_json, shared_dir, skip_shared, valid_json_output, TempDir};
use serde_json::Value;

fn tasks_of(trace: &str, extra: &[&str]) -> Value {
    let mut args = vec!["tasks", trace, "--format", "json"];
    args.extend_from_slice(extra);
    valid_json_output("tasks.schema.json", &args)
}

fn find(doc: &Value, tid: i64) -> Option<&Value> {
    doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tid"] == tid)
}

/// Every periodic thread of the truth found with its period within 1 %,
/// and no other thread of the program called periodic.
fn check_taskset(trace: &str, truth: &str) {
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_root().join(truth)).unwrap()).unwrap();
    let doc = tasks_of(repo_root().join(trace).to_str().unwrap(), &[]);
    for t in truth["threads"].as_array().unwrap() {
        let (name, tid) = (t["name"].as_str().unwrap(), t["tid"].as_i64().unwrap());
        let found = find(&doc, tid);
        match t["kind"].as_str().unwrap() {
            "periodic" => {
                let f = found.unwrap_or_else(|| panic!("{trace}: {name} not found"));
                assert_eq!(f["kind"], "periodic", "{trace}: {name}: {f}");
                let (p, want) = (f["period"].as_f64().unwrap(), t["period"].as_f64().unwrap());
                assert!(
                    (p - want).abs() <= 0.01 * want,
                    "{trace}: {name}: period {p}, truth {want}"
                );
                let policy = if t["policy"] == "SCHED_OTHER" {
                    "SCHED_OTHER"
                } else {
                    "FIFO/RR"
                };
                assert_eq!(f["policy"], policy, "{trace}: {name}");
                if t["policy"] == "SCHED_FIFO" {
                    let rt = t["rt_priority"].as_i64().unwrap();
                    assert_eq!(f["priority"], format!("FIFO/RR {rt}"), "{trace}: {name}");
                }
            }
            kind => {
                if let Some(f) = found {
                    assert_ne!(f["kind"], "periodic", "{trace}: {name} is {kind}: {f}");
                }
                if kind == "sporadic" {
                    let f = found.unwrap_or_else(|| panic!("{trace}: sporadic {name} not found"));
                    assert_eq!(f["kind"], "sporadic", "{trace}: {name}: {f}");
                    let least = f["min_interarrival"].as_f64().unwrap();
                    let floor = t["min_interarrival"].as_f64().unwrap();
                    assert!(least >= 0.99 * floor, "{trace}: {name}: {least} < {floor}");
                }
            }
        }
    }
}

#[test]
fn taskset_ftrace_text() {
    check_taskset(
        "fixtures/taskset/trace.txt",
        "fixtures/taskset/truth-ftrace.json",
    );
}

#[test]
fn taskset_capture_ctf() {
    check_taskset("fixtures/taskset/ctf", "fixtures/taskset/truth-ctf.json");
}

/// perf, scheduler and timer events only: releases told without syscalls.
#[test]
fn taskset_perf_ctf() {
    check_taskset("fixtures/taskset/perf", "fixtures/taskset/truth-perf.json");
}

/// rt_high: its period from the program, and with the shipped model's 1 ms
/// deadline the same misses as `analyze` with that model and as the
/// program's own `late` column.
#[test]
fn scenario_a_rt_high() {
    let trace = repo_root().join("fixtures/scenario-a/ctf");
    let trace = trace.to_str().unwrap();
    let doc = tasks_of(trace, &["--deadline", "1ms"]);
    let high: Vec<&Value> = doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["comm"] == "rt_high")
        .collect();
    assert_eq!(high.len(), 1, "{doc}");
    let high = high[0];
    assert_eq!(high["kind"], "periodic");
    let p = high["period"].as_f64().unwrap();
    assert!((p - 1e7).abs() <= 1e5, "period {p}");
    let truth = common::tsv(&repo_root().join("fixtures/scenario-a/ground-truth.tsv"));
    let late = truth.iter().filter(|r| r["late"] == "1").count() as u64;
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let analyzed = run_json(&[
        "analyze",
        trace,
        "--model",
        model.to_str().unwrap(),
        "--format",
        "json",
        "--no-store",
    ]);
    let shipped = analyzed["stats"]["deadline_misses"].as_u64().unwrap();
    assert_eq!(high["misses"].as_u64().unwrap(), shipped, "{high}");
    assert_eq!(shipped, late);
}

/// The emitted model, run by `analyze`, finds the same jobs: as many, with
/// durations that agree (the model starts at the return of the sleep call,
/// a few µs after the release).
#[test]
fn emitted_models_find_the_same_jobs() {
    let dir = TempDir::new("tasks-models");
    let trace = repo_root().join("fixtures/taskset/trace.txt");
    let trace = trace.to_str().unwrap();
    let doc = tasks_of(trace, &["--emit-models", dir.path().to_str().unwrap()]);
    let mut checked = 0;
    for t in doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == "periodic")
    {
        let (comm, tid) = (t["comm"].as_str().unwrap(), t["tid"].as_i64().unwrap());
        let path = dir.path().join(format!("{comm}-{tid}.json"));
        let on_disk: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(on_disk, t["model"]);
        let found = run_json(&[
            "analyze",
            trace,
            "--model",
            path.to_str().unwrap(),
            "--format",
            "json",
            "--no-store",
        ]);
        let n = found["stats"]["count"].as_u64().unwrap();
        let jobs = t["jobs"].as_u64().unwrap();
        assert!(
            n.abs_diff(jobs) <= 1,
            "{comm}: analyze found {n} executions, tasks {jobs} jobs"
        );
        let exact = t["model"]["mode"] == "different_tids";
        if exact {
            // From the wake-up to the blocking switch: the same jobs. The
            // median only: on ts_2500us one job of `tasks` (2.8 ms) is not
            // found by the model (longest 453 us), not yet understood;
            // ts_house: 20 jobs, medians 4.250 vs 4.254 ms.
            let want = t["response"]["p50"].as_f64().unwrap();
            let p50 = found["stats"]["p50"].as_f64().unwrap();
            assert!(
                (p50 - want).abs() <= 0.02 * want + 1000.0,
                "{comm}: median {p50} vs response {want}"
            );
            checked += 1;
            continue;
        }
        // The model's jobs start at the return of the sleep call, after
        // the wake-up latency: never longer than the responses, close to them.
        let (max, p50) = (
            found["stats"]["max"].as_f64().unwrap(),
            found["stats"]["p50"].as_f64().unwrap(),
        );
        let (want_max, want_p50) = (
            t["response"]["max"].as_f64().unwrap(),
            t["response"]["p50"].as_f64().unwrap(),
        );
        assert!(
            max <= want_max + 10_000.0,
            "{comm}: longest {max} vs response {want_max}"
        );
        assert!(
            (p50 - want_p50).abs() <= 0.2 * want_p50 + 50_000.0,
            "{comm}: median {p50} vs {want_p50}"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{doc}");
}

/// TA simulator: every task named after a period (TASK_10MS_DL2,
/// TASK_200MS) found periodic with the period of its activation rows (read
/// from the text here, split on commas), which is the name's for all but
/// TASK_5MS: its stimulus TIMER-5MS fires every 2 ms in this trace.
#[test]
fn ta_simulator_periods_from_names() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let trace = shared.join("traces/btf/ta-simulator-20140219-123819.btf");
    if !trace.exists() {
        return skip_shared();
    }
    let text = std::fs::read_to_string(&trace).unwrap();
    let activations = |task: &str| -> Vec<i64> {
        text.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| f.len() >= 7 && f[3] == "T" && f[4] == task && f[6] == "activate")
            .map(|f| f[0].parse().unwrap())
            .collect()
    };
    let doc = tasks_of(trace.to_str().unwrap(), &[]);
    let re = regex::Regex::new(r"(?i)_(\d+)(MS|US)").unwrap();
    let mut by_name = 0;
    for t in doc["tasks"].as_array().unwrap() {
        let comm = t["comm"].as_str().unwrap();
        let Some(c) = re.captures(comm) else { continue };
        let n: f64 = c[1].parse().unwrap();
        let named = if c[2].eq_ignore_ascii_case("ms") {
            n * 1e6
        } else {
            n * 1e3
        };
        let rows = activations(comm);
        let mut gaps: Vec<i64> = rows.windows(2).map(|w| w[1] - w[0]).collect();
        gaps.sort_unstable();
        let from_rows = gaps[gaps.len() / 2] as f64;
        assert_eq!(t["kind"], "periodic", "{comm}: {t}");
        assert_eq!(t["released_by"], "activation", "{comm}");
        let p = t["period"].as_f64().unwrap();
        assert!(
            (p - from_rows).abs() <= 0.01 * from_rows,
            "{comm}: period {p}, rows {from_rows}"
        );
        if (from_rows - named).abs() <= 0.01 * named {
            by_name += 1;
        } else {
            assert_eq!(
                comm, "TASK_5MS",
                "{comm}: rows say {from_rows}, name {named}"
            );
        }
    }
    assert!(by_name >= 5, "{doc}");
}

#[test]
fn bad_deadline_is_an_error() {
    let out = common::sextant(&["tasks", "fixtures/taskset/trace.txt", "--deadline", "soon"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--deadline soon"), "{err}");
}
