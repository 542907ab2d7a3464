//! A posted execution model's executions kept in the trace's store: a
//! server started later offers the configuration again in an experiment of
//! the same name, under the same ids, and answers its views from the store
//! without a pass (`GET /identifier`'s `store` counters); posting the model
//! again reads the store; deleting the configuration stops the offer;
//! `--no-store` neither reads nor keeps anything. On a copy of
//! fixtures/scenario-a/ctf, so the store written is this test's own.

mod common;

use std::path::{Path, PathBuf};

use common::repo_root;
use common::server::Server;
use serde_json::{json, Value};

const NAME: &str = "rt_high jobs";

fn model() -> Value {
    let path = repo_root().join("schemas/examples/periodic-rt_high.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A fresh copy of the scenario-a CTF trace under the temporary directory.
fn trace_copy(tag: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("sextant-stored-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let trace = root.join("ctf");
    std::fs::create_dir_all(&trace).unwrap();
    let fixture = repo_root().join("fixtures/scenario-a/ctf");
    for f in std::fs::read_dir(&fixture).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), trace.join(f.file_name())).unwrap();
    }
    (root, trace)
}

fn server(root: &Path, more: &[&str]) -> Server {
    let root = root.display().to_string();
    let mut args = vec!["--allow-root", root.as_str()];
    args.extend_from_slice(more);
    Server::start_with(&args)
}

fn store_counts(srv: &Server) -> (bool, u64, u64) {
    let (st, id) = srv.get("/identifier");
    assert_eq!(st, 200, "{id}");
    let s = &id["store"];
    (
        s["enabled"].as_bool().unwrap(),
        s["executionPasses"].as_u64().unwrap(),
        s["executionsFromStore"].as_u64().unwrap(),
    )
}

fn post_model(srv: &Server, exp: &str, name: &str) -> (u16, Value) {
    srv.post(
        &format!("/experiments/{exp}/outputs/sextant.executions"),
        &json!({"name": name, "description": "periodic", "sourceTypeId": "sextant.execution-model",
                "parameters": model()}),
    )
}

/// The ids of the experiment's outputs derived from a configuration.
fn derived_ids(srv: &Server, exp: &str) -> Vec<String> {
    let (st, outputs) = srv.get(&format!("/experiments/{exp}/outputs"));
    assert_eq!(st, 200, "{outputs}");
    outputs
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["parentId"] == "sextant.executions")
        .map(|o| o["id"].as_str().unwrap().to_string())
        .collect()
}

/// What the model's views answer, as text: the Comparison View's tree and
/// states, the executions table's lines, the statistics.
fn views(srv: &Server, exp: &str, ids: &[String]) -> Vec<String> {
    let id = |prefix: &str| {
        ids.iter()
            .find(|i| i.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} output in {ids:?}"))
            .clone()
    };
    let base = format!("/experiments/{exp}/outputs");
    let comparison = id("sextant.executions.comparison:");
    let (st, tree) = srv.post(
        &format!("{base}/timeGraph/{comparison}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{tree}");
    let rows: Vec<i64> = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert!(rows.len() > 50, "{tree}");
    let longest = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["end"].as_i64().unwrap())
        .max()
        .unwrap();
    let (st, states) = srv.post(
        &format!("{base}/timeGraph/{comparison}/states"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": longest, "nbTimes": 500},
                               "requested_items": rows}}),
    );
    assert_eq!(st, 200, "{states}");
    let table = id("sextant.executions.table:");
    let (st, lines) = srv.post(
        &format!("{base}/table/{table}/lines"),
        &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 1000}}),
    );
    assert_eq!(st, 200, "{lines}");
    let statistics = id("sextant.executions.statistics:");
    let (st, stats) = srv.post(
        &format!("{base}/data/{statistics}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{stats}");
    [tree, states, lines, stats]
        .iter()
        .map(Value::to_string)
        .collect()
}

