//! The "Real-time tasks" outputs over TSP, offered with no configuration:
//! the table says what `sextant tasks --format json` says of the same
//! trace, key by key; each task's instance series has a point per job, at
//! its release, whose response times are those of the jobs `sextant
//! analyze` finds with the task's own emitted model, and whose percentiles
//! and misses are those of the command line's summary.

mod common;

use std::collections::{BTreeSet, HashMap};

use common::server::Server;
use common::tsp_spec::{spec_path, Session, Spec};
use common::{repo_root, run_json, shared_dir, skip_shared, TempDir};
use serde_json::{json, Value};

const TABLE: &str = "sextant.tasks";
const RESPONSE: &str = "sextant.tasks.response";
const EXECUTION: &str = "sextant.tasks.execution";
const PERIODICITY: &str = "sextant.tasks.periodicity";
const SEPARATION: &str = "sextant.tasks.separation";

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// `sextant tasks TRACE --format json`'s tasks.
fn cli_tasks(trace: &str) -> Vec<Value> {
    let doc = run_json(&["tasks", trace, "--format", "json"]);
    doc["tasks"].as_array().unwrap().clone()
}

/// The table's column names and every line's cells.
fn table(srv: &Server, exp: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let base = format!("/experiments/{exp}/outputs/table/{TABLE}");
    let (st, cols) = srv.post(&format!("{base}/columns"), &json!({"parameters": {}}));
    assert_eq!(st, 200, "{cols}");
    let names: Vec<String> = cols["model"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(k, c)| {
            assert_eq!(i(&c["id"]), k as i64);
            c["name"].as_str().unwrap().to_string()
        })
        .collect();
    let (st, lines) = srv.post(
        &format!("{base}/lines"),
        &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 10_000}}),
    );
    assert_eq!(st, 200, "{lines}");
    assert_eq!(lines["status"], "COMPLETED");
    let model = &lines["model"];
    let rows: Vec<Vec<String>> = model["lines"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(k, l)| {
            assert_eq!(i(&l["index"]), k as i64);
            common::table_cells(l)
        })
        .collect();
    assert_eq!(i(&model["size"]), rows.len() as i64);
    (names, rows)
}

/// A number (or null, an empty cell) as the table writes it.
fn int_cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        v => i(v).to_string(),
    }
}

/// Every key of a `sextant tasks` row against the table line: the keys
/// the test knows must be all the row has, so a key added to the command
/// line and not to the table fails here.
fn same_row(task: &Value, names: &[String], cells: &[String]) {
    let at = |name: &str| -> &str {
        let k = names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no column {name:?} in {names:?}"));
        &cells[k]
    };
    let comm = task["comm"].as_str().unwrap();
    let mut keys: BTreeSet<&str> = task
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut check = |key: &'static str, ok: bool, shown: &str| {
        assert!(
            ok,
            "{comm}: {key} = {} but the table says {shown:?}",
            task[key]
        );
        keys.remove(key);
    };
    let host = task["host"].as_str().unwrap_or("");
    check("host", at("Host") == host, at("Host"));
    for (key, column) in [
        ("tid", "TID"),
        ("period", "Period"),
        ("jitter", "Jitter"),
        ("min_interarrival", "Min inter-arrival"),
        ("jobs", "Jobs"),
        ("first_release", "First release"),
        ("deadline", "Deadline"),
        ("misses", "Misses"),
    ] {
        check(key, at(column) == int_cell(&task[key]), at(column));
    }
    for (key, column) in [
        ("comm", "Command"),
        ("kind", "Kind"),
        ("policy", "Policy"),
        ("released_by", "Released by"),
    ] {
        check(key, task[key] == at(column), at(column));
    }
    let confidence: f64 = at("Confidence").parse().unwrap();
    check(
        "confidence",
        task["confidence"].as_f64() == Some(confidence),
        at("Confidence"),
    );
    for (key, prefix) in [("response", "Response"), ("execution", "Execution")] {
        let ok = ["p50", "p99", "max"]
            .iter()
            .all(|p| at(&format!("{prefix} {p}")) == int_cell(&task[key][p]));
        check(key, ok, &format!("{prefix} p50/p99/max"));
    }
    for (key, column) in [("cpus", "CPUs"), ("phases", "Phases"), ("model", "Model")] {
        let shown: Value = serde_json::from_str(at(column))
            .unwrap_or_else(|e| panic!("{comm}: {column} is not JSON ({e}): {}", at(column)));
        check(key, shown == task[key], at(column));
    }
    // "FIFO/RR 80 (19)": the priority as set, the kernel's number beside
    // it; an RTOS task's "priority N" is 99 - N in kernel order.
    let shown = at("Priority (kernel)");
    let priority = task["priority"].as_str().unwrap();
    let (as_set, kernel) = match task["kernel_prio"].as_i64() {
        None => (shown.is_empty(), shown.is_empty()),
        Some(_) if task["policy"] == "RTOS" => {
            let n: i64 = shown.trim_start_matches("priority ").parse().unwrap();
            (
                shown == priority,
                Some(99 - n) == task["kernel_prio"].as_i64(),
            )
        }
        Some(k) => (
            shown.starts_with(&format!("{priority} (")),
            shown.ends_with(&format!("({k})")),
        ),
    };
    check("priority", as_set, shown);
    check("kernel_prio", kernel, shown);
    assert!(keys.is_empty(), "{comm}: keys the table lacks: {keys:?}");
}

