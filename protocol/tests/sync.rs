//! `sextant sync`: several hosts on one timeline, checked against Trace
//! Compass's own synchronisation test on synctraces and against a clock
//! offset set on purpose.

mod common;

use std::path::{Path, PathBuf};

use common::server::Server;
use common::{copy_into, run_json, sextant, shared_dir, skip_shared, valid_json_output, TempDir};
use serde_json::{json, Value};

/// VM1's time `t` on VM3's clock, by the correction in a `sync` output.
fn on_reference(doc: &Value, host: &str, t: i64) -> i64 {
    let h = doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == host)
        .unwrap_or_else(|| panic!("no host {host} in {doc}"));
    let c = &h["correction"];
    let (drift, offset) = (c["drift"].as_f64().unwrap(), c["offset"].as_f64().unwrap());
    t + (drift * t as f64 + offset).round() as i64
}

#[test]
fn synctraces_as_trace_compass_synchronises_them() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let sync = shared.join("traces/ctf/synctraces");
    let doc = valid_json_output(
        "sync-result.schema.json",
        &["sync", sync.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(
        doc["hosts"][doc["reference"].as_u64().unwrap() as usize]["name"],
        "VM3"
    );
    let pair = &doc["pairs"][0];
    assert_eq!(pair["quality"], "accurate");
    assert_eq!(pair["messages"], 46, "MatchAndSyncTest's count");
    // ExperimentSyncTest: slope 0.99994137837031390…, offset
    // 79796507913179.333… (VM1 onto VM3), applied to a VM1 time.
    let t = 1_361_214_076_535_112_167i64;
    let want = t as i128 + (-5.862_162_968_609_889e-5 * t as f64 + 79_796_507_913_179.33) as i128;
    assert!(
        (i128::from(on_reference(&doc, "VM1", t)) - want).abs() <= 1,
        "{doc}"
    );
    // Kept where a later command finds it: the shared folder is read-only,
    // so in the cache.
    let stored = doc["stored"][0].as_str().unwrap();
    assert!(
        Path::new(stored).join("manifest.json").is_file(),
        "{stored}"
    );
    assert!(!sync.join("synctraces.sextant").exists());
    let text = sextant(&["sync", sync.to_str().unwrap(), "--no-store"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("VM3 <-> VM1: accurate, 46 packets matched"),
        "{text}"
    );
}

/// Our own pair: synctraces with VM1's clock moved by an offset we choose
/// (its metadata's clock `offset`, same number of digits so that the
/// metadata packet keeps its size). Synchronised again, VM1's times must
/// land where they landed before the move, within 1 µs: the offset set is
/// recovered.
#[test]
fn an_offset_set_on_purpose_is_recovered_within_a_microsecond() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let original = shared.join("traces/ctf/synctraces");
    let tmp = TempDir::new("sync-offset");
    let copy = tmp.path().join("synctraces");
    std::fs::create_dir_all(&copy).unwrap();
    for host in ["scp_src", "scp_dest"] {
        copy_into(&original.join(host), &copy);
    }
    let metadata = copy.join("scp_src/metadata");
    let mut perms = std::fs::metadata(&metadata).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&metadata, perms).unwrap();
    let (before, after) = (b"1361203559332331489", b"1361203561567654321");
    let moved: i64 = 1_361_203_561_567_654_321 - 1_361_203_559_332_331_489;
    let mut bytes = std::fs::read(&metadata).unwrap();
    let at = bytes
        .windows(before.len())
        .position(|w| w == before)
        .expect("VM1's clock offset in its metadata");
    bytes[at..at + after.len()].copy_from_slice(after);
    std::fs::write(&metadata, bytes).unwrap();

    let args = |p: &Path| {
        valid_json_output(
            "sync-result.schema.json",
            &[
                "sync",
                p.to_str().unwrap(),
                "--format",
                "json",
                "--no-store",
            ],
        )
    };
    let (was, now) = (args(&original), args(&copy));
    assert_eq!(now["pairs"][0]["quality"], "accurate");
    for t in [1_361_214_076_535_112_167i64, 1_361_214_080_000_000_000] {
        let (a, b) = (
            on_reference(&was, "VM1", t),
            on_reference(&now, "VM1", t + moved),
        );
        assert!(
            (a - b).abs() < 1_000,
            "VM1 time {t}, moved by {moved} ns: {a} before, {b} after"
        );
    }
}

