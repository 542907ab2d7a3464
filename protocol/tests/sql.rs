//! `sextant sql` over a corpus of different traces (perf CTF, ftrace text,
//! trace.dat; LTTng kernel CTF and BTF from ../shared when present) and
//! copies of them, checked against what nobody here wrote or another front
//! end: babeltrace2's event count for each CTF trace, `sextant dump` for
//! the others, `sextant analyze --format json --no-store` for executions,
//! `sextant tasks --format json` for tasks, `sextant explain --format json`
//! for explanations, strace for "a second identical query reads no trace" (no trace
//! file mapped, no more than a one-file trace's head read).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::fleet::{self, copy_tree, lines, sql};
use common::{command, repo_root};
use serde_json::Value;

/// A fleet in a temporary folder: its path and each trace's name (its path
/// relative to the folder) with its source.
struct Corpus {
    dir: PathBuf,
    traces: BTreeMap<String, PathBuf>,
}

impl Drop for Corpus {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn corpus(tag: &str) -> Corpus {
    let dir = std::env::temp_dir().join(format!("sextant-sql-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let traces = fleet::corpus(&dir, &[]);
    Corpus { dir, traces }
}

/// The query's answer as JSON rows; the run must succeed.
fn rows(args: &[&str]) -> (Vec<Value>, String) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = sql(&all);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "sextant sql {args:?}: {err}");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (v.as_array().expect("one JSON array").clone(), err)
}

#[test]
fn events_per_trace_are_babeltrace2s_and_dumps() {
    let c = corpus("events");
    let dir = c.dir.to_str().unwrap();
    let (answer, _) = rows(&[
        "SELECT trace, count(*) AS n, min(ts) AS first FROM events GROUP BY trace ORDER BY trace",
        dir,
    ]);
    let got: BTreeMap<String, u64> = answer
        .iter()
        .map(|r| {
            (
                r["trace"].as_str().unwrap().to_string(),
                r["n"].as_u64().unwrap(),
            )
        })
        .collect();
    // Every trace of the folder, each once.
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        c.traces.keys().collect::<Vec<_>>()
    );
    for (name, src) in &c.traces {
        let expected = if src.is_dir() {
            lines(Command::new("babeltrace2").arg(src))
        } else {
            // Not a format babeltrace2 reads: the events `dump` lists.
            lines(command().args(["dump", "--format", "jsonl"]).arg(src))
        };
        assert_eq!(got[name], expected, "{name}: events");
        assert!(expected > 0, "{name}");
    }
}

/// Filters on `name` and `ts` narrow each trace's pass (rows left out,
/// the read stopped after the last time asked) and change no answer: the
/// same query with each filter hidden in an expression (`ts + 0`, `name ||
/// ''`), which nothing pushes down, gives the same rows, their threads
/// included (every event still goes through the kernel model).
#[test]
fn filters_on_name_and_time_narrow_the_pass_and_change_no_row() {
    let c = corpus("narrow");
    let dir = c.dir.to_str().unwrap();
    let (spans, _) = rows(&[
        "SELECT trace, min(ts) AS a, max(ts) AS b FROM events GROUP BY trace ORDER BY trace",
        dir,
    ]);
    let mut checked = 0;
    for span in &spans {
        let trace = span["trace"].as_str().unwrap();
        let (a, b) = (span["a"].as_i64().unwrap(), span["b"].as_i64().unwrap());
        // The middle third of the trace.
        let (from, until) = (a + (b - a) / 3, a + 2 * (b - a) / 3);
        for (pushed, hidden) in [
            (
                format!("ts BETWEEN {from} AND {until}"),
                format!("ts + 0 BETWEEN {from} AND {until}"),
            ),
            (
                format!("ts >= {from} AND ts < {until} AND name IN ('sched_switch', 'sched_wakeup')"),
                format!("ts + 0 >= {from} AND ts + 0 < {until} AND name || '' IN ('sched_switch', 'sched_wakeup')"),
            ),
            (format!("name = 'sched_switch' AND ts > {until}"), format!("name || '' = 'sched_switch' AND ts + 0 > {until}")),
        ] {
            let query = |filter: &str| {
                format!(
                    "SELECT ts, name, cpu, tid, payload FROM events \
                     WHERE trace = '{trace}' AND {filter} ORDER BY ts, name, cpu, tid, payload"
                )
            };
            let (narrowed, _) = rows(&[&query(&pushed), dir]);
            let (whole, _) = rows(&[&query(&hidden), dir]);
            assert_eq!(narrowed, whole, "{trace}: {pushed}");
            checked += usize::from(!whole.is_empty());
        }
    }
    // The comparison saw rows (scheduler events in most traces).
    assert!(checked >= spans.len(), "{checked} non-empty answers");
}