/// The table of the trace at `uri` served alone is `sextant tasks` on it,
/// line for line; returns the command line's tasks and the experiment.
fn table_is_the_command_line(srv: &Server, name: &str, uri: &str) -> (Vec<Value>, String) {
    let (exp, _) = srv.open_trace(name, uri);
    let (st, outputs) = srv.get(&format!("/experiments/{exp}/outputs"));
    assert_eq!(st, 200);
    let listed: Vec<&str> = outputs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    for id in [TABLE, RESPONSE, EXECUTION, PERIODICITY, SEPARATION] {
        assert!(
            listed.contains(&id),
            "{id} not offered for {uri}: {listed:?}"
        );
    }
    let tasks = cli_tasks(uri);
    let (names, rows) = table(srv, &exp);
    assert_eq!(rows.len(), tasks.len(), "{uri}: {rows:?}");
    for (task, cells) in tasks.iter().zip(&rows) {
        same_row(task, &names, cells);
    }
    (tasks, exp)
}

/// The series of every task of `exp` for the output `id`, over the whole
/// experiment (`extra` parameters added), by series id.
fn series(
    srv: &Server,
    exp: &str,
    id: &str,
    count: usize,
    extra: Value,
) -> Vec<(Vec<i64>, Vec<i64>)> {
    let (_, e) = srv.get(&format!("/experiments/{exp}"));
    let mut range = json!({"start": e["start"], "end": e["end"]});
    if let (Some(r), Some(more)) = (range.as_object_mut(), extra.as_object()) {
        r.extend(more.clone());
    }
    let ids: Vec<i64> = (0..count as i64).collect();
    let (st, xy) = srv.post(
        &format!("/experiments/{exp}/outputs/XY/{id}/xy"),
        &json!({"parameters": {"requested_timerange": range, "requested_items": ids}}),
    );
    assert_eq!(st, 200, "{xy}");
    let all = xy["model"]["series"].as_array().unwrap();
    assert_eq!(all.len(), count, "{id}: one series per task asked");
    all.iter()
        .enumerate()
        .map(|(k, s)| {
            assert_eq!(i(&s["seriesId"]), k as i64);
            let ints =
                |key: &str| -> Vec<i64> { s[key].as_array().unwrap().iter().map(i).collect() };
            (ints("xValues"), ints("yValues"))
        })
        .collect()
}

/// The nearest-rank percentile, as the command line's summaries take it.
fn percentile(values: &[i64], p: usize) -> i64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

