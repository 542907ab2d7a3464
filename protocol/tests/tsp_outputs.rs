//! The events table, the statistics data trees, the duration density, the
//! viewport cache, and robustness (concurrent clients, unknown ids, malformed
//! bodies), end to end over HTTP against `sextant serve`.
//!
//! Expectations come from other commands: `sextant dump --format jsonl` for
//! every line of the events table, `sextant analyze --format json` for the
//! statistics.

mod common;

use std::collections::BTreeMap;

use common::server::Server;
use common::{dump_jsonl, repo_root, sextant, table_cells};
use serde_json::{json, Value};

const EVENTS: &str =
    "org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider";
const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// The Contents cell the table should show for dump's `fields`.
fn contents(fields: &Value) -> String {
    fields
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            v => format!("{k}={v}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn lines(srv: &Server, exp: &str, params: Value) -> Value {
    let (st, v) = srv.post(
        &format!("/experiments/{exp}/outputs/table/{EVENTS}/lines"),
        &json!({ "parameters": params }),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "COMPLETED", "{v}");
    v["model"].clone()
}

/// Checks table lines against dump's events, from `low` on.
fn check_against_dump(lines: &Value, all: &[Value], low: usize, perf: bool) {
    for (k, line) in lines["lines"].as_array().unwrap().iter().enumerate() {
        let n = low + k;
        assert_eq!(i(&line["index"]), n as i64);
        let c = table_cells(line);
        let ev = &all[n];
        assert_eq!(c[0], ev["ts"].to_string(), "line {n}");
        assert_eq!(c[1], ev["cpu"].to_string(), "line {n}");
        assert_eq!(c[2], ev["name"].as_str().unwrap(), "line {n}");
        // As sets of name=value: the JSON parser here may sort the names.
        let pairs = |s: &str| {
            let mut v: Vec<String> = s.split(", ").map(String::from).collect();
            v.sort();
            v
        };
        assert_eq!(pairs(&c[4]), pairs(&contents(&ev["fields"])), "line {n}");
        // perf names each event's thread in perf_tid (-1: the exiting
        // thread's last switch, which the table attributes to it anyway).
        if perf {
            let tid = i(&ev["fields"]["perf_tid"]);
            if tid >= 0 {
                assert_eq!(c[3], tid.to_string(), "line {n}: {ev}");
            }
        }
    }
}

/// Every line of scenario-b (34,875 events, nine checkpoints) read in
/// windows that straddle checkpoints equals `sextant dump`'s event; the
/// thread of each line equals perf's attribution.
#[test]
fn events_table_equals_dump_across_checkpoints() {
    let srv = Server::start();
    let (exp, info) = srv.open_trace("b", "fixtures/scenario-b/ctf");
    let all = dump_jsonl("fixtures/scenario-b/ctf");
    assert_eq!(i(&info["nbEvents"]) as usize, all.len());
    let (st, cols) = srv.post(
        &format!("/experiments/{exp}/outputs/table/{EVENTS}/columns"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200);
    let names: Vec<&str> = cols["model"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Timestamp ns", "CPU", "Event type", "TID", "Contents"]
    );
    for low in [0, 4000, 8190, 20_000, 34_800] {
        let m = lines(
            &srv,
            &exp,
            json!({"requested_table_index": low, "requested_table_count": 300}),
        );
        assert_eq!(i(&m["size"]) as usize, all.len());
        assert_eq!(i(&m["lowIndex"]), low as i64);
        let expected = 300.min(all.len() - low);
        assert_eq!(m["lines"].as_array().unwrap().len(), expected);
        check_against_dump(&m, &all, low, true);
    }
    // The whole trace in one request.
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": 40_000}),
    );
    assert_eq!(m["lines"].as_array().unwrap().len(), all.len());
    check_against_dump(&m, &all, 0, true);

    // Column selection.
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": 5000, "requested_table_count": 2,
               "requested_table_column_ids": [2, 0]}),
    );
    assert_eq!(m["columnIds"], json!([2, 0]));
    let c = table_cells(&m["lines"][0]);
    assert_eq!(
        c,
        [
            all[5000]["name"].as_str().unwrap().to_string(),
            all[5000]["ts"].to_string()
        ]
    );

    // requested_times: the first event at or after the time.
    let t = i(&all[12_345]["ts"]);
    let first = all.iter().position(|e| i(&e["ts"]) >= t).unwrap();
    let m = lines(
        &srv,
        &exp,
        json!({"requested_times": [t], "requested_table_count": 1}),
    );
    assert_eq!(i(&m["lowIndex"]) as usize, first);
}