/// The warning lines of `err` that name `trace`.
fn warnings_naming(err: &str, trace: &Path) -> usize {
    let trace = trace.to_string_lossy();
    err.lines()
        .filter(|l| l.starts_with("sextant: warning:") && l.contains(&*trace))
        .count()
}

/// Executions per trace, by `analyze` on the trace alone; `what` says
/// which (`--preset NAME`, `--model FILE`).
fn analyzed(src: &Path, what: &[&str]) -> Vec<Value> {
    let out = command()
        .args(["analyze", "--format", "json", "--no-store"])
        .args(what)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut list = doc["executions"].as_array().unwrap().clone();
    list.sort_by_key(|e| e["index"].as_u64());
    list
}

#[test]
fn executions_per_trace_are_analyzes() {
    let c = corpus("executions");
    let cache = c.dir.join(".cache");
    let (answer, _) = rows(&[
        "SELECT * FROM executions('preset:running') ORDER BY trace, \"index\"",
        c.dir.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    let mut by_trace: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for r in &answer {
        by_trace
            .entry(r["trace"].as_str().unwrap())
            .or_default()
            .push(r);
    }
    for (name, src) in &c.traces {
        let expected = analyzed(src, &["--preset", "running"]);
        let got = by_trace.remove(name.as_str()).unwrap_or_default();
        assert_eq!(got.len(), expected.len(), "{name}: executions");
        for (g, e) in got.iter().zip(&expected) {
            for column in [
                "index",
                "start",
                "end",
                "duration",
                "running",
                "preempted",
                "blocked",
                "waiting",
                "tid",
                "start_comm",
                "end_comm",
                "cpus",
                "prio",
            ] {
                assert_eq!(
                    g[column], e[column],
                    "{name}: execution {} {column}",
                    e["index"]
                );
            }
        }
    }
    assert!(by_trace.is_empty(), "rows of no trace: {by_trace:?}");
}

#[test]
fn a_second_identical_query_reads_no_trace() {
    let c = corpus("store");
    let cache = c.dir.join(".cache");
    let query = [
        "SELECT trace, count(*) AS n, max(duration) AS worst FROM executions('preset:running') GROUP BY trace ORDER BY trace",
        c.dir.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
        "--format",
        "json",
    ];
    let first = sql(&query);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let n = c.traces.len();
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(
        said.contains(&format!(
            "executions of {n} traces found by a pass, of 0 read from their store"
        )),
        "{said}"
    );
    // The second run under strace, beside a third without the store: the
    // second maps no trace file the third maps for its pass (a BTF file is
    // mapped once to tell its format, as every command does, and its pass
    // maps it again), and reads a one-file trace no further than its head
    // (the store's identity hashes its first 64 KiB).
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!(
            "skipped the strace check: strace is not installed (tests/run-all.sh installs it)"
        );
        return;
    }
    let (second, again) = traced(&c.dir.join(".strace2"), &query);
    assert_eq!(first.stdout, second.stdout, "the same answer");
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains(&format!(
            "executions of 0 traces found by a pass, of {n} read from their store"
        )),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&cache);
    let (_, cold) = traced(&c.dir.join(".strace3"), &query);
    const HEAD: u64 = 64 * 1024;
    let mut passes = 0;
    for name in c.traces.keys() {
        let trace = c.dir.join(name);
        let below = |m: &BTreeMap<PathBuf, Use>| -> Vec<(PathBuf, Use)> {
            m.range(trace.clone()..)
                .take_while(|(f, _)| f.starts_with(&trace))
                .map(|(f, u)| (f.clone(), *u))
                .collect()
        };
        let warm: BTreeMap<PathBuf, Use> = below(&again).into_iter().collect();
        for (file, pass) in below(&cold) {
            let u = warm.get(&file).copied().unwrap_or_default();
            if pass.maps > 0 {
                passes += 1;
                assert!(
                    u.maps < pass.maps,
                    "{name}: {} mapped again ({} times; {} without the store)",
                    file.display(),
                    u.maps,
                    pass.maps
                );
            }
            // A CTF trace's metadata is read whole: its identity and host.
            let metadata = file.file_name().is_some_and(|n| n == "metadata");
            assert!(
                metadata || u.read <= 2 * HEAD,
                "{name}: {} bytes of {} read again",
                u.read,
                file.display()
            );
        }
    }
    // The check can fail: without the store, trace files are mapped.
    assert!(passes > 0, "no trace file mapped without the store");
}

