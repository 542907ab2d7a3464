//! The events table filtered by its search expressions (`isFiltered: true`):
//! only the matching lines, numbered by their rank among the matches, end to
//! end over HTTP against `sextant serve`. Expectations come from `sextant
//! dump --format jsonl` (the matching events, in order) and from the
//! unfiltered table.

mod common;

use std::time::{Duration, Instant};

use common::server::Server;
use common::{dump_jsonl, table_cells};
use serde_json::{json, Value};

const EVENTS: &str =
    "org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider";

/// Events between two checkpoints of the index (`service/index.rs`).
const CHECKPOINT_EVERY: usize = 4096;

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn post_lines(srv: &Server, exp: &str, params: &Value) -> Value {
    let (st, v) = srv.post(
        &format!("/experiments/{exp}/outputs/table/{EVENTS}/lines"),
        &json!({ "parameters": params }),
    );
    assert_eq!(st, 200, "{v}");
    v
}

/// The filtered table's lines, asked again while the matches are being
/// counted (RUNNING, with the progress), as the viewer polls.
fn filtered(srv: &Server, exp: &str, mut params: Value) -> Value {
    params["isFiltered"] = json!(true);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v = post_lines(srv, exp, &params);
        match v["status"].as_str().unwrap() {
            "COMPLETED" => return v["model"].clone(),
            "RUNNING" => {
                let m = v["statusMessage"].as_str().unwrap();
                assert!(m.starts_with("Filtering: "), "{v}");
                assert!(Instant::now() < deadline, "filtering takes too long: {v}");
                std::thread::sleep(Duration::from_millis(20));
            }
            other => panic!("filtering ended {other}: {v}"),
        }
    }
}

/// The Contents cell as a sorted list of `name=value` (the JSON parser here
/// may sort the payload's names).
fn pairs_of_cell(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split(", ").map(String::from).collect();
    v.sort();
    v
}

fn pairs_of_fields(fields: &Value) -> Vec<String> {
    let mut v: Vec<String> = fields
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            v => format!("{k}={v}"),
        })
        .collect();
    v.sort();
    v
}

/// Checks a page of the filtered table against the matching events, by
/// rank: `matches[r]` is the event of rank `r`.
fn check_page(page: &Value, matches: &[&Value], low: usize, n: usize) {
    assert_eq!(i(&page["size"]) as usize, matches.len(), "size");
    assert_eq!(i(&page["lowIndex"]) as usize, low);
    let lines = page["lines"].as_array().unwrap();
    assert_eq!(lines.len(), n.min(matches.len().saturating_sub(low)));
    for (k, line) in lines.iter().enumerate() {
        let rank = low + k;
        assert_eq!(i(&line["index"]) as usize, rank);
        assert_eq!(line["tags"], 8, "rank {rank}: a match is tagged");
        let (c, ev) = (table_cells(line), matches[rank]);
        assert_eq!(c[0], ev["ts"].to_string(), "rank {rank}");
        assert_eq!(c[1], ev["cpu"].to_string(), "rank {rank}");
        assert_eq!(c[2], ev["name"].as_str().unwrap(), "rank {rank}");
        assert_eq!(
            pairs_of_cell(&c[4]),
            pairs_of_fields(&ev["fields"]),
            "rank {rank}"
        );
    }
}

/// The rank of the first match at event number `n` or after it.
fn rank_at(is_match: &[bool], n: usize) -> usize {
    is_match[..n].iter().filter(|&&m| m).count()
}

