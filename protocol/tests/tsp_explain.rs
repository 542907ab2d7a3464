//! The explain outputs over TSP (`sextant.explain` configurations) on
//! fixtures/scenario-a/ctf, against `sextant explain --longest --format json`
//! run on the same trace as the independent reference: the critical path's
//! threads, the complement's inversions with their priorities, the related
//! threads, the message queue's waiters, the diagnosis annotation; deleting;
//! errors naming the field. Every answer validates against the TSP schema
//! (../shared/specs/tsp-API.yaml; without it, the values are still checked).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::server::Server;
use common::tsp_spec::{Session, Spec};
use common::{repo_root, sextant};
use serde_json::{json, Value};

const MODEL: &str = "schemas/examples/periodic-rt_high.json";

fn reference() -> Value {
    let trace = repo_root().join("fixtures/scenario-a/ctf");
    let model = repo_root().join(MODEL);
    let out = sextant(&[
        "explain",
        trace.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "--longest",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

/// Answers checked against the spec when it is there.
struct Client {
    session: Option<Session>,
    srv: Option<Server>,
}

impl Client {
    fn call(&mut self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        match (&mut self.session, &self.srv) {
            (Some(s), _) => s.call(method, path, body.as_ref()),
            (None, Some(srv)) => srv.request(method, path, body.map(|b| b.to_string()).as_deref()),
            _ => unreachable!("a session or a server"),
        }
    }

    fn post(&mut self, path: &str, body: Value) -> (u16, Value) {
        self.call("POST", path, Some(body))
    }

    fn ok(&mut self, path: &str, body: Value) -> Value {
        let (st, v) = self.post(path, body);
        assert_eq!(st, 200, "{path}: {v}");
        assert_eq!(v["status"], "COMPLETED", "{path}: {v}");
        v["model"].clone()
    }
}

fn labels(entry: &Value) -> Vec<String> {
    entry["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn explain_outputs_over_tsp() {
    let reference = reference();
    let srv = Server::start();
    let (exp, experiment) = srv.open_scenario_a("explain");
    let (start, end) = (
        experiment["start"].as_i64().unwrap(),
        experiment["end"].as_i64().unwrap(),
    );
    let mut c = match Spec::load() {
        Some(spec) => Client {
            session: Some(Session {
                srv,
                spec,
                checked: HashMap::new(),
                failures: Vec::new(),
                undeclared: Vec::new(),
            }),
            srv: None,
        },
        None => {
            eprintln!("../shared/specs/tsp-API.yaml is absent: answers are not validated");
            Client {
                session: None,
                srv: Some(srv),
            }
        }
    };
    let base = format!("/experiments/{exp}/outputs");

    // The type is listed, with its schema; the parent output too.
    let (_, types) = c.call("GET", "/config/types", None);
    let t = types
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "sextant.explain")
        .expect("sextant.explain is listed");
    assert!(t["schema"]["properties"]["execution"].is_object());
    let (_, outputs) = c.call("GET", &base, None);
    assert!(outputs
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["id"] == "sextant.explain" && o["type"] == "NONE"));

    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_root().join(MODEL)).unwrap()).unwrap();
    // An execution that does not exist: 400 naming the field.
    let (st, err) = c.post(
        &format!("{base}/sextant.explain"),
        json!({"name": "far", "sourceTypeId": "sextant.explain",
               "parameters": {"model": model, "execution": 100000}}),
    );
    assert_eq!(st, 400, "{err}");
    assert!(
        err["detail"]
            .as_str()
            .unwrap()
            .contains("parameters.execution"),
        "{err}"
    );

    let (st, created) = c.post(
        &format!("{base}/sextant.explain"),
        json!({"name": "longest", "sourceTypeId": "sextant.explain",
               "parameters": {"model": model, "execution": "longest"}}),
    );
    assert_eq!(st, 200, "{created}");
    let id = created["configuration"]["id"].as_str().unwrap().to_string();
    let path = format!("sextant.explain.critical-path:{id}");
    let complement = format!("sextant.explain.complement:{id}");
    let relations = format!("sextant.explain.relations:{id}");
    let facilities = format!("sextant.explain.facilities:{id}");
    assert_eq!(created["id"], path.as_str());

    // Critical path: one row per thread of the reference's path, and its
    // pieces as states.
    let x = &reference["execution"];
    let (xs, xe) = (x["start"].as_i64().unwrap(), x["end"].as_i64().unwrap());
    let range = json!({"start": start, "end": end, "nbTimes": 2000});
    let tree = c.ok(
        &format!("{base}/timeGraph/{path}/tree"),
        json!({"parameters": {"requested_timerange": range}}),
    );
    let rows: BTreeMap<i64, String> = tree["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_i64().unwrap(), labels(e)[0].clone()))
        .collect();
    let want: BTreeSet<&str> = reference["critical_path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["comm"].as_str().unwrap())
        .collect();
    let got: BTreeSet<&str> = rows.values().map(String::as_str).collect();
    assert_eq!(got, want);
    assert!(got.contains("rt_high") && got.contains("rt_low"), "{got:?}");
    let states = c.ok(
        &format!("{base}/timeGraph/{path}/states"),
        json!({"parameters": {"requested_timerange": range,
               "requested_items": rows.keys().collect::<Vec<_>>()}}),
    );
    let mut pieces: Vec<(i64, i64, String, String)> = Vec::new();
    for r in states["rows"].as_array().unwrap() {
        let comm = &rows[&r["entryId"].as_i64().unwrap()];
        for s in r["states"].as_array().unwrap() {
            pieces.push((
                s["start"].as_i64().unwrap(),
                s["end"].as_i64().unwrap(),
                comm.clone(),
                s["style"]["parentKey"].as_str().unwrap().to_string(),
            ));
        }
    }
    pieces.sort();
    let mut expected: Vec<(i64, i64, String, String)> = reference["critical_path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["start"].as_i64().unwrap(),
                p["end"].as_i64().unwrap(),
                p["comm"].as_str().unwrap().to_string(),
                p["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    expected.sort();
    assert_eq!(pieces, expected);
    // Wake-ups between path threads: rt_low wakes rt_high (the message).
    let arrows = c.ok(
        &format!("{base}/timeGraph/{path}/arrows"),
        json!({"parameters": {"requested_timerange": range}}),
    );
    assert!(
        arrows.as_array().unwrap().iter().any(|a| {
            rows[&a["sourceId"].as_i64().unwrap()] == "rt_low"
                && rows[&a["targetId"].as_i64().unwrap()] == "rt_high"
                && (xs..=xe).contains(&a["start"].as_i64().unwrap())
        }),
        "{arrows}"
    );
    // The diagnosis over the execution.
    let ann = c.ok(
        &format!("{base}/{path}/annotations"),
        json!({"parameters": {"requested_timerange": range}}),
    );
    let d = &ann["annotations"]["Diagnosis"][0];
    assert_eq!(d["label"], reference["diagnosis"]);
    assert_eq!(d["time"].as_i64(), Some(xs));
    assert_eq!(d["duration"].as_i64(), Some(xe - xs));
    let styles = c.ok(&format!("{base}/{path}/style"), json!({"parameters": {}}));
    assert!(styles["styles"]["preempted"].is_object());

    // Complement: the reference's inversions, with their priorities, as
    // children in the inversion style.
    let tree = c.ok(
        &format!("{base}/timeGraph/{complement}/tree"),
        json!({"parameters": {}}),
    );
    let entries = tree["entries"].as_array().unwrap();
    let inversions: BTreeSet<(String, String)> = reference["complement"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["running"].as_array().unwrap())
        .filter(|r| r["inversion"] == true && r["comm"] != "rt_low")
        .map(|r| {
            (
                r["comm"].as_str().unwrap().to_string(),
                format!(
                    "{} (kernel prio {})",
                    r["priority"].as_str().unwrap(),
                    r["prio"]
                ),
            )
        })
        .collect();
    assert!(
        inversions.iter().any(|(c, _)| c.starts_with("rt_med")),
        "the reference flags the medium threads: {inversions:?}"
    );
    let styles = c.ok(
        &format!("{base}/{complement}/style"),
        json!({"parameters": {}}),
    );
    assert_eq!(
        styles["styles"]["inversion"]["values"]["background-color"],
        "#d62728"
    );
    let reference_priority = reference["priority"].as_str().unwrap();
    for (comm, prio) in &inversions {
        let e = entries
            .iter()
            .find(|e| e["parentId"] != -1 && labels(e)[0] == *comm)
            .unwrap_or_else(|| panic!("{comm} is a child row: {tree}"));
        assert_eq!(labels(e)[2], *prio);
        let id = e["id"].as_i64().unwrap();
        let st = c.ok(
            &format!("{base}/timeGraph/{complement}/states"),
            json!({"parameters": {"requested_timerange": range, "requested_items": [id]}}),
        );
        let s = &st["rows"][0]["states"][0];
        assert_eq!(s["style"]["parentKey"], "inversion", "{st}");
        let tip = c.ok(
            &format!("{base}/timeGraph/{complement}/tooltip"),
            json!({"parameters": {"requested_times": [s["start"]], "requested_items": [id],
                   "requested_element": {"elementType": "state", "time": s["start"], "duration": 1}}}),
        );
        assert_eq!(tip["Priority"], prio.as_str());
        let set = prio.split(" (kernel").next().unwrap();
        assert_eq!(
            tip["Priority inversion"],
            format!("{set} is lower than rt_high's {reference_priority}").as_str(),
            "{tip}"
        );
    }

    // Relations: the reference's, rt_low among them.
    let tree = c.ok(
        &format!("{base}/data/{relations}/tree"),
        json!({"parameters": {}}),
    );
    let lines: Vec<Vec<String>> = tree["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(labels)
        .collect();
    assert_eq!(lines[0][0], "rt_high");
    assert_eq!(lines[0][2], "analysed");
    for (kind, key) in [("direct", "direct"), ("indirect", "indirect")] {
        let want: BTreeSet<String> = reference["relations"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.to_string())
            .collect();
        let got: BTreeSet<String> = lines
            .iter()
            .filter(|l| l[2] == kind)
            .map(|l| l[1].clone())
            .collect();
        assert_eq!(got, want, "{kind}");
    }
    assert!(lines.iter().any(|l| l[0] == "rt_low"), "{lines:?}");

    // Facilities: the message queues with their waiting threads.
    let tree = c.ok(
        &format!("{base}/timeGraph/{facilities}/tree"),
        json!({"parameters": {}}),
    );
    let entries = tree["entries"].as_array().unwrap();
    let group = entries
        .iter()
        .find(|e| labels(e)[0] == "message queues")
        .expect("a message queue group");
    let queues: Vec<i64> = entries
        .iter()
        .filter(|e| e["parentId"] == group["id"])
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert!(!queues.is_empty());
    let st = c.ok(
        &format!("{base}/timeGraph/{facilities}/states"),
        json!({"parameters": {"requested_timerange": range, "requested_items": queues}}),
    );
    let mut waiters = BTreeSet::new();
    for r in st["rows"].as_array().unwrap() {
        for s in r["states"].as_array().unwrap() {
            let tip = c.ok(
                &format!("{base}/timeGraph/{facilities}/tooltip"),
                json!({"parameters": {"requested_times": [s["start"]], "requested_items": [r["entryId"]]}}),
            );
            waiters.insert(tip["Receivers waiting"].as_str().unwrap_or("").to_string());
        }
    }
    assert!(
        waiters.iter().any(|w| w.contains("rt_low"))
            && waiters.iter().any(|w| w.contains("rt_high")),
        "{waiters:?}"
    );

    // Posting the same again answers the same; another name with the same
    // parameters from the execution-model configuration works too.
    let (st, again) = c.post(
        &format!("{base}/sextant.explain"),
        json!({"name": "longest", "sourceTypeId": "sextant.explain",
               "parameters": {"model": model, "execution": "longest"}}),
    );
    assert_eq!((st, &again["id"]), (200, &created["id"]));
    let (st, _) = c.post(
        &format!("{base}/sextant.explain"),
        json!({"name": "bad", "sourceTypeId": "sextant.explain",
               "parameters": {"configuration": "nope"}}),
    );
    assert_eq!(st, 400);

    // Delete: the four outputs are gone.
    let (st, _) = c.call("DELETE", &format!("{base}/sextant.explain/{path}"), None);
    assert_eq!(st, 200);
    for o in [&path, &complement, &facilities] {
        let (st, _) = c.post(
            &format!("{base}/timeGraph/{o}/tree"),
            json!({"parameters": {}}),
        );
        assert_eq!(st, 404, "{o}");
    }
    let (st, _) = c.post(
        &format!("{base}/data/{relations}/tree"),
        json!({"parameters": {}}),
    );
    assert_eq!(st, 404);

    if let Some(s) = &c.session {
        assert!(
            s.failures.is_empty(),
            "{} answers do not validate:\n{}",
            s.failures.len(),
            s.failures.join("\n\n")
        );
    }
}