/// How a run used one file: bytes read, and whether it was mapped.
#[derive(Default, Debug, Clone, Copy)]
struct Use {
    read: u64,
    maps: u32,
}

/// `sextant sql ARGS` under strace (one log per process, so no call is
/// split across lines), with how it used each file.
fn traced(prefix: &Path, args: &[&str]) -> (Output, BTreeMap<PathBuf, Use>) {
    let out = Command::new("strace")
        .args(["-ff", "-y", "-e", "trace=read,pread64,mmap", "-o"])
        .arg(prefix)
        .arg(env!("CARGO_BIN_EXE_sextant"))
        .env("XDG_CACHE_HOME", common::cache_home())
        .arg("sql")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut used: BTreeMap<PathBuf, Use> = BTreeMap::new();
    let stem = prefix.file_name().unwrap().to_string_lossy().into_owned();
    for e in std::fs::read_dir(prefix.parent().unwrap()).unwrap() {
        let e = e.unwrap();
        if !e
            .file_name()
            .to_string_lossy()
            .starts_with(&format!("{stem}."))
        {
            continue;
        }
        for line in std::fs::read_to_string(e.path()).unwrap().lines() {
            // `read(3</path>, ..., 8192) = 8192`, `mmap(NULL, N, ..., 3</path>, 0) = 0x..`
            let Some(open) = line.find('<') else { continue };
            let Some(close) = line[open..].find('>') else {
                continue;
            };
            let file = PathBuf::from(&line[open + 1..open + close]);
            let u = used.entry(file).or_default();
            if line.starts_with("mmap(") {
                u.maps += 1;
            } else if let Some(n) = line
                .rsplit(" = ")
                .next()
                .and_then(|n| n.parse::<u64>().ok())
            {
                u.read += n;
            }
        }
        let _ = std::fs::remove_file(e.path());
    }
    (out, used)
}

#[test]
fn a_filter_on_trace_or_host_leaves_other_traces_unread() {
    let c = corpus("prune");
    // A trace that cannot be read: any query that opens it fails, naming it.
    let broken = c.dir.join("broken/ctf");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("metadata"), "/* CTF 1.8 */ trace { major = ").unwrap();
    let dir = c.dir.to_str().unwrap();
    let all = sql(&["SELECT count(*) FROM events", dir]);
    assert!(!all.status.success());
    let err = String::from_utf8_lossy(&all.stderr);
    assert!(
        err.contains("events of") && err.contains("broken/ctf"),
        "{err}"
    );
    let (one, _) = rows(&[
        "SELECT count(*) AS n FROM events WHERE trace = 'ftrace/taskset.txt'",
        dir,
    ]);
    let expected = lines(
        command()
            .args(["dump", "--format", "jsonl"])
            .arg(&c.traces["ftrace/taskset.txt"]),
    );
    assert_eq!(one[0]["n"].as_u64(), Some(expected));
    let (some, _) = rows(&[
        "SELECT DISTINCT trace FROM thread_states WHERE trace IN ('perf/taskset', 'tracedat/v7.dat') ORDER BY trace",
        dir,
    ]);
    let names: Vec<&str> = some.iter().map(|r| r["trace"].as_str().unwrap()).collect();
    assert_eq!(names, ["perf/taskset", "tracedat/v7.dat"]);
}

