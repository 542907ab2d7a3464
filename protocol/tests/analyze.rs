//! `sextant analyze` against expectations computed without sextant:
//!
//! * babeltrace2's decoding of the same trace (tests/oracle/bt2_jsonl.py), from
//!   which each test derives the expected executions with a few lines of
//!   straightforward code (pairs of events per thread, per-CPU current thread);
//! * the ground truth written by the scenario programs themselves
//!   (fixtures/scenario-*/ground-truth*.tsv, CLOCK_MONOTONIC ns, the same clock
//!   as the traces): late periods, worker response times, hog bursts;
//! * the ftrace text itself, parsed line by line.
//!
//! The babeltrace2 parts skip with a message when its Python bindings are
//! missing, except under CI (`CI` set), where that is a failure. The tests on
//! `../shared` skip with a message when it is absent.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{repo_root, sextant, shared_dir, skip_shared};
use serde_json::Value;

// ---------------------------------------------------------------------------
// Running sextant

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn fixture(rel: &str) -> PathBuf {
    repo_root().join("fixtures").join(rel)
}

fn rt_high_model() -> PathBuf {
    repo_root().join("schemas/examples/periodic-rt_high.json")
}

/// `sextant analyze TRACE ARGS --format json`, parsed.
fn analyze_json(trace: &Path, args: &[&str]) -> Value {
    let mut all = vec!["analyze", path_str(trace)];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = sextant(&all);
    assert!(
        out.status.success(),
        "sextant {all:?} failed ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("analyze --format json prints one JSON document")
}

#[derive(Debug, Clone)]
struct Exec {
    index: u64,
    start: u64,
    end: u64,
    duration: u64,
    tid: i64,
    deadline_miss: Option<bool>,
}

fn executions(doc: &Value) -> Vec<Exec> {
    let list = doc["executions"].as_array().expect("executions[]");
    list.iter()
        .map(|x| {
            let u = |k: &str| {
                x[k].as_u64()
                    .unwrap_or_else(|| panic!("execution field {k} is not an integer: {x}"))
            };
            let e = Exec {
                index: u("index"),
                start: u("start"),
                end: u("end"),
                duration: u("duration"),
                tid: x["tid"]
                    .as_i64()
                    .unwrap_or_else(|| panic!("execution without tid: {x}")),
                deadline_miss: x.get("deadline_miss").and_then(Value::as_bool),
            };
            assert!(e.start <= e.end, "execution ends before it starts: {x}");
            assert_eq!(e.duration, e.end - e.start, "duration != end - start: {x}");
            e
        })
        .collect()
}

fn stat(doc: &Value, key: &str) -> u64 {
    doc["stats"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("stats.{key} is not an integer: {}", doc["stats"]))
}

/// The executions as sorted (start, end) pairs.
fn pairs_of(execs: &[Exec]) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = execs.iter().map(|e| (e.start, e.end)).collect();
    v.sort_unstable();
    v
}

/// Fails with the first differences rather than two 1000-element dumps.
fn assert_same_sorted<T: Ord + std::fmt::Debug + Clone>(what: &str, ours: &[T], expected: &[T]) {
    if ours == expected {
        return;
    }
    let a: BTreeSet<T> = ours.iter().cloned().collect();
    let b: BTreeSet<T> = expected.iter().cloned().collect();
    let extra: Vec<&T> = a.difference(&b).take(10).collect();
    let missing: Vec<&T> = b.difference(&a).take(10).collect();
    panic!(
        "{what}: sextant has {} items, the expectation {}\n  only in sextant (first 10): {extra:?}\n  \
         only in the expectation (first 10): {missing:?}",
        ours.len(),
        expected.len()
    );
}

// ---------------------------------------------------------------------------
// The babeltrace2 oracle