/// scenario-b (34,875 events, nine checkpoint blocks) filtered on the event
/// type: the size is the number of matching events `dump` prints, and pages
/// at the start, across a block boundary and at the end are those events.
#[test]
fn filtered_table_is_dumps_matching_events_by_rank() {
    let srv = Server::start();
    let (exp, info) = srv.open_trace("b", "fixtures/scenario-b/ctf");
    let all = dump_jsonl("fixtures/scenario-b/ctf");
    assert_eq!(i(&info["nbEvents"]) as usize, all.len());
    assert!(all.len() > 8 * CHECKPOINT_EVERY);
    let is_match: Vec<bool> = all
        .iter()
        .map(|e| e["name"].as_str().unwrap().ends_with("sched_switch"))
        .collect();
    let matches: Vec<&Value> = all
        .iter()
        .zip(&is_match)
        .filter(|x| *x.1)
        .map(|x| x.0)
        .collect();
    assert!(!matches.is_empty() && matches.len() < all.len());
    let search = json!({"2": "sched_switch$"});
    // A page that straddles the boundary of the fifth block.
    let boundary = rank_at(&is_match, 5 * CHECKPOINT_EVERY);
    let end = matches.len() - 30;
    for (low, n) in [(0, 100), (boundary - 50, 100), (end, 100)] {
        let page = filtered(
            &srv,
            &exp,
            json!({"requested_table_index": low, "requested_table_count": n,
                   "table_search_expressions": search}),
        );
        check_page(&page, &matches, low, n);
    }
    // Every match in one request.
    let page = filtered(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": 40_000,
               "table_search_expressions": search}),
    );
    check_page(&page, &matches, 0, 40_000);
    // requested_times: the rank of the first match at or after the time.
    let t = i(&all[20_000]["ts"]);
    let first = all.iter().position(|e| i(&e["ts"]) >= t).unwrap();
    let expected = rank_at(&is_match, first);
    let page = filtered(
        &srv,
        &exp,
        json!({"requested_times": [t], "requested_table_count": 3,
               "table_search_expressions": search}),
    );
    check_page(&page, &matches, expected, 3);
    // Past the last match: no line, the size still.
    let page = filtered(
        &srv,
        &exp,
        json!({"requested_table_index": matches.len(), "requested_table_count": 10,
               "table_search_expressions": search}),
    );
    check_page(&page, &matches, matches.len(), 10);
}