#[test]
fn a_model_a_trace_cannot_match_empties_that_trace_with_one_warning() {
    let c = corpus("lacking");
    // Events of perf CTF and ftrace fixtures; a trace.dat has no such events.
    let model = r#"{"name": "switches", "mode": "same_tid",
        "events": [{"name": "sched_switch"}, {"name": "sched_wakeup_new"}]}"#;
    let path = c.dir.join("model.json");
    std::fs::write(&path, model).unwrap();
    let query = format!(
        "SELECT trace, count(*) AS n FROM executions('{}') GROUP BY trace ORDER BY trace",
        path.display()
    );
    let (answer, err) = rows(&[&query, c.dir.to_str().unwrap(), "--no-store"]);
    let with_rows: Vec<&str> = answer
        .iter()
        .map(|r| r["trace"].as_str().unwrap())
        .collect();
    for (name, src) in &c.traces {
        let expected = analyzed(src, &["--model", path.to_str().unwrap()]).len();
        let warned = warnings_naming(&err, &c.dir.join(name));
        if expected == 0 {
            assert!(!with_rows.contains(&name.as_str()), "{name}");
            assert_eq!(warned, 1, "{name}: one warning\n{err}");
        } else {
            let n = answer.iter().find(|r| r["trace"] == name.as_str()).unwrap()["n"].as_u64();
            assert_eq!(n, Some(expected as u64), "{name}");
        }
    }
    assert!(
        !with_rows.is_empty() && with_rows.len() < c.traces.len(),
        "{answer:?}"
    );
}

/// `sextant tasks --format json`'s tasks of `src`, with `flags`.
fn tasks_of(src: &Path, flags: &[&str]) -> Vec<Value> {
    let out = command()
        .args(["tasks", "--format", "json"])
        .args(flags)
        .arg(src)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {err}", src.display());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["tasks"].as_array().unwrap().clone()
}

