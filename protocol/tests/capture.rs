//! `sextant capture`: tracefs recordings of a fixture scenario read by
//! babeltrace2 event for event and by sextant, whose analyses find the
//! scenario's own late jobs; Ctrl-C; lost events; STM captures decoded into
//! CTF that babeltrace2 reads, and the live STM path against a stand-in
//! sysfs tree.
//!
//! The tracefs tests need root and tracefs (CI has both): elsewhere they skip
//! with a message. They never leave a tracefs instance behind.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{repo_root, sextant};
use serde_json::Value;

const TRACEFS: &str = "/sys/kernel/tracing";

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sextant-capture-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

/// Root and tracefs (mounted here when it is not yet), or a skip message.
fn tracefs_ready(test: &str) -> bool {
    if !is_root() {
        eprintln!("skipped {test}: capturing through tracefs needs root");
        return false;
    }
    if !Path::new(TRACEFS).join("instances").is_dir() {
        let _ = Command::new("mount")
            .args(["-t", "tracefs", "nodev", TRACEFS])
            .status();
    }
    if !Path::new(TRACEFS).join("instances").is_dir() {
        eprintln!("skipped {test}: no tracefs at {TRACEFS} and it cannot be mounted");
        return false;
    }
    true
}

/// Our instances: none may be left once a capture ended, whatever happened.
fn our_instances() -> Vec<String> {
    std::fs::read_dir(Path::new(TRACEFS).join("instances"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("sextant-") && !n.starts_with("sextant-scenario"))
                .collect()
        })
        .unwrap_or_default()
}

