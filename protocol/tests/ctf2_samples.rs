//! The CTF 2 reader on Trace Compass's CTF 2 samples (fixtures/tc-ctf2,
//! EPL-2.0) against their oracles, and CTF 1.8 traces rewritten as CTF 2
//! against the CTF 1.8 originals: every event, and the analyses on them.
//!
//! Oracles (fixtures/tc-ctf2/README.md): Trace Compass's expected count and
//! yactfr's stated values for `CTF2-vl-ints`; babeltrace2's reading of the
//! byte-identical CTF 1.8 twins (count and digest) for the `CTF2-7.0-*`.

mod common;

use std::path::{Path, PathBuf};

use common::{repo_root, sextant, shared_dir, subdirs, tsv};

fn samples() -> PathBuf {
    repo_root().join("fixtures/tc-ctf2")
}

fn dump(trace: &Path) -> String {
    let out = sextant(&["dump", trace.to_str().unwrap(), "--format", "jsonl"]);
    assert!(
        out.status.success(),
        "sextant dump {}: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// FNV-1a, 64 bits: the digest `expected.tsv` records.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A temporary directory for one test, removed when dropped.
struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("sextant-ctf2-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn samples_match_babeltrace_on_their_ctf_1_8_twins() {
    let rows = tsv(&samples().join("expected.tsv"));
    assert_eq!(rows.len(), 8);
    for row in rows {
        let name = &row["trace"];
        let mut lines: Vec<&str> = Vec::new();
        let text = dump(&samples().join(name));
        lines.extend(text.lines());
        lines.sort_unstable();
        let canonical: String = lines.iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(
            lines.len().to_string(),
            row["events"],
            "{name}: event count"
        );
        assert_eq!(
            format!("{:016x}", fnv1a64(canonical.as_bytes())),
            row["fnv1a64"],
            "{name}: events differ from babeltrace2's reading of the CTF 1.8 twin"
        );
    }
    // Its stream differs from its twin's (one path string): it reads, with
    // its twin's number of events.
    assert_eq!(
        dump(&samples().join("CTF2-7.0-debug-info")).lines().count(),
        4
    );
}

#[test]
fn variable_length_integers_as_yactfr_and_trace_compass_state() {
    let text = dump(&samples().join("CTF2-vl-ints"));
    let events: Vec<serde_json::Value> = common::jsonl(text.as_bytes());
    // CtfTestTrace.CTF2_VL_INTS: 1 event.
    assert_eq!(events.len(), 1);
    let f = &events[0]["fields"];
    let unsigned: [(&str, u64); 11] = [
        ("vu1a", 0),
        ("vu1b", 77),
        ("vu2", 177),
        ("vu3", 43123),
        ("vu4", 21829382),
        ("vu5", 5121829382),
        ("vu6", 95121829382),
        ("vu7", 13895121829382),
        ("vu8", 913895121855555),
        ("vu9", 333333333333333333),
        ("vu10", 18446744073709551615),
    ];
    for (k, v) in unsigned {
        assert_eq!(f[k].as_u64(), Some(v), "{k}");
    }
    let signed: [(&str, i64); 14] = [
        ("vi1a", 0),
        ("vi1b", -1),
        ("vi1c", 23),
        ("vi2", -156),
        ("vi3", 8556),
        ("vi4", -100101001),
        ("vi5", 8288491823),
        ("vi6", -171717171717),
        ("vi7", 123456787654321),
        ("vi8", -1121231234123450),
        ("vi9", 99999999999999999),
        ("vi10a", 9223372036853775807),
        ("vi10b", 9223372036854775807),
        ("vi10c", -9223372036854775808),
    ];
    for (k, v) in signed {
        assert_eq!(f[k].as_i64(), Some(v), "{k}");
    }
}

#[test]
fn malformed_json_metadata_names_file_fragment_and_pointer() {
    let tmp = Tmp::new("malformed");
    let src = samples().join("CTF2-7.0-smalltrace");
    std::fs::create_dir_all(&tmp.0).unwrap();
    for f in ["metadata", "dummystream"] {
        std::fs::copy(src.join(f), tmp.0.join(f)).unwrap();
    }
    let meta = tmp.0.join("metadata");
    let text = std::fs::read_to_string(&meta).unwrap();
    // The fourth fragment's string field becomes a 12-bit integer of no
    // known byte order.
    let bad = text.replace(
        r#""type": "null-terminated-string""#,
        r#""type": "fixed-length-unsigned-integer", "length": 12, "byte-order": "middle-endian""#,
    );
    assert_ne!(bad, text);
    std::fs::write(&meta, bad).unwrap();
    let out = sextant(&["dump", tmp.0.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(meta.to_str().unwrap()), "{stderr}");
    assert!(
        stderr.contains(
            "fragment 4, at `/payload-field-class/member-classes/0/field-class/byte-order`"
        ),
        "{stderr}"
    );
    // Broken JSON: the fragment, and where in it.
    std::fs::write(
        &meta,
        text.replacen("\"version\": 2", "\"version\": 2,,", 1),
    )
    .unwrap();
    let out = sextant(&["dump", tmp.0.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("fragment 1") && stderr.contains("invalid JSON"),
        "{stderr}"
    );
}

/// `sextant convert trace dst`, which must succeed.
fn convert(trace: &Path, dst: &Path) {
    let out = sextant(&["convert", trace.to_str().unwrap(), dst.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "sextant convert {}: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Rewrites `trace` as CTF 2 (`sextant convert`) and checks both read the
/// same, event for event.
fn same_as_ctf2(trace: &Path, tag: &str) -> Tmp {
    let tmp = Tmp::new(tag);
    convert(trace, &tmp.0);
    let (ours, theirs) = (dump(&tmp.0), dump(trace));
    assert!(!theirs.is_empty(), "{}: no events", trace.display());
    assert!(
        ours == theirs,
        "{}: the CTF 2 copy reads differently",
        trace.display()
    );
    tmp
}

#[test]
fn scenario_fixtures_rewritten_as_ctf2_read_and_analyze_the_same() {
    for s in ["a", "b", "c", "d"] {
        let original = repo_root().join(format!("fixtures/scenario-{s}/ctf"));
        let copy = same_as_ctf2(&original, &format!("scenario-{s}"));
        if s == "a" {
            let analyze = |t: &Path| {
                let out = sextant(&["analyze", t.to_str().unwrap(), "--preset", "running"]);
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                out.stdout
            };
            assert!(
                analyze(&copy.0) == analyze(&original),
                "analyze --preset running differs on the CTF 2 copy"
            );
        }
    }
}

/// `convert` never writes into a folder that holds something, and says
/// which folder; its CTF 2 output is not CTF 1.8 and is refused as a source.
#[test]
fn convert_refuses_a_used_destination_and_a_ctf2_source() {
    let original = repo_root().join("fixtures/scenario-a/ctf");
    let tmp = Tmp::new("convert-twice");
    convert(&original, &tmp.0);
    let again = sextant(&[
        "convert",
        original.to_str().unwrap(),
        tmp.0.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&*tmp.0.to_string_lossy()) && err.contains("not empty"),
        "{err}"
    );
    let from_ctf2 = Tmp::new("convert-ctf2");
    let out = sextant(&[
        "convert",
        tmp.0.to_str().unwrap(),
        from_ctf2.0.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("metadata") && err.contains("CTF 2 already"),
        "{err}"
    );
}

#[test]
fn shared_ctf_traces_rewritten_as_ctf2_read_the_same() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: ../shared is absent (no shared CTF traces to rewrite)");
        return;
    };
    for d in subdirs(&shared.join("traces/ctf")) {
        let tag = d.file_name().unwrap().to_string_lossy().into_owned();
        same_as_ctf2(&d, &tag);
    }
}

/// Every decoding path (header plans, flat runs, skips, the generic walk,
/// the merge) agrees on every event of every CTF 2 sample.
#[test]
fn decoding_paths_agree_on_the_samples() {
    for d in subdirs(&samples()) {
        let report = sextant_engine::ctf::crosscheck::check(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        assert!(report.events > 0, "{}", d.display());
    }
}