#[test]
fn tasks_per_trace_are_the_tasks_commands() {
    // Two copies of the taskset folder: its capture, perf and ftrace
    // recordings twice.
    let dir = std::env::temp_dir().join(format!("sextant-sql-tasks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let fixture = repo_root().join("fixtures/taskset");
    let mut traces = BTreeMap::new();
    for copy in ["1", "2"] {
        copy_tree(&fixture, &dir.join(copy).join("taskset"));
        for (name, src) in [("ctf", "ctf"), ("perf", "perf"), ("trace.txt", "trace.txt")] {
            traces.insert(format!("{copy}/taskset/{name}"), fixture.join(src));
        }
    }
    let c = Corpus { dir, traces };
    let dir = c.dir.to_str().unwrap();
    // The engine's order: periodic tasks first, then by TID.
    let (answer, _) = rows(&[
        "SELECT * FROM tasks() ORDER BY trace, kind <> 'periodic', tid",
        dir,
    ]);
    let mut by_trace: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in answer {
        let name = r["trace"].as_str().unwrap().to_string();
        by_trace.entry(name).or_default().push(r);
    }
    let names: Vec<&String> = by_trace.keys().collect();
    assert_eq!(names, c.traces.keys().collect::<Vec<_>>());
    for (name, src) in &c.traces {
        let want = tasks_of(src, &[]);
        let got = &by_trace[name];
        assert!(want.len() >= 6, "{name}: {} tasks", want.len());
        assert_eq!(got.len(), want.len(), "{name}: tasks");
        for (g, w) in got.iter().zip(&want) {
            let mut g = g.as_object().unwrap().clone();
            assert!(g
                .remove("host")
                .unwrap()
                .as_str()
                .is_some_and(|h| !h.is_empty()));
            assert_eq!(g.remove("trace"), Some(Value::from(name.as_str())));
            // The model is its JSON text, as in Python's table.
            let model = g.remove("model").unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(model.as_str().unwrap()).unwrap(),
                w["model"],
                "{name}: model"
            );
            let mut w = w.as_object().unwrap().clone();
            w.remove("model");
            assert_eq!(w.remove("host"), Some(Value::Null), "{name}: one host");
            assert_eq!(g, w, "{name}: task {}", w["tid"]);
        }
    }
    // Arguments are the command's flags; a filter on `trace` opens that
    // trace only (any query that opens the broken one fails, naming it).
    let broken = c.dir.join("broken/ctf");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("metadata"), "/* CTF 1.8 */ trace { major = ").unwrap();
    let all = sql(&["SELECT count(*) FROM tasks()", dir]);
    let err = String::from_utf8_lossy(&all.stderr);
    assert!(
        !all.status.success() && err.contains("tasks of") && err.contains("broken/ctf"),
        "{err}"
    );
    let (one, _) = rows(&[
        "SELECT tid, misses, deadline FROM tasks(20, 0.5) WHERE trace = '2/taskset/trace.txt' ORDER BY kind <> 'periodic', tid",
        dir,
    ]);
    let want: Vec<Value> = tasks_of(
        &c.traces["2/taskset/trace.txt"],
        &["--min-jobs", "20", "--deadline", "0.5"],
    )
    .iter()
    .map(|w| serde_json::json!({"tid": w["tid"], "misses": w["misses"], "deadline": w["deadline"]}))
    .collect();
    assert_eq!(one, want);
}

