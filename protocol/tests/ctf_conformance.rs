//! `sextant dump` against babeltrace2 (the decoding oracle) and Trace Compass's
//! published counts, on the real traces in `../shared/traces/ctf`.
//!
//! Every event's name, timestamp, CPU and payload must equal what babeltrace2's
//! Python bindings decode (tests/oracle/bt2_jsonl.py). Events with the same
//! timestamp may come out in a different order from different streams, so
//! equal-timestamp groups are compared as multisets.
//!
//! Skips with a message when `../shared` is absent. When babeltrace2's Python
//! bindings are missing the tests skip too, except under CI, where `.ci/run`
//! installs them and a missing oracle is a failure.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::{sextant, shared_dir};
use serde_json::Value;

fn trace(rel: &str) -> Option<PathBuf> {
    let p = shared_dir()?.join("traces/ctf").join(rel);
    Some(p)
}

fn oracle_available() -> bool {
    let ok = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import bt2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var_os("CI").is_some() {
        panic!("babeltrace2's Python bindings (python3-bt2) are missing: .ci/run installs them");
    }
    if !ok {
        eprintln!(
            "skipped: babeltrace2 Python bindings not installed (apt-get install python3-bt2)"
        );
    }
    ok
}

/// Runs the babeltrace2 oracle. `complete` says whether bt2 read to the end.
fn oracle(trace: &Path, extra: &[&str]) -> (Vec<Value>, bool) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/oracle/bt2_jsonl.py");
    let out = std::process::Command::new("/usr/bin/python3")
        .arg(script)
        .args(extra)
        .arg(trace)
        .output()
        .expect("running the babeltrace2 oracle");
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(3),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (parse_lines(&out.stdout), code == Some(0))
}

fn ours(trace: &Path) -> (Vec<Value>, String) {
    let out = sextant(&["dump", trace.to_str().unwrap(), "--format", "jsonl"]);
    assert!(
        out.status.success(),
        "sextant dump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        parse_lines(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn parse_lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line"))
        .collect()
}

/// babeltrace2 2.0.4 shows an empty string field as the previous non-empty
/// value of the same field (its string field is reused without being cleared).
/// Accept exactly that: ours is "", theirs repeats an earlier value of the same
/// event and field. Returns how many fields needed the allowance.
fn allowance_for_bt2_empty_strings(theirs: &mut [Value], mine: &[Value]) -> usize {
    let mut seen: HashMap<(String, String), Vec<String>> = HashMap::new();
    let mut used = 0;
    for (t, m) in theirs.iter_mut().zip(mine) {
        let name = t["name"].as_str().unwrap_or_default().to_string();
        let (Some(tf), Some(mf)) = (t["fields"].as_object_mut(), m["fields"].as_object()) else {
            continue;
        };
        for (k, tv) in tf.iter_mut() {
            let Some(ts) = tv.as_str() else { continue };
            let key = (name.clone(), k.clone());
            let earlier = seen.entry(key).or_default();
            if mf.get(k).and_then(Value::as_str) == Some("")
                && !ts.is_empty()
                && earlier.iter().any(|e| e == ts)
            {
                *tv = Value::String(String::new());
                used += 1;
            } else if !ts.is_empty() {
                earlier.push(ts.to_string());
            }
        }
    }
    used
}

/// Sorts events by (ts, canonical text) so that events with the same
/// timestamp compare as multisets.
fn canonical(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by_cached_key(|e| (e["ts"].as_i64().unwrap_or(i64::MIN), e.to_string()));
    v
}

fn compare(trace: &Path, extra: &[&str], expect_complete: bool) -> Vec<Value> {
    let (theirs, complete) = oracle(trace, extra);
    assert_eq!(
        complete,
        expect_complete,
        "babeltrace2 oracle completeness on {}",
        trace.display()
    );
    let (mine, _) = ours(trace);
    assert_eq!(
        mine.len(),
        theirs.len(),
        "event count on {}",
        trace.display()
    );
    let mine = canonical(mine);
    let mut theirs = canonical(theirs);
    let allowed = allowance_for_bt2_empty_strings(&mut theirs, &mine);
    assert!(
        allowed <= 2,
        "{allowed} string fields differ on {}",
        trace.display()
    );
    for (i, (m, t)) in mine.iter().zip(&theirs).enumerate() {
        assert_eq!(m, t, "event {i} of {} (sorted by time)", trace.display());
    }
    mine
}

#[test]
fn many_threads_equals_babeltrace2() {
    let Some(t) = trace("many-threads") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    let events = compare(&t, &[], true);
    assert_eq!(events.len(), 240_644);
}

#[test]
fn flipping_endianness_equals_babeltrace2() {
    let Some(t) = trace("flipping-endianness") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    assert_eq!(compare(&t, &[], true).len(), 14_310);
}

#[test]
fn tracefile_rotation_equals_babeltrace2() {
    let Some(t) = trace("lttng-tracefile-rotation/kernel") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    assert_eq!(compare(&t, &[], true).len(), 12_305);
}

#[test]
fn multi_domains_equals_babeltrace2() {
    let Some(t) = trace("multi-domains") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    assert_eq!(compare(&t, &[], true).len(), 4_272);
}

