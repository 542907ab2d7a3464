//! One time base in what people read: tables and text give times from the
//! trace's start, labelled, and `--clock absolute|wall` gives the trace
//! clock's seconds or the UTC date, as babeltrace2 prints them
//! (`--clock-seconds`, `--clock-gmt --clock-date`). Machine output keeps
//! absolute ns. Also here: priorities in tables as users set them, and an
//! explanation's parts per thread of a chain.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    dump_jsonl, repo_root, run_json, sextant, shared_dir, skip_shared, valid_json_output,
};

fn fixture(rel: &str) -> PathBuf {
    repo_root().join("fixtures").join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The bracketed time starting each line of `text`.
fn times(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let l = l.strip_prefix('[').expect("a line starting with [");
            l[..l.find(']').expect("a closing ]")].to_string()
        })
        .collect()
}

fn dump_times(trace: &Path, clock: &str) -> Vec<String> {
    let out = sextant(&["dump", s(trace), "--no-payload", "--clock", clock]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    times(&String::from_utf8(out.stdout).unwrap())
}

/// The times babeltrace2 prints, and whether it read the whole trace.
fn babeltrace2_times(trace: &Path, args: &[&str]) -> (Vec<String>, bool) {
    let out = Command::new("babeltrace2")
        .args(args)
        .arg(trace)
        .output()
        .expect("babeltrace2 (tests/run-all.sh installs it)");
    (
        times(&String::from_utf8(out.stdout).unwrap()),
        out.status.success(),
    )
}

/// "S.NNNNNNNNN" (a leading "+" or "-" allowed) in ns.
fn ns(t: &str) -> i64 {
    let t = t.trim_start_matches('+');
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (sec, frac) = t.split_once('.').expect("seconds with a fraction");
    assert_eq!(frac.len(), 9, "every digit of the ns: {t}");
    let v = sec.parse::<i64>().unwrap() * 1_000_000_000 + frac.parse::<i64>().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

#[test]
fn dump_text_is_from_the_start_by_default_and_babeltrace2_s_seconds_when_asked() {
    let trace = fixture("scenario-a/ctf");
    let absolute = dump_times(&trace, "absolute");
    let (oracle, whole) = babeltrace2_times(&trace, &["--clock-seconds"]);
    assert!(whole, "babeltrace2 reads the fixture");
    assert_eq!(
        absolute.len(),
        oracle.len(),
        "as many events as babeltrace2"
    );
    assert_eq!(
        absolute, oracle,
        "the trace's clock, as babeltrace2 --clock-seconds"
    );

    let relative = dump_times(&trace, "relative");
    let first = ns(&absolute[0]);
    for (r, a) in relative.iter().zip(&absolute) {
        assert!(r.starts_with('+'), "a time from the start says so: {r}");
        assert_eq!(ns(r), ns(a) - first, "{r} is {a} less the first event");
    }
    // The default is from the start.
    let out = sextant(&["dump", s(&trace), "--no-payload"]);
    assert_eq!(times(&String::from_utf8(out.stdout).unwrap()), relative);
}

#[test]
fn wall_times_are_babeltrace2_s_utc_dates() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    // Kernel and user-space streams of one LTTng session (multi-domains).
    let trace = shared.join("traces/ctf/multi-domains");
    let wall = dump_times(&trace, "wall");
    let (oracle, whole) = babeltrace2_times(&trace, &["--clock-gmt", "--clock-date"]);
    assert!(
        whole && !oracle.is_empty(),
        "babeltrace2 reads {}",
        trace.display()
    );
    assert_eq!(
        wall, oracle,
        "UTC dates as babeltrace2 --clock-gmt --clock-date"
    );
}

#[test]
fn wall_is_refused_for_a_clock_from_boot() {
    let trace = fixture("scenario-a/ctf");
    for args in [
        vec!["dump", s(&trace), "--clock", "wall"],
        vec![
            "analyze",
            s(&trace),
            "--preset",
            "running",
            "--format",
            "table",
            "--clock",
            "wall",
        ],
    ] {
        let out = sextant(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains(s(&trace)) && err.contains("--clock wall") && err.contains("Unix epoch"),
            "{args:?}: {err}"
        );
    }
}

const WORKER: &str = r#"{"name":"worker response","mode":"different_tids","start":{"name":"sched_process_fork","fields":{"child_tid":"$tid"}},"end":{"name":"sched_process_exit","fields":{"tid":"$tid"}},"start_threads":{"process":"^rt_timer$"},"end_threads":{"process":"^rt_worker$"},"deadline":1000000}"#;

/// analyze's table of the `top` longest executions of `WORKER`.
fn worker_table(trace: &Path, top: usize) -> String {
    let top = top.to_string();
    let args = [
        "analyze",
        s(trace),
        "--model",
        WORKER,
        "--format",
        "table",
        "--top",
        &top,
    ];
    String::from_utf8(sextant(&args).stdout).unwrap()
}

/// explain's text for the longest execution of `WORKER`.
fn worker_text(trace: &Path, more: &[&str]) -> String {
    let mut args = vec![
        "explain",
        s(trace),
        "--model",
        WORKER,
        "--longest",
        "--format",
        "text",
    ];
    args.extend_from_slice(more);
    String::from_utf8(sextant(&args).stdout).unwrap()
}

/// analyze's table and explain's text give the same start, from the trace's
/// first event and labelled so; the JSON keeps absolute ns.
#[test]
fn analyze_and_explain_give_one_start_from_the_trace_s_start() {
    let trace = fixture("scenario-b/ctf");
    let doc = run_json(&["analyze", s(&trace), "--model", WORKER, "--format", "json"]);
    let first = dump_jsonl(&trace)[0]["ts"].as_i64().unwrap();
    let longest = doc["executions"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|e| e["duration"].as_i64().unwrap())
        .unwrap();
    let start = longest["start"].as_i64().unwrap();
    let from_start = format!(
        "{}.{:09}",
        (start - first) / 1_000_000_000,
        (start - first) % 1_000_000_000
    );

    let table = worker_table(&trace, 1);
    let header = table
        .lines()
        .find(|l| l.contains("rank"))
        .expect("a header");
    assert!(header.contains("start (s from start)"), "{header}");
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .expect("rank 1");
    assert!(row.contains(&from_start), "{from_start} in {row}");

    let text = worker_text(&trace, &[]);
    assert!(
        text.lines().next().unwrap().ends_with(&format!(
            "(starts at {from_start} s from the trace's start)"
        )),
        "{text}"
    );
    let absolute = format!("{}.{:09}", start / 1_000_000_000, start % 1_000_000_000);
    let text = worker_text(&trace, &["--clock", "absolute"]);
    assert!(
        text.contains(&format!("(starts at {absolute} s on the trace's clock)")),
        "{text}"
    );
}

/// Tables give the priority as chrt sets it, the kernel's number beside;
/// JSON keeps the kernel's number.
#[test]
fn tables_give_priorities_as_users_set_them() {
    let trace = fixture("scenario-b/ctf");
    let doc = run_json(&["analyze", s(&trace), "--model", WORKER, "--format", "json"]);
    let prio = doc["executions"][0]["prio"]
        .as_i64()
        .expect("a known priority");
    assert!((0..=98).contains(&prio), "rt_worker is real-time: {prio}");
    let table = worker_table(&trace, 3);
    assert!(table.contains("priority (kernel)"), "{table}");
    let rows: Vec<&str> = table.lines().filter(|l| l.contains("rt_worker")).collect();
    assert_eq!(rows.len(), 3, "{table}");
    for r in rows {
        assert!(
            r.contains(&format!("FIFO/RR {} ({prio})", 99 - prio)),
            "{r}"
        );
    }
}

/// A chain's explanation gives each thread its part, in the order the path
/// reaches it, and the parts add up to the execution's duration.
#[test]
fn a_chain_s_parts_add_up_to_its_duration() {
    let trace = fixture("scenario-b/ctf");
    let doc = valid_json_output(
        "explain-result.schema.json",
        &[
            "explain",
            s(&trace),
            "--model",
            WORKER,
            "--longest",
            "--format",
            "json",
        ],
    );
    let e = &doc["execution"];
    let parts = doc["by_thread"].as_array().unwrap();
    let tids: Vec<i64> = parts.iter().map(|p| p["tid"].as_i64().unwrap()).collect();
    assert_eq!(
        tids,
        [
            e["start_tid"].as_i64().unwrap(),
            e["end_tid"].as_i64().unwrap()
        ]
    );
    let total: i64 = parts.iter().map(|p| p["total"].as_i64().unwrap()).sum();
    assert_eq!(total, e["duration"].as_i64().unwrap());
    for p in parts {
        let states: i64 = ["running", "preempted", "waiting", "blocked", "unknown"]
            .iter()
            .map(|k| p[k].as_i64().unwrap())
            .sum();
        assert_eq!(states, p["total"].as_i64().unwrap(), "{p}");
    }
    // The worker was born in the execution: its part is what analyze
    // measured on it.
    let worker = &parts[1];
    assert_eq!(worker["running"], e["running"]);
    assert_eq!(worker["waiting"], e["waiting"]);

    let text = worker_text(&trace, &[]);
    assert!(
        text.contains("time by thread (the parts add up to the duration):"),
        "{text}"
    );
}