/// (host, tid, duration, start) of each execution of `analyze`'s JSON.
fn executions(doc: &Value) -> Vec<(String, i64, i64, i64)> {
    let mut v: Vec<_> = doc["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let n = |k: &str| e[k].as_i64().unwrap();
            (
                e["host"].as_str().unwrap().to_string(),
                n("tid"),
                n("duration"),
                n("start"),
            )
        })
        .collect();
    v.sort();
    v
}

/// After `sync`, `analyze` of the same folder puts VM1's executions on
/// VM3's clock (starts moved by the stored correction), leaves VM3's and
/// every duration as they were.
#[test]
fn analyze_uses_the_stored_timeline() {
    let Some((sync, _tmp, cache)) = synctraces("sync-analyze") else {
        return;
    };
    let cache = cache.as_str();
    let trace = sync.to_str().unwrap();
    let analyze = || {
        run_json(&[
            "analyze",
            trace,
            "--preset",
            "running",
            "--format",
            "json",
            "--cache-dir",
            cache,
        ])
    };
    let before = executions(&analyze());
    let doc = run_json(&["sync", trace, "--format", "json", "--cache-dir", cache]);
    let after = executions(&analyze());
    assert_eq!(before.len(), after.len());
    assert!(before.len() > 100, "{}", before.len());
    let moved: Vec<_> = before
        .iter()
        .map(|(host, tid, d, start)| {
            let start = if host == "VM1" {
                on_reference(&doc, "VM1", *start)
            } else {
                *start
            };
            (host.clone(), *tid, *d, start)
        })
        .collect();
    let mut moved = moved;
    moved.sort();
    assert_eq!(moved, after);
    assert!(before != after, "VM1's times moved");
}

/// Every execution with the times it is served or printed with:
/// (tid, start, end, duration), sorted.
type Times = Vec<(i64, i64, i64, i64)>;

/// A model every host of synctraces has executions of: a wake-up to the
/// woken thread's switch onto a CPU.
const WAKEUP_MODEL: &str = r#"{"name": "wakeup to run", "events": [
    {"name": "sched_wakeup", "fields": {"tid": "$tid"}},
    {"name": "sched_switch", "fields": {"next_tid": "$tid"}}]}"#;

/// The shared synctraces (read in place: every store goes to the cache),
/// a temporary folder for the test and the cache directory in it; `None`,
/// the skip said, when ../shared is absent.
fn synctraces(tag: &str) -> Option<(PathBuf, TempDir, String)> {
    let Some(shared) = shared_dir() else {
        skip_shared();
        return None;
    };
    let tmp = TempDir::new(tag);
    let cache = tmp.path().join("cache").to_str().unwrap().to_string();
    Some((shared.join("traces/ctf/synctraces"), tmp, cache))
}

