//! `sextant serve` end to end over HTTP: the real binary on a free loopback
//! port, the VS Code Trace Viewer's call sequence (docs/tsp-clients.md)
//! replayed on fixtures/scenario-a/ctf, values checked against `sextant dump`
//! and `sextant analyze`, and the error paths.

mod common;

use common::server::Server;

use common::{repo_root, sextant};
use serde_json::{json, Value};

const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";
const HISTOGRAM: &str =
    "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider";

fn ts(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn dump_count() -> (u64, i64, i64) {
    let fixture = repo_root().join("fixtures/scenario-a/ctf");
    let out = sextant(&["dump", fixture.to_str().unwrap(), "--format", "none"]);
    assert!(out.status.success());
    // "N events, M fields decoded (checksum X), from A to B ns"
    let text = String::from_utf8(out.stdout).unwrap();
    let words: Vec<&str> = text.split_whitespace().collect();
    let n = words[0].parse().unwrap();
    let from = words.iter().position(|w| *w == "from").unwrap();
    (
        n,
        words[from + 1].parse().unwrap(),
        words[from + 3].parse().unwrap(),
    )
}

#[test]
fn viewer_sequence_on_scenario_a() {
    let srv = Server::start();
    let (st, health) = srv.get("/health");
    assert_eq!((st, health), (200, json!({"status": "UP"})));
    let (st, exps) = srv.get("/experiments");
    assert_eq!((st, exps), (200, json!([])));

    let (euuid, exp) = srv.open_scenario_a("scenario-a");
    let (events, start, end) = dump_count();
    assert_eq!(events, 3533);
    assert_eq!(exp["nbEvents"].as_u64(), Some(events), "{exp}");
    assert_eq!(ts(&exp["start"]), start);
    assert_eq!(ts(&exp["end"]), end);
    assert_eq!(exp["traces"][0]["indexingStatus"], "COMPLETED");

    // Stable UUIDs: opening again gives the same ones.
    let (st, again) = srv.post(
        "/traces",
        &json!({"parameters": {"name": "scenario-a", "uri": "fixtures/scenario-a/ctf"}}),
    );
    assert_eq!(st, 200);
    assert_eq!(again["UUID"], exp["traces"][0]["UUID"]);

    let base = format!("/experiments/{euuid}/outputs");
    let (st, outputs) = srv.get(&base);
    assert_eq!(st, 200);
    let kinds: Vec<(&str, &str)> = outputs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["id"].as_str().unwrap(), o["type"].as_str().unwrap()))
        .collect();
    assert!(kinds.contains(&(THREAD_STATUS, "TIME_GRAPH")), "{outputs}");
    assert!(kinds.contains(&(HISTOGRAM, "TREE_TIME_XY")), "{outputs}");
    let (st, markers) = srv.get(&format!("{base}/markerSets"));
    assert_eq!(st, 200, "{markers}");

    // Time graph: style, tree, states.
    let (st, style) = srv.post(
        &format!("{base}/{THREAD_STATUS}/style"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200);
    let styles = &style["model"]["styles"];
    for key in ["running", "preempted", "blocked", "waiting_cpu"] {
        let colour = styles[key]["values"]["background-color"].as_str();
        assert!(colour.is_some_and(|c| c.starts_with('#')), "{key}: {style}");
    }
    let (st, tree) = srv.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/tree"),
        &json!({"parameters": {"requested_timerange": {"start": start, "end": end}}}),
    );
    assert_eq!(st, 200);
    assert_eq!(tree["status"], "COMPLETED");
    let entries = tree["model"]["entries"].as_array().unwrap();
    // rt_high's thread: under its host and its process, which may bear
    // its name too but has no states.
    let rt_high: Vec<i64> = entries
        .iter()
        .filter(|e| e["labels"][0] == "rt_high" && e["hasData"] == true)
        .map(|e| ts(&e["id"]))
        .collect();
    assert!(!rt_high.is_empty(), "no rt_high thread in {tree}");
    for e in entries {
        let id = ts(&e["id"]);
        assert!((0..1 << 31).contains(&id), "entry ids stay small: {id}");
    }

    // Full resolution (no nbTimes): rt_high's running states are exactly
    // analyze's executions of the `running` preset. analyze matches the name
    // at the time, so the states before the thread took the name rt_high
    // (its first moments, under its parent's name) are extra.
    let (st, states) = srv.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        &json!({"parameters": {"requested_timerange": {"start": start, "end": end},
                               "requested_items": rt_high}}),
    );
    assert_eq!(st, 200);
    let mut running = std::collections::BTreeSet::new();
    for row in states["model"]["rows"].as_array().unwrap() {
        let mut prev_end = i64::MIN;
        for s in row["states"].as_array().unwrap() {
            let (a, b) = (ts(&s["start"]), ts(&s["end"]));
            assert!(
                a < b && a >= prev_end,
                "states in order, not overlapping: {s}"
            );
            prev_end = b;
            if s["style"]["parentKey"] == "running" {
                running.insert((a, b));
            }
        }
    }
    let fixture = repo_root().join("fixtures/scenario-a/ctf");
    let out = sextant(&[
        "analyze",
        fixture.to_str().unwrap(),
        "--preset",
        "running",
        "--process",
        "^rt_high$",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let analyzed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let executions: std::collections::BTreeSet<(i64, i64)> = analyzed["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (ts(&e["start"]), ts(&e["end"])))
        .collect();
    assert!(executions.len() > 100);
    let missing: Vec<_> = executions.difference(&running).collect();
    assert!(
        missing.is_empty(),
        "executions without a running state: {missing:?}"
    );
    let first = executions.iter().next().unwrap().0;
    let extra: Vec<_> = running
        .difference(&executions)
        .filter(|(_, b)| *b > first)
        .collect();
    assert!(
        extra.is_empty(),
        "running states analyze does not see: {extra:?}"
    );
    let total = |set: &std::collections::BTreeSet<(i64, i64)>| -> i64 {
        set.iter().map(|(a, b)| b - a).sum()
    };
    let expected: i64 = analyzed["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| ts(&e["running"]))
        .sum();
    assert_eq!(total(&executions), expected);
    assert_eq!(
        total(&running.intersection(&executions).copied().collect()),
        expected,
        "running time of rt_high: states vs analyze"
    );

    // A viewport of 500 pixels: no more than about 500 states per row.
    let (st, states) = srv.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        &json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 500},
                               "requested_items": (0..entries.len() as i64).collect::<Vec<_>>()}}),
    );
    assert_eq!(st, 200);
    let rows = states["model"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        let n = row["states"].as_array().unwrap().len();
        assert!(n <= 2 * 500 + 2, "{n} states for 500 pixels");
    }

    // Tooltip on a running state of rt_high.
    let first_exec = &analyzed["executions"][0];
    let t = (ts(&first_exec["start"]) + ts(&first_exec["end"])) / 2;
    let (st, tip) = srv.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/tooltip"),
        &json!({"parameters": {"requested_times": [t], "requested_items": [rt_high[0]],
                 "requested_element": {"elementType": "state", "time": t, "duration": 0}}}),
    );
    assert_eq!(st, 200, "{tip}");
    if rt_high.len() == 1 {
        assert_eq!(tip["model"]["State"], "Running", "{tip}");
    }

    // Histogram: tree, then xy over the whole trace sums to the event count.
    let (st, xytree) = srv.post(
        &format!("{base}/XY/{HISTOGRAM}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200);
    let default: Vec<i64> = xytree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["isDefault"] == true)
        .map(|e| ts(&e["id"]))
        .collect();
    assert!(!default.is_empty(), "{xytree}");
    let (st, xy) = srv.post(
        &format!("{base}/XY/{HISTOGRAM}/xy"),
        &json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 100},
                               "requested_items": default}}),
    );
    assert_eq!(st, 200);
    let series = &xy["model"]["series"][0];
    let ys = series["yValues"].as_array().unwrap();
    assert_eq!(ys.len(), 100);
    assert_eq!(series["xValues"].as_array().unwrap().len(), 100);
    let total: f64 = ys.iter().map(|y| y.as_f64().unwrap()).sum();
    assert!(
        (total - events as f64).abs() < 0.5,
        "histogram total {total}"
    );
}

