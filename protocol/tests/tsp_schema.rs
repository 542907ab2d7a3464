//! Every response body of `sextant serve` validates against the TSP 0.6.0
//! OpenAPI document (../shared/specs/tsp-API.yaml; skipped when absent): the
//! VS Code Trace Viewer's call sequence (docs/tsp-clients.md) on
//! fixtures/scenario-a/ctf, answers while indexing runs, and the error paths.
//!
//! The schema of each answer is the spec's own: the request path is matched
//! against the spec's path templates, and the response schema of that
//! method and status is taken (an error status the spec does not list is
//! checked against `ErrorResponse` and reported; an undeclared success
//! status fails). OpenAPI 3.0 schemas are turned into JSON Schema 2020-12
//! (see `to_json_schema`) and validated with `$ref`s into the components.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::repo_root;
use common::server::Server;
use common::tsp_spec::{spec_path, to_json_schema, Session, Spec};

use serde_json::{json, Value};

const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";
const HISTOGRAM: &str =
    "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider";
const EVENTS: &str =
    "org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider";

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[test]
fn every_response_validates_against_the_tsp_schema() {
    let Some(spec) = Spec::load() else {
        eprintln!(
            "skipped: {} is absent (../shared is not beside this checkout)",
            spec_path().display()
        );
        return;
    };
    let mut s = Session {
        srv: Server::start(),
        spec,
        checked: HashMap::new(),
        failures: Vec::new(),
        undeclared: Vec::new(),
    };
    let unknown = "00000000-0000-0000-0000-000000000000";

    // 1. Health, identifier, the empty lists.
    assert_eq!(s.get("/health").0, 200);
    assert_eq!(s.get("/identifier").0, 200);
    assert_eq!(s.get("/experiments").0, 200);
    assert_eq!(s.get("/traces").0, 200);

    // 2-3. Open the trace, create the experiment; ask for data at once,
    // while indexing may still run (RUNNING answers validate too).
    let fixture = repo_root().join("fixtures/scenario-a/ctf");
    let (st, trace) = s.post(
        "/traces",
        json!({"parameters": {"name": "scenario-a", "uri": fixture.to_str().unwrap()}}),
    );
    assert_eq!(st, 200, "{trace}");
    let tuuid = trace["UUID"].as_str().unwrap().to_string();
    let (st, exp) = s.post(
        "/experiments",
        json!({"parameters": {"name": "scenario-a", "traces": [tuuid]}}),
    );
    assert_eq!(st, 200, "{exp}");
    let euuid = exp["UUID"].as_str().unwrap().to_string();
    let base = format!("/experiments/{euuid}/outputs");
    let whole = json!({"start": 0, "end": i64::MAX / 2, "nbTimes": 10});
    s.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/tree"),
        json!({"parameters": {"requested_timerange": whole}}),
    );
    s.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        json!({"parameters": {"requested_timerange": whole, "requested_items": [0]}}),
    );
    s.post(
        &format!("{base}/XY/{HISTOGRAM}/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/XY/{HISTOGRAM}/xy"),
        json!({"parameters": {"requested_timerange": whole, "requested_items": [1]}}),
    );
    s.get(&format!("/traces/{tuuid}"));

    // 4. Poll the experiment until indexed.
    let deadline = Instant::now() + Duration::from_secs(60);
    let exp = loop {
        let (st, exp) = s.get(&format!("/experiments/{euuid}"));
        assert_eq!(st, 200, "{exp}");
        if exp["indexingStatus"] == "COMPLETED" {
            break exp;
        }
        assert_eq!(exp["indexingStatus"], "RUNNING", "{exp}");
        assert!(Instant::now() < deadline, "indexing takes too long");
        std::thread::sleep(Duration::from_millis(50));
    };
    let (start, end) = (i(&exp["start"]), i(&exp["end"]));
    s.get("/experiments");
    s.get("/traces");
    s.get(&format!("/traces/{tuuid}"));

    // 5. Outputs, marker sets, annotation categories.
    let (st, outputs) = s.get(&base);
    assert_eq!(st, 200);
    let ids: Vec<String> = outputs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_string())
        .collect();
    assert!(ids.iter().any(|x| x == THREAD_STATUS) && ids.iter().any(|x| x == HISTOGRAM));
    s.get(&format!("{base}/markerSets"));
    for id in &ids {
        s.get(&format!("{base}/{id}"));
        s.get(&format!("{base}/{id}/annotations"));
        s.get(&format!("{base}/{id}/annotations?markerSetId=none"));
        s.post(&format!("{base}/{id}/style"), json!({"parameters": {}}));
    }

    // 6. Time graph: tree, states per viewport, annotations, arrows, tooltip.
    let range = json!({"start": start, "end": end});
    let (st, tree) = s.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/tree"),
        json!({"parameters": {"requested_timerange": range}}),
    );
    assert_eq!(st, 200);
    assert_eq!(tree["status"], "COMPLETED");
    let rows: Vec<i64> = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| i(&e["id"]))
        .collect();
    let mid = (start + end) / 2;
    for (a, b, n) in [
        (start, end, Some(500)),
        (mid, mid + (end - start) / 50, None),
    ] {
        let mut r = json!({"start": a, "end": b});
        if let Some(n) = n {
            r["nbTimes"] = json!(n);
        }
        let q = json!({"parameters": {"requested_timerange": r, "requested_items": rows}});
        let (st, states) = s.post(
            &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
            q.clone(),
        );
        assert_eq!(st, 200);
        assert!(!states["model"]["rows"].as_array().unwrap().is_empty());
        s.post(&format!("{base}/{THREAD_STATUS}/annotations"), q.clone());
        s.post(&format!("{base}/timeGraph/{THREAD_STATUS}/arrows"), q);
    }
    for id in rows.iter().take(5) {
        s.post(
            &format!("{base}/timeGraph/{THREAD_STATUS}/tooltip"),
            json!({"parameters": {"requested_times": [mid], "requested_items": [id],
                   "requested_element": {"elementType": "state", "time": mid, "duration": 1}}}),
        );
    }
    // With nothing to point at: an empty tooltip.
    s.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/tooltip"),
        json!({"parameters": {}}),
    );

    // 7. XY: tree, then the checked entries (and all of them).
    let (st, xytree) = s.post(
        &format!("{base}/XY/{HISTOGRAM}/tree"),
        json!({"parameters": {"requested_timerange": range}}),
    );
    assert_eq!(st, 200);
    let entries = xytree["model"]["entries"].as_array().unwrap().clone();
    let checked: Vec<i64> = entries
        .iter()
        .filter(|e| e["isDefault"] == true)
        .map(|e| i(&e["id"]))
        .collect();
    let all: Vec<i64> = entries.iter().map(|e| i(&e["id"])).collect();
    for items in [checked, all] {
        let (st, xy) = s.post(
            &format!("{base}/XY/{HISTOGRAM}/xy"),
            json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 300},
                   "requested_items": items}}),
        );
        assert_eq!(st, 200);
        assert!(!xy["model"]["series"].as_array().unwrap().is_empty());
    }

    // 8. Execution models: configuration types, derived outputs and their
    // data (Comparison View, Time Perspective, executions table), deletion.
    s.get("/config/types");
    s.get("/config/types/sextant.execution-model");
    s.get("/config/types/no.such.type");
    s.get(&format!("{base}/sextant.executions/configTypes"));
    s.get(&format!(
        "{base}/sextant.executions/configTypes/sextant.execution-model"
    ));
    s.get(&format!("{base}/{THREAD_STATUS}/configTypes"));
    let model: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schemas/examples/periodic-rt_high.json"))
            .unwrap(),
    )
    .unwrap();
    let (st, created) = s.post(
        &format!("{base}/sextant.executions"),
        json!({"name": "rt_high", "description": "jobs", "sourceTypeId": "sextant.execution-model",
               "parameters": model}),
    );
    assert_eq!(st, 200, "{created}");
    let mut bad = model.clone();
    bad["deadline"] = json!("soon");
    assert_eq!(
        s.post(
            &format!("{base}/sextant.executions"),
            json!({"name": "bad", "sourceTypeId": "sextant.execution-model", "parameters": bad}),
        )
        .0,
        400
    );
    let comparison = created["id"].as_str().unwrap().to_string();
    let config = comparison.split_once(':').unwrap().1.to_string();
    let perspective = format!("sextant.executions.perspective:{config}");
    let table = format!("sextant.executions.table:{config}");
    s.get(&base);
    for id in [&comparison, &perspective, &table] {
        s.get(&format!("{base}/{id}"));
        s.get(&format!("{base}/{id}/annotations"));
        s.post(&format!("{base}/{id}/style"), json!({"parameters": {}}));
    }
    let (_, tree) = s.post(
        &format!("{base}/timeGraph/{comparison}/tree"),
        json!({"parameters": {"requested_timerange": {"start": 0, "end": 1}}}),
    );
    let rows: Vec<i64> = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| i(&e["id"]))
        .collect();
    assert!(!rows.is_empty());
    let longest = i(&tree["model"]["entries"][0]["end"]);
    let q = json!({"parameters": {"requested_timerange": {"start": 0, "end": longest, "nbTimes": 500},
                                  "requested_items": rows}});
    s.post(&format!("{base}/timeGraph/{comparison}/states"), q.clone());
    s.post(&format!("{base}/timeGraph/{comparison}/arrows"), q.clone());
    s.post(&format!("{base}/{comparison}/annotations"), q);
    s.post(
        &format!("{base}/timeGraph/{comparison}/tooltip"),
        json!({"parameters": {"requested_times": [0], "requested_items": [rows[0]],
               "requested_element": {"elementType": "state", "time": 0, "duration": 1}}}),
    );
    s.post(
        &format!("{base}/XY/{perspective}/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/XY/{perspective}/xy"),
        json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 300},
               "requested_items": [1, 2, 3]}}),
    );
    s.post(
        &format!("{base}/table/{table}/columns"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/table/{table}/lines"),
        json!({"parameters": {"requested_table_index": 0, "requested_table_count": 50}}),
    );
    // Statistics (DATA_TREE), duration density (TREE_GENERIC_XY), the events
    // table, the event types.
    let statistics = format!("sextant.executions.statistics:{config}");
    let density = format!("sextant.executions.density:{config}");
    s.post(
        &format!("{base}/data/{statistics}/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/data/{statistics}/tree"),
        json!({"parameters": {"requested_timerange": {"start": start, "end": end}}}),
    );
    s.post(
        &format!("{base}/data/sextant.event-types/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/genericXY/{density}/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/genericXY/{density}/xy"),
        json!({"parameters": {"requested_timerange": {"start": 0, "end": i64::MAX, "nbSamples": 40},
               "requested_items": [1, 2]}}),
    );
    s.post(
        &format!("{base}/table/{EVENTS}/columns"),
        json!({"parameters": {}}),
    );
    for q in [
        json!({"requested_table_index": 0, "requested_table_count": 100}),
        json!({"requested_table_index": 3000, "requested_table_count": 10,
               "requested_table_column_ids": [0, 2]}),
        json!({"requested_times": [mid], "requested_table_count": 10}),
        json!({"requested_table_index": 0, "requested_table_count": 10,
               "table_search_expressions": {"2": "sched_switch"}, "table_search_direction": "NEXT"}),
        json!({"requested_table_index": 0, "requested_table_count": 10,
               "table_search_expressions": {"2": "^nothing$"}, "table_search_direction": "NEXT"}),
    ] {
        let (st, _) = s.post(
            &format!("{base}/table/{EVENTS}/lines"),
            json!({ "parameters": q }),
        );
        assert_eq!(st, 200);
    }
    s.post(
        &format!("{base}/table/{EVENTS}/lines"),
        json!({"parameters": {"table_search_expressions": {"2": "("}}}),
    );
    s.post(
        &format!("{base}/genericXY/{density}/xy"),
        json!({"parameters": {"requested_items": [1]}}),
    );
    s.post(
        &format!("/experiments/{unknown}/outputs/data/{statistics}/tree"),
        json!({"parameters": {}}),
    );
    assert_eq!(
        s.delete(&format!("{base}/sextant.executions/{comparison}"))
            .0,
        200
    );
    assert_eq!(
        s.delete(&format!("{base}/sextant.executions/{comparison}"))
            .0,
        404
    );

    // Error paths: every ErrorResponse has the spec's shape.
    s.get(&format!("/traces/{unknown}"));
    s.get(&format!("/experiments/{unknown}"));
    s.get("/experiments/not-a-uuid");
    s.get(&format!("/experiments/{unknown}/outputs"));
    s.get(&format!("{base}/no.such.output"));
    s.post("/traces", json!({"parameters": {"name": "x"}}));
    s.post("/traces", json!({"parameters": {"uri": "/etc"}}));
    s.post(
        "/traces",
        json!({"parameters": {"uri": "fixtures/no-such-trace"}}),
    );
    let (st, clash) = s.post(
        "/traces",
        json!({"parameters": {"name": "scenario-a", "uri": "fixtures/scenario-b/ctf"}}),
    );
    assert_eq!(st, 409, "{clash}");
    s.post("/experiments", json!({"parameters": {"name": "x"}}));
    s.post(
        "/experiments",
        json!({"parameters": {"name": "x", "traces": [unknown]}}),
    );
    let (st, _) = s.post(
        "/experiments",
        json!({"parameters": {"name": "scenario-a", "traces": [unknown]}}),
    );
    assert_eq!(st, 404);
    s.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        json!({"parameters": {"requested_items": [0]}}),
    );
    s.post(
        &format!("{base}/timeGraph/{THREAD_STATUS}/states"),
        json!({"parameters": {"requested_timerange": {"start": 0, "end": "soon"}}}),
    );
    s.post(
        &format!("{base}/timeGraph/no.such.output/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("{base}/XY/{THREAD_STATUS}/tree"),
        json!({"parameters": {}}),
    );
    s.post(
        &format!("/experiments/{unknown}/outputs/XY/{HISTOGRAM}/xy"),
        json!({"parameters": {}}),
    );
    let (st, _) = s.delete(&format!("/traces/{tuuid}"));
    assert_eq!(st, 409);
    // Deleting: the experiment, then its trace.
    assert_eq!(s.delete(&format!("/experiments/{euuid}")).0, 200);
    assert_eq!(s.delete(&format!("/traces/{tuuid}")).0, 200);
    assert_eq!(s.delete(&format!("/traces/{tuuid}")).0, 404);

    let mut summary: Vec<_> = s.checked.iter().collect();
    summary.sort();
    for (k, n) in &summary {
        eprintln!("validated {n:>3} × {k}");
    }
    s.undeclared.sort();
    s.undeclared.dedup();
    for u in &s.undeclared {
        eprintln!("note: the spec does not list this status (checked as ErrorResponse): {u}");
    }
    assert!(
        s.failures.is_empty(),
        "{} answers do not validate:\n{}",
        s.failures.len(),
        s.failures.join("\n\n")
    );
    assert!(summary.len() >= 25, "too few kinds of answers checked");
}

