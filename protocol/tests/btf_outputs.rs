//! The BTF outputs over HTTP against `sextant serve` (tasks and runnables,
//! semaphores, OS events, signals), checked against computations made here
//! from the files' text split on commas (not the reader): the TA Simulator
//! trace of `../shared/traces/btf` (skipped with a message when absent) and
//! a small trace written here for the OS events, which no shared trace has.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::server::Server;
use common::{shared_dir, skip_shared};
use serde_json::{json, Value};

const TASKS: &str = "sextant.btf.tasks";
const SEMAPHORES: &str = "sextant.btf.semaphores";
const EVENTS: &str = "sextant.btf.os-events";
const SIGNALS: &str = "sextant.btf.signals";

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// The data rows of a BTF file in ns: fields trimmed, time scaled.
fn rows(path: &Path) -> Vec<(i64, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let ns = match text.lines().find_map(|l| l.strip_prefix("#timeScale ")) {
        Some("us") => 1_000,
        Some("ms") => 1_000_000,
        _ => 1,
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<String> = l.splitn(8, ',').map(|f| f.trim().to_string()).collect();
            (f[0].parse::<i64>().unwrap() * ns, f)
        })
        .collect()
}

/// Intervals opened by some actions and closed by others (or by the end
/// of the trace), per key: (count, summed time).
fn intervals(
    rows: &[(i64, Vec<String>)],
    ty: &str,
    open: &[&str],
    close: &[&str],
    key: impl Fn(&[String]) -> (String, String),
    instance: impl Fn(&[String]) -> String,
) -> BTreeMap<(String, String), (u64, i64)> {
    let mut since: BTreeMap<((String, String), String), i64> = BTreeMap::new();
    let mut out: BTreeMap<(String, String), (u64, i64)> = BTreeMap::new();
    for (t, f) in rows.iter().filter(|(_, f)| f[3] == ty) {
        let k = (key(f), instance(f));
        if close.contains(&f[6].as_str()) {
            if let Some(s) = since.remove(&k) {
                if *t > s {
                    let e = out.entry(k.0.clone()).or_default();
                    e.0 += 1;
                    e.1 += t - s;
                }
            }
        }
        if open.contains(&f[6].as_str()) {
            since.insert(k, *t);
        }
    }
    let end = rows.last().map_or(0, |r| r.0);
    for ((k, _), s) in since {
        if end > s {
            let e = out.entry(k).or_default();
            e.0 += 1;
            e.1 += end - s;
        }
    }
    out
}

struct Experiment<'a> {
    srv: &'a Server,
    uuid: String,
    start: i64,
    end: i64,
}