fn oracle_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    let ok = *AVAILABLE.get_or_init(|| {
        std::process::Command::new("/usr/bin/python3")
            .args(["-c", "import bt2"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok && std::env::var_os("CI").is_some() {
        panic!("babeltrace2's Python bindings (python3-bt2) are missing: .ci/run installs them");
    }
    if !ok {
        eprintln!(
            "skipped: babeltrace2 Python bindings not installed (apt-get install python3-bt2)"
        );
    }
    ok
}

struct Ev {
    ts: u64,
    name: String,
    cpu: Option<u64>,
    fields: Value,
}

impl Ev {
    fn int(&self, key: &str) -> i64 {
        self.fields[key]
            .as_i64()
            .unwrap_or_else(|| panic!("{} at {}: no integer field {key}", self.name, self.ts))
    }
    fn text(&self, key: &str) -> &str {
        self.fields[key]
            .as_str()
            .unwrap_or_else(|| panic!("{} at {}: no string field {key}", self.name, self.ts))
    }
}

/// Every event of `trace` as babeltrace2 decodes it, in its order.
fn oracle(trace: &Path) -> Vec<Ev> {
    let script = repo_root().join("tests/oracle/bt2_jsonl.py");
    let out = std::process::Command::new("/usr/bin/python3")
        .arg(script)
        .arg(trace)
        .output()
        .expect("running the babeltrace2 oracle");
    assert_eq!(
        out.status.code(),
        Some(0),
        "the oracle did not read {} to the end: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_slice(l).expect("a JSON line");
            Ev {
                ts: v["ts"].as_u64().expect("ts"),
                name: v["name"].as_str().expect("name").to_owned(),
                cpu: v["cpu"].as_u64(),
                fields: v["fields"].take(),
            }
        })
        .collect()
}

fn scenario_b_oracle() -> &'static [Ev] {
    static EVENTS: OnceLock<Vec<Ev>> = OnceLock::new();
    EVENTS.get_or_init(|| oracle(&fixture("scenario-b/ctf")))
}

// ---------------------------------------------------------------------------
// Ground truth files

struct Tsv {
    /// `key=value` words of the `#` comment lines.
    params: HashMap<String, String>,
    rows: Vec<HashMap<String, String>>,
}

impl Tsv {
    fn read(path: &Path) -> Tsv {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let mut params = HashMap::new();
        let mut header: Option<Vec<String>> = None;
        let mut rows = Vec::new();
        for line in text.lines() {
            if let Some(comment) = line.strip_prefix('#') {
                for word in comment.split_whitespace() {
                    if let Some((k, v)) = word.split_once('=') {
                        params.insert(k.to_owned(), v.to_owned());
                    }
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let cells: Vec<String> = line.split('\t').map(str::to_owned).collect();
            match &header {
                None => header = Some(cells),
                Some(h) => {
                    assert_eq!(
                        h.len(),
                        cells.len(),
                        "{}: ragged row {line:?}",
                        path.display()
                    );
                    rows.push(h.iter().cloned().zip(cells).collect());
                }
            }
        }
        Tsv { params, rows }
    }
}

fn num(row: &HashMap<String, String>, key: &str) -> i64 {
    row.get(key)
        .unwrap_or_else(|| panic!("no column {key} in {row:?}"))
        .parse()
        .unwrap_or_else(|e| panic!("column {key} of {row:?}: {e}"))
}

/// The tid of thread `name` in a `ground-truth*.tsv.threads` file.
fn gt_thread(path: &Path, name: &str) -> i64 {
    let t = Tsv::read(path);
    let row = t
        .rows
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {}", path.display()));
    num(row, "tid")
}

// ---------------------------------------------------------------------------
// Scenario a: rt_high's periodic jobs

/// Checks scenario a's executions against the program's own ground truth:
/// one execution per period but the last (rt_high does not sleep again after
/// its last job, see scenario.c), the late periods are exactly the deadline
/// misses, and they are the longest executions.
fn check_rt_high_against_ground_truth(doc: &Value, gt_path: &Path) {
    let gt = Tsv::read(gt_path);
    let period: u64 = gt.params["period_ns"]
        .parse()
        .expect("period_ns in the header");
    let n_periods = gt.rows.len();
    assert_eq!(n_periods, 100, "the fixture's ground truth has 100 periods");
    let late: BTreeSet<i64> = gt
        .rows
        .iter()
        .filter(|r| num(r, "late") == 1)
        .map(|r| num(r, "period"))
        .collect();
    assert_eq!(
        late.len(),
        22,
        "the fixture's ground truth has 22 late periods"
    );
    // late = response > 1 ms, consistent with the column it comes from.
    for r in &gt.rows {
        assert_eq!(
            num(r, "late") == 1,
            num(r, "response_ns") > 1_000_000,
            "{r:?}"
        );
    }

    let execs = executions(doc);
    let period_of = |e: &Exec| -> i64 {
        let hits: Vec<i64> = gt
            .rows
            .iter()
            .filter(|r| {
                let release = num(r, "release") as u64;
                release <= e.start && e.start < release + period
            })
            .map(|r| num(r, "period"))
            .collect();
        assert_eq!(hits.len(), 1, "execution {e:?} starts in periods {hits:?}");
        hits[0]
    };
    let mut by_period: BTreeMap<i64, &Exec> = BTreeMap::new();
    for e in &execs {
        let p = period_of(e);
        if let Some(other) = by_period.insert(p, e) {
            panic!("two executions in period {p}: {other:?} and {e:?}");
        }
        // The job starts when rt_high returns from clock_nanosleep, which the
        // program timestamps right after (high_woke).
        let row = &gt.rows[p as usize];
        assert_eq!(num(row, "period"), p);
        let woke = num(row, "high_woke") as u64;
        assert!(
            e.start <= woke && woke - e.start < 100_000,
            "period {p}: execution starts at {}, rt_high woke at {woke}",
            e.start
        );
        // and ends after rt_high got its reply (ftrace prints whole µs: 1 µs slack).
        assert!(
            e.end + 1_000 > num(row, "high_got") as u64,
            "period {p}: {e:?} ends before high_got"
        );
    }
    let expected_periods: Vec<i64> = (0..n_periods as i64 - 1).collect();
    assert_eq!(
        by_period.keys().copied().collect::<Vec<_>>(),
        expected_periods,
        "one execution per period, the last period excepted"
    );
    assert_eq!(stat(doc, "count"), (n_periods - 1) as u64, "stats.count");
    assert_eq!(
        doc["incomplete"].as_u64(),
        Some(1),
        "the last job never ends"
    );

    let missed: BTreeSet<i64> = execs
        .iter()
        .filter(|e| e.deadline_miss.expect("deadline_miss with a deadline"))
        .map(period_of)
        .collect();
    assert_eq!(
        missed, late,
        "deadline misses vs late periods of the ground truth"
    );
    for e in &execs {
        assert_eq!(e.deadline_miss, Some(e.duration > 1_000_000), "{e:?}");
    }
    assert_eq!(
        stat(doc, "deadline_misses"),
        late.len() as u64,
        "stats.deadline_misses"
    );

    let mut sorted = execs.clone();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.duration));
    let top: BTreeSet<i64> = sorted[..late.len()].iter().map(period_of).collect();
    assert_eq!(top, late, "the 22 longest executions are the late periods");
}

#[test]
fn scenario_a_ctf_matches_babeltrace2() {
    if !oracle_available() {
        return;
    }
    let trace = fixture("scenario-a/ctf");
    let events = oracle(&trace);

    let tid = events
        .iter()
        .find(|e| e.name == "sched:sched_switch" && e.text("prev_comm") == "rt_high")
        .expect("rt_high is switched out at least once")
        .int("prev_pid");
    assert_eq!(
        tid,
        gt_thread(&fixture("scenario-a/ground-truth.tsv.threads"), "rt_high")
    );

    // Each exit of clock_nanosleep by rt_high, then its next CLOCK_MONOTONIC entry.
    let mut expected = Vec::new();
    let mut start = None;
    for e in &events {
        if !e.name.starts_with("syscalls:") || e.int("perf_tid") != tid {
            continue;
        }
        if e.name == "syscalls:sys_exit_clock_nanosleep" {
            start = Some(e.ts);
        } else if e.name == "syscalls:sys_enter_clock_nanosleep" && e.int("which_clock") == 1 {
            if let Some(s) = start.take() {
                expected.push((s, e.ts));
            }
        }
    }
    expected.sort_unstable();
    assert!(
        expected.len() > 50,
        "the expectation found {} jobs",
        expected.len()
    );

    let doc = analyze_json(&trace, &["--model", path_str(&rt_high_model())]);
    let execs = executions(&doc);
    assert_same_sorted("rt_high jobs (start, end)", &pairs_of(&execs), &expected);
    assert!(
        execs.iter().all(|e| e.tid == tid),
        "every job is on rt_high"
    );
    assert_eq!(stat(&doc, "count"), expected.len() as u64);
}

#[test]
fn scenario_a_ctf_deadline_misses_are_the_late_periods() {
    let doc = analyze_json(
        &fixture("scenario-a/ctf"),
        &["--model", path_str(&rt_high_model())],
    );
    check_rt_high_against_ground_truth(&doc, &fixture("scenario-a/ground-truth.tsv"));
}

/// `SSSS.UUUUUU:` (the timestamp word of an ftrace line) in ns.
fn ftrace_ts(line: &str) -> Option<u64> {
    line.split_whitespace().find_map(|w| {
        let (s, us) = w.strip_suffix(':')?.split_once('.')?;
        if us.len() != 6 || s.is_empty() {
            return None;
        }
        Some(s.parse::<u64>().ok()? * 1_000_000_000 + us.parse::<u64>().ok()? * 1_000)
    })
}

#[test]
fn scenario_a_ftrace_matches_the_text_and_the_ground_truth() {
    let trace = fixture("scenario-a/trace.txt");
    let text = std::fs::read_to_string(&trace).expect("reading trace.txt");

    let tid: i64 = text
        .lines()
        .find_map(|l| {
            let rest = l
                .split("sched_switch: prev_comm=rt_high prev_pid=")
                .nth(1)?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .expect("rt_high is switched out at least once");
    assert_eq!(
        tid,
        gt_thread(
            &fixture("scenario-a/ground-truth-ftrace.tsv.threads"),
            "rt_high"
        )
    );

    let task = format!("rt_high-{tid}");
    let mut expected = Vec::new();
    let mut start = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        // `TASK-PID [CPU] flags TIMESTAMP: event`: the task is before the '['.
        let Some((prefix, _)) = line.split_once('[') else {
            continue;
        };
        if prefix.trim() != task {
            continue;
        }
        if line.contains("sys_clock_nanosleep -> ") {
            start = Some(ftrace_ts(line).expect("a timestamp"));
        } else if line.contains("sys_clock_nanosleep(which_clock: 1,") {
            if let Some(s) = start.take() {
                expected.push((s, ftrace_ts(line).expect("a timestamp")));
            }
        }
    }
    expected.sort_unstable();
    assert!(
        expected.len() > 50,
        "the expectation found {} jobs",
        expected.len()
    );

    let doc = analyze_json(&trace, &["--model", path_str(&rt_high_model())]);
    let execs = executions(&doc);
    assert_same_sorted(
        "rt_high jobs in trace.txt (start, end)",
        &pairs_of(&execs),
        &expected,
    );
    assert!(
        execs.iter().all(|e| e.tid == tid),
        "every job is on rt_high"
    );
    check_rt_high_against_ground_truth(&doc, &fixture("scenario-a/ground-truth-ftrace.tsv"));
}

// ---------------------------------------------------------------------------
// Scenario b: short-lived workers

const WORKER_MODEL: &str = r#"{"name":"worker","mode":"different_tids","start":{"name":"sched_process_fork","fields":{"child_tid":"$tid"}},"end":{"name":"sched_process_exit","fields":{"tid":"$tid"}},"start_threads":{"process":"^rt_timer$"},"deadline":1000000}"#;

const CHAINED_MODEL: &str = r#"{"name":"consecutive workers","mode":"different_tids","start":{"name":"sched_process_exit"},"end":{"name":"sched_process_exit"},"threads":{"process":"^rt_worker$"},"chained":true}"#;

#[test]
fn scenario_b_workers_match_babeltrace2() {
    if !oracle_available() {
        return;
    }
    let events = scenario_b_oracle();
    // Fork by rt_timer of child C, then the exit of C.
    let mut forked: HashMap<i64, u64> = HashMap::new();
    let mut expected: Vec<(i64, u64, u64)> = Vec::new();
    for e in events {
        if e.name == "sched:sched_process_fork" && e.text("parent_comm") == "rt_timer" {
            forked.insert(e.int("child_pid"), e.ts);
        } else if e.name == "sched:sched_process_exit" {
            if let Some(s) = forked.remove(&e.int("pid")) {
                expected.push((e.int("pid"), s, e.ts));
            }
        }
    }
    expected.sort_unstable();
    assert_eq!(expected.len(), 2000, "the expectation: one job per worker");

    let doc = analyze_json(&fixture("scenario-b/ctf"), &["--model", WORKER_MODEL]);
    let mut ours: Vec<(i64, u64, u64)> = executions(&doc)
        .iter()
        .map(|e| (e.tid, e.start, e.end))
        .collect();
    ours.sort_unstable();
    assert_same_sorted("worker jobs (tid, fork, exit)", &ours, &expected);
    assert_eq!(stat(&doc, "count"), 2000);
}

#[test]
fn scenario_b_workers_late_are_the_ground_truth_late() {
    let gt = Tsv::read(&fixture("scenario-b/ground-truth.tsv"));
    assert_eq!(gt.rows.len(), 2000);
    let doc = analyze_json(&fixture("scenario-b/ctf"), &["--model", WORKER_MODEL]);
    let execs = executions(&doc);
    let by_tid: HashMap<i64, &Exec> = execs.iter().map(|e| (e.tid, e)).collect();
    assert_eq!(by_tid.len(), execs.len(), "one execution per worker thread");
    assert_eq!(
        execs.len(),
        gt.rows.len(),
        "one execution per worker of the ground truth"
    );

    let mut gt_late = BTreeSet::new();
    for r in &gt.rows {
        let tid = num(r, "tid");
        let e = by_tid
            .get(&tid)
            .unwrap_or_else(|| panic!("no execution for worker {tid} ({r:?})"));
        let (created, finished) = (num(r, "created") as u64, num(r, "finished") as u64);
        // Fork comes after `created` (clone3 cost, ~45 µs, up to ~215 µs
        // here), the exit after `finished` (~12 µs).
        assert!(
            e.start > created && e.start - created < 500_000,
            "worker {tid}: fork at {} vs created {created}",
            e.start
        );
        assert!(
            e.end > finished && e.end - finished < 100_000,
            "worker {tid}: exit at {} vs finished {finished}",
            e.end
        );
        let response = num(r, "response_ns");
        if response > 1_000_000 {
            gt_late.insert(tid);
        }
        // A margin that holds whatever the fork/exit offsets.
        if response > 1_100_000 {
            assert_eq!(
                e.deadline_miss,
                Some(true),
                "worker {tid}, response {response}: {e:?}"
            );
        }
        if response < 900_000 {
            assert_eq!(
                e.deadline_miss,
                Some(false),
                "worker {tid}, response {response}: {e:?}"
            );
        }
    }
    let ours_late: BTreeSet<i64> = execs
        .iter()
        .filter(|e| e.duration > 1_000_000)
        .map(|e| e.tid)
        .collect();
    let flagged: BTreeSet<i64> = execs
        .iter()
        .filter(|e| e.deadline_miss == Some(true))
        .map(|e| e.tid)
        .collect();
    assert_eq!(flagged, ours_late, "deadline_miss = duration > deadline");
    assert_eq!(ours_late, gt_late, "workers over 1 ms vs the ground truth");
    assert_eq!(stat(&doc, "deadline_misses"), gt_late.len() as u64);
}

#[test]
fn scenario_b_chained_exits_match_babeltrace2() {
    if !oracle_available() {
        return;
    }
    let exits: Vec<u64> = scenario_b_oracle()
        .iter()
        .filter(|e| e.name == "sched:sched_process_exit" && e.text("comm") == "rt_worker")
        .map(|e| e.ts)
        .collect();
    assert_eq!(exits.len(), 2000);
    let expected: Vec<(u64, u64)> = exits.windows(2).map(|w| (w[0], w[1])).collect();

    let doc = analyze_json(&fixture("scenario-b/ctf"), &["--model", CHAINED_MODEL]);
    assert_same_sorted(
        "intervals between consecutive rt_worker exits",
        &pairs_of(&executions(&doc)),
        &expected,
    );
    assert_eq!(stat(&doc, "count"), expected.len() as u64);
}

#[test]
fn scenario_b_chained_longest_intervals_contain_the_hog_bursts() {
    let workers = Tsv::read(&fixture("scenario-b/ground-truth.tsv"));
    let hog = Tsv::read(&fixture("scenario-b/ground-truth.tsv.hog"));
    assert_eq!(hog.rows.len(), 5);

    let doc = analyze_json(&fixture("scenario-b/ctf"), &["--model", CHAINED_MODEL]);
    let mut execs = executions(&doc);
    // n workers exit: n - 1 intervals between consecutive exits.
    assert_eq!(execs.len(), workers.rows.len() - 1);
    assert_eq!(stat(&doc, "count"), (workers.rows.len() - 1) as u64);

    execs.sort_by_key(|e| std::cmp::Reverse(e.duration));
    let mut bursts = BTreeSet::new();
    for e in &execs[..hog.rows.len()] {
        let hit: Vec<i64> = hog
            .rows
            .iter()
            .filter(|h| e.start < num(h, "end") as u64 && (num(h, "start") as u64) < e.end)
            .map(|h| num(h, "tick"))
            .collect();
        assert_eq!(hit.len(), 1, "interval {e:?} overlaps hog bursts {hit:?}");
        bursts.insert(hit[0]);
    }
    assert_eq!(
        bursts.len(),
        hog.rows.len(),
        "each of the 5 longest covers a different burst"
    );
}

// ---------------------------------------------------------------------------
// ../shared: an LTTng kernel trace whose events carry no thread id

fn many_threads() -> Option<PathBuf> {
    Some(shared_dir()?.join("traces/ctf/many-threads"))
}

fn many_threads_oracle(trace: &Path) -> &'static [Ev] {
    static EVENTS: OnceLock<Vec<Ev>> = OnceLock::new();
    EVENTS.get_or_init(|| oracle(trace))
}

/// Entry → next exit on the same thread (an entry while one is pending
/// restarts), the thread being the CPU's current one from `sched_switch`.
/// Events on a CPU before its first `sched_switch` have no known thread and
/// are ignored. Returns sorted (tid, start, end).
fn syscall_pairs(events: &[Ev], entry: &str, exit: &str) -> Vec<(i64, u64, u64)> {
    let mut current: HashMap<u64, i64> = HashMap::new();
    let mut pending: HashMap<i64, u64> = HashMap::new();
    let mut out = Vec::new();
    for e in events {
        let cpu = e.cpu.expect("LTTng events have a CPU");
        if e.name == "sched_switch" {
            current.insert(cpu, e.int("next_tid"));
            continue;
        }
        let Some(&tid) = current.get(&cpu) else {
            continue;
        };
        if e.name == entry {
            pending.insert(tid, e.ts);
        } else if e.name == exit {
            if let Some(s) = pending.remove(&tid) {
                out.push((tid, s, e.ts));
            }
        }
    }
    out.sort_unstable();
    out
}

fn check_syscall(name: &str) {
    let Some(trace) = many_threads() else {
        skip_shared();
        return;
    };
    if !oracle_available() {
        return;
    }
    let entry = format!("syscall_entry_{name}");
    let exit = format!("syscall_exit_{name}");
    let expected = syscall_pairs(many_threads_oracle(&trace), &entry, &exit);
    assert!(!expected.is_empty());

    let model =
        format!(r#"{{"name":"{name}","events":[{{"name":"{entry}"}},{{"name":"{exit}"}}]}}"#);
    let doc = analyze_json(&trace, &["--model", &model]);
    let execs = executions(&doc);

    let count = |v: &mut dyn Iterator<Item = i64>| {
        let mut m: BTreeMap<i64, usize> = BTreeMap::new();
        for t in v {
            *m.entry(t).or_default() += 1;
        }
        m
    };
    let ours_per_tid = count(&mut execs.iter().map(|e| e.tid));
    let expected_per_tid = count(&mut expected.iter().map(|x| x.0));
    assert_eq!(
        stat(&doc, "count"),
        expected.len() as u64,
        "{name}: stats.count"
    );
    assert_eq!(execs.len(), expected.len(), "{name}: number of executions");
    assert_eq!(
        ours_per_tid, expected_per_tid,
        "{name}: executions per thread"
    );

    let mut ours: Vec<(i64, u64, u64)> = execs.iter().map(|e| (e.tid, e.start, e.end)).collect();
    ours.sort_unstable();
    assert_same_sorted(&format!("{name} (tid, entry, exit)"), &ours, &expected);
}

#[test]
fn many_threads_futex_matches_babeltrace2() {
    check_syscall("futex");
}

#[test]
fn many_threads_read_matches_babeltrace2() {
    check_syscall("read");
}

#[test]
fn many_threads_running_preset_matches_switches() {
    let Some(trace) = many_threads() else {
        skip_shared();
        return;
    };
    if !oracle_available() {
        return;
    }
    // lttng-consumerd's threads keep their name for the whole trace.
    let process = "^lttng-consumerd$";
    // Switch-in of T on a CPU, then the switch-out of T on that CPU. A thread
    // already running when the trace starts has no known start: not counted.
    let mut current: HashMap<u64, (i64, u64)> = HashMap::new();
    let mut expected = Vec::new();
    for e in many_threads_oracle(&trace) {
        if e.name != "sched_switch" {
            continue;
        }
        let cpu = e.cpu.expect("a CPU");
        if let Some(&(tid, since)) = current.get(&cpu) {
            if tid == e.int("prev_tid") && e.text("prev_comm") == "lttng-consumerd" {
                expected.push((tid, since, e.ts));
            }
        }
        current.insert(cpu, (e.int("next_tid"), e.ts));
    }
    expected.sort_unstable();
    assert!(
        expected.len() > 100,
        "the expectation found {} runs",
        expected.len()
    );

    let doc = analyze_json(&trace, &["--preset", "running", "--process", process]);
    let mut ours: Vec<(i64, u64, u64)> = executions(&doc)
        .iter()
        .map(|e| (e.tid, e.start, e.end))
        .collect();
    ours.sort_unstable();
    assert_eq!(stat(&doc, "count"), expected.len() as u64, "stats.count");
    assert_same_sorted("lttng-consumerd runs (tid, in, out)", &ours, &expected);
}

// ---------------------------------------------------------------------------
// Command-line errors

fn run_err(args: &[&str]) -> (Option<i32>, String, Vec<u8>) {
    let out = sextant(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.stdout,
    )
}

#[test]
fn bad_models_name_the_field_path() {
    let trace = fixture("scenario-a/ctf");
    let t = path_str(&trace);
    let cases: &[(&str, &str)] = &[
        (
            r#"{"name":"x","events":[{"name":"a"},{"name":"b","fields":{"prio":[1]}}]}"#,
            "events[1].fields.prio",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"tid":"$pid"}}]}"#,
            "events[0].fields.tid",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"threads":{"process":"("}}"#,
            "threads.process",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":["x"]}}"#,
            "threads.tids[0]",
        ),
        (
            r#"{"name":"x","mode":"different_tids","start":{"name":"a","feilds":{}},"end":{"name":"b"}}"#,
            "start.feilds",
        ),
    ];
    for (model, path) in cases {
        let (code, stderr, stdout) = run_err(&["analyze", t, "--model", model, "--format", "json"]);
        assert_eq!(code, Some(1), "{model}: exit code; stderr: {stderr}");
        assert!(
            stderr.contains(path),
            "{model}: the message should name {path}: {stderr}"
        );
        assert!(stdout.is_empty(), "{model}: nothing on stdout");
    }
    // The same from a file.
    let file = repo_root().join("schemas/examples/invalid-mask.json");
    let (code, stderr, _) = run_err(&["analyze", t, "--model", path_str(&file)]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("events[1].fields.op&x"), "{stderr}");
}