/// Search by column with regular expressions: NEXT and PREVIOUS find the
/// matches `dump` says, matches are tagged, no match is an empty list.
#[test]
fn events_table_search() {
    let srv = Server::start();
    let (exp, _) = srv.open_trace("b", "fixtures/scenario-b/ctf");
    let all = dump_jsonl("fixtures/scenario-b/ctf");
    let is_free = |e: &Value| e["name"].as_str().unwrap().ends_with("sched_process_free");
    let from = 10_000;
    let next = (from..all.len()).find(|&n| is_free(&all[n])).unwrap();
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": from, "requested_table_count": 5,
               "table_search_expressions": {"2": "process_free$"}, "table_search_direction": "NEXT"}),
    );
    assert_eq!(i(&m["lowIndex"]) as usize, next);
    assert_eq!(m["lines"][0]["tags"], 8);
    for line in m["lines"].as_array().unwrap() {
        let n = i(&line["index"]) as usize;
        assert_eq!(line.get("tags").is_some(), is_free(&all[n]), "line {n}");
    }
    let prev = (0..=from).rev().find(|&n| is_free(&all[n])).unwrap();
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": from, "requested_table_count": 1,
               "table_search_expressions": {"2": "process_free$"}, "table_search_direction": "previous"}),
    );
    assert_eq!(i(&m["lowIndex"]) as usize, prev);
    // Two columns: a TID and an event type.
    let tid = all[prev]["fields"]["perf_tid"].to_string();
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": 1,
               "table_search_expressions": {"2": "process_free$", "3": format!("^{tid}$")},
               "table_search_direction": "NEXT"}),
    );
    let n = i(&m["lowIndex"]) as usize;
    assert!(is_free(&all[n]));
    assert_eq!(all[n]["fields"]["perf_tid"].to_string(), tid);
    // No match.
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": 5,
               "table_search_expressions": {"2": "^no such event$"}, "table_search_direction": "NEXT"}),
    );
    assert!(m["lines"].as_array().unwrap().is_empty());
    // Bad regular expression, bad column: 400 naming the field.
    for (expr, field) in [
        (json!({"2": "("}), "table_search_expressions.2"),
        (json!({"9": "x"}), "table_search_expressions.9"),
    ] {
        let (st, e) = srv.post(
            &format!("/experiments/{exp}/outputs/table/{EVENTS}/lines"),
            &json!({"parameters": {"requested_table_count": 1, "table_search_expressions": expr}}),
        );
        assert_eq!(st, 400, "{e}");
        assert!(e["detail"].as_str().unwrap().contains(field), "{e}");
    }
}