#[test]
fn perf_ctf_equals_babeltrace2() {
    let Some(t) = trace("perf-taskset2") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    assert_eq!(compare(&t, &[], true).len(), 1_500);
}

/// babeltrace2's muxer stops at the first packet that begins before the
/// previous one ended; reading each stream alone it decodes them all, and we
/// must equal that and Trace Compass's counts.
#[test]
fn synctraces_read_to_the_end() {
    let Some(src) = trace("synctraces/scp_src") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    let (partial, complete) = oracle(&src, &[]);
    assert!(
        !complete,
        "babeltrace2's muxer is expected to stop on scp_src"
    );
    assert_eq!(partial.len(), 11_682);
    assert_eq!(compare(&src, &["--no-muxer"], true).len(), 110_771);
    let dest = trace("synctraces/scp_dest").unwrap();
    assert_eq!(compare(&dest, &["--no-muxer"], true).len(), 85_729);
}

/// Trace Compass counts 1,000,000 for hello-lost: the event records plus the
/// events the tracer reported as discarded.
#[test]
fn hello_lost_counts_records_and_discarded() {
    let Some(t) = trace("hello-lost") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    let records = compare(&t, &["--no-muxer"], true).len();
    let (_, stderr) = ours(&t);
    let discarded: u64 = stderr
        .split("discarded ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no discarded-events warning in: {stderr}"));
    assert_eq!(records as u64 + discarded, 1_000_000);
}

/// funky_trace's `offset_s` does not fit in 64-bit nanoseconds: babeltrace2
/// refuses the trace; Trace Compass drops the offset. Cancelling the offset in
/// the oracle gives the reference values for every field.
#[test]
fn funky_trace_decodes_every_type() {
    let Some(t) = trace("funky_trace") else {
        return common::skip_shared();
    };
    if !oracle_available() {
        return;
    }
    let events = compare(&t, &["--clock-offset-s=-1351530929945824323"], true);
    assert_eq!(events.len(), 100_002);
    let (_, stderr) = ours(&t);
    assert!(
        stderr.contains("offset_s"),
        "the ignored offset is reported: {stderr}"
    );
}

/// Timestamp, name and top-level scalar fields as text, sorted by name.
type FlatEvent = (i64, String, Vec<(String, String)>);

/// babeltrace2's own field-by-field dump of the rotation trace, shipped with
/// it: timestamps, names and top-level payload values.
#[test]
fn tracefile_rotation_equals_shipped_expectation() {
    let Some(t) = trace("lttng-tracefile-rotation/kernel") else {
        return common::skip_shared();
    };
    let expect = std::fs::read_to_string(t.parent().unwrap().join("babeltrace2.expect")).unwrap();
    let theirs = parse_details(&expect);
    let (mine, _) = ours(&t);
    assert_eq!(theirs.len(), 12_305);
    assert_eq!(mine.len(), theirs.len());
    let mine = canonical(mine);
    let mut theirs = theirs;
    theirs.sort_by(|a, b| (a.0, &a.1, &a.2).cmp(&(b.0, &b.1, &b.2)));
    let mut mine_flat: Vec<FlatEvent> = mine
        .iter()
        .map(|e| {
            let fields = e["fields"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| !v.is_array() && !v.is_object())
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect();
            let mut fields: Vec<(String, String)> = fields;
            fields.sort();
            (
                e["ts"].as_i64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                fields,
            )
        })
        .collect();
    mine_flat.sort_by(|a, b| (a.0, &a.1, &a.2).cmp(&(b.0, &b.1, &b.2)));
    for (m, t) in mine_flat.iter().zip(&theirs) {
        assert_eq!(m, t);
    }
}

/// Parses babeltrace2's `details` text: `[C cycles, N ns from origin]`, then
/// `Event `name` (Class ID k):`, then `    field: value` lines. Integers there
/// carry thousands separators; compound fields are left out, as are their
/// members.
fn parse_details(text: &str) -> Vec<FlatEvent> {
    let mut out = Vec::new();
    let mut ts = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix('[') {
            ts = rest
                .split(", ")
                .nth(1)
                .and_then(|s| s.strip_suffix(" ns from origin]"))
                .map(|s| s.replace(',', "").parse::<i64>().unwrap());
        } else if let Some(rest) = line.strip_prefix("Event `") {
            let name = rest.split('`').next().unwrap().to_string();
            let mut fields = Vec::new();
            while let Some(l) = lines.peek() {
                if l.is_empty() {
                    break;
                }
                let l = lines.next().unwrap();
                let Some(member) = l.strip_prefix("    ") else {
                    continue;
                };
                if member.starts_with(' ') {
                    continue;
                }
                // Arrays and sequences print as `name: Length N:` or `name: Empty`.
                let compound =
                    |v: &str| (v.starts_with("Length ") && v.ends_with(':')) || v == "Empty";
                if let Some((k, v)) = member.split_once(": ").filter(|(_, v)| !compound(v)) {
                    let numeric = v
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == ',' || c == '-');
                    let v = if numeric {
                        v.replace(',', "")
                    } else {
                        v.to_string()
                    };
                    fields.push((k.to_string(), v));
                }
            }
            fields.sort();
            out.push((ts.expect("a timestamp line before the event"), name, fields));
        }
    }
    out.iter_mut().for_each(|e| e.2.sort());
    out
}