/// Builds a fixture scenario with its own Makefile, in `dir`.
fn build_scenario(name: &str, dir: &Path) -> PathBuf {
    let src = repo_root()
        .join("fixtures")
        .join(format!("scenario-{name}"));
    for f in ["scenario.c", "Makefile"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let bin = format!("scenario_{name}");
    let ok = Command::new("make")
        .args(["-s", "-C", s(dir), &bin])
        .status()
        .expect("running make");
    assert!(ok.success(), "building {bin}");
    dir.join(bin)
}

fn babeltrace2_lines(trace: &Path) -> (usize, String) {
    let out = Command::new("babeltrace2")
        .arg(trace)
        .output()
        .expect("babeltrace2 (tests/run-all.sh installs it)");
    assert!(
        out.status.success(),
        "babeltrace2 {}: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dump(trace: &Path) -> Vec<Value> {
    let out = sextant(&["dump", s(trace), "--format", "jsonl"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn oracle_available() -> bool {
    let ok = Command::new("/usr/bin/python3")
        .args(["-c", "import bt2"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "CI must have python3-bt2");
        eprintln!(
            "babeltrace2's Python bindings are missing: the field-by-field comparison is skipped"
        );
    }
    ok
}

/// babeltrace2's decoding, in the same JSON shape as `sextant dump --format jsonl`.
fn oracle(trace: &Path) -> Vec<Value> {
    let out = Command::new("/usr/bin/python3")
        .arg(repo_root().join("tests/oracle/bt2_jsonl.py"))
        .arg(trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn tsv_rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn tracefs_capture_of_scenario_a_reads_and_analyzes_like_the_recordings() {
    if !tracefs_ready("tracefs_capture_of_scenario_a") {
        return;
    }
    let dir = tmp("scenario-a");
    let bin = build_scenario("a", &dir);
    let trace = dir.join("ctf");
    let gt = dir.join("gt.tsv");
    let out = sextant(&[
        "capture",
        "tracefs",
        "--out",
        s(&trace),
        "--",
        s(&bin),
        s(&gt),
        "100",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    eprintln!("{stderr}");
    assert!(
        our_instances().is_empty(),
        "left behind: {:?}",
        our_instances()
    );

    // babeltrace2 and sextant read the same events.
    let events = dump(&trace);
    let (bt_count, _) = babeltrace2_lines(&trace);
    assert_eq!(
        bt_count,
        events.len(),
        "babeltrace2 vs sextant event counts"
    );
    if oracle_available() {
        let bt = oracle(&trace);
        assert_eq!(bt.len(), events.len());
        for (i, (a, b)) in bt.iter().zip(&events).enumerate() {
            assert_eq!(a, b, "event {i}");
        }
    }
    // LTTng spellings.
    let count = |name: &str| events.iter().filter(|e| e["name"] == name).count();
    assert!(count("syscall_entry_mq_timedreceive") >= 100);
    assert!(count("sched_switch") > 100);
    let switch = events.iter().find(|e| e["name"] == "sched_switch").unwrap();
    assert!(switch["fields"].get("prev_tid").is_some(), "{switch}");

    // analyze: the deadline misses are the periods the program found late.
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let out = sextant(&[
        "analyze",
        s(&trace),
        "--model",
        s(&model),
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = tsv_rows(&gt);
    let header = &rows[0];
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let (release, late) = (col("release"), col("late"));
    let periods: Vec<(u64, bool)> = rows[1..]
        .iter()
        .map(|r| (r[release].parse().unwrap(), r[late] == "1"))
        .collect();
    let period_of = |start: u64| periods.iter().rposition(|(r, _)| *r <= start).unwrap();
    let missed: BTreeSet<usize> = doc["executions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["deadline_miss"] == true)
        .map(|e| period_of(e["start"].as_u64().unwrap()))
        .collect();
    let expected: BTreeSet<usize> = (0..periods.len()).filter(|&p| periods[p].1).collect();
    eprintln!(
        "analyze: {} executions, {} deadline misses; ground truth {} late periods",
        doc["executions"].as_array().unwrap().len(),
        missed.len(),
        expected.len()
    );
    assert!(
        expected.len() >= 15,
        "the scenario should be late in about 22 periods"
    );
    // Every deadline miss is a period the program found late. The converse
    // can fail on a loaded virtual machine: a late wake-up of rt_high itself
    // (counted by the program from the nominal release, not by the model
    // from the wake-up), or a context switch the kernel did not trace.
    assert!(
        missed.is_subset(&expected),
        "deadline misses {missed:?} outside the late periods {expected:?}"
    );
    assert!(
        missed.len() * 3 >= expected.len() * 2,
        "only {} of the {} late periods found",
        missed.len(),
        expected.len()
    );

    // explain: the longest job is held back by a medium thread preempting
    // rt_low (on CPU 0, where the scenario runs).
    let out = sextant(&[
        "explain",
        s(&trace),
        "--model",
        s(&model),
        "--longest",
        "--cpus",
        "0",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnosis = doc["diagnosis"].as_str().unwrap();
    eprintln!("explain --longest: {diagnosis}");
    assert!(
        diagnosis.starts_with("rt_low ") && diagnosis.contains("priority inversion"),
        "{diagnosis}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tracefs_capture_stops_on_ctrl_c_and_keeps_the_events() {
    if !tracefs_ready("tracefs_capture_stops_on_ctrl_c") {
        return;
    }
    let dir = tmp("ctrl-c");
    let trace = dir.join("ctf");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args([
            "capture",
            "tracefs",
            "--events",
            "sched",
            "--duration",
            "60",
            "--out",
            s(&trace),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no stop after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(
        our_instances().is_empty(),
        "left behind: {:?}",
        our_instances()
    );
    let events = dump(&trace);
    assert!(
        !events.is_empty(),
        "the events recorded before Ctrl-C are kept"
    );
    assert_eq!(babeltrace2_lines(&trace).0, events.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tracefs_capture_reports_lost_events() {
    if !tracefs_ready("tracefs_capture_reports_lost_events") {
        return;
    }
    let dir = tmp("lost");
    let trace = dir.join("ctf");
    // One page per CPU and a burst of system calls: the buffer overflows.
    let out = sextant(&[
        "capture", "tracefs", "--buffer-kb", "4", "--events", "sched,syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_write,syscalls:sys_exit_write",
        "--out", s(&trace), "--", "dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=300000",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(our_instances().is_empty());
    let lost: u64 = stderr
        .split("lost (discarded): ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no loss count in {stderr}"));
    assert!(lost > 0, "{stderr}");
    // sextant's reader and babeltrace2 both see the losses in the trace.
    let read = sextant(&["dump", s(&trace), "--format", "none"]);
    let warn = String::from_utf8_lossy(&read.stderr);
    assert!(
        warn.contains("discarded") || warn.contains("lost"),
        "{warn}"
    );
    let (count, bt_err) = babeltrace2_lines(&trace);
    assert!(
        bt_err.contains("discarded"),
        "babeltrace2 says nothing of the losses: {bt_err}"
    );
    assert_eq!(count, dump(&trace).len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// OpenCSD's worked example (STPv2 bytes of trace ID 0x20 on a Juno board).
const OPENCSD_EXAMPLE: [u8; 21] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0f, 0x30, 0x41, 0xf1, 0x1a,
    0x00, 0x00, 0x00, 0x30, 0x10,
];

/// Bytes in formatter frames: each frame opens with the ID, then 14 data
/// bytes (even ones with their low bit in the auxiliary byte).
fn framed(id: u8, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(14) {
        let mut f = [0u8; 16];
        f[0] = (id << 1) | 1;
        for (i, &b) in chunk.iter().enumerate() {
            let at = 1 + i;
            if at % 2 == 0 {
                f[at] = b & 0xfe;
                f[15] |= (b & 1) << (at / 2);
            } else {
                f[at] = b;
            }
        }
        // The rest of the last frame is zeros: NULL packets.
        out.extend_from_slice(&f);
    }
    out
}

#[test]
fn stm_captures_decode_to_ctf_that_babeltrace2_reads() {
    let dir = tmp("stm");
    let raw = dir.join("example.stp");
    std::fs::write(&raw, OPENCSD_EXAMPLE).unwrap();
    let ctf = dir.join("raw-ctf");
    let out = sextant(&[
        "capture",
        "stm",
        "--input",
        s(&raw),
        "--raw",
        "--out",
        s(&ctf),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (count, _) = babeltrace2_lines(&ctf);
    let events = dump(&ctf);
    assert_eq!((count, events.len()), (1, 1));
    assert_eq!(events[0]["name"], "stm_data");
    assert_eq!(events[0]["fields"]["master"], 0x41);
    assert_eq!(events[0]["fields"]["value"], 0x1000_0000);
    assert_eq!(events[0]["fields"]["marked"], 1);
    if oracle_available() {
        assert_eq!(oracle(&ctf), events);
    }

    // The same in formatter frames, chosen by trace ID.
    let frames = dir.join("example.bin");
    std::fs::write(&frames, framed(0x20, &OPENCSD_EXAMPLE)).unwrap();
    let ctf2 = dir.join("framed-ctf");
    let out = sextant(&[
        "capture",
        "stm",
        "--input",
        s(&frames),
        "--trace-id",
        "0x20",
        "--out",
        s(&ctf2),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(dump(&ctf2), events);
    // A wrong ID is an error naming the IDs present.
    let out = sextant(&[
        "capture",
        "stm",
        "--input",
        s(&frames),
        "--trace-id",
        "0x21",
        "--out",
        s(&dir.join("x")),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("0x20"));
    // Corrupt input: a warning, never a crash.
    let mut bad = OPENCSD_EXAMPLE.to_vec();
    bad[14] = 0x0f;
    bad.extend_from_slice(&OPENCSD_EXAMPLE);
    std::fs::write(&raw, &bad).unwrap();
    let out = sextant(&[
        "capture",
        "stm",
        "--input",
        s(&raw),
        "--raw",
        "--out",
        s(&dir.join("bad")),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("resynchronising"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stm_device_path_against_a_stand_in_sysfs() {
    let root = tmp("stm-sysfs");
    let dev = root.join("sys/bus/coresight/devices");
    for (d, f) in [("stm0", "enable_source"), ("tmc_etf0", "enable_sink")] {
        std::fs::create_dir_all(dev.join(d)).unwrap();
        std::fs::write(dev.join(d).join(f), "0").unwrap();
    }
    std::fs::write(dev.join("stm0/traceid"), "0x20").unwrap();
    std::fs::create_dir_all(root.join("sys/kernel/config/stp-policy")).unwrap();
    std::fs::create_dir_all(root.join("dev")).unwrap();
    std::fs::write(root.join("dev/tmc_etf0"), framed(0x20, &OPENCSD_EXAMPLE)).unwrap();
    let ctf = root.join("ctf");
    let saved = root.join("sink.bin");
    // The "workload" checks that the source is on while it runs.
    let check = format!("test \"$(cat {})\" = 1", s(&dev.join("stm0/enable_source")));
    let out = sextant(&[
        "capture",
        "stm",
        "--device",
        "stm0",
        "--sysfs-root",
        s(&root),
        "--channels",
        "0-15",
        "--save-raw",
        s(&saved),
        "--out",
        s(&ctf),
        "--",
        "sh",
        "-c",
        &check,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        !err.contains("the command exited"),
        "the source was not on: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(dev.join("stm0/enable_source")).unwrap(),
        "0"
    );
    assert_eq!(
        std::fs::read_to_string(dev.join("tmc_etf0/enable_sink")).unwrap(),
        "0"
    );
    assert_eq!(
        std::fs::read_dir(root.join("sys/kernel/config/stp-policy"))
            .unwrap()
            .count(),
        0,
        "the policy is removed"
    );
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        framed(0x20, &OPENCSD_EXAMPLE)
    );
    assert_eq!(babeltrace2_lines(&ctf).0, 1);
    std::fs::remove_dir_all(&root).unwrap();
}