/// The conversion keeps the spec's intent on the quirky schemas.
#[test]
fn openapi_quirks_are_converted() {
    let mut v = json!({"type": "object", "oneOf": [{"type": "string"}, {"type": "number"}, {"type": "integer"}],
                       "properties": {"n": {"type": "integer", "format": "int32", "nullable": true}}});
    to_json_schema(&mut v);
    assert!(v.get("type").is_none() && v.get("oneOf").is_none());
    assert_eq!(v["anyOf"].as_array().unwrap().len(), 3);
    assert_eq!(v["properties"]["n"]["type"], json!(["integer", "null"]));
    assert_eq!(v["properties"]["n"]["maximum"], json!(i32::MAX));
    let mut refs = json!({"oneOf": [{"$ref": "#/a"}, {"$ref": "#/b"}]});
    let before = refs.clone();
    to_json_schema(&mut refs);
    assert_eq!(refs, before);
}

/// The validation has teeth: wrong shapes of the spec's own models fail.
#[test]
fn wrong_shapes_are_rejected() {
    let Some(mut spec) = Spec::load() else {
        eprintln!("skipped: {} is absent", spec_path().display());
        return;
    };
    let op = |spec: &Spec, m: &str, p: &str| spec.operation(m, p).unwrap().responses[&200].clone();
    let base = "/experiments/9b8e5c1e-0000-4000-8000-000000000000/outputs";
    let exp = op(&spec, "GET", "/experiments/x");
    let good = json!({"UUID": "9b8e5c1e-0000-4000-8000-000000000000", "name": "e", "start": 1,
                      "end": 2, "nbEvents": 3, "indexingStatus": "COMPLETED", "traces": []});
    assert!(spec.validate("exp", &exp, &good).is_empty());
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("nbEvents");
    assert!(!spec.validate("exp", &exp, &bad).is_empty());
    let mut bad = good.clone();
    bad["UUID"] = json!("not-a-uuid");
    assert!(!spec.validate("exp", &exp, &bad).is_empty());

    let states = op(&spec, "POST", &format!("{base}/timeGraph/x/states"));
    let good = json!({"model": {"rows": [{"entryId": 0, "states": [{"start": 1, "end": 2, "tags": 1,
                      "style": {"parentKey": "running", "values": {"height": 1.0, "background-color": "#112233"}}}]}]},
                      "status": "COMPLETED", "statusMessage": ""});
    assert!(spec.validate("states", &states, &good).is_empty());
    for (ptr, v) in [
        ("/model/rows/0/states/0/start", json!("1")),
        ("/model/rows/0/states/0/tags", json!(1u64 << 40)),
        (
            "/model/rows/0/states/0/style/values/height",
            json!({"x": 1}),
        ),
        ("/status", json!("DONE")),
    ] {
        let mut bad = good.clone();
        *bad.pointer_mut(ptr).unwrap() = v;
        assert!(!spec.validate("states", &states, &bad).is_empty(), "{ptr}");
    }
    let outputs = op(&spec, "GET", base);
    let bad = json!([{"id": "a", "name": "b", "description": "c", "type": "PIE_CHART"}]);
    assert!(!spec.validate("outputs", &outputs, &bad).is_empty());
}