/// `sextant explain --format json`'s report of execution `n` of `src`.
fn explained(src: &Path, model: &Path, n: u64) -> Value {
    let out = command()
        .args(["explain", "--format", "json", "--no-store", "--model"])
        .arg(model)
        .args(["--execution", &n.to_string()])
        .arg(src)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{} {n}: {err}", src.display());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `explain()`'s `who` of a cause of `explain --format json`, as
/// schemas/exports.md defines it: `by`, else `ran`, else `from` (a host),
/// else `of`.
fn who(cause: &Value) -> Value {
    let named = |key: &str| Some(&cause[key]).filter(|v| !v.is_null());
    let thread = |p: &Value| {
        let tid = p["tid"].as_i64().unwrap();
        Value::from(match p["comm"].as_str().unwrap() {
            "" => format!("thread {tid}"),
            comm => format!("{comm} ({tid})"),
        })
    };
    if let Some(p) = named("by").or_else(|| named("ran")) {
        return thread(p);
    }
    if let Some(host) = named("from") {
        return Value::from(format!("host {}", host.as_str().unwrap()));
    }
    named("of").map_or(Value::Null, thread)
}

#[test]
fn explain_per_trace_is_the_explain_commands_for_the_k_longest() {
    let c = corpus("explain");
    // A model some traces cannot match (no `sched_wakeup_new`).
    let model = c.dir.join("model.json");
    std::fs::write(
        &model,
        r#"{"name": "switches", "mode": "same_tid",
        "events": [{"name": "sched_switch"}, {"name": "sched_wakeup_new"}]}"#,
    )
    .unwrap();
    let query = format!(
        "SELECT * FROM explain('{}', 2) ORDER BY trace, duration DESC, execution, rank",
        model.display()
    );
    let (answer, err) = rows(&[&query, c.dir.to_str().unwrap(), "--no-store"]);
    let mut by_trace: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in answer {
        let name = r["trace"].as_str().unwrap().to_string();
        assert!(r["host"].as_str().is_some_and(|h| !h.is_empty()));
        by_trace.entry(name).or_default().push(r);
    }
    let mut explained_traces = 0;
    for (name, src) in &c.traces {
        let mut found = analyzed(src, &["--model", model.to_str().unwrap()]);
        // The engine's ranking: longest first, then in start order.
        found.sort_by_key(|e| (-e["duration"].as_i64().unwrap(), e["index"].as_u64()));
        let mut want = Vec::new();
        for e in found.iter().take(2) {
            let n = e["index"].as_u64().unwrap();
            let doc = explained(src, &model, n);
            // A cause of `null` is the row of an execution without one.
            let row = |rank: Value, cause: &Value| {
                serde_json::json!({
                    "execution": n, "start": e["start"], "duration": e["duration"],
                    "diagnosis": doc["diagnosis"], "rank": rank, "kind": cause["kind"],
                    "cost": cause["cost"], "who": who(cause), "text": cause["text"],
                })
            };
            let causes = doc["causes"].as_array().unwrap();
            if causes.is_empty() {
                want.push(row(Value::Null, &Value::Null));
            }
            for (i, cause) in causes.iter().enumerate() {
                want.push(row(Value::from(i as u64 + 1), cause));
            }
        }
        let got: Vec<Value> = by_trace
            .remove(name)
            .unwrap_or_default()
            .into_iter()
            .map(|mut r| {
                let r = r.as_object_mut().unwrap();
                r.remove("host");
                assert_eq!(r.remove("trace"), Some(Value::from(name.as_str())));
                Value::Object(r.clone())
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{name}: rows");
        for (g, w) in got.iter().zip(&want) {
            for column in w.as_object().unwrap().keys() {
                assert_eq!(g[column], w[column], "{name}: {column} of {w}");
            }
            assert_eq!(g, w, "{name}: the columns");
        }
        let warned = warnings_naming(&err, &c.dir.join(name));
        if found.is_empty() {
            assert_eq!(warned, 1, "{name}: one warning\n{err}");
        } else {
            explained_traces += 1;
        }
    }
    assert!(by_trace.is_empty(), "rows of no trace: {by_trace:?}");
    assert!(explained_traces >= 3, "{explained_traces} traces explained");
}

#[test]
fn errors_name_the_table_the_column_or_the_trace() {
    let c = corpus("errors");
    let dir = c.dir.to_str().unwrap();
    let said = |args: &[&str]| {
        let out = sql(args);
        assert!(!out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(said(&["SELECT nosuchcolumn FROM events", dir]).contains("nosuchcolumn"));
    assert!(said(&["SELECT * FROM nosuchtable", dir]).contains("nosuchtable"));
    assert!(said(&["SELECT * FROM executions('preset:nope')", dir]).contains("whole-thread"));
    assert!(said(&["SELECT * FROM tasks(1)", dir]).contains("at least 2 jobs"));
    assert!(said(&["SELECT 1", "/no/such/trace"]).contains("/no/such/trace"));
    assert!(said(&["SELECT 1", dir, "--format", "parquet"]).contains("--out"));
}

#[test]
fn answers_as_csv_json_and_parquet_agree() {
    let c = corpus("formats");
    let dir = c.dir.to_str().unwrap();
    let query = "SELECT trace, tid, comm, count(*) AS n FROM thread_states WHERE trace LIKE 'perf/%' GROUP BY trace, tid, comm ORDER BY trace, tid, comm";
    let (json, _) = rows(&[query, dir]);
    let csv = sql(&[query, dir, "--format", "csv"]);
    assert!(csv.status.success());
    let text = String::from_utf8(csv.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("trace,tid,comm,n"));
    assert_eq!(lines.count(), json.len());
    assert!(!json.is_empty());
    let out = c.dir.join("answer.parquet");
    let pq = sql(&[
        query,
        dir,
        "--format",
        "parquet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        pq.status.success(),
        "{}",
        String::from_utf8_lossy(&pq.stderr)
    );
    let head = std::fs::read(&out).unwrap();
    assert_eq!(&head[..4], b"PAR1");
}