impl Experiment<'_> {
    fn open<'a>(srv: &'a Server, name: &str, path: &Path) -> Experiment<'a> {
        let (uuid, exp) = srv.open_trace(name, path.to_str().unwrap());
        Experiment {
            srv,
            uuid,
            start: i(&exp["start"]),
            end: i(&exp["end"]),
        }
    }

    fn post(&self, what: &str, output: &str, params: Value) -> Value {
        let path = format!("/experiments/{}/outputs/{what}/{output}", self.uuid);
        let (st, v) = self.srv.post(&path, &json!({ "parameters": params }));
        assert_eq!(st, 200, "{path}: {v}");
        assert_eq!(v["status"], "COMPLETED", "{path}: {v}");
        v["model"].clone()
    }

    /// The tree's entries: (id, parent's label or "", label).
    fn tree(&self, output: &str) -> Vec<(i64, String, String)> {
        let m = self.post(
            "timeGraph",
            &format!("{output}/tree"),
            json!({"requested_timerange": {"start": self.start, "end": self.end}}),
        );
        let entries = m["entries"].as_array().unwrap();
        let label = |id: i64| {
            entries
                .iter()
                .find(|e| i(&e["id"]) == id)
                .map_or(String::new(), |e| {
                    e["labels"][0].as_str().unwrap().to_string()
                })
        };
        entries
            .iter()
            .map(|e| {
                (
                    i(&e["id"]),
                    label(i(&e["parentId"])),
                    e["labels"][0].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// Per (parent, lane): (count, summed time) of the states `key`, at
    /// full resolution.
    fn states(&self, output: &str, key: &str) -> BTreeMap<(String, String), (u64, i64)> {
        let tree = self.tree(output);
        let ids: Vec<i64> = tree.iter().map(|e| e.0).collect();
        let m = self.post(
            "timeGraph",
            &format!("{output}/states"),
            json!({"requested_timerange": {"start": self.start, "end": self.end},
                   "requested_items": ids}),
        );
        let mut out: BTreeMap<(String, String), (u64, i64)> = BTreeMap::new();
        for row in m["rows"].as_array().unwrap() {
            let id = i(&row["entryId"]);
            let (_, parent, name) = tree.iter().find(|e| e.0 == id).unwrap().clone();
            for s in row["states"].as_array().unwrap() {
                assert!(s.get("tags").is_none(), "merged at full resolution: {s}");
                if s["style"]["parentKey"] == key {
                    let e = out.entry((parent.clone(), name.clone())).or_default();
                    e.0 += 1;
                    e.1 += i(&s["end"]) - i(&s["start"]);
                }
            }
        }
        out
    }
}

fn ta_simulator() -> Option<PathBuf> {
    let p = shared_dir()?.join("traces/btf/ta-simulator-20140219-123819.btf");
    p.is_file().then_some(p)
}

fn server_for(dir: &Path) -> Server {
    Server::start_with(&["--allow-root", dir.to_str().unwrap()])
}

/// Runnables nested in their tasks: per (task, runnable), the running
/// intervals (start or resume to suspend or terminate) and their time.
#[test]
fn runnables_and_tasks_of_the_ta_simulator() {
    let Some(path) = ta_simulator() else {
        return skip_shared();
    };
    let srv = server_for(path.parent().unwrap());
    let exp = Experiment::open(&srv, "ta", &path);
    let rows = rows(&path);
    let expected = intervals(
        &rows,
        "R",
        &["start", "resume"],
        &["suspend", "terminate"],
        |f| (f[1].clone(), f[4].clone()),
        |f| format!("{}/{}", f[2], f[5]),
    );
    assert!(expected.len() > 10, "{} runnables", expected.len());
    let mut running = exp.states(TASKS, "running");
    // Tasks' own running intervals are keyed by ("", task).
    let tasks: BTreeMap<_, _> = running
        .iter()
        .filter(|((p, _), _)| p.is_empty())
        .map(|(k, v)| (k.1.clone(), *v))
        .collect();
    running.retain(|(p, _), _| !p.is_empty());
    assert_eq!(running, expected);
    assert_eq!(
        exp.states(TASKS, "suspended"),
        intervals(
            &rows,
            "R",
            &["suspend"],
            &["resume", "terminate"],
            |f| (f[1].clone(), f[4].clone()),
            |f| format!("{}/{}", f[2], f[5]),
        )
    );
    let task_running = intervals(
        &rows,
        "T",
        // `run`: polling ends, running again.
        &["start", "resume", "run"],
        &["preempt", "terminate", "wait", "poll"],
        |f| (String::new(), f[4].clone()),
        |f| f[5].clone(),
    );
    assert_eq!(tasks.len(), 11, "the 11 tasks");
    // A task lane holds one state at a time: tasks whose instances overlap
    // (activated again before terminating) are compared per instance by
    // the task-instance tests (btf.rs), not here.
    let mut live: BTreeMap<&str, i64> = BTreeMap::new();
    let mut overlapping = std::collections::BTreeSet::new();
    for (_, f) in rows.iter().filter(|(_, f)| f[3] == "T") {
        let n = live.entry(f[4].as_str()).or_default();
        match f[6].as_str() {
            "activate" => *n += 1,
            "terminate" => *n -= 1,
            _ => {}
        }
        if *n > 1 {
            overlapping.insert(f[4].clone());
        }
    }
    let task_running: BTreeMap<_, _> = task_running
        .into_iter()
        .map(|(k, v)| (k.1, v))
        .filter(|(k, _)| !overlapping.contains(k))
        .collect();
    let tasks: BTreeMap<_, _> = tasks
        .into_iter()
        .filter(|(k, _)| !overlapping.contains(k))
        .collect();
    assert!(tasks.len() >= 8, "{overlapping:?} overlap");
    assert_eq!(tasks, task_running);
}

/// Semaphores: per (semaphore, task), the time it was assigned (assigned
/// to released), and the semaphore's own lane full where it was locked.
#[test]
fn semaphores_of_the_ta_simulator() {
    let Some(path) = ta_simulator() else {
        return skip_shared();
    };
    let srv = server_for(path.parent().unwrap());
    let exp = Experiment::open(&srv, "ta", &path);
    let rows = rows(&path);
    let assigned = intervals(
        &rows,
        "SEM",
        &["assigned"],
        &["released"],
        |f| (f[4].clone(), f[1].clone()),
        |_| String::new(),
    );
    assert!(!assigned.is_empty());
    assert_eq!(exp.states(SEMAPHORES, "assigned"), assigned);
    // The semaphore's own lane: full at least from each lock to the next
    // unlock, so at least as many times and as long.
    let full = intervals(
        &rows,
        "SEM",
        &["lock"],
        &["unlock"],
        |f| (String::new(), f[4].clone()),
        |_| String::new(),
    );
    let drawn = exp.states(SEMAPHORES, "full");
    assert_eq!(
        drawn.keys().collect::<Vec<_>>(),
        full.keys().collect::<Vec<_>>()
    );
    for (k, (n, t)) in &full {
        assert!(
            drawn[k].0 >= *n && drawn[k].1 >= *t * 9 / 10,
            "{k:?}: {:?} vs {n}, {t}",
            drawn[k]
        );
    }
}

/// Signals: every value written, as the step series sampled at 200 times.
#[test]
fn signals_of_the_ta_simulator() {
    let Some(path) = ta_simulator() else {
        return skip_shared();
    };
    let srv = server_for(path.parent().unwrap());
    let exp = Experiment::open(&srv, "ta", &path);
    let rows = rows(&path);
    let mut writes: BTreeMap<String, Vec<(i64, f64)>> = BTreeMap::new();
    for (t, f) in rows
        .iter()
        .filter(|(_, f)| f[3] == "SIG" && f[6] == "write")
    {
        let v: f64 = f[7].parse().unwrap();
        writes.entry(f[4].clone()).or_default().push((*t, v));
    }
    let tree = exp.post("XY", &format!("{SIGNALS}/tree"), json!({}));
    let names: Vec<&str> = tree["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["labels"][0].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        writes.keys().map(String::as_str).collect::<Vec<_>>()
    );
    let xy = exp.post(
        "XY",
        &format!("{SIGNALS}/xy"),
        json!({"requested_timerange": {"start": exp.start, "end": exp.end, "nbTimes": 200},
               "requested_items": (0..names.len() as i64).collect::<Vec<_>>()}),
    );
    let series = xy["series"].as_array().unwrap();
    assert_eq!(series.len(), names.len());
    for s in series {
        let w = &writes[s["seriesName"].as_str().unwrap()];
        let xs = s["xValues"].as_array().unwrap();
        let ys = s["yValues"].as_array().unwrap();
        assert!(xs.len() > 100, "{} points", xs.len());
        for (x, y) in xs.iter().zip(ys) {
            let x = i(x);
            let last = w
                .iter()
                .rev()
                .find(|(t, _)| *t <= x)
                .expect("after a write");
            assert_eq!(y.as_f64().unwrap(), last.1);
        }
    }
}

/// OS events (no shared trace has any): a task waits for an event another
/// sets, then clears it; its lanes as the text says.
#[test]
fn os_events_wait_set_clear() {
    let dir = std::env::temp_dir().join(format!("sextant-btf-outputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.btf");
    std::fs::write(
        &path,
        "#version 2.2\n#timeScale us\n\
         0,S,0,T,A,0,activate\n0,S,0,T,B,0,activate\n\
         1,Core_0,0,T,A,0,start\n2,A,0,EVENT,E,0,wait_event\n2,Core_0,0,T,A,0,wait\n\
         3,Core_1,0,T,B,0,start\n5,B,0,EVENT,E,0,set_event,A\n5,Core_0,0,T,A,0,release\n\
         6,Core_0,0,T,A,0,resume\n8,A,0,EVENT,E,0,clear_event\n9,Core_0,0,T,A,0,terminate\n\
         10,Core_1,0,T,B,0,terminate\n",
    )
    .unwrap();
    let srv = server_for(&dir);
    let exp = Experiment::open(&srv, "events", &path);
    let one = |parent: &str, lane: &str, t: i64| {
        BTreeMap::from([((parent.to_string(), lane.to_string()), (1u64, t))])
    };
    assert_eq!(exp.states(EVENTS, "waiting"), one("E", "A", 3_000));
    let mut set = one("", "E", 3_000);
    set.extend(one("E", "A", 3_000));
    assert_eq!(exp.states(EVENTS, "set"), set);
    // Not an OS event's lane: a task's, in the tasks output.
    assert_eq!(exp.states(TASKS, "waiting"), one("", "A", 3_000));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The experiment's outputs' ids.
fn output_ids(srv: &Server, exp: &str) -> Vec<String> {
    let (st, outputs) = srv.get(&format!("/experiments/{exp}/outputs"));
    assert_eq!(st, 200, "{outputs}");
    outputs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_string())
        .collect()
}

/// The BTF outputs are offered for BTF traces, not for a CTF trace, whose
/// outputs are the others.
#[test]
fn btf_outputs_are_listed_for_btf_traces_only() {
    let dir = std::env::temp_dir().join(format!("sextant-btf-listed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("one.btf");
    std::fs::write(
        &path,
        "#version 2.2\n#timeScale us\n0,S,0,T,A,0,activate\n1,Core_0,0,T,A,0,start\n2,Core_0,0,T,A,0,terminate\n",
    )
    .unwrap();
    let srv = server_for(&dir);
    let btf = Experiment::open(&srv, "btf", &path);
    let (ctf, _) = srv.open_scenario_a("ctf");
    let btf_ids = output_ids(&srv, &btf.uuid);
    let ctf_ids = output_ids(&srv, &ctf);
    for id in [TASKS, SEMAPHORES, EVENTS, SIGNALS] {
        assert!(btf_ids.iter().any(|i| i == id), "{id} not in {btf_ids:?}");
        assert!(!ctf_ids.iter().any(|i| i == id), "{id} in {ctf_ids:?}");
    }
    let others: Vec<&String> = btf_ids
        .iter()
        .filter(|i| !i.starts_with("sextant.btf."))
        .collect();
    assert_eq!(ctf_ids.iter().collect::<Vec<_>>(), others);
    let _ = std::fs::remove_dir_all(&dir);
}