#[test]
fn model_and_preset_together_is_a_usage_error() {
    let trace = fixture("scenario-a/ctf");
    let (code, stderr, _) = run_err(&[
        "analyze",
        path_str(&trace),
        "--model",
        path_str(&rt_high_model()),
        "--preset",
        "running",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--preset") && stderr.contains("--model"),
        "{stderr}"
    );
    // Neither is a usage error too.
    let (code, stderr, _) = run_err(&["analyze", path_str(&trace)]);
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn unknown_preset_lists_the_presets() {
    let trace = fixture("scenario-a/ctf");
    let (code, stderr, _) = run_err(&["analyze", path_str(&trace), "--preset", "nosuch"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("nosuch"), "{stderr}");
    for p in ["whole-thread", "running", "blocking", "periodic"] {
        assert!(stderr.contains(p), "the list should include {p}: {stderr}");
    }
}

#[test]
fn missing_trace_is_named() {
    let missing = repo_root().join("fixtures/no-such-trace-dir");
    let (code, stderr, stdout) = run_err(&[
        "analyze",
        path_str(&missing),
        "--model",
        path_str(&rt_high_model()),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no-such-trace-dir"), "{stderr}");
    assert!(stdout.is_empty());
}

// ---------------------------------------------------------------------------
// CSV

/// One CSV record (RFC 4180 quoting).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn check_csv(trace: &Path, args: &[&str]) {
    let doc = analyze_json(trace, args);
    let execs = executions(&doc);
    let by_index: HashMap<u64, &Exec> = execs.iter().map(|e| (e.index, e)).collect();

    let mut all = vec!["analyze", path_str(trace)];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "csv"]);
    let out = sextant(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 CSV");
    let mut lines = text.lines();
    let header = csv_fields(lines.next().expect("a header line"));
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let (ci, cs, ce, cd, ct) = (
        col("index"),
        col("start"),
        col("end"),
        col("duration"),
        col("tid"),
    );
    let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert_eq!(
        rows.len(),
        execs.len(),
        "{args:?}: CSV lines vs JSON executions"
    );
    let mut seen = BTreeSet::new();
    for r in &rows {
        assert_eq!(
            r.len(),
            header.len(),
            "{args:?}: row {r:?} vs header {header:?}"
        );
        let index: u64 = r[ci].parse().expect("index");
        assert!(seen.insert(index), "index {index} twice");
        let e = by_index
            .get(&index)
            .unwrap_or_else(|| panic!("CSV index {index} not in JSON"));
        assert_eq!(r[cs], e.start.to_string(), "start of {index}");
        assert_eq!(r[ce], e.end.to_string(), "end of {index}");
        assert_eq!(r[cd], e.duration.to_string(), "duration of {index}");
        assert_eq!(r[ct], e.tid.to_string(), "tid of {index}");
    }
}

#[test]
fn csv_has_one_line_per_execution() {
    let a = fixture("scenario-a/ctf");
    check_csv(&a, &["--model", path_str(&rt_high_model())]);
    check_csv(&fixture("scenario-b/ctf"), &["--model", WORKER_MODEL]);
    check_csv(
        &fixture("scenario-b/ctf"),
        &["--preset", "running", "--process", "^rt_worker$"],
    );
    // Independent count: one job per period but the last (scenario.c).
    let out = sextant(&[
        "analyze",
        path_str(&a),
        "--model",
        path_str(&rt_high_model()),
        "--format",
        "csv",
    ]);
    let n = String::from_utf8_lossy(&out.stdout).lines().count();
    let periods = Tsv::read(&fixture("scenario-a/ground-truth.tsv"))
        .rows
        .len();
    assert_eq!(n, 1 + (periods - 1), "header + one line per job");
}

/// A nested model's executions are in the table too, under their parent,
/// as many as the JSON holds (up to the table's ten per row).
#[test]
fn table_shows_nested_executions_under_their_parent() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let trace = shared.join("traces/btf/ta-simulator-20140219-123819.btf");
    let model = repo_root().join("schemas/examples/btf-task-instance.json");
    let args = |format: &'static str| {
        vec![
            "analyze".to_string(),
            trace.display().to_string(),
            "--model".to_string(),
            model.display().to_string(),
            "--top".to_string(),
            "3".to_string(),
            "--format".to_string(),
            format.to_string(),
            "--no-store".to_string(),
        ]
    };
    let run = |format| {
        let a = args(format);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = sextant(&a);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let doc: Value = serde_json::from_str(&run("json")).unwrap();
    let table = run("table");
    let nested: Vec<usize> = doc["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["nested"].as_array().map_or(0, Vec::len))
        .collect();
    assert!(nested.iter().any(|&n| n > 0), "the model nests runnables");
    let shown = table
        .lines()
        .filter(|l| l.trim_start().starts_with('└') && !l.contains("more nested"))
        .count();
    assert_eq!(
        shown,
        nested.iter().map(|&n| n.min(10)).sum::<usize>(),
        "{table}"
    );
    let more = nested.iter().filter(|&&n| n > 10).count();
    assert_eq!(table.matches("more nested").count(), more, "{table}");
}