/// `analyze`'s executions of `model` in the folder `root`, with `cache`.
fn analyzed(root: &Path, model: &Path, cache: &Path) -> Times {
    let doc = run_json(&[
        "analyze",
        root.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "--format",
        "json",
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    let mut v: Times = doc["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let n = |k: &str| e[k].as_i64().unwrap();
            (n("tid"), n("start"), n("end"), n("duration"))
        })
        .collect();
    v.sort();
    v
}

/// What a server served for an experiment of several hosts' traces.
struct Served {
    exp: Value,
    /// Of each model posted, from its executions table.
    executions: Vec<Times>,
    /// Of the events table's first lines.
    times: Vec<i64>,
    /// Each host of the thread status tree: (label, start).
    hosts: Vec<(String, i64)>,
    /// The critical path of the first model's execution of the rank asked
    /// (0: the longest): each piece's (start, end).
    path: Vec<(i64, i64)>,
}

/// A server (with `cache`, allowed `folder`) and its experiment of the
/// traces `hosts`, opened as host0, host1, ...: its UUID and its answer.
fn experiment_of(hosts: &[PathBuf], folder: &str, cache: &str) -> (Server, String, Value) {
    let srv = Server::start_with(&["--cache-dir", cache, "--allow-root", folder]);
    let mut uuids = Vec::new();
    for (k, h) in hosts.iter().enumerate() {
        let (st, trace) = srv.post(
            "/traces",
            &json!({"parameters": {"name": format!("host{k}"), "uri": h.to_str().unwrap()}}),
        );
        assert_eq!(st, 200, "{trace}");
        uuids.push(trace["UUID"].clone());
    }
    let (euuid, exp) = srv.experiment("two hosts", &uuids);
    (srv, euuid, exp)
}

/// What a server (with `cache`) serves for an experiment of the traces
/// `hosts`, the model posted under each of `names`.
fn served(hosts: &[PathBuf], model: &Value, names: &[&str], cache: &Path, rank: usize) -> Served {
    let folder = hosts[0].parent().unwrap().to_str().unwrap();
    let (srv, euuid, exp) = experiment_of(hosts, folder, cache.to_str().unwrap());
    let base = format!("/experiments/{euuid}/outputs");
    let cell = |l: &Value, c: usize| -> i64 {
        l["cells"][c]["content"].as_str().unwrap().parse().unwrap()
    };
    let mut executions = Vec::new();
    for name in names {
        let (st, created) = srv.post(
            &format!("{base}/sextant.executions"),
            &json!({"name": name, "sourceTypeId": "sextant.execution-model", "parameters": model}),
        );
        assert_eq!(st, 200, "{created}");
        let config = created["id"]
            .as_str()
            .unwrap()
            .strip_prefix("sextant.executions.comparison:")
            .unwrap()
            .to_string();
        let (st, lines) = srv.post(
            &format!("{base}/table/sextant.executions.table:{config}/lines"),
            &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 100000}}),
        );
        assert_eq!(st, 200, "{lines}");
        let mut found: Times = lines["model"]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (cell(l, 8), cell(l, 1), cell(l, 2), cell(l, 3)))
            .collect();
        found.sort();
        executions.push(found);
    }
    let (st, created) = srv.post(
        &format!("{base}/sextant.explain"),
        &json!({"name": "explained", "sourceTypeId": "sextant.explain",
                "parameters": {"model": model, "execution": rank}}),
    );
    assert_eq!(st, 200, "{created}");
    let graph = format!(
        "{base}/timeGraph/sextant.explain.critical-path:{}",
        created["configuration"]["id"].as_str().unwrap()
    );
    let range = json!({"start": exp["start"], "end": exp["end"], "nbTimes": 100000});
    let (st, tree) = srv.post(
        &format!("{graph}/tree"),
        &json!({"parameters": {"requested_timerange": range}}),
    );
    assert_eq!(st, 200, "{tree}");
    let rows: Vec<&Value> = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["id"])
        .collect();
    let (st, states) = srv.post(
        &format!("{graph}/states"),
        &json!({"parameters": {"requested_timerange": range, "requested_items": rows}}),
    );
    assert_eq!(st, 200, "{states}");
    let path: Vec<(i64, i64)> = states["model"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["states"].as_array().unwrap())
        .map(|s| (s["start"].as_i64().unwrap(), s["end"].as_i64().unwrap()))
        .collect();
    assert!(!path.is_empty(), "{states}");
    let (st, events) = srv.post(
        &format!("{base}/table/org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider/lines"),
        &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 500}}),
    );
    assert_eq!(st, 200, "{events}");
    let times = events["model"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| cell(l, 0))
        .collect();
    let (st, tree) = srv.post(
        &format!("{base}/timeGraph/org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{tree}");
    let hosts = tree["model"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["parentId"] == -1)
        .map(|e| {
            (
                e["labels"][0].as_str().unwrap().to_string(),
                e["start"].as_i64().unwrap(),
            )
        })
        .collect();
    // Every event counted once over the experiment's range: a trace's
    // buckets asked in its own clock (else the moved host's events near an
    // end fall outside).
    let (start, end) = (exp["start"].as_i64().unwrap(), exp["end"].as_i64().unwrap());
    let (st, xy) = srv.post(
        &format!("{base}/XY/org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider/xy"),
        &json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 1000},
                               "requested_items": [1]}}),
    );
    assert_eq!(st, 200, "{xy}");
    let counted: f64 = xy["model"]["series"][0]["yValues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| y.as_f64().unwrap())
        .sum();
    let events = exp["nbEvents"].as_f64().unwrap();
    assert!(
        (counted - events).abs() < 0.5,
        "histogram total {counted} of {events} events"
    );
    Served {
        exp,
        executions,
        times,
        hosts,
        path,
    }
}

