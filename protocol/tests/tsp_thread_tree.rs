//! The thread status tree over TSP: one root per host, its processes under
//! it, their threads under them; a thread never under another host's
//! process, states only on threads, and host and process entries answered
//! (no rows, a tooltip) rather than refused.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use common::server::Server;
use common::{copy_into, repo_root, shared_dir, skip_shared, TempDir};
use serde_json::{json, Value};

const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// Opens each (name, uri) as a trace and all of them as the experiment
/// `name`; waits for it to be indexed and returns its UUID.
fn open_experiment(srv: &Server, name: &str, traces: &[(&str, &str)]) -> String {
    let uuids: Vec<Value> = traces
        .iter()
        .map(|(name, uri)| {
            let (st, t) = srv.post(
                "/traces",
                &json!({"parameters": {"name": name, "uri": uri}}),
            );
            assert_eq!(st, 200, "{t}");
            t["UUID"].clone()
        })
        .collect();
    let (st, exp) = srv.post(
        "/experiments",
        &json!({"parameters": {"name": name, "traces": uuids}}),
    );
    assert_eq!(st, 200, "{exp}");
    let uuid = exp["UUID"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, exp) = srv.get(&format!("/experiments/{uuid}"));
        match exp["indexingStatus"].as_str().unwrap() {
            "COMPLETED" => return uuid,
            "RUNNING" if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => panic!("indexing did not complete: {exp}"),
        }
    }
}

/// The thread status tree, its layout checked: hosts at the top, processes
/// under a host, threads under a process with its PID, only threads with
/// data, every id once.
struct Tree {
    entries: Vec<Value>,
    /// Position of each entry by id.
    position: HashMap<i64, usize>,
}

impl Tree {
    fn of(srv: &Server, exp: &str) -> Tree {
        let (st, tree) = srv.post(
            &format!("/experiments/{exp}/outputs/timeGraph/{THREAD_STATUS}/tree"),
            &json!({"parameters": {}}),
        );
        assert_eq!(st, 200, "{tree}");
        assert_eq!(tree["status"], "COMPLETED");
        let entries = tree["model"]["entries"].as_array().unwrap().clone();
        let position: HashMap<i64, usize> = entries
            .iter()
            .enumerate()
            .map(|(k, e)| (i(&e["id"]), k))
            .collect();
        assert_eq!(position.len(), entries.len(), "every id once");
        let tree = Tree { entries, position };
        for e in &tree.entries {
            let level = tree.level(e);
            assert_eq!(e["hasData"], level == 2, "data only on threads: {e}");
            if level == 2 {
                let process = tree.by_id(i(&e["parentId"]));
                assert_eq!(e["labels"][2], process["labels"][2], "{e} in {process}");
            }
        }
        tree
    }

    fn by_id(&self, id: i64) -> &Value {
        let k = self
            .position
            .get(&id)
            .unwrap_or_else(|| panic!("no entry {id}"));
        &self.entries[*k]
    }

    /// 0 for a host, 1 for a process, 2 for a thread.
    fn level(&self, e: &Value) -> usize {
        match i(&e["parentId"]) {
            -1 => 0,
            parent => 1 + self.level(self.by_id(parent)),
        }
    }

    fn at(&self, level: usize) -> impl Iterator<Item = &Value> {
        self.entries.iter().filter(move |e| self.level(e) == level)
    }

    /// The host entry above `e`.
    fn host_of<'a>(&'a self, e: &'a Value) -> &'a Value {
        match i(&e["parentId"]) {
            -1 => e,
            parent => self.host_of(self.by_id(parent)),
        }
    }

    /// Each host's threads.
    fn threads_by_host(&self) -> BTreeMap<String, BTreeSet<Thread>> {
        let mut by_host: BTreeMap<String, BTreeSet<_>> = BTreeMap::new();
        for t in self.at(2) {
            let host = self.host_of(t)["labels"][0].as_str().unwrap().to_string();
            let label = |k: usize| t["labels"][k].as_str().unwrap().to_string();
            by_host.entry(host).or_default().insert((
                label(0),
                label(1).parse().unwrap(),
                label(2),
                i(&t["start"]),
                i(&t["end"]),
            ));
        }
        by_host
    }
}