/// ftrace text: the thread of every line is the one its prefix names.
#[test]
fn events_table_on_ftrace_text() {
    let srv = Server::start();
    let (exp, _) = srv.open_trace("a-ftrace", "fixtures/scenario-a/trace.txt");
    let all = dump_jsonl("fixtures/scenario-a/trace.txt");
    let m = lines(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": 10_000}),
    );
    assert_eq!(m["lines"].as_array().unwrap().len(), all.len());
    check_against_dump(&m, &all, 0, false);
    let text = sextant(&[
        "dump",
        repo_root()
            .join("fixtures/scenario-a/trace.txt")
            .to_str()
            .unwrap(),
        "--format",
        "text",
        "--no-payload",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    for (line, t) in m["lines"].as_array().unwrap().iter().zip(text.lines()) {
        let tid = t.split(" tid=").nth(1).unwrap().split(' ').next().unwrap();
        assert_eq!(table_cells(line)[3], tid);
    }
}

/// A BTF trace's lines asked from any line are those of a read from its
/// start: the reader's task model, which gives rows their core and task,
/// is not started afresh at a checkpoint (it was: the line at checkpoint 1
/// lost its CPU and TID). Checked against the whole table and `dump`.
#[test]
fn events_table_on_btf_is_the_same_from_any_line() {
    let Some(shared) = common::shared_dir() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let folder = shared.join("traces/btf");
    let trace = folder.join("freertos-example.btf");
    let srv = Server::start_with(&["--allow-root", folder.to_str().unwrap()]);
    let (exp, info) = srv.open_trace("freertos", trace.to_str().unwrap());
    let n = i(&info["nbEvents"]) as usize;
    assert!(n > 5000, "{n} events: fewer than two checkpoints");
    // The windows first, so that nothing read whole can answer them.
    let mut windows = Vec::new();
    for low in [4090, 4096, 5000] {
        let m = lines(
            &srv,
            &exp,
            json!({"requested_table_index": low, "requested_table_count": 30}),
        );
        windows.push((low, m["lines"].as_array().unwrap().clone()));
    }
    let whole = lines(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": n}),
    );
    let whole = whole["lines"].as_array().unwrap();
    assert_eq!(whole.len(), n);
    for (low, window) in windows {
        assert_eq!(window.len(), 30);
        for (k, line) in window.iter().enumerate() {
            let at = low + k;
            assert_eq!(table_cells(line), table_cells(&whole[at]), "line {at}");
        }
    }
    let all = dump_jsonl(&trace);
    assert_eq!(all.len(), n);
    for (at, (line, ev)) in whole.iter().zip(&all).enumerate() {
        if !ev["cpu"].is_null() {
            assert_eq!(table_cells(line)[1], ev["cpu"].to_string(), "line {at}");
        }
    }
}

/// Two traces in one experiment: the table is their merge in time order.
#[test]
fn events_table_of_two_traces_is_merged_in_time() {
    let srv = Server::start();
    let mut uuids = Vec::new();
    for (name, uri) in [
        ("a", "fixtures/scenario-a/ctf"),
        ("b", "fixtures/scenario-b/ctf"),
    ] {
        let (st, t) = srv.post(
            "/traces",
            &json!({"parameters": {"name": name, "uri": uri}}),
        );
        assert_eq!(st, 200);
        uuids.push(t["UUID"].clone());
    }
    let (_, e) = srv.post(
        "/experiments",
        &json!({"parameters": {"name": "ab", "traces": uuids}}),
    );
    let exp = e["UUID"].as_str().unwrap().to_string();
    loop {
        let (_, e) = srv.get(&format!("/experiments/{exp}"));
        if e["indexingStatus"] == "COMPLETED" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut all: Vec<(i64, usize, Value)> = Vec::new();
    for (k, rel) in ["fixtures/scenario-a/ctf", "fixtures/scenario-b/ctf"]
        .iter()
        .enumerate()
    {
        all.extend(dump_jsonl(rel).into_iter().map(|e| (i(&e["ts"]), k, e)));
    }
    all.sort_by_key(|(ts, k, _)| (*ts, *k));
    let all: Vec<Value> = all.into_iter().map(|x| x.2).collect();
    for low in [0, 9000, 30_000, 38_000] {
        let m = lines(
            &srv,
            &exp,
            json!({"requested_table_index": low, "requested_table_count": 500}),
        );
        assert_eq!(i(&m["size"]) as usize, all.len());
        check_against_dump(&m, &all, low, true);
    }
}

fn create_model(srv: &Server, exp: &str, name: &str) -> String {
    let model: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schemas/examples/periodic-rt_high.json"))
            .unwrap(),
    )
    .unwrap();
    let (st, created) = srv.post(
        &format!("/experiments/{exp}/outputs/sextant.executions"),
        &json!({"name": name, "sourceTypeId": "sextant.execution-model", "parameters": model}),
    );
    assert_eq!(st, 200, "{created}");
    created["id"]
        .as_str()
        .unwrap()
        .split_once(':')
        .unwrap()
        .1
        .to_string()
}

/// The statistics data tree equals `sextant analyze`'s statistics; the event
/// types tree equals the counts of `sextant dump`.
#[test]
fn statistics_data_trees() {
    let srv = Server::start();
    let (exp, _) = srv.open_scenario_a("stats");
    let config = create_model(&srv, &exp, "rt_high");
    let base = format!("/experiments/{exp}/outputs");
    let (st, outputs) = srv.get(&base);
    assert_eq!(st, 200);
    let types: BTreeMap<&str, &str> = outputs
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["id"].as_str().unwrap(), o["type"].as_str().unwrap()))
        .collect();
    let stats_id = format!("sextant.executions.statistics:{config}");
    assert_eq!(types[stats_id.as_str()], "DATA_TREE");
    assert_eq!(types["sextant.event-types"], "DATA_TREE");
    assert_eq!(types[EVENTS], "TABLE");
    assert_eq!(
        types[format!("sextant.executions.density:{config}").as_str()],
        "TREE_GENERIC_XY"
    );

    let (st, tree) = srv.post(
        &format!("{base}/data/{stats_id}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{tree}");
    let headers: Vec<&str> = tree["model"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    let out = sextant(&[
        "analyze",
        repo_root()
            .join("fixtures/scenario-a/ctf")
            .to_str()
            .unwrap(),
        "--model",
        repo_root()
            .join("schemas/examples/periodic-rt_high.json")
            .to_str()
            .unwrap(),
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &doc["stats"];
    let root = &tree["model"]["entries"][0];
    let label = |name: &str| {
        let k = headers.iter().position(|h| *h == name).unwrap();
        root["labels"][k].as_str().unwrap().to_string()
    };
    for (h, key) in [
        ("Count", "count"),
        ("Minimum", "min"),
        ("Maximum", "max"),
        ("P50", "p50"),
        ("P90", "p90"),
        ("P99", "p99"),
        ("Total", "total"),
        ("Deadline misses", "deadline_misses"),
    ] {
        assert_eq!(label(h), s[key].to_string(), "{h}");
    }
    let mean: f64 = label("Mean").parse().unwrap();
    assert!((mean - s["mean"].as_f64().unwrap()).abs() < 0.1);
    let sd: f64 = label("Std dev").parse().unwrap();
    assert!((sd - s["stddev"].as_f64().unwrap()).abs() < 0.1);
    // One child per measured thread, counts adding up.
    let children: i64 = tree["model"]["entries"].as_array().unwrap()[1..]
        .iter()
        .map(|e| e["labels"][1].as_str().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(children, 99);

    let (st, tree) = srv.post(
        &format!("{base}/data/sextant.event-types/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 200, "{tree}");
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    let all = dump_jsonl("fixtures/scenario-a/ctf");
    for e in &all {
        *expected
            .entry(e["name"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let entries = tree["model"]["entries"].as_array().unwrap();
    assert_eq!(entries[0]["labels"][1], all.len().to_string());
    let got: BTreeMap<String, u64> = entries[1..]
        .iter()
        .map(|e| {
            (
                e["labels"][0].as_str().unwrap().to_string(),
                e["labels"][1].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);
}

/// The density's bins cover the durations and count every execution once.
#[test]
fn duration_density() {
    let srv = Server::start();
    let (exp, _) = srv.open_scenario_a("density");
    let config = create_model(&srv, &exp, "rt_high");
    let id = format!("sextant.executions.density:{config}");
    let base = format!("/experiments/{exp}/outputs/genericXY/{id}");
    let (st, tree) = srv.post(&format!("{base}/tree"), &json!({"parameters": {}}));
    assert_eq!(st, 200, "{tree}");
    assert_eq!(tree["model"]["entries"].as_array().unwrap().len(), 3);
    let (st, xy) = srv.post(
        &format!("{base}/xy"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": i64::MAX, "nbSamples": 50},
                               "requested_items": [1, 2]}}),
    );
    assert_eq!(st, 200, "{xy}");
    let series = xy["model"]["series"].as_array().unwrap();
    assert_eq!(series.len(), 2);
    let sum = |s: &Value| -> f64 {
        s["yValues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|y| y.as_f64().unwrap())
            .sum()
    };
    assert_eq!(sum(&series[0]), 99.0);
    assert_eq!(sum(&series[1]), 22.0);
    let ranges = series[0]["xRanges"].as_array().unwrap();
    assert!(ranges.len() <= 50);
    assert_eq!(
        i(&ranges[0]["start"]),
        0,
        "bins start at 0 (Trace Compass's)"
    );
    assert_eq!(i(&ranges.last().unwrap()["end"]), 5_589_455, "the longest");
    // The misses are all beyond the 1 ms deadline.
    for (r, y) in ranges.iter().zip(series[1]["yValues"].as_array().unwrap()) {
        if y.as_f64().unwrap() > 0.0 {
            assert!(i(&r["end"]) > 1_000_000);
        }
    }
    let (st, e) = srv.post(
        &format!("{base}/xy"),
        &json!({"parameters": {"requested_timerange": {"start": 0, "end": 10, "nbSamples": 0}, "requested_items": [1]}}),
    );
    assert_eq!(st, 400);
    assert!(e["detail"].as_str().unwrap().contains("nbSamples"), "{e}");
}

fn cache_stats(srv: &Server) -> Value {
    srv.get("/identifier").1["cache"].clone()
}

/// Repeated viewports are answered from the cache (hits counted in
/// `/identifier`), the cache holds at most `--cache-entries` answers, and
/// deleting a derived output forgets its answers.
#[test]
fn viewport_cache_hits_bound_and_invalidation() {
    let srv = Server::start_with(&["--cache-entries", "3"]);
    let (exp, info) = srv.open_scenario_a("cache");
    let (start, end) = (i(&info["start"]), i(&info["end"]));
    let states = format!("/experiments/{exp}/outputs/timeGraph/{THREAD_STATUS}/states");
    let q = |n: i64| json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": n}}});
    let before = cache_stats(&srv);
    assert_eq!(before["capacity"], 3);
    let (_, first) = srv.post(&states, &q(100));
    let (_, again) = srv.post(&states, &q(100));
    assert_eq!(first, again);
    let after = cache_stats(&srv);
    assert_eq!(i(&after["hits"]) - i(&before["hits"]), 1);
    assert_eq!(i(&after["misses"]) - i(&before["misses"]), 1);
    // Keys in another order: the same request.
    let reordered = format!(
        r#"{{"parameters": {{"requested_timerange": {{"nbTimes": 100, "end": {end}, "start": {start}}}}}}}"#
    );
    srv.request("POST", &states, Some(&reordered));
    assert_eq!(i(&cache_stats(&srv)["hits"]) - i(&before["hits"]), 2);
    for n in 1..=10 {
        srv.post(&states, &q(100 + n));
        assert!(i(&cache_stats(&srv)["entries"]) <= 3);
    }
    assert_eq!(cache_stats(&srv)["entries"], 3);

    // A derived output's answers go with it.
    let config = create_model(&srv, &exp, "rt_high");
    let xy = format!("/experiments/{exp}/outputs/XY/sextant.executions.perspective:{config}/xy");
    let body = json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 10}, "requested_items": [1]}});
    assert_eq!(srv.post(&xy, &body).0, 200);
    let hits = i(&cache_stats(&srv)["hits"]);
    assert_eq!(srv.post(&xy, &body).0, 200);
    assert_eq!(i(&cache_stats(&srv)["hits"]), hits + 1);
    let entries = i(&cache_stats(&srv)["entries"]);
    let (st, _) = srv.delete(&format!(
        "/experiments/{exp}/outputs/sextant.executions/sextant.executions.comparison:{config}"
    ));
    assert_eq!(st, 200);
    assert_eq!(i(&cache_stats(&srv)["entries"]), entries - 1);
    assert_eq!(srv.post(&xy, &body).0, 404);
}

/// 32 clients at once on one experiment get the same answers as one alone.
#[test]
fn concurrent_clients_get_identical_answers() {
    let srv = Server::start();
    let (exp, info) = srv.open_scenario_a("many");
    let config = create_model(&srv, &exp, "rt_high");
    let (start, end) = (i(&info["start"]), i(&info["end"]));
    let base = format!("/experiments/{exp}/outputs");
    let requests: Vec<(String, Value)> = vec![
        (
            format!("{base}/timeGraph/{THREAD_STATUS}/states"),
            json!({"parameters": {"requested_timerange": {"start": start, "end": end, "nbTimes": 700}}}),
        ),
        (
            format!("{base}/table/{EVENTS}/lines"),
            json!({"parameters": {"requested_table_index": 1000, "requested_table_count": 50}}),
        ),
        (
            format!("{base}/timeGraph/sextant.executions.comparison:{config}/states"),
            json!({"parameters": {"requested_timerange": {"start": 0, "end": 6_000_000, "nbTimes": 500}}}),
        ),
        (
            format!("{base}/data/sextant.executions.statistics:{config}/tree"),
            json!({"parameters": {}}),
        ),
        (
            format!("{base}/genericXY/sextant.executions.density:{config}/xy"),
            json!({"parameters": {"requested_timerange": {"start": 0, "end": i64::MAX, "nbSamples": 20}, "requested_items": [1]}}),
        ),
    ];
    let expected: Vec<Value> = requests
        .iter()
        .map(|(p, b)| {
            let (st, v) = srv.post(p, b);
            assert_eq!(st, 200, "{v}");
            v
        })
        .collect();
    std::thread::scope(|s| {
        for t in 0..32 {
            let (srv, requests, expected) = (&srv, &requests, &expected);
            s.spawn(move || {
                for k in 0..10 {
                    let j = (t + k) % requests.len();
                    let (st, v) = srv.post(&requests[j].0, &requests[j].1);
                    assert_eq!(st, 200);
                    assert_eq!(v, expected[j], "{}", requests[j].0);
                }
            });
        }
    });
}

/// Every new endpoint: unknown experiment or output → 404; malformed bodies
/// → 400 naming the field.
#[test]
fn new_endpoints_reject_unknown_ids_and_bad_bodies() {
    let srv = Server::start();
    let (exp, _) = srv.open_scenario_a("errors");
    let config = create_model(&srv, &exp, "rt_high");
    let unknown = "00000000-0000-0000-0000-000000000000";
    let good = json!({"parameters": {"requested_timerange": {"start": 0, "end": 10, "nbSamples": 5},
                                     "requested_items": [1], "requested_table_count": 1}});
    let routes = |e: &str, out: &str| {
        vec![
            format!("/experiments/{e}/outputs/table/{out}/lines"),
            format!("/experiments/{e}/outputs/table/{out}/columns"),
            format!("/experiments/{e}/outputs/data/{out}/tree"),
            format!("/experiments/{e}/outputs/genericXY/{out}/tree"),
            format!("/experiments/{e}/outputs/genericXY/{out}/xy"),
        ]
    };
    for r in routes(unknown, EVENTS)
        .into_iter()
        .chain(routes(&exp, "no.such.output"))
        .chain(routes(&exp, "sextant.executions.density:0123"))
    {
        let (st, e) = srv.post(&r, &good);
        assert_eq!(st, 404, "{r}: {e}");
        assert!(e["title"].is_string() && e["detail"].is_string());
    }
    let base = format!("/experiments/{exp}/outputs");
    for (path, body, field) in [
        (
            format!("{base}/table/{EVENTS}/lines"),
            json!({}),
            "parameters",
        ),
        (
            format!("{base}/table/{EVENTS}/lines"),
            json!({"parameters": {"requested_table_index": "x"}}),
            "parameters.requested_table_index",
        ),
        (
            format!("{base}/table/{EVENTS}/lines"),
            json!({"parameters": {"requested_table_column_ids": [0, 77]}}),
            "parameters.requested_table_column_ids",
        ),
        (
            format!("{base}/table/{EVENTS}/lines"),
            json!({"parameters": {"table_search_direction": "SIDEWAYS", "table_search_expressions": {"0": "1"}}}),
            "parameters.table_search_direction",
        ),
        (
            format!("{base}/data/sextant.executions.statistics:{config}/tree"),
            json!({"parameters": {"requested_timerange": {"start": 5}}}),
            "parameters.requested_timerange.end",
        ),
        (
            format!("{base}/genericXY/sextant.executions.density:{config}/xy"),
            json!({"parameters": {"requested_items": [1]}}),
            "parameters.requested_timerange",
        ),
        (
            format!("{base}/genericXY/sextant.executions.density:{config}/xy"),
            json!({"parameters": {"requested_timerange": {"start": 0, "end": 1}, "requested_items": "all"}}),
            "parameters.requested_items",
        ),
    ] {
        let (st, e) = srv.post(&path, &body);
        assert_eq!(st, 400, "{path} {body}: {e}");
        assert!(e["detail"].as_str().unwrap().contains(field), "{path}: {e}");
    }
    let (st, e) = srv.request(
        "POST",
        &format!("{base}/data/sextant.event-types/tree"),
        Some("{not json"),
    );
    assert_eq!(st, 400, "{e}");
    // The wrong kind of output for the endpoint: 400, not a crash.
    let (st, _) = srv.post(
        &format!("{base}/data/{THREAD_STATUS}/tree"),
        &json!({"parameters": {}}),
    );
    assert_eq!(st, 400);
}