/// Whether every piece of `path` lies within the execution `e`.
fn within(path: &[(i64, i64)], e: &(i64, i64, i64, i64)) -> bool {
    path.iter().all(|&(s, end)| s >= e.1 && end <= e.2)
}

/// The rank in duration order (0: the longest) of the longest execution of
/// `executions` not in `unmoved` whose duration no other has (so that its
/// rank is its own), and the execution.
fn longest_moved(executions: &Times, unmoved: &Times) -> (usize, (i64, i64, i64, i64)) {
    let mut by_duration = executions.clone();
    by_duration.sort_by_key(|e| std::cmp::Reverse(e.3));
    let unique = |e: &(i64, i64, i64, i64)| executions.iter().filter(|x| x.3 == e.3).count() == 1;
    let rank = by_duration
        .iter()
        .position(|e| !unmoved.contains(e) && unique(e))
        .expect("a moved execution of a duration of its own");
    (rank, by_duration[rank])
}

/// A TSP experiment of synctraces' two hosts (each trace opened on its
/// own): before `sync`, every time is its host's own, as `analyze` prints
/// them; after, the executions table holds `analyze`'s corrected times,
/// the experiment starts at its earliest corrected event, and the events
/// table merges both hosts on that timeline.
#[test]
fn a_served_experiment_of_synchronised_hosts_is_on_the_stored_timeline() {
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let tmp = TempDir::new("sync-served");
    let root = tmp.path().join("synctraces");
    std::fs::create_dir_all(&root).unwrap();
    let hosts: Vec<PathBuf> = ["scp_src", "scp_dest"]
        .iter()
        .map(|h| copy_into(&shared.join("traces/ctf/synctraces").join(h), &root))
        .collect();
    let cache = tmp.path().join("cache");
    let model_file = tmp.write("wakeup.json", WAKEUP_MODEL);
    let model: Value = serde_json::from_str(WAKEUP_MODEL).unwrap();

    let own = analyzed(&root, &model_file, &cache);
    assert!(own.len() > 100, "{}", own.len());
    let Served {
        exp,
        executions,
        path,
        ..
    } = served(&hosts, &model, &["wakeups"], &cache, 0);
    assert_eq!(executions[0], own, "no sync stored: each host's own times");
    let longest = own.iter().max_by_key(|e| e.3).unwrap();
    assert!(within(&path, longest), "{path:?} outside {longest:?}");
    let own_start = exp["start"].as_i64().unwrap();

    // The folder's store for analyze, each trace's for the server.
    let mut args = vec!["sync", root.to_str().unwrap()];
    let cache_s = cache.to_str().unwrap();
    args.extend(["--format", "json", "--cache-dir", cache_s]);
    let doc = run_json(&args);
    let mut args = vec!["sync"];
    args.extend(hosts.iter().map(|h| h.to_str().unwrap()));
    args.extend(["--format", "json", "--cache-dir", cache_s]);
    let by_trace = run_json(&args);
    let t = 1_361_214_076_535_112_167i64;
    assert_eq!(
        on_reference(&doc, "VM1", t),
        on_reference(&by_trace, "VM1", t),
        "one timeline, however the traces are given"
    );

    let corrected = analyzed(&root, &model_file, &cache);
    assert_ne!(corrected, own, "VM1's times moved");
    let (rank, moved) = longest_moved(&corrected, &own);
    // "wakeups" as the store kept it (each trace's own times), and a model
    // found again.
    let Served {
        exp,
        executions,
        times,
        hosts: tree,
        path,
    } = served(&hosts, &model, &["wakeups", "again"], &cache, rank);
    // An execution of the moved host explained: its critical path on the
    // shared timeline too, not on its host's own.
    assert!(within(&path, &moved), "{path:?} outside {moved:?}");
    let before = own
        .iter()
        .find(|e| e.0 == moved.0 && e.3 == moved.3)
        .unwrap();
    assert!(!within(&path, before), "{path:?} on the host's own clock");
    assert_eq!(
        executions[0], corrected,
        "kept: the served times are analyze's"
    );
    assert_eq!(
        executions[1], corrected,
        "found: the served times are analyze's"
    );
    // Each host's first event, corrected (VM1 recorded scp_src).
    let mut firsts: Vec<(String, i64)> = exp["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let host = if t["path"].as_str().unwrap().ends_with("scp_src") {
                "VM1"
            } else {
                "VM3"
            };
            let first = on_reference(&doc, host, t["start"].as_i64().unwrap());
            (host.to_string(), first)
        })
        .collect();
    let start = exp["start"].as_i64().unwrap();
    assert_eq!(start, firsts.iter().map(|f| f.1).min().unwrap());
    assert_ne!(start, own_start);
    assert_eq!(times[0], start, "the first event's corrected time");
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "in time order");
    // The thread status tree: each host from its first event.
    firsts.sort();
    let mut tree = tree;
    tree.sort();
    assert_eq!(tree, firsts);
}

