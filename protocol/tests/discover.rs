//! `sextant discover` on scenario (a): rt_high's periodic job (wake from
//! `clock_nanosleep`, send a request on a message queue, receive the reply,
//! sleep again) is what MANEPI finds, in both recordings (perf CTF and ftrace
//! text), and the pattern it emits as a model finds one execution per period
//! through `sextant analyze`.

mod common;

use std::path::PathBuf;

use common::{repo_root, sextant};
use serde_json::Value;

fn fixture(rel: &str) -> String {
    let p: PathBuf = repo_root().join("fixtures").join(rel);
    p.to_str().expect("a UTF-8 path").to_string()
}

/// Both recordings of scenario (a), with rt_high's thread id in each.
fn scenario_a() -> [(String, i64); 2] {
    [
        (fixture("scenario-a/ctf"), 4611),
        (fixture("scenario-a/trace.txt"), 4620),
    ]
}

/// Periods in the ground truth (one row each).
fn periods() -> usize {
    let gt = std::fs::read_to_string(fixture("scenario-a/ground-truth.tsv")).unwrap();
    gt.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("period"))
        .count()
}

fn run_ok(args: &[&str]) -> String {
    let out = sextant(args);
    assert!(
        out.status.success(),
        "sextant {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn run_err(args: &[&str]) -> String {
    let out = sextant(args);
    assert!(!out.status.success(), "sextant {args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

fn discover_json(trace: &str, args: &[&str]) -> Value {
    let mut all = vec!["discover", trace, "--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(&run_ok(&all)).expect("discover --format json prints JSON")
}

fn events(pattern: &Value) -> Vec<&str> {
    pattern["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect()
}

const JOB: [&str; 10] = [
    "syscall_exit_clock_nanosleep",
    "syscall_entry_mq_timedsend",
    "sched_waking",
    "sched_wakeup",
    "syscall_exit_mq_timedsend",
    "syscall_entry_mq_timedreceive",
    "sched_switch",
    "syscall_exit_mq_timedreceive",
    "syscall_entry_clock_nanosleep",
    "hrtimer_start",
];

/// rt_high's events in one period: the job, then the switch out in its sleep.
const PERIOD: [&str; 11] = [
    "syscall_exit_clock_nanosleep",
    "syscall_entry_mq_timedsend",
    "sched_waking",
    "sched_wakeup",
    "syscall_exit_mq_timedsend",
    "syscall_entry_mq_timedreceive",
    "sched_switch",
    "syscall_exit_mq_timedreceive",
    "syscall_entry_clock_nanosleep",
    "hrtimer_start",
    "sched_switch",
];

/// Whether `p` is one period read from any of its events: each of its ten
/// event types once, in the order of a rotation of `PERIOD`.
fn is_one_period(p: &[&str]) -> bool {
    let n = PERIOD.len();
    p.len() == JOB.len()
        && (0..n).any(|r| {
            let mut rotation = (0..n).map(|i| PERIOD[(r + i) % n]);
            p.iter().all(|e| rotation.any(|x| x == *e))
        })
}

#[test]
fn the_periodic_job_is_the_top_pattern() {
    for (trace, _) in scenario_a() {
        let doc = discover_json(&trace, &["--process", "^rt_high$"]);
        assert_eq!(doc["partial"], false, "{trace}");
        let patterns = doc["patterns"].as_array().unwrap();
        assert!(!patterns.is_empty(), "{trace}: no pattern");
        // The default admits the 10 most frequent types: the job's.
        let top = &patterns[0];
        assert!(is_one_period(&events(top)), "{trace}: top pattern {top}");
        assert!(top["support"].as_u64().unwrap() >= 99, "{trace}: {top}");
        // Ranked by coverage.
        let cov: Vec<f64> = patterns
            .iter()
            .map(|p| p["coverage"].as_f64().unwrap())
            .collect();
        assert!(cov.windows(2).all(|w| w[0] >= w[1]), "{trace}: {cov:?}");
        // Every maximal pattern (--all): ranked by support, then length.
        let all = discover_json(&trace, &["--process", "^rt_high$", "--all"]);
        let keys: Vec<(u64, usize)> = all["patterns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["support"].as_u64().unwrap(), events(p).len()))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{trace}: {keys:?}");
        assert_eq!(keys.len() as u64, doc["maximal"].as_u64().unwrap());
    }
}

/// At a low support, MANEPI's maximal patterns are thousands of readings
/// of the same job (from each of its events, across period boundaries):
/// what is shown are the few distinct ones, each one period, the rest
/// merged and counted; a cap says how many more there are.
#[test]
fn a_low_support_shows_the_distinct_patterns_only() {
    let trace = fixture("scenario-a/ctf");
    let args = ["--process", "^rt_high$", "--min-support", "50"];
    let doc = discover_json(&trace, &args);
    let maximal = doc["maximal"].as_u64().unwrap();
    assert!(maximal > 1000, "{maximal} maximal patterns");
    let shown = doc["patterns"].as_array().unwrap();
    assert!(!shown.is_empty() && shown.len() <= 10, "{doc}");
    let merged: u64 = shown
        .iter()
        .map(|p| 1 + p["rotations"].as_u64().unwrap() + p["variants"].as_u64().unwrap())
        .sum();
    // Few enough to be shown in full, and together they are every one.
    assert_eq!(doc["more"], 0, "{doc}");
    assert_eq!(merged, maximal, "{doc}");
    for p in shown {
        assert!(is_one_period(&events(p)), "{p}");
    }
    // --all: every maximal pattern, the distinct ones among them.
    let mut all_args = args.to_vec();
    all_args.push("--all");
    let all = discover_json(&trace, &all_args);
    let all = all["patterns"].as_array().unwrap();
    assert_eq!(all.len() as u64, maximal);
    for p in shown {
        assert!(all.iter().any(|q| q["events"] == p["events"]), "{p}");
    }
    // --limit: the first, and how many more.
    let mut one = args.to_vec();
    one.extend(["--limit", "1"]);
    let capped = discover_json(&trace, &one);
    assert_eq!(capped["patterns"].as_array().unwrap().len(), 1);
    assert_eq!(capped["patterns"][0], shown[0]);
    assert_eq!(capped["more"].as_u64().unwrap() as usize, shown.len() - 1);
    let mut table = vec!["discover", trace.as_str(), "--format", "table"];
    table.extend(&one);
    let text = run_ok(&table);
    assert!(text.contains(&format!("{maximal} maximal")), "{text}");
    if shown.len() > 1 {
        assert!(
            text.contains(&format!("({} more", shown.len() - 1)),
            "{text}"
        );
    }
    assert_eq!(
        text.lines().filter(|l| l.contains(" > ")).count(),
        1,
        "{text}"
    );
    let e = run_err(&["discover", &trace, "--tid", "4611", "--all", "--limit", "3"]);
    assert!(e.contains("cannot be used with"), "{e}");
}

#[test]
fn starting_from_the_wakeup_gives_the_job_once_per_period() {
    for (trace, _) in scenario_a() {
        let doc = discover_json(
            &trace,
            &[
                "--process",
                "^rt_high$",
                "--min-support",
                "90",
                "--start-event",
                "syscall_exit_clock_nanosleep",
            ],
        );
        let top = &doc["patterns"][0];
        assert_eq!(events(top), JOB, "{trace}: {doc}");
        // Every period but the last, which ends without sleeping again.
        assert_eq!(
            top["support"].as_u64().unwrap() as usize,
            periods() - 1,
            "{trace}"
        );
        // Raw (perf) spellings are accepted for start events.
        let raw = discover_json(
            &trace,
            &[
                "--process",
                "^rt_high$",
                "--min-support",
                "90",
                "--start-event",
                "syscalls:sys_exit_clock_nanosleep",
            ],
        );
        assert_eq!(raw["patterns"], doc["patterns"], "{trace}");
    }
}

#[test]
fn tid_and_process_select_the_same_thread() {
    for (trace, tid) in scenario_a() {
        let by_name = discover_json(&trace, &["--process", "^rt_high$"]);
        let by_tid = discover_json(&trace, &["--tid", &tid.to_string()]);
        assert_eq!(by_name["threads"], serde_json::json!([tid]), "{trace}");
        assert_eq!(by_tid["threads"], serde_json::json!([tid]), "{trace}");
        // By tid, the events before the thread took its name count too.
        assert!(
            by_tid["events"].as_u64() >= by_name["events"].as_u64(),
            "{trace}"
        );
        // The same pattern (its coverage is of more events by tid).
        for key in ["events", "support"] {
            assert_eq!(
                by_tid["patterns"][0][key], by_name["patterns"][0][key],
                "{trace}"
            );
        }
    }
}

#[test]
fn emitted_model_finds_the_periods_with_analyze() {
    for (trace, _) in scenario_a() {
        let model = run_ok(&["discover", &trace, "--process", "^rt_high$", "--emit-model"]);
        let m: Value = serde_json::from_str(&model).unwrap();
        assert_eq!(m["mode"], "same_tid");
        assert_eq!(m["threads"]["process"], "^rt_high$");
        let out = run_ok(&["analyze", &trace, "--model", &model, "--format", "json"]);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let n = doc["executions"].as_array().unwrap().len();
        let p = periods();
        assert!(
            (p - 1..=p).contains(&n),
            "{trace}: {n} executions for {p} periods"
        );
        // Each execution spans about one 10 ms period.
        let p50 = doc["stats"]["p50"].as_i64().unwrap();
        assert!(
            (9_000_000..11_000_000).contains(&p50),
            "{trace}: median {p50} ns"
        );
    }
}

#[test]
fn limits_and_ranks() {
    let trace = fixture("scenario-a/ctf");
    let partial = discover_json(&trace, &["--process", "^rt_high$", "--time-limit", "0"]);
    assert_eq!(partial["partial"], true);
    let few = sextant(&[
        "discover",
        &trace,
        "--process",
        "^rt_high$",
        "--max-events",
        "50",
        "--format",
        "json",
    ]);
    assert!(few.status.success());
    let doc: Value = serde_json::from_slice(&few.stdout).unwrap();
    assert_eq!(doc["events"], 50);
    assert!(String::from_utf8_lossy(&few.stderr).contains("--max-events"));
    // Rank 2 is the second pattern of the list.
    let list = discover_json(&trace, &["--process", "^rt_high$"]);
    let second: Value = serde_json::from_str(&run_ok(&[
        "discover",
        &trace,
        "--process",
        "^rt_high$",
        "--emit-model",
        "--rank",
        "2",
    ]))
    .unwrap();
    let names: Vec<&str> = second["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, events(&list["patterns"][1]));
}

#[test]
fn errors_say_what_is_wrong() {
    let trace = fixture("scenario-a/ctf");
    let e = run_err(&["discover", &trace]);
    assert!(e.contains("--tid") && e.contains("--process"), "{e}");
    let e = run_err(&["discover", &trace, "--process", "("]);
    assert!(
        e.contains("--process is not a valid regular expression"),
        "{e}"
    );
    let e = run_err(&["discover", &trace, "--process", "^no_such_thread$"]);
    assert!(e.contains("no event of the chosen threads"), "{e}");
    let e = run_err(&[
        "discover",
        &trace,
        "--tid",
        "4611",
        "--min-support",
        "5",
        "--top-elements",
        "3",
    ]);
    assert!(e.contains("cannot be used with"), "{e}");
    let e = run_err(&[
        "discover",
        &trace,
        "--tid",
        "4611",
        "--emit-model",
        "--rank",
        "1000",
    ]);
    assert!(e.contains("no pattern of rank 1000"), "{e}");
}

/// The chosen threads' events are kept in the trace's store: a second run
/// (another threshold too) mines them without reading the trace, with the
/// same answer; damaged, they are said unusable and the trace is read again.
#[test]
fn a_second_run_mines_the_stored_sequences() {
    let dir = std::env::temp_dir().join(format!("sextant-discover-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.txt");
    std::fs::copy(fixture("scenario-a/trace.txt"), &trace).unwrap();
    let t = trace.to_str().unwrap();
    let store = dir.join("trace.txt.sextant");
    let fresh = discover_json(t, &["--tid", "4620", "--no-store"]);
    let fresh_low = discover_json(t, &["--tid", "4620", "--no-store", "--min-support", "50"]);
    assert!(!store.exists(), "--no-store wrote a store");
    assert_eq!(discover_json(t, &["--tid", "4620"]), fresh);
    let units: Vec<PathBuf> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("discovery-")
        })
        .collect();
    assert_eq!(units.len(), 1, "one unit for these threads");
    assert_eq!(discover_json(t, &["--tid", "4620"]), fresh);
    assert_eq!(
        discover_json(t, &["--tid", "4620", "--min-support", "50"]),
        fresh_low
    );
    let events = units[0].join("events.arrow");
    let mut bytes = std::fs::read(&events).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&events, bytes).unwrap();
    let out = sextant(&["discover", t, "--tid", "4620", "--format", "json"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("stored sequences not used") && stderr.contains("checksum"),
        "{stderr}"
    );
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again, fresh);
    std::fs::remove_dir_all(&dir).unwrap();
}