/// Each task's series: its tree entry; a response and an execution time
/// per job at its release; their percentiles and misses the summary's;
/// periodicity and separation from the releases and completions.
fn series_are_the_jobs(srv: &Server, exp: &str, tasks: &[Value]) -> Vec<(Vec<i64>, Vec<i64>)> {
    let (st, tree) = srv.post(
        &format!("/experiments/{exp}/outputs/XY/{RESPONSE}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{tree}");
    let entries = tree["model"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), tasks.len());
    for (k, (e, t)) in entries.iter().zip(tasks).enumerate() {
        assert_eq!(i(&e["id"]), k as i64);
        assert_eq!(e["labels"][0], t["comm"]);
        assert_eq!(e["labels"][1], t["tid"].to_string());
    }
    let response = series(srv, exp, RESPONSE, tasks.len(), json!({}));
    let execution = series(srv, exp, EXECUTION, tasks.len(), json!({}));
    let periodicity = series(srv, exp, PERIODICITY, tasks.len(), json!({}));
    let separation = series(srv, exp, SEPARATION, tasks.len(), json!({}));
    for (k, t) in tasks.iter().enumerate() {
        let comm = t["comm"].as_str().unwrap();
        let jobs = t["jobs"].as_u64().unwrap() as usize;
        let (releases, responses) = &response[k];
        assert_eq!(releases.len(), jobs, "{comm}: a response per job");
        assert_eq!(execution[k].1.len(), jobs, "{comm}: an execution per job");
        assert_eq!(&execution[k].0, releases, "{comm}");
        assert!(
            releases.windows(2).all(|w| w[0] <= w[1]),
            "{comm}: release order"
        );
        assert_eq!(Some(releases[0]), t["first_release"].as_i64(), "{comm}");
        for (key, ys) in [("response", responses), ("execution", &execution[k].1)] {
            let got = [
                percentile(ys, 50),
                percentile(ys, 99),
                *ys.iter().max().unwrap(),
            ];
            let want = ["p50", "p99", "max"].map(|p| i(&t[key][p]));
            assert_eq!(got, want, "{comm}: {key} p50, p99, max");
        }
        assert!(
            execution[k].1.iter().zip(responses).all(|(e, r)| e <= r),
            "{comm}: a job runs at most its response time"
        );
        if t["phases"].as_array().is_some_and(|p| p.len() <= 1) {
            let deadline = i(&t["deadline"]);
            let late = responses.iter().filter(|&&r| r > deadline).count();
            assert_eq!(late as i64, i(&t["misses"]), "{comm}: misses");
        }
        // Periodicity: each release since the one before; separation: since
        // the previous job's completion (its release + response time).
        let (px, py) = &periodicity[k];
        let (sx, sy) = &separation[k];
        assert_eq!(px[..], releases[1..], "{comm}");
        assert_eq!(sx[..], releases[1..], "{comm}");
        for j in 1..jobs {
            assert_eq!(py[j - 1], releases[j] - releases[j - 1], "{comm} job {j}");
            let completed = releases[j - 1] + responses[j - 1];
            assert_eq!(sy[j - 1], releases[j] - completed, "{comm} job {j}");
        }
    }
    response
}

/// scenario-a: the table is `sextant tasks`; each series is its task's
/// jobs, and the jobs `analyze` finds with each emitted model are there:
/// to the nanosecond for a model from wake-up to block, inside a job for
/// one from the sleep's return to its next call.
#[test]
fn scenario_a_tasks_table_and_series() {
    let srv = Server::start();
    let fixture = repo_root().join("fixtures/scenario-a/ctf");
    let trace = fixture.to_str().unwrap();
    let (tasks, exp) = table_is_the_command_line(&srv, "tasks-a", trace);
    assert!(
        tasks
            .iter()
            .any(|t| t["comm"] == "rt_high" && t["kind"] == "periodic"),
        "{tasks:?}"
    );
    let response = series_are_the_jobs(&srv, &exp, &tasks);

    let models = TempDir::new("tsp-tasks-models");
    let dir = models.path().to_str().unwrap();
    let emitted = run_json(&["tasks", trace, "--format", "json", "--emit-models", dir]);
    assert_eq!(emitted["tasks"].as_array().unwrap(), &tasks);
    let mut exact = 0;
    for (k, t) in tasks.iter().enumerate() {
        let (comm, tid) = (t["comm"].as_str().unwrap(), i(&t["tid"]));
        let file = format!("{}-{tid}.json", comm.replace(':', "_"));
        let model = models.path().join(file);
        let found = run_json(&[
            "analyze",
            trace,
            "--model",
            model.to_str().unwrap(),
            "--format",
            "json",
            "--no-store",
        ]);
        let executions = found["executions"].as_array().unwrap();
        let points: Vec<(i64, i64)> = response[k]
            .0
            .iter()
            .copied()
            .zip(response[k].1.iter().copied())
            .collect();
        let jobs = points.len();
        assert!(
            executions.len().abs_diff(jobs) <= jobs / 10 + 1,
            "{comm}: analyze {} executions, series {jobs} points",
            executions.len()
        );
        for x in executions {
            let (start, duration) = (i(&x["start"]), i(&x["duration"]));
            if t["model"]["mode"] == "different_tids" {
                assert!(
                    points.contains(&(start, duration)),
                    "{comm}: analyze's job at {start} ({duration} ns) is not a point"
                );
            } else {
                // From the sleep's return: inside the job released before.
                let k = points.partition_point(|(x, _)| *x <= start);
                assert!(k > 0, "{comm}: a job at {start} before every release");
                let (release, resp) = points[k - 1];
                assert!(
                    start + duration <= release + resp,
                    "{comm}: analyze's job {start}+{duration} ends after its release {release}+{resp}"
                );
            }
        }
        exact += usize::from(t["model"]["mode"] == "different_tids");
    }
    assert!(exact >= 2, "models from wake-up to block: {exact}");

    // More jobs than asked times: thinned to the highest per bucket.
    let thin = series(&srv, &exp, RESPONSE, tasks.len(), json!({"nbTimes": 5}));
    for (k, (xs, ys)) in thin.iter().enumerate() {
        assert!(xs.len() <= 5 && !xs.is_empty(), "{:?}", tasks[k]["comm"]);
        assert_eq!(
            ys.iter().max(),
            response[k].1.iter().max(),
            "the longest kept"
        );
    }
}