/// synctraces' VM3, `blocking` execution 301: sshd 4048 blocked until the
/// net rx softirq woke it right after a packet from VM1 arrived.
const WOKEN_BY_VM1: &str = "301";
/// VM3's execution 310: sshd woken by the same softirq, after no packet
/// the sync matched.
const WOKEN_BY_NO_PACKET: &str = "310";

/// `explain`'s JSON for VM3's `blocking` execution `k` of synctraces.
fn explain_vm3(trace: &str, k: &str, cache: &str) -> Value {
    valid_json_output(
        "explain-result.schema.json",
        &[
            "explain",
            trace,
            "--host",
            "VM3",
            "--preset",
            "blocking",
            "--execution",
            k,
            "--format",
            "json",
            "--cache-dir",
            cache,
        ],
    )
}

/// The causes of an explanation of the kind `kind`.
fn causes_of<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
    doc["causes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == kind)
        .collect()
}

/// The TCP key (seq, ack_seq, flags) and time of each `name` event of a
/// host's trace.
fn packets(trace: &Path, name: &str) -> Vec<((i64, i64, i64), i64)> {
    let out = sextant(&["dump", trace.to_str().unwrap(), "--format", "jsonl"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["name"] == name)
        .map(|e| {
            let f = |k: &str| e["fields"][k].as_i64().unwrap();
            (
                (f("seq"), f("ack_seq"), f("flags")),
                e["ts"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// After `sync`, explain names the host a packet that woke the path up
/// came from: VM3's sshd was woken by the net rx softirq right after a
/// packet VM1 sent, and the packet it names is one VM1 sent with the TCP
/// key VM3 received (the sync's matching), at the time the sync puts it.
/// Before `sync`, and for a wake-up after no matched packet, no host is
/// named.
#[test]
fn explain_names_the_host_a_waking_packet_came_from() {
    let Some((sync, _tmp, cache)) = synctraces("sync-explain") else {
        return;
    };
    let cache = cache.as_str();
    let trace = sync.to_str().unwrap();

    let unsynced = explain_vm3(trace, WOKEN_BY_VM1, cache);
    assert_eq!(unsynced["execution"]["end_comm"], "sshd");
    assert_eq!(unsynced["execution"]["end_tid"], 4048);
    assert!(causes_of(&unsynced, "packet").is_empty(), "{unsynced}");
    assert!(
        unsynced["causes"].to_string().contains("for softirq 3"),
        "{unsynced}"
    );

    let doc = run_json(&["sync", trace, "--format", "json", "--cache-dir", cache]);
    let synced = explain_vm3(trace, WOKEN_BY_VM1, cache);
    let named = causes_of(&synced, "packet");
    let [packet] = named[..] else {
        panic!("one packet cause: {synced}");
    };
    assert_eq!(packet["from"], "VM1");
    assert_eq!(packet["of"]["tid"], 4048);
    let text = packet["text"].as_str().unwrap();
    assert!(
        text.starts_with("sshd waited ")
            && text.contains("woken by a packet from host VM1 (sent at 1361214092.")
            && text.contains(" on the shared timeline")
            && text.ends_with("softirq 3 woke it)"),
        "{text}"
    );
    assert!(synced["diagnosis"].as_str().unwrap().contains(text));
    // The packet named: sent by VM1 at `sent` (its clock moved onto VM3's
    // by the sync's correction), received by VM3 (the reference) `transit`
    // later, with the same TCP key.
    let (sent, transit) = (
        packet["sent"].as_i64().unwrap(),
        packet["transit"].as_i64().unwrap(),
    );
    let out = packets(&sync.join("scp_src"), "inet_sock_local_out");
    let into = packets(&sync.join("scp_dest"), "inet_sock_local_in");
    let (key, _) = into
        .iter()
        .find(|(_, ts)| *ts == sent + transit)
        .unwrap_or_else(|| panic!("no VM3 reception at {}", sent + transit));
    assert!(
        out.iter()
            .any(|(k, ts)| k == key && (on_reference(&doc, "VM1", *ts) - sent).abs() <= 1),
        "no VM1 emission of {key:?} at {sent} on VM3's clock"
    );
    // An ACK VM1 sent from its own net rx softirq (babeltrace2: softirq 3
    // entered at 1361214092.944908192 on VM1's clock, the emission 42 us
    // later, before its exit): no thread of VM1's is named
    // (engine/tests/sync_senders.rs checks every sender).
    assert_eq!(packet["sent_by"], Value::Null, "{packet}");

    let other = explain_vm3(trace, WOKEN_BY_NO_PACKET, cache);
    assert!(causes_of(&other, "packet").is_empty(), "{other}");
    assert!(!other["causes"].to_string().contains("host"), "{other}");
    assert!(
        other["causes"].to_string().contains("for softirq 3"),
        "{other}"
    );
}

/// The TSP explain of a synchronised experiment says the same: its
/// diagnosis (the critical path's annotation) names VM1 for sshd's
/// wake-up on VM3, as `sextant explain` does.
#[test]
fn the_served_explain_names_the_host_too() {
    let Some((sync, _tmp, cache)) = synctraces("sync-served-explain") else {
        return;
    };
    let cache_s = cache.as_str();
    // VM3's trace first: a thread and a range are explained in the first
    // trace whose range holds the start, and both hosts' do.
    let hosts: Vec<PathBuf> = ["scp_dest", "scp_src"]
        .iter()
        .map(|h| sync.join(h))
        .collect();
    let mut args = vec!["sync"];
    args.extend(hosts.iter().map(|h| h.to_str().unwrap()));
    args.extend(["--format", "json", "--cache-dir", cache_s]);
    run_json(&args);
    // Kept in each trace's store for the server, in the folder's for the
    // command line.
    let folder = sync.to_str().unwrap();
    run_json(&["sync", folder, "--format", "json", "--cache-dir", cache_s]);
    // The execution's range, from the command line (VM3 is the reference:
    // its own clock is the shared timeline).
    let cli = explain_vm3(folder, WOKEN_BY_VM1, cache_s);
    let named = causes_of(&cli, "packet")[0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let x = &cli["execution"];

    let (srv, euuid, _) = experiment_of(&hosts, sync.to_str().unwrap(), cache_s);
    let base = format!("/experiments/{euuid}/outputs");
    let (st, created) = srv.post(
        &format!("{base}/sextant.explain"),
        &json!({"name": "woken", "sourceTypeId": "sextant.explain",
                "parameters": {"tid": x["end_tid"], "start": x["start"], "end": x["end"]}}),
    );
    assert_eq!(st, 200, "{created}");
    let (st, ann) = srv.post(
        &format!("{base}/{}/annotations", created["id"].as_str().unwrap()),
        &json!({"parameters": {"requested_timerange": {"start": x["start"], "end": x["end"]}}}),
    );
    assert_eq!(st, 200, "{ann}");
    let label = ann["model"]["annotations"]["Diagnosis"][0]["label"]
        .as_str()
        .unwrap_or_else(|| panic!("{ann}"));
    assert!(label.contains(&named), "{label}\nshould say: {named}");
}

/// The first events table line's time of the experiment `euuid`.
fn first_event_time(srv: &Server, euuid: &str) -> i64 {
    let (st, events) = srv.post(
        &format!("/experiments/{euuid}/outputs/table/org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider/lines"),
        &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 5}}),
    );
    assert_eq!(st, 200, "{events}");
    events["model"]["lines"][0]["cells"][0]["content"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// An experiment created before `sextant sync` stored its traces'
/// timeline is served on that timeline once it is stored, by the same
/// server, without being created again: its start and its events table
/// (asked before, on the hosts' own clocks) move to the corrected times.
#[test]
fn a_served_experiment_takes_a_sync_stored_after_it() {
    let Some((sync, _tmp, cache)) = synctraces("sync-served-later") else {
        return;
    };
    let cache_s = cache.as_str();
    let hosts: Vec<PathBuf> = ["scp_src", "scp_dest"]
        .iter()
        .map(|h| sync.join(h))
        .collect();
    let (srv, euuid, exp) = experiment_of(&hosts, sync.to_str().unwrap(), cache_s);
    let own_start = exp["start"].as_i64().unwrap();
    assert_eq!(first_event_time(&srv, &euuid), own_start);

    let mut args = vec!["sync"];
    args.extend(hosts.iter().map(|h| h.to_str().unwrap()));
    args.extend(["--format", "json", "--cache-dir", cache_s]);
    let doc = run_json(&args);
    let (st, now) = srv.get(&format!("/experiments/{euuid}"));
    assert_eq!(st, 200, "{now}");
    // Each host's first event, corrected (VM1 recorded scp_src).
    let start = now["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let host = if t["path"].as_str().unwrap().ends_with("scp_src") {
                "VM1"
            } else {
                "VM3"
            };
            on_reference(&doc, host, t["start"].as_i64().unwrap())
        })
        .min()
        .unwrap();
    assert_ne!(start, own_start, "VM1's times moved");
    assert_eq!(now["start"].as_i64().unwrap(), start, "{now}");
    assert_eq!(first_event_time(&srv, &euuid), start);
}