#[test]
fn a_later_server_offers_the_posted_model_again_from_the_store() {
    let (root, trace) = trace_copy("later");
    let uri = trace.display().to_string();

    // First server: the model costs one pass.
    let first = server(&root, &[]);
    let (exp, _) = first.open_trace("jobs", &uri);
    assert!(derived_ids(&first, &exp).is_empty());
    let (st, created) = post_model(&first, &exp, NAME);
    assert_eq!(st, 200, "{created}");
    assert_eq!(store_counts(&first), (true, 1, 0));
    let ids = derived_ids(&first, &exp);
    assert_eq!(ids.len(), 5, "{ids:?}");
    let before = views(&first, &exp, &ids);
    drop(first);

    // A later server: the same experiment offers it, same ids, same
    // answers, read from the store.
    let later = server(&root, &[]);
    let (exp2, _) = later.open_trace("jobs", &uri);
    assert_eq!(exp2, exp, "experiment ids are stable");
    assert_eq!(derived_ids(&later, &exp), ids);
    assert_eq!(store_counts(&later), (true, 0, 1));
    assert_eq!(views(&later, &exp, &ids), before);
    let (st, configs) = later.get(&format!(
        "/experiments/{exp}/outputs/sextant.executions/configTypes"
    ));
    assert_eq!(st, 200, "{configs}");
    // Posted again as it was: the configuration kept, no work at all.
    let (st, again) = post_model(&later, &exp, NAME);
    assert_eq!((st, &again["id"]), (200, &created["id"]), "{again}");
    assert_eq!(store_counts(&later), (true, 0, 1));
    // Under another name: read from the store, not a pass.
    let (st, other) = post_model(&later, &exp, "again");
    assert_eq!(st, 200, "{other}");
    assert_eq!(store_counts(&later), (true, 0, 2));
    assert_eq!(derived_ids(&later, &exp).len(), 10);
    // An experiment of another name on the same trace is offered nothing.
    let (st, t) = later.post("/traces", &json!({"parameters": {"name": "x", "uri": uri}}));
    assert_eq!(st, 200, "{t}");
    let (st, other_exp) = later.post(
        "/experiments",
        &json!({"parameters": {"name": "another", "traces": [t["UUID"]]}}),
    );
    assert_eq!(st, 200, "{other_exp}");
    assert!(derived_ids(&later, other_exp["UUID"].as_str().unwrap()).is_empty());
    // Deleted: a server after that offers only "again".
    let comparison = &ids[0];
    let (st, gone) = later.delete(&format!(
        "/experiments/{exp}/outputs/sextant.executions/{comparison}"
    ));
    assert_eq!(st, 200, "{gone}");
    drop(later);
    let last = server(&root, &[]);
    let (exp3, _) = last.open_trace("jobs", &uri);
    let (st, outputs) = last.get(&format!("/experiments/{exp3}/outputs"));
    assert_eq!(st, 200);
    let names: Vec<&str> = outputs
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["parentId"] == "sextant.executions")
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.iter().all(|n| n.ends_with(": again")), "{names:?}");
    drop(last);
    // `sextant store ls` says so too.
    let out = common::sextant(&["store", "ls", &uri]);
    let ls = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{ls}");
    assert!(
        ls.contains("offered to servers as \"again\" in experiment \"jobs-exp\""),
        "{ls}"
    );
    assert!(!ls.contains(&format!("{NAME:?}")), "{ls}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn without_a_store_every_post_is_a_pass_and_nothing_is_kept() {
    let (root, trace) = trace_copy("nostore");
    let uri = trace.display().to_string();
    for _ in 0..2 {
        let srv = server(&root, &["--no-store"]);
        let (exp, _) = srv.open_trace("jobs", &uri);
        assert!(derived_ids(&srv, &exp).is_empty());
        let (st, created) = post_model(&srv, &exp, NAME);
        assert_eq!(st, 200, "{created}");
        assert_eq!(store_counts(&srv), (false, 1, 0));
    }
    let out = common::sextant(&["store", "ls", &uri]);
    let ls = String::from_utf8_lossy(&out.stdout);
    assert!(ls.starts_with("nothing stored for"), "{ls}");
    std::fs::remove_dir_all(&root).unwrap();
}
