//! schemas/rpc/ describes the JSON-RPC protocol: every method the server
//! announces has its schema file, and a whole stdio session (life cycle,
//! viewer sequence, an execution model with progress, time sync, errors)
//! validates against them, both what the client sent and what came back.

mod common;

use std::collections::HashMap;

use common::repo_root;
use common::rpc::Stdio;
use serde_json::{json, Value};

const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";

fn file_of(method: &str) -> String {
    format!("{}.json", method.replace("$/", "lsp.").replace('/', "."))
}

fn schema_doc(method: &str) -> Value {
    let p = repo_root().join("schemas/rpc").join(file_of(method));
    let text = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{method}: no schema {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Validators of the `$defs` entries of schema files, built once each.
#[derive(Default)]
struct Schemas(HashMap<(String, String), jsonschema::Validator>);

impl Schemas {
    fn check(&mut self, method: &str, def: &str, instance: &Value) {
        let v = self
            .0
            .entry((method.to_string(), def.to_string()))
            .or_insert_with(|| {
                let doc = schema_doc(method);
                assert!(doc["$defs"].get(def).is_some(), "{method}: no {def} schema");
                let s = json!({"$defs": doc["$defs"], "$ref": format!("#/$defs/{def}")});
                jsonschema::draft202012::new(&s)
                    .unwrap_or_else(|e| panic!("{method}: invalid schema: {e}"))
            });
        let errors: Vec<String> = v
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .take(5)
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {def} does not match its schema: {errors:?}\n{instance}"
        );
    }
}

/// LSP's own messages, whose shapes LSP defines.
fn lsp_own(method: &str) -> bool {
    matches!(
        method,
        "initialized" | "shutdown" | "exit" | "$/cancelRequest"
    )
}

#[test]
fn every_method_has_a_schema() {
    let (_s, init) = Stdio::initialized(&[], &[]);
    let methods = init["capabilities"]["experimental"]["methods"]
        .as_array()
        .unwrap();
    assert!(methods.len() > 30, "{methods:?}");
    for m in methods {
        let m = m.as_str().unwrap();
        let doc = schema_doc(m);
        assert_eq!(doc["title"], m);
        assert!(doc["$defs"]["params"].is_object(), "{m}: no params schema");
        let notification = m.ends_with("Changed");
        assert_eq!(
            doc["$defs"]["result"].is_object(),
            !notification,
            "{m}: a request has a result schema, a notification none"
        );
    }
    for m in [
        "initialize",
        "errors",
        "$/progress",
        "sextant/subscribeSync",
    ] {
        schema_doc(m);
    }
}

#[test]
fn a_whole_session_matches_the_schemas() {
    let (mut s, _) = Stdio::initialized(&[], &[]);
    let exp = s.open_scenario_a("schema");
    s.request("tsp/health", json!({}));
    s.request("tsp/identifier", json!({}));
    s.request("tsp/traces/list", json!({}));
    s.request("tsp/experiments/list", json!({}));
    s.request("tsp/config/types", json!({}));
    let e = s.request("tsp/experiments/get", json!({"expUUID": exp}));
    let (start, end) = (e["start"].clone(), e["end"].clone());
    for o in s
        .request("tsp/outputs/list", json!({"expUUID": exp}))
        .as_array()
        .unwrap()
    {
        s.request(
            "tsp/outputs/get",
            json!({"expUUID": exp, "outputId": o["id"]}),
        );
    }
    s.request("tsp/markerSets", json!({"expUUID": exp}));
    let tree = s.request(
        "tsp/timeGraph/tree",
        json!({"expUUID": exp, "outputId": THREAD_STATUS,
               "parameters": {"requested_timerange": {"start": start, "end": end}}}),
    );
    let items: Vec<Value> = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
        .map(|e| e["id"].clone())
        .collect();
    s.request(
        "tsp/timeGraph/states",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {
            "requested_timerange": {"start": start, "end": end, "nbTimes": 300},
            "requested_items": items}}),
    );
    s.request(
        "tsp/style",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {}}),
    );
    let model: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schemas/examples/periodic-rt_high.json"))
            .unwrap(),
    )
    .unwrap();
    let cmp = s.request(
        "tsp/outputs/create",
        json!({"expUUID": exp, "outputId": "sextant.executions", "name": "jobs",
               "sourceTypeId": "sextant.execution-model", "parameters": model,
               "workDoneToken": 7}),
    );
    let table = cmp["id"].as_str().unwrap().replace("comparison", "table");
    s.request(
        "tsp/table/columns",
        json!({"expUUID": exp, "outputId": table, "parameters": {}}),
    );
    s.request(
        "tsp/table/lines",
        json!({"expUUID": exp, "outputId": table,
               "parameters": {"requested_table_index": 0, "requested_table_count": 20}}),
    );
    s.notify(
        "sextant/selectionChanged",
        json!({"experimentUUID": exp, "start": 1, "end": 2, "source": "test"}),
    );
    s.request("sextant/getSelection", json!({"experimentUUID": exp}));
    // Errors, of the service and of the protocol.
    let _ = s.call("tsp/experiments/get", json!({"expUUID": "nope"}));
    let _ = s.call("tsp/traces/open", json!({"parameters": {}}));
    let _ = s.call("tsp/nothing", json!({}));
    s.request("shutdown", Value::Null);
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit().code(), Some(0));

    let mut schemas = Schemas::default();
    let mut asked: HashMap<String, String> = HashMap::new();
    for m in &s.sent {
        let method = m["method"].as_str().unwrap();
        if let Some(id) = m.get("id") {
            asked.insert(id.to_string(), method.to_string());
        }
        if lsp_own(method) || method == "tsp/nothing" {
            continue;
        }
        let bad = m["params"] == json!({"parameters": {}}) || m["params"]["expUUID"] == "nope";
        if !bad {
            schemas.check(method, "params", &m["params"]);
        }
    }
    let received = s.log.lock().unwrap().clone();
    let mut counts = (0, 0, 0);
    for m in &received {
        if let Some(method) = m["method"].as_str() {
            schemas.check(method, "params", &m["params"]);
            counts.0 += 1;
        } else if let Some(e) = m.get("error") {
            schemas.check("errors", "error", e);
            counts.1 += 1;
        } else {
            let method = &asked[&m["id"].to_string()];
            if !lsp_own(method) {
                schemas.check(method, "result", &m["result"]);
            }
            counts.2 += 1;
        }
    }
    eprintln!(
        "validated {} notifications, {} errors, {} results",
        counts.0, counts.1, counts.2
    );
    assert!(
        counts.0 >= 3 && counts.1 >= 3 && counts.2 >= 20,
        "{counts:?}"
    );
}