/// The third-party traces present beside the checkout: a perf recording,
/// an LTTng kernel trace of many threads, the TA simulator's BTF trace.
#[test]
fn shared_traces_tasks_table_and_series() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let traces = shared.join("traces");
    let srv = Server::start_with(&["--allow-root", traces.to_str().unwrap()]);
    let mut checked = 0;
    for (name, rel) in [
        ("perf", "ctf/perf-taskset2"),
        ("many", "ctf/many-threads"),
        ("ta", "btf/ta-simulator-20140219-123819.btf"),
    ] {
        let path = traces.join(rel);
        if !path.exists() {
            eprintln!("skipped: {} is absent", path.display());
            continue;
        }
        let (tasks, exp) = table_is_the_command_line(&srv, name, path.to_str().unwrap());
        if !tasks.is_empty() {
            series_are_the_jobs(&srv, &exp, &tasks);
            checked += 1;
        }
    }
    assert!(checked >= 1, "no shared trace had a task");
}

/// Every answer of the tasks outputs, as a viewer asks for them, is what
/// the TSP specification says (`../shared/specs/tsp-API.yaml`); a negative
/// page index is refused with the field named.
#[test]
fn answers_follow_the_tsp_specification() {
    let Some(spec) = Spec::load() else {
        eprintln!("skipped: {} is absent", spec_path().display());
        return;
    };
    let mut s = Session {
        srv: Server::start(),
        spec,
        checked: HashMap::new(),
        failures: Vec::new(),
        undeclared: Vec::new(),
    };
    let (exp, e) = s.srv.open_scenario_a("tasks-spec");
    let base = format!("/experiments/{exp}/outputs");
    for id in [TABLE, RESPONSE, EXECUTION, PERIODICITY, SEPARATION] {
        s.get(&format!("{base}/{id}"));
    }
    s.post(
        &format!("{base}/table/{TABLE}/columns"),
        json!({"parameters": {}}),
    );
    let (_, lines) = s.post(
        &format!("{base}/table/{TABLE}/lines"),
        json!({"parameters": {"requested_table_index": 1, "requested_table_count": 2,
            "requested_table_column_ids": [2, 15, 99]}}),
    );
    assert_eq!(
        lines["model"]["columnIds"],
        json!([2, 15]),
        "an unknown column left out"
    );
    assert_eq!(i(&lines["model"]["lowIndex"]), 1);
    assert_eq!(lines["model"]["lines"].as_array().unwrap().len(), 2);
    let (st, bad) = s.post(
        &format!("{base}/table/{TABLE}/lines"),
        json!({"parameters": {"requested_table_index": -1}}),
    );
    assert_eq!(st, 400, "{bad}");
    assert!(
        bad["detail"]
            .as_str()
            .unwrap()
            .contains("requested_table_index"),
        "{bad}"
    );
    for id in [RESPONSE, EXECUTION, PERIODICITY, SEPARATION] {
        s.post(&format!("{base}/XY/{id}/tree"), json!({"parameters": {}}));
        let range = json!({"start": e["start"], "end": e["end"], "nbTimes": 500});
        let (_, xy) = s.post(
            &format!("{base}/XY/{id}/xy"),
            json!({"parameters": {"requested_timerange": range, "requested_items": [0, 1, 1000]}}),
        );
        let ids: Vec<i64> = xy["model"]["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| i(&x["seriesId"]))
            .collect();
        assert_eq!(ids, [0, 1], "{id}: an unknown task left out");
        // No item asked: the default task, the highest priority (rt_high).
        let (_, xy) = s.post(
            &format!("{base}/XY/{id}/xy"),
            json!({"parameters": {"requested_timerange": range}}),
        );
        let names: Vec<&str> = xy["model"]["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["seriesName"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 1, "{id}: {names:?}");
        assert!(names[0].starts_with("rt_high ("), "{id}: {names:?}");
    }
    assert!(s.failures.is_empty(), "{:#?}", s.failures);
    assert!(s.checked.len() >= 5, "{:?}", s.checked);
}