/// A thread as the tree shows it: (name, TID, PID, start, end).
type Thread = (String, i64, String, i64, i64);

/// The states of `ids` over the experiment's whole range.
fn states(srv: &Server, exp: &str, ids: &[i64], extra: Value) -> Vec<Value> {
    let (_, e) = srv.get(&format!("/experiments/{exp}"));
    let mut parameters = json!({
        "requested_timerange": {"start": e["start"], "end": e["end"], "nbTimes": 500},
        "requested_items": ids,
    });
    if let (Some(p), Some(more)) = (parameters.as_object_mut(), extra.as_object()) {
        p.extend(more.clone());
    }
    let (st, v) = srv.post(
        &format!("/experiments/{exp}/outputs/timeGraph/{THREAD_STATUS}/states"),
        &json!({ "parameters": parameters }),
    );
    assert_eq!(st, 200, "{v}");
    v["model"]["rows"].as_array().unwrap().clone()
}

fn tooltip(srv: &Server, exp: &str, id: i64, t: i64) -> Value {
    let (st, v) = srv.post(
        &format!("/experiments/{exp}/outputs/timeGraph/{THREAD_STATUS}/tooltip"),
        &json!({"parameters": {"requested_times": [t], "requested_items": [id]}}),
    );
    assert_eq!(st, 200, "{v}");
    v["model"].clone()
}

/// Two recordings of different boots (no hostname written: each host is
/// named by its folder), served as one experiment of two traces: two roots,
/// each holding exactly the threads its trace has when served alone.
#[test]
fn two_hosts_each_hold_their_own_processes_and_threads() {
    let tmp = TempDir::new("tsp-tree-two-hosts");
    let mut uris = Vec::new();
    for (name, fixture) in [("a", "scenario-a/ctf"), ("b", "scenario-b/ctf")] {
        let copy = copy_into(&repo_root().join("fixtures").join(fixture), tmp.path());
        std::fs::rename(&copy, tmp.path().join(name)).unwrap();
        uris.push(tmp.path().join(name));
    }
    let srv = Server::start_with(&["--allow-root", tmp.path().to_str().unwrap()]);
    let [a, b] = [0, 1].map(|k| uris[k].to_str().unwrap());
    let both = open_experiment(&srv, "both", &[("a", a), ("b", b)]);
    let tree = Tree::of(&srv, &both);
    let hosts: Vec<&str> = tree
        .at(0)
        .map(|h| h["labels"][0].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["a", "b"]);

    // Each host holds what its trace alone holds (its only host then).
    let by_host = tree.threads_by_host();
    for (k, host) in hosts.iter().enumerate() {
        let alone = open_experiment(&srv, &format!("alone-{k}"), &[(hosts[k], [a, b][k])]);
        let single = Tree::of(&srv, &alone);
        assert_eq!(single.at(0).count(), 1, "one host, one root");
        let threads = single.threads_by_host().into_values().next().unwrap();
        assert!(threads.len() > 5, "{threads:?}");
        assert_eq!(by_host[*host], threads, "{host}: the threads of its trace");
    }
    // The same TIDs on both hosts stay apart: each under its own process.
    let tids = |h: &str| -> BTreeSet<i64> { by_host[h].iter().map(|t| t.1).collect() };
    assert!(
        tids(hosts[0])
            .intersection(&tids(hosts[1]))
            .next()
            .is_some(),
        "the two boots share some TIDs (kernel threads)"
    );
    for p in tree.at(1) {
        let host = tree.host_of(p);
        for t in tree.at(2).filter(|t| t["parentId"] == p["id"]) {
            assert_eq!(tree.host_of(t), host);
        }
    }

    // Ids are the same in every request.
    assert_eq!(Tree::of(&srv, &both).entries, tree.entries);

    // States: rows for threads only, none for hosts and processes, with or
    // without a search.
    let ids: Vec<i64> = tree.entries.iter().map(|e| i(&e["id"])).collect();
    let threads: BTreeSet<i64> = tree.at(2).map(|t| i(&t["id"])).collect();
    let rows = states(&srv, &both, &ids, json!({}));
    let drawn: BTreeSet<i64> = rows.iter().map(|r| i(&r["entryId"])).collect();
    assert!(!drawn.is_empty() && drawn.is_subset(&threads), "{drawn:?}");
    let groups: Vec<i64> = tree.at(0).chain(tree.at(1)).map(|e| i(&e["id"])).collect();
    assert!(states(&srv, &both, &groups, json!({})).is_empty());
    let search = json!({"filter_query_parameters": {"strategy": "SAMPLED",
        "filter_expressions_map": {"1": ["rt_high"], "4": ["^rt_"]}}});
    assert!(states(&srv, &both, &groups, search.clone()).is_empty());
    assert!(!states(&srv, &both, &ids, search).is_empty());

    // Tooltips: a host and a process say what they are; a thread its host.
    let (_, e) = srv.get(&format!("/experiments/{both}"));
    let mid = (i(&e["start"]) + i(&e["end"])) / 2;
    let host = tree.at(0).next().unwrap();
    assert_eq!(
        tooltip(&srv, &both, i(&host["id"]), mid),
        json!({"Host": hosts[0]})
    );
    let process = tree.at(1).find(|p| tree.host_of(p) == host).unwrap();
    let tip = tooltip(&srv, &both, i(&process["id"]), mid);
    assert_eq!(tip["Process"], process["labels"][0], "{tip}");
    assert_eq!(tip["Host"], hosts[0], "{tip}");
    let thread = tree.at(2).find(|t| tree.host_of(t) != host).unwrap();
    assert_eq!(
        tooltip(&srv, &both, i(&thread["id"]), mid)["Host"],
        hosts[1]
    );
    let unknown = ids.iter().max().unwrap() + 1;
    let (st, _) = srv.post(
        &format!("/experiments/{both}/outputs/timeGraph/{THREAD_STATUS}/tooltip"),
        &json!({"parameters": {"requested_times": [mid], "requested_items": [unknown]}}),
    );
    assert_eq!(st, 404);
}