/// A rare type (`sys_exit_futex`: nine in the first block, one in the
/// last, none in the seven between) and a thread: the filtered table is the
/// unfiltered table's matching lines, threads included, in order, and a
/// page from the first block to the last steps over the others.
#[test]
fn filtered_table_steps_over_blocks_without_a_match() {
    let srv = Server::start();
    let (exp, _) = srv.open_trace("b", "fixtures/scenario-b/ctf");
    let (st, v) = srv.post(
        &format!("/experiments/{exp}/outputs/table/{EVENTS}/lines"),
        &json!({"parameters": {"requested_table_index": 0, "requested_table_count": 40_000}}),
    );
    assert_eq!((st, v["status"].as_str()), (200, Some("COMPLETED")), "{v}");
    let table: Vec<Vec<String>> = v["model"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(table_cells)
        .collect();
    let futex_exits: Vec<&Vec<String>> = table
        .iter()
        .filter(|c| c[2].ends_with("sys_exit_futex"))
        .collect();
    assert_eq!(futex_exits.len(), 10);
    // A thread that switches often, and its switches.
    let tid = table
        .iter()
        .rev()
        .find(|c| c[2].ends_with("sched_switch") && !c[3].is_empty())
        .map(|c| c[3].clone())
        .unwrap();
    let its_switches: Vec<&Vec<String>> = table
        .iter()
        .filter(|c| c[2].ends_with("sched_switch") && c[3] == tid)
        .collect();
    for (search, expected) in [
        (json!({"2": "sys_exit_futex$"}), futex_exits),
        (
            json!({"2": "sched_switch$", "3": format!("^{tid}$")}),
            its_switches,
        ),
    ] {
        let page = filtered(
            &srv,
            &exp,
            json!({"requested_table_index": 0, "requested_table_count": 40_000,
                   "table_search_expressions": search}),
        );
        assert_eq!(i(&page["size"]) as usize, expected.len(), "{search}");
        let got: Vec<Vec<String>> = page["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(table_cells)
            .collect();
        let expected: Vec<Vec<String>> = expected.into_iter().cloned().collect();
        assert_eq!(got, expected, "{search}");
        // Two lines at a time: the same lines (for the futex exits, 8 and 9
        // are in the first block and in the last).
        let len = expected.len();
        for low in [0, 1, len / 2, len - 2, len - 1] {
            let page = filtered(
                &srv,
                &exp,
                json!({"requested_table_index": low, "requested_table_count": 2,
                       "table_search_expressions": search}),
            );
            let got: Vec<Vec<String>> = page["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(table_cells)
                .collect();
            assert_eq!(
                got,
                expected[low..(low + 2).min(expected.len())],
                "{search} from {low}"
            );
        }
    }
}

/// Two traces in one experiment: the filtered table is the matches of their
/// merge in time order (ties in trace order).
#[test]
fn filtered_table_of_two_traces_is_merged_in_time() {
    let srv = Server::start();
    let rels = ["fixtures/scenario-a/ctf", "fixtures/scenario-b/ctf"];
    let mut uuids = Vec::new();
    for (name, uri) in ["a", "b"].into_iter().zip(rels) {
        let (st, t) = srv.post(
            "/traces",
            &json!({"parameters": {"name": name, "uri": uri}}),
        );
        assert_eq!(st, 200, "{t}");
        uuids.push(t["UUID"].clone());
    }
    let (exp, _) = srv.experiment("ab", &uuids);
    let mut all: Vec<(i64, usize, Value)> = Vec::new();
    for (k, rel) in rels.iter().enumerate() {
        all.extend(dump_jsonl(rel).into_iter().map(|e| (i(&e["ts"]), k, e)));
    }
    all.sort_by_key(|(ts, k, _)| (*ts, *k));
    let all: Vec<Value> = all.into_iter().map(|x| x.2).collect();
    let is_match: Vec<bool> = all
        .iter()
        .map(|e| e["name"].as_str().unwrap().ends_with("sched_wakeup"))
        .collect();
    let matches: Vec<&Value> = all
        .iter()
        .zip(&is_match)
        .filter(|x| *x.1)
        .map(|x| x.0)
        .collect();
    assert!(matches.len() > 200, "{}", matches.len());
    let search = json!({"2": "sched_wakeup$"});
    let mid = rank_at(&is_match, all.len() / 2);
    for (low, n) in [(0, 150), (mid - 70, 150), (matches.len() - 40, 150)] {
        let page = filtered(
            &srv,
            &exp,
            json!({"requested_table_index": low, "requested_table_count": n,
                   "table_search_expressions": search}),
        );
        check_page(&page, &matches, low, n);
    }
}

/// A filter that matches nothing: size 0 and no line; a bad `isFiltered`
/// is a 400 that names it.
#[test]
fn filter_matching_nothing_is_an_empty_table() {
    let srv = Server::start();
    let (exp, _) = srv.open_trace("b", "fixtures/scenario-b/ctf");
    let page = filtered(
        &srv,
        &exp,
        json!({"requested_table_index": 0, "requested_table_count": 100,
               "table_search_expressions": {"2": "^no such event$"}}),
    );
    assert_eq!(i(&page["size"]), 0, "{page}");
    assert_eq!(page["lines"], json!([]));
    let (st, e) = srv.post(
        &format!("/experiments/{exp}/outputs/table/{EVENTS}/lines"),
        &json!({"parameters": {"requested_table_count": 1, "isFiltered": "yes",
                               "table_search_expressions": {"2": "x"}}}),
    );
    assert_eq!(st, 400, "{e}");
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("parameters.isFiltered"),
        "{e}"
    );
}

/// The counts are kept for the experiment (asked again, the table answers
/// at once) and forgotten when it is deleted: the same experiment created
/// again (same name, same UUID) counts anew.
#[test]
fn counts_are_forgotten_when_the_experiment_is_deleted() {
    let srv = Server::start();
    let (exp, info) = srv.open_trace("b", "fixtures/scenario-b/ctf");
    let params = json!({"requested_table_index": 0, "requested_table_count": 5,
                        "table_search_expressions": {"2": "sched_switch$"}, "isFiltered": true});
    let counted = filtered(&srv, &exp, params.clone());
    let again = post_lines(&srv, &exp, &params);
    assert_eq!(again["status"], "COMPLETED", "kept: {again}");
    assert_eq!(again["model"], counted);
    let (st, _) = srv.delete(&format!("/experiments/{exp}"));
    assert_eq!(st, 200);
    let (st, e) = srv.post(
        "/experiments",
        &json!({"parameters": {"name": "b-exp", "traces": [info["traces"][0]["UUID"]]}}),
    );
    assert_eq!(st, 200, "{e}");
    assert_eq!(e["UUID"].as_str(), Some(exp.as_str()));
    let first = post_lines(&srv, &exp, &params);
    assert_eq!(first["status"], "RUNNING", "counted anew: {first}");
    assert_eq!(first["statusMessage"], "Filtering: 0%");
    assert_eq!(filtered(&srv, &exp, params), counted);
}