#[test]
fn error_paths() {
    let srv = Server::start();
    let unknown = "00000000-0000-0000-0000-000000000000";
    for path in [
        format!("/traces/{unknown}"),
        format!("/experiments/{unknown}"),
        format!("/experiments/{unknown}/outputs"),
        "/experiments/not-a-uuid".to_string(),
    ] {
        let (st, e) = srv.get(&path);
        assert_eq!(st, 404, "{path}: {e}");
        assert!(e["title"].is_string() && e["detail"].is_string(), "{e}");
    }
    let (st, _) = srv.request("DELETE", &format!("/traces/{unknown}"), None);
    assert_eq!(st, 404);
    let (st, e) = srv.request("PUT", "/traces", Some("{}"));
    assert_eq!(st, 405, "{e}");
    let (st, e) = srv.get("/no/such/endpoint");
    assert_eq!(st, 404, "{e}");

    // Malformed bodies: 400 naming the field.
    let (st, e) = srv.request("POST", "/traces", Some("{not json"));
    assert_eq!(st, 400, "{e}");
    let (st, e) = srv.post("/traces", &json!({"parameters": {"name": "x"}}));
    assert_eq!(st, 400);
    assert!(
        e["detail"].as_str().unwrap().contains("parameters.uri"),
        "{e}"
    );
    let (st, e) = srv.post("/traces", &json!({"name": "x"}));
    assert_eq!(st, 400);
    assert!(e["detail"].as_str().unwrap().contains("parameters"), "{e}");
    let (st, e) = srv.post("/experiments", &json!({"parameters": {"name": "x"}}));
    assert_eq!(st, 400);
    assert!(
        e["detail"].as_str().unwrap().contains("parameters.traces"),
        "{e}"
    );
    let (st, e) = srv.post(
        "/experiments",
        &json!({"parameters": {"name": "x", "traces": [unknown]}}),
    );
    assert_eq!(st, 404, "{e}");

    // Outside the allowed roots.
    let (st, e) = srv.post("/traces", &json!({"parameters": {"uri": "/etc"}}));
    assert_eq!(st, 403, "{e}");
    let (st, e) = srv.post(
        "/traces",
        &json!({"parameters": {"uri": "fixtures/../../../../etc"}}),
    );
    assert_eq!(st, 403, "{e}");
    let (st, e) = srv.post(
        "/traces",
        &json!({"parameters": {"uri": "fixtures/no-such-trace"}}),
    );
    assert_eq!(st, 404, "{e}");

    // A name clash with another path: 409 with the existing trace.
    let (euuid, _) = srv.open_scenario_a("clash");
    let (st, e) = srv.post(
        "/traces",
        &json!({"parameters": {"name": "clash", "uri": "fixtures/scenario-a"}}),
    );
    assert_eq!(st, 409, "{e}");
    assert_eq!(e["trace"]["name"], "clash");

    // Data requests: bad parameters, unknown outputs.
    let base = format!("/experiments/{euuid}/outputs");
    let (st, e) = srv.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        &json!({"parameters": {"requested_items": [0]}}),
    );
    assert_eq!(st, 400);
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("parameters.requested_timerange"),
        "{e}"
    );
    let (st, e) = srv.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": "soon"}}}),
    );
    assert_eq!(st, 400);
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("parameters.requested_timerange.end"),
        "{e}"
    );
    let (st, _) = srv.post(
        &format!("{base}/timeGraph/no.such.output/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 404);

    // Body size limit.
    let big = format!("{{\"parameters\":{{\"uri\":\"{}\"}}}}", "x".repeat(2 << 20));
    let (st, _) = srv.raw("POST", "/traces", Some(&big));
    assert_eq!(st, 413);

    // A trace in use cannot be deleted; after its experiment, it can.
    let (_, exp) = srv.get(&format!("/experiments/{euuid}"));
    let tuuid = exp["traces"][0]["UUID"].as_str().unwrap().to_string();
    let (st, _) = srv.request("DELETE", &format!("/traces/{tuuid}"), None);
    assert_eq!(st, 409);
    let (st, _) = srv.request("DELETE", &format!("/experiments/{euuid}"), None);
    assert_eq!(st, 200);
    let (st, _) = srv.request("DELETE", &format!("/traces/{tuuid}"), None);
    assert_eq!(st, 200);
    let (st, list) = srv.get("/traces");
    assert_eq!((st, list), (200, json!([])));
}

/// A link under an allowed root to a trace outside them is refused, and
/// the hint names the folder the trace really is in: the one to allow.
#[test]
fn a_link_out_of_the_roots_names_its_target_folder() {
    let dir = std::env::temp_dir().join(format!("sextant-http-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (allowed, elsewhere) = (dir.join("allowed"), dir.join("elsewhere"));
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let trace = elsewhere.join("trace.txt");
    std::fs::copy(repo_root().join("fixtures/scenario-a/trace.txt"), &trace).unwrap();
    let link = allowed.join("trace.txt");
    std::os::unix::fs::symlink(&trace, &link).unwrap();
    let srv = Server::start_with(&["--allow-root", allowed.to_str().unwrap()]);
    let (st, e) = srv.post("/traces", &json!({"parameters": {"uri": link}}));
    assert_eq!(st, 403, "{e}");
    let detail = e["detail"].as_str().unwrap();
    let target = elsewhere.canonicalize().unwrap();
    assert!(
        detail.contains(&format!("--allow-root {}`", target.display())),
        "{detail}"
    );
    // Allowed, the same link opens.
    let srv = Server::start_with(&[
        "--allow-root",
        allowed.to_str().unwrap(),
        "--allow-root",
        elsewhere.to_str().unwrap(),
    ]);
    let (st, t) = srv.post("/traces", &json!({"parameters": {"uri": link}}));
    assert_eq!(st, 200, "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}
