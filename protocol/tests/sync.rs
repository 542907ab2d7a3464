//! `sextant sync`: several hosts on one timeline, checked against Trace
//! Compass's own synchronisation test on synctraces and against a clock
//! offset set on purpose.

mod common;

use std::path::Path;

use common::{copy_into, run_json, sextant, shared_dir, skip_shared, valid_json_output, TempDir};
use serde_json::Value;

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
    let Some(shared) = shared_dir() else {
        return skip_shared();
    };
    let tmp = TempDir::new("sync-analyze");
    let cache = tmp.path().join("cache");
    let cache = cache.to_str().unwrap();
    let sync = shared.join("traces/ctf/synctraces");
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
