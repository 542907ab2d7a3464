//! `sextant sql --cluster` on a local cluster of two `sextant worker`
//! processes gives the answers `sextant sql` gives embedded, on a corpus
//! of different traces (perf CTF, ftrace text, trace.dat; LTTng kernel CTF
//! and BTF from ../shared when present) and copies of them; the workers'
//! logs show every trace's partition executed on a worker, and the answers
//! are checked against what nobody here wrote: babeltrace2's event count
//! for each CTF trace (`sextant dump` for the others) and `sextant analyze
//! --format json` for executions; a trace's warning, said by its worker,
//! reaches the client as embedded `sextant sql` says it. Also
//! `tests/cluster/local.sh`, and the errors of a worker that cannot be
//! reached.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use common::fleet::{self, copy_tree, lines, sql};
use common::{command, repo_root, TempDir};
use serde_json::Value;

/// A worker process and the file its log goes to.
struct Worker {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Worker {
    fn start(log: PathBuf) -> Worker {
        let mut child = command()
            .args(["worker", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("starting sextant worker");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "the worker's first line is its URL: {url:?}"
        );
        Worker { child, url, log }
    }

    /// What the worker said since `from` bytes of its log.
    fn said_since(&self, from: usize) -> String {
        let all = std::fs::read_to_string(&self.log).unwrap();
        all[from.min(all.len())..].to_string()
    }

    fn said_len(&self) -> usize {
        std::fs::metadata(&self.log).map_or(0, |m| m.len() as usize)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The query's answer as the JSON text `sextant sql --format json` prints
/// and as rows; the run must succeed.
fn answer(args: &[&str]) -> (String, Vec<Value>) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = sql(&all);
    assert!(
        out.status.success(),
        "sextant sql {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (text, rows.as_array().expect("one JSON array").clone())
}

/// Each trace whose partition of `table` a worker says it executed, with
/// how many times, from what the workers said.
fn executed(said: &[String], table: &str) -> BTreeMap<String, usize> {
    let mut all = BTreeMap::new();
    let head = format!("sextant worker: executing {table} partition ");
    for line in said.iter().flat_map(|s| s.lines()) {
        let Some(rest) = line.strip_prefix(&head) else {
            continue;
        };
        let trace = rest
            .split_once(": trace ")
            .and_then(|(_, t)| t.rsplit_once(" ("))
            .map(|(name, _)| name.to_string())
            .unwrap_or_else(|| panic!("a worker's line: {line}"));
        *all.entry(trace).or_default() += 1;
    }
    all
}

#[test]
fn the_same_answers_embedded_and_on_two_workers() {
    let temp = TempDir::new("cluster-answers");
    let fleet = temp.path().join("fleet");
    let traces = fleet::corpus(&fleet, &[("perf/scenario-b", "scenario-b/ctf")]);
    assert!(traces.len() >= 8, "{} traces", traces.len());
    let dir = fleet.to_str().unwrap();
    let workers = [
        Worker::start(temp.path().join("worker1.log")),
        Worker::start(temp.path().join("worker2.log")),
    ];
    let cluster = format!("{},{}", workers[0].url, workers[1].url);
    let model = r#"{"name": "switches", "mode": "same_tid", "events": [{"name": "sched_switch"}, {"name": "sched_wakeup_new"}]}"#;
    // Each query with the table whose partitions it executes, and the
    // traces they are of (`None`: every trace).
    let only_taskset = ["ftrace/taskset.txt".to_string()];
    let queries: Vec<(String, &str, Option<&[String]>)> = vec![
        (
            "SELECT host, trace, count(*) AS n, min(ts) AS first, max(ts) AS last \
             FROM events GROUP BY host, trace ORDER BY trace"
                .into(),
            "events",
            None,
        ),
        (
            "SELECT trace, name, cpu, count(*) AS n FROM events \
             WHERE name IN ('sched_switch', 'sched_wakeup') AND trace LIKE 'perf/%' \
             GROUP BY trace, name, cpu ORDER BY trace, name, cpu"
                .into(),
            "events",
            None,
        ),
        (
            // One trace: still read on a worker (two tasks, one empty).
            "SELECT ts, name, cpu, tid FROM events WHERE trace = 'ftrace/taskset.txt' \
             AND name = 'sched_switch' ORDER BY ts, cpu, tid LIMIT 50"
                .into(),
            "events",
            Some(&only_taskset),
        ),
        (
            "SELECT trace, state, count(*) AS n, sum(\"end\" - start) AS total \
             FROM thread_states GROUP BY trace, state ORDER BY trace, state"
                .into(),
            "thread_states",
            None,
        ),
        (
            "SELECT trace, count(*) AS n FROM threads GROUP BY trace ORDER BY trace".into(),
            "thread_states",
            None,
        ),
        (
            "SELECT trace, count(*) AS n, max(duration) AS worst, sum(running) AS running \
             FROM executions('preset:running') GROUP BY trace ORDER BY trace"
                .into(),
            "executions",
            None,
        ),
        (
            format!(
                "SELECT trace, \"index\", start, duration FROM executions('{model}') \
                 ORDER BY trace, \"index\""
            ),
            "executions",
            None,
        ),
        (
            "SELECT host, trace, tid, comm, kind, period, jobs, misses FROM tasks() \
             ORDER BY trace, tid"
                .into(),
            "tasks",
            None,
        ),
        (
            // The model's JSON itself goes to the workers, with K.
            format!(
                "SELECT * FROM explain('{model}', 2) \
                 ORDER BY trace, duration DESC, execution, rank"
            ),
            "explain",
            None,
        ),
    ];
    let mut answers = Vec::new();
    for (query, table, of) in &queries {
        let (embedded, _) = answer(&[query, dir, "--no-store"]);
        let before: Vec<usize> = workers.iter().map(Worker::said_len).collect();
        let (distributed, rows) = answer(&[query, dir, "--no-store", "--cluster", &cluster]);
        assert_eq!(distributed, embedded, "{query}");
        assert!(!rows.is_empty(), "{query}: no rows");
        let said: Vec<String> = workers
            .iter()
            .zip(&before)
            .map(|(w, &from)| w.said_since(from))
            .collect();
        // Every trace's partition executed once, on a worker (the
        // coordinator's log says nothing of the kind).
        let ran = executed(&said, table);
        let expected: BTreeMap<String, usize> = match of {
            Some(names) => names.iter().map(|n| (n.clone(), 1)).collect(),
            None => traces.keys().map(|n| (n.clone(), 1)).collect(),
        };
        assert_eq!(ran, expected, "{query}: partitions executed\n{said:?}");
        if of.is_none() {
            // Both workers had a share.
            for (i, s) in said.iter().enumerate() {
                assert!(
                    s.contains("sextant worker: executing"),
                    "{query}: worker {} executed nothing",
                    i + 1
                );
            }
        }
        answers.push(rows);
    }
    // The oracles. Events per trace: babeltrace2's count for CTF.
    let per_trace = |rows: &[Value], column: &str| -> BTreeMap<String, u64> {
        rows.iter()
            .map(|r| {
                (
                    r["trace"].as_str().unwrap().to_string(),
                    r[column].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let events = per_trace(&answers[0], "n");
    assert_eq!(
        events.keys().collect::<Vec<_>>(),
        traces.keys().collect::<Vec<_>>()
    );
    let babeltrace2 = Command::new("babeltrace2")
        .arg("--version")
        .output()
        .is_ok();
    if !babeltrace2 {
        eprintln!("skipped the babeltrace2 check: babeltrace2 is not installed (tests/run-all.sh installs it)");
    }
    for (name, src) in &traces {
        let expected = if src.is_dir() {
            if !babeltrace2 {
                continue;
            }
            lines(Command::new("babeltrace2").arg(src))
        } else {
            // Not a format babeltrace2 reads: the events `dump` lists.
            lines(command().args(["dump", "--format", "jsonl"]).arg(src))
        };
        assert!(expected > 0, "{name}");
        assert_eq!(events[name], expected, "{name}: events");
    }
    // Executions per trace: `analyze` on the trace alone.
    let executions = per_trace(&answers[5], "n");
    for (name, src) in &traces {
        let out = command()
            .args([
                "analyze",
                "--format",
                "json",
                "--no-store",
                "--preset",
                "running",
            ])
            .arg(src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let n = doc["executions"].as_array().unwrap().len() as u64;
        assert_eq!(
            executions.get(name).copied().unwrap_or(0),
            n,
            "{name}: executions"
        );
    }
}

/// `sextant sql ARGS` run in `dir`, with its standard output and error;
/// it must succeed.
fn sql_in(dir: &std::path::Path, args: &[&str]) -> (String, String) {
    let out = command()
        .current_dir(dir)
        .arg("sql")
        .args(args)
        .output()
        .expect("running sextant");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "sextant sql {args:?}: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// A model whose events two of four traces lack gives each of them no rows
/// and one warning: on two workers, the client says the warnings embedded
/// `sextant sql` says, with the same text (the traces as the user named
/// them, relative to the client's folder, not as the workers read them)
/// and in the same order, and the same count of executions found; the
/// rows are the same.
#[test]
fn a_traces_warning_reaches_the_client_from_its_worker() {
    let temp = TempDir::new("cluster-warnings");
    let fixtures = repo_root().join("fixtures");
    // Dealt a, c to one task and b, d to the other: each task has a trace
    // without the model's events.
    for (name, src) in [
        ("a.txt", "taskset/trace.txt"),
        ("b.txt", "taskset/trace.txt"),
        ("c.txt", "scenario-a/trace.txt"),
        ("d.txt", "scenario-a/trace.txt"),
    ] {
        copy_tree(&fixtures.join(src), &temp.path().join("fleet").join(name));
    }
    let workers = [
        Worker::start(temp.path().join("worker1.log")),
        Worker::start(temp.path().join("worker2.log")),
    ];
    let cluster = format!("{},{}", workers[0].url, workers[1].url);
    // Only scenario-a sends on message queues.
    let model = r#"{"name": "sends", "mode": "same_tid", "events": [{"name": "sys_enter_mq_timedsend"}, {"name": "sys_exit_mq_timedsend"}]}"#;
    let queries = [
        format!(
            "SELECT trace, count(*) AS n, sum(duration) AS total FROM executions('{model}') \
             GROUP BY trace ORDER BY trace"
        ),
        format!(
            "SELECT trace, \"index\", start, duration FROM executions('{model}') \
             ORDER BY trace, \"index\""
        ),
    ];
    for query in &queries {
        let args = [query.as_str(), "fleet", "--no-store", "--format", "json"];
        let (embedded, embedded_said) = sql_in(temp.path(), &args);
        let before: Vec<usize> = workers.iter().map(Worker::said_len).collect();
        let mut on_cluster = args.to_vec();
        on_cluster.extend(["--cluster", &cluster]);
        let (distributed, said) = sql_in(temp.path(), &on_cluster);
        assert_eq!(distributed, embedded, "{query}");
        let rows: Value = serde_json::from_str(&embedded).unwrap();
        let traces: BTreeMap<&str, usize> =
            rows.as_array()
                .unwrap()
                .iter()
                .fold(BTreeMap::new(), |mut all, r| {
                    *all.entry(r["trace"].as_str().unwrap()).or_default() += 1;
                    all
                });
        assert_eq!(
            traces.keys().copied().collect::<Vec<_>>(),
            ["c.txt", "d.txt"],
            "{query}"
        );
        // The traces were read on the workers.
        let workers_said: Vec<String> = workers
            .iter()
            .zip(&before)
            .map(|(w, &from)| w.said_since(from))
            .collect();
        let ran = executed(&workers_said, "executions");
        let all: BTreeMap<String, usize> = ["a.txt", "b.txt", "c.txt", "d.txt"]
            .into_iter()
            .map(|t| (t.to_string(), 1))
            .collect();
        assert_eq!(ran, all, "{query}: partitions executed\n{workers_said:?}");
        // Embedded: one warning per trace that lacks the events, naming it
        // as the client was given it.
        let warnings: Vec<&str> = embedded_said
            .lines()
            .filter(|l| l.starts_with("sextant: warning: "))
            .collect();
        assert_eq!(warnings.len(), 2, "{embedded_said}");
        for (line, trace) in warnings.iter().zip(["fleet/a.txt", "fleet/b.txt"]) {
            assert!(
                line.starts_with(&format!("sextant: warning: {trace}: "))
                    && line.contains("sys_enter_mq_timedsend")
                    && line.contains(&format!(" in {trace},")),
                "{line}"
            );
        }
        assert!(
            embedded_said.contains("executions of 4 traces found by a pass"),
            "{embedded_said}"
        );
        // On the cluster, the client's standard error is the same.
        assert_eq!(said, embedded_said, "{query}");
    }
}

/// With a single `--cluster` URL the traces are read on that worker too,
/// not in the coordinator.
#[test]
fn one_worker_reads_every_trace() {
    let temp = TempDir::new("cluster-one");
    let fleet = temp.path().join("fleet");
    for name in ["a.txt", "b.txt"] {
        copy_tree(
            &repo_root().join("fixtures/taskset/trace.txt"),
            &fleet.join(name),
        );
    }
    let worker = Worker::start(temp.path().join("worker.log"));
    let query = "SELECT trace, count(*) AS n FROM events GROUP BY trace ORDER BY trace";
    let dir = fleet.to_str().unwrap();
    let (embedded, _) = answer(&[query, dir]);
    let (distributed, _) = answer(&[query, dir, "--cluster", &worker.url]);
    assert_eq!(distributed, embedded);
    let ran = executed(&[worker.said_since(0)], "events");
    let expected: BTreeMap<String, usize> = [("a.txt".into(), 1), ("b.txt".into(), 1)].into();
    assert_eq!(ran, expected);
}

#[test]
fn a_worker_that_cannot_be_reached_is_named() {
    let temp = TempDir::new("cluster-unreachable");
    let trace = temp.path().join("scenario-a.txt");
    std::fs::copy(repo_root().join("fixtures/scenario-a/trace.txt"), &trace).unwrap();
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/");
    let out = sql(&[
        "SELECT count(*) FROM events",
        trace.to_str().unwrap(),
        "--cluster",
        &url,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("worker {url} cannot be reached")),
        "{err}"
    );
    let out = sql(&[
        "SELECT 1",
        trace.to_str().unwrap(),
        "--cluster",
        "127.0.0.1:5000",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--cluster") && err.contains("http://HOST:PORT"),
        "{err}"
    );
}

/// `tests/cluster/local.sh 2`: two workers whose URLs, its last line,
/// answer a query; gone once the script is stopped.
#[test]
fn local_sh_starts_workers_and_stops_them() {
    let temp = TempDir::new("cluster-local");
    let trace = temp.path().join("taskset.txt");
    std::fs::copy(repo_root().join("fixtures/taskset/trace.txt"), &trace).unwrap();
    let mut script = Command::new("bash")
        .arg(repo_root().join("tests/cluster/local.sh"))
        .arg("2")
        .env("SEXTANT_BIN", env!("CARGO_BIN_EXE_sextant"))
        .env("XDG_CACHE_HOME", common::cache_home())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(script.stdout.take().unwrap());
    let list = loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            panic!("local.sh ended before printing the URLs");
        }
        if line.starts_with("http://") {
            break line.trim().to_string();
        }
    };
    let urls: Vec<&str> = list.split(',').collect();
    assert_eq!(urls.len(), 2, "{list}");
    let query = "SELECT count(*) AS n FROM events";
    let (embedded, _) = answer(&[query, trace.to_str().unwrap()]);
    let (distributed, _) = answer(&[query, trace.to_str().unwrap(), "--cluster", &list]);
    assert_eq!(distributed, embedded);
    // SIGTERM: the script stops its workers and exits.
    unsafe {
        libc::kill(script.id() as i32, libc::SIGTERM);
    }
    script.wait().unwrap();
    for url in urls {
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        assert!(
            std::net::TcpStream::connect(addr).is_err(),
            "{url} still answers after local.sh was stopped"
        );
    }
}