/// One trace: one root, named after its host, and rt_high a thread with
/// states under a process.
#[test]
fn a_single_host_is_one_root() {
    let srv = Server::start();
    let (exp, _) = srv.open_scenario_a("single");
    let tree = Tree::of(&srv, &exp);
    assert_eq!(tree.at(0).count(), 1);
    let rt_high: Vec<i64> = tree
        .at(2)
        .filter(|t| t["labels"][0] == "rt_high")
        .map(|t| i(&t["id"]))
        .collect();
    assert_eq!(rt_high.len(), 1);
    let rows = states(&srv, &exp, &rt_high, json!({}));
    assert!(!rows[0]["states"].as_array().unwrap().is_empty());
}

/// Trace Compass's synchronisation traces: two virtual machines, each its
/// own root with its own threads.
#[test]
fn synctraces_are_two_roots() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let sync = shared.join("traces/ctf/synctraces");
    let srv = Server::start_with(&["--allow-root", sync.to_str().unwrap()]);
    let folders = ["scp_src", "scp_dest"].map(|f| sync.join(f).to_str().unwrap().to_string());
    let exp = open_experiment(
        &srv,
        "sync",
        &[("scp_src", &folders[0]), ("scp_dest", &folders[1])],
    );
    let tree = Tree::of(&srv, &exp);
    let by_host = tree.threads_by_host();
    let hosts: Vec<&str> = by_host.keys().map(String::as_str).collect();
    assert_eq!(hosts, ["VM1", "VM3"]);
    for (host, threads) in &by_host {
        assert!(threads.len() > 20, "{host}: {} threads", threads.len());
    }
    // A process of each host: its PID's threads are all under it.
    for p in tree.at(1).filter(|p| p["labels"][2] != "") {
        let host = tree.host_of(p);
        let same: Vec<&Value> = tree
            .at(1)
            .filter(|q| q["labels"][2] == p["labels"][2] && tree.host_of(q) == host)
            .collect();
        assert_eq!(same.len(), 1, "PID {} twice on one host", p["labels"][2]);
    }
}
