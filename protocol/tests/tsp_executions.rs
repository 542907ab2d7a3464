//! Execution models through the TSP configuration API, end to end over HTTP:
//! `GET /config/types`, `POST .../outputs/sextant.executions` with
//! schemas/examples/periodic-rt_high.json on fixtures/scenario-a/ctf, the
//! Comparison View checked against `sextant analyze --format json`, the Time
//! Perspective scatter, the executions table, a bad model, deletion.

mod common;

use common::server::Server;

use common::{repo_root, sextant};
use serde_json::{json, Value};

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn model_path() -> std::path::PathBuf {
    repo_root().join("schemas/examples/periodic-rt_high.json")
}

fn model() -> Value {
    serde_json::from_str(&std::fs::read_to_string(model_path()).unwrap()).unwrap()
}

/// `sextant analyze` on the fixture with the model: its executions, by
/// duration.
fn analyze_executions() -> Vec<Value> {
    let fixture = repo_root().join("fixtures/scenario-a/ctf");
    let out = sextant(&[
        "analyze",
        fixture.to_str().unwrap(),
        "--model",
        model_path().to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["executions"].as_array().unwrap().clone()
}

#[test]
fn config_types_list_the_execution_model() {
    let srv = Server::start();
    let (st, types) = srv.get("/config/types");
    assert_eq!(st, 200, "{types}");
    let types = types.as_array().unwrap();
    let ids: Vec<&str> = types.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["sextant.execution-model", "sextant.explain"]);
    assert_eq!(types[0]["name"], "Execution model");
    // The self-contained form the VS Code viewer's editor accepts, which a
    // unit test keeps generated from schemas/execution-model.schema.json.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schemas/execution-model.viewer.schema.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(types[0]["schema"], schema);
    let (st, one) = srv.get("/config/types/sextant.execution-model");
    assert_eq!((st, &one), (200, &types[0]));
    let (st, err) = srv.get("/config/types/nope");
    assert_eq!(st, 404, "{err}");
    assert!(err["title"].is_string() && err["detail"].is_string());
}

#[test]
fn derived_outputs_of_an_execution_model() {
    let srv = Server::start();
    let (euuid, _) = srv.open_scenario_a("scenario-a");
    let base = format!("/experiments/{euuid}/outputs");

    // The parent output can create.
    let (st, outputs) = srv.get(&base);
    assert_eq!(st, 200);
    let parent = outputs
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "sextant.executions")
        .unwrap_or_else(|| panic!("no parent output in {outputs}"));
    assert_eq!(parent["capabilities"]["canCreate"], true);
    let (st, types) = srv.get(&format!("{base}/sextant.executions/configTypes"));
    assert_eq!(st, 200, "{types}");
    assert_eq!(types[0]["id"], "sextant.execution-model");

    // A bad model: 400 naming the field.
    let mut bad = model();
    bad["events"][0]["name"] = json!(17);
    let (st, err) = srv.post(
        &format!("{base}/sextant.executions"),
        &json!({"name": "bad", "sourceTypeId": "sextant.execution-model", "parameters": bad}),
    );
    assert_eq!(st, 400, "{err}");
    let detail = err["detail"].as_str().unwrap();
    assert!(detail.contains("parameters.events[0].name"), "{detail}");
    let (st, err) = srv.post(
        &format!("{base}/sextant.executions"),
        &json!({"name": "bad", "sourceTypeId": "sextant.execution-model", "parameters": {"name": "x", "mode": "same_tid", "events": [], "bogus": 1}}),
    );
    assert_eq!(st, 400, "{err}");
    assert!(
        err["detail"].as_str().unwrap().starts_with("parameters."),
        "{err}"
    );
    let (st, err) = srv.post(
        &format!("{base}/sextant.executions"),
        &json!({"name": "x", "sourceTypeId": "other", "parameters": model()}),
    );
    assert_eq!(st, 404, "{err}");

    // The model: three derived outputs.
    let (st, created) = srv.post(
        &format!("{base}/sextant.executions"),
        &json!({"name": "rt_high jobs", "description": "periodic", "sourceTypeId": "sextant.execution-model", "parameters": model()}),
    );
    assert_eq!(st, 200, "{created}");
    let comparison = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["type"], "GANTT_CHART");
    assert_eq!(created["parentId"], "sextant.executions");
    assert_eq!(created["capabilities"]["canDelete"], true);
    assert_eq!(created["configuration"]["name"], "rt_high jobs");
    let config = comparison
        .strip_prefix("sextant.executions.comparison:")
        .unwrap()
        .to_string();
    let perspective = format!("sextant.executions.perspective:{config}");
    let table = format!("sextant.executions.table:{config}");
    let (_, outputs) = srv.get(&base);
    let ids: Vec<(&str, &str)> = outputs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["id"].as_str().unwrap(), o["type"].as_str().unwrap()))
        .collect();
    assert!(
        ids.contains(&(comparison.as_str(), "GANTT_CHART")),
        "{outputs}"
    );
    assert!(
        ids.contains(&(perspective.as_str(), "TREE_TIME_XY")),
        "{outputs}"
    );
    assert!(ids.contains(&(table.as_str(), "TABLE")), "{outputs}");
    let (st, one) = srv.get(&format!("{base}/{perspective}"));
    assert_eq!(st, 200, "{one}");
    assert_eq!(one["id"], perspective.as_str());
    // Posting the same again answers the same output.
    let (st, again) = srv.post(
        &format!("{base}/sextant.executions"),
        &json!({"name": "rt_high jobs", "description": "periodic", "sourceTypeId": "sextant.execution-model", "parameters": model()}),
    );
    assert_eq!((st, &again["id"]), (200, &created["id"]));

    // Comparison View: the rows are `sextant analyze`'s executions by duration.
    let expected = analyze_executions();
    assert_eq!(expected.len(), 99);
    let (st, tree) = srv.post(
        &format!("{base}/timeGraph/{comparison}/tree"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": 1}}}),
    );
    assert_eq!(st, 200, "{tree}");
    assert_eq!(tree["status"], "COMPLETED");
    let entries = tree["model"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), expected.len());
    for (e, x) in entries.iter().zip(&expected) {
        assert_eq!(i(&e["id"]), i(&x["index"]), "{e} vs {x}");
        assert_eq!(e["labels"][1].as_str().unwrap(), x["duration"].to_string());
        assert_eq!(e["labels"][2].as_str().unwrap(), x["tid"].to_string());
        assert_eq!(i(&e["start"]), 0);
        assert_eq!(i(&e["end"]), i(&x["duration"]));
    }
    let durations: Vec<i64> = entries.iter().map(|e| i(&e["end"])).collect();
    assert!(
        durations.windows(2).all(|w| w[0] >= w[1]),
        "not by duration"
    );

    // The longest row's states: from 0 to its duration, contiguous.
    let longest = &expected[0];
    let d = i(&longest["duration"]);
    let (st, style) = srv.post(
        &format!("{base}/{comparison}/style"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{style}");
    assert!(style["model"]["styles"]["running"].is_object(), "{style}");
    let (st, states) = srv.post(
        &format!("{base}/timeGraph/{comparison}/states"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": d, "nbTimes": 1000000},
                               "requested_items": [i(&longest["index"])]}}),
    );
    assert_eq!(st, 200, "{states}");
    let rows = states["model"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["entryId"], longest["index"]);
    let ss = rows[0]["states"].as_array().unwrap();
    assert!(!ss.is_empty());
    assert_eq!(i(&ss[0]["start"]), 0, "{states}");
    assert_eq!(i(&ss.last().unwrap()["end"]), d, "{states}");
    let mut running = 0;
    for w in ss.windows(2) {
        assert_eq!(i(&w[0]["end"]), i(&w[1]["start"]), "a gap: {states}");
    }
    for s in ss {
        if s["style"]["parentKey"] == "running" {
            running += i(&s["end"]) - i(&s["start"]);
        }
    }
    assert_eq!(running, i(&longest["running"]), "{states}");
    let (st, tip) = srv.post(
        &format!("{base}/timeGraph/{comparison}/tooltip"),
        &json!({"parameters": {"requested_times": [0], "requested_items": [i(&longest["index"])],
                               "requested_element": {"elementType": "state", "time": 0, "duration": 1}}}),
    );
    assert_eq!(st, 200, "{tip}");
    assert_eq!(tip["model"]["Duration (ns)"], json!(d.to_string()));

    // Time Perspective: 99 points, x = start times, y = durations.
    let (st, xtree) = srv.post(
        &format!("{base}/XY/{perspective}/tree"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": i64::MAX / 2}}}),
    );
    assert_eq!(st, 200, "{xtree}");
    let labels: Vec<&str> = xtree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["labels"][0].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"duration") && labels.contains(&"deadline misses"),
        "{xtree}"
    );
    let (st, xy) = srv.post(
        &format!("{base}/XY/{perspective}/xy"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": i64::MAX / 2, "nbTimes": 1000},
                               "requested_items": [1, 2, 3]}}),
    );
    assert_eq!(st, 200, "{xy}");
    let series = xy["model"]["series"].as_array().unwrap();
    let dur = &series[0];
    assert_eq!(dur["seriesName"], "duration");
    assert_eq!(dur["style"]["values"]["series-type"], "scatter");
    let xs = dur["xValues"].as_array().unwrap();
    let ys = dur["yValues"].as_array().unwrap();
    assert_eq!((xs.len(), ys.len()), (99, 99));
    let mut by_start = expected.clone();
    by_start.sort_by_key(|x| i(&x["index"]));
    for ((x, y), e) in xs.iter().zip(ys).zip(&by_start) {
        assert_eq!(i(x), i(&e["start"]));
        assert_eq!(y.as_f64().unwrap(), i(&e["duration"]) as f64);
    }
    let misses = expected
        .iter()
        .filter(|x| x["deadline_miss"] == true)
        .count();
    assert_eq!(series[1]["seriesName"], "deadline misses");
    assert_eq!(series[1]["xValues"].as_array().unwrap().len(), misses);

    let (st, xy) = srv.post(
        &format!("{base}/XY/{perspective}/xy"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": 1000, "nbTimes": 10},
                               "requested_items": [3, 4, 5]}}),
    );
    assert_eq!(st, 200, "{xy}");
    let ys: Vec<f64> = xy["model"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["yValues"][0].as_f64().unwrap())
        .collect();
    assert_eq!(ys.len(), 3);
    assert!(ys[2] <= ys[0] && ys[0] <= ys[1], "{ys:?}");

    // Deadline misses are annotated on their rows, from the deadline on.
    let (st, cats) = srv.get(&format!("{base}/{comparison}/annotations"));
    assert_eq!(st, 200, "{cats}");
    assert_eq!(
        cats["model"]["annotationCategories"],
        json!(["Deadline misses"])
    );
    let (st, ann) = srv.post(
        &format!("{base}/{comparison}/annotations"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": d}}}),
    );
    assert_eq!(st, 200, "{ann}");
    let marks = ann["model"]["annotations"]["Deadline misses"]
        .as_array()
        .unwrap();
    assert_eq!(marks.len(), misses);
    for m in marks {
        assert_eq!(i(&m["time"]), 1_000_000, "{m}");
    }

    // The table: 99 lines.
    let (st, cols) = srv.post(
        &format!("{base}/table/{table}/columns"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{cols}");
    let cols = cols["model"].as_array().unwrap();
    assert_eq!(cols.len(), 12);
    assert_eq!(cols[3]["name"], "Duration");
    let (st, lines) = srv.post(
        &format!("{base}/table/{table}/lines"),
        &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 1000}}),
    );
    assert_eq!(st, 200, "{lines}");
    assert_eq!(i(&lines["model"]["size"]), 99);
    let ls = lines["model"]["lines"].as_array().unwrap();
    assert_eq!(ls.len(), 99);
    for (l, e) in ls.iter().zip(&by_start) {
        assert_eq!(
            l["cells"][3]["content"].as_str().unwrap(),
            e["duration"].to_string()
        );
        assert_eq!(
            l["cells"][8]["content"].as_str().unwrap(),
            e["tid"].to_string()
        );
    }
    let (st, page) = srv.post(
        &format!("{base}/table/{table}/lines"),
        &json!({"parameters": {"requested_table_index": 90, "requested_table_count": 50}}),
    );
    assert_eq!(st, 200);
    assert_eq!(page["model"]["lines"].as_array().unwrap().len(), 9);

    // Deleting removes all three.
    let (st, gone) = srv.delete(&format!("{base}/sextant.executions/{comparison}"));
    assert_eq!(st, 200, "{gone}");
    assert_eq!(gone["id"], comparison.as_str());
    let (_, outputs) = srv.get(&base);
    assert!(
        !outputs.to_string().contains(&config),
        "still listed: {outputs}"
    );
    let (st, _) = srv.post(
        &format!("{base}/timeGraph/{comparison}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 404);
    let (st, _) = srv.delete(&format!("{base}/sextant.executions/{comparison}"));
    assert_eq!(st, 404);
}
