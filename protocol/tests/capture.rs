//! `sextant capture`: tracefs recordings of a fixture scenario read by
//! babeltrace2 event for event and by sextant, whose analyses find the
//! scenario's own late jobs; Ctrl-C; lost events; STM captures decoded into
//! CTF that babeltrace2 reads, and the live STM path against a stand-in
//! sysfs tree.
//!
//! The tracefs tests need root and tracefs (CI has both): elsewhere they skip
//! with a message. They never leave a tracefs instance behind.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::{dump_jsonl, jsonl, repo_root, sextant, valid_json_output};
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

/// Root and tracefs (mounted here when it is not yet), or a skip message;
/// then the tracefs tests' lock, held until the test ends, and a fresh
/// directory for it.
fn tracefs_test(test: &str) -> Option<(MutexGuard<'static, ()>, PathBuf)> {
    if !is_root() {
        eprintln!("skipped the tracefs capture test {test}: capturing through tracefs needs root");
        return None;
    }
    if !Path::new(TRACEFS).join("instances").is_dir() {
        let _ = Command::new("mount")
            .args(["-t", "tracefs", "nodev", TRACEFS])
            .status();
    }
    if !Path::new(TRACEFS).join("instances").is_dir() {
        eprintln!("skipped the tracefs capture test {test}: no tracefs at {TRACEFS} and it cannot be mounted");
        return None;
    }
    // One at a time: the scenario's timing must not compete with another
    // test's system-call flood on a small machine.
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    Some((guard, tmp(test)))
}

/// The tracefs instance a capture by process `pid` makes (`sextant-<pid>`):
/// it must be gone once the capture ended, whatever happened. Checked by
/// name, so that captures of other test runs on the machine do not count.
fn instance_left(pid: u32) -> bool {
    Path::new(TRACEFS)
        .join("instances")
        .join(format!("sextant-{pid}"))
        .exists()
}

/// Runs `sextant capture ...` to its end: its output and its process id.
fn capture(args: &[&str]) -> (std::process::Output, u32) {
    let child = common::command()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running sextant");
    let pid = child.id();
    (child.wait_with_output().unwrap(), pid)
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

/// babeltrace2's text for a trace (`--clock-cycles`: timestamps as clock
/// values, here ns), one line per event, and what it said on stderr.
fn babeltrace2_lines(trace: &Path) -> (Vec<String>, String) {
    let out = Command::new("babeltrace2")
        .arg("--clock-cycles")
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
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An event as babeltrace2 prints it: `[TS] (+D) HOST NAME: { cpu_id = C },
/// { tid = T }, { FIELDS }`, with the thread of the stream event context.
struct Bt2Event {
    ts: u64,
    name: String,
    cpu: u64,
    tid: i64,
    /// `next_tid` of a `sched_switch`.
    next_tid: Option<i64>,
}

fn bt2_event(line: &str) -> Bt2Event {
    let number = |key: &str| -> Option<i64> {
        let rest = &line[line.find(key)? + key.len()..];
        let end = rest.find([',', ' ', '}']).unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    let head = &line[..line.find(": { cpu_id = ").expect(line)];
    Bt2Event {
        ts: line[1..line.find(']').expect(line)].parse().expect(line),
        name: head.rsplit(' ').next().unwrap().to_string(),
        cpu: number("{ cpu_id = ").expect(line) as u64,
        tid: number("{ tid = ").expect(line),
        next_tid: number(", next_tid = "),
    }
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
    jsonl(&out.stdout)
}

/// One period of the scenario as the program measured it (CLOCK_MONOTONIC ns).
struct Period {
    release: u64,
    woke: u64,
    got: u64,
    late: bool,
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
    let Some((_one_at_a_time, dir)) = tracefs_test("scenario-a") else {
        return;
    };
    let bin = build_scenario("a", &dir);
    let trace = dir.join("ctf");
    let gt = dir.join("gt.tsv");
    let (out, pid) = capture(&[
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
    assert!(!instance_left(pid), "instances/sextant-{pid} left behind");
    // 8 MiB per CPU for a few thousand events: nothing may be lost, or the
    // job-by-job comparison below would not hold.
    assert!(stderr.contains("lost (discarded): 0\n"), "{stderr}");

    // babeltrace2 and sextant read the same events.
    let events = dump_jsonl(&trace);
    let bt_lines = babeltrace2_lines(&trace).0;
    assert_eq!(
        bt_lines.len(),
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

    // analyze: rt_high's jobs, checked against the program's own record.
    let model = repo_root().join("schemas/examples/periodic-rt_high.json");
    let doc = valid_json_output(
        "analyze-result.schema.json",
        &[
            "analyze",
            s(&trace),
            "--model",
            s(&model),
            "--format",
            "json",
        ],
    );
    let executions = doc["executions"].as_array().unwrap();
    let rows = tsv_rows(&gt);
    let col = |n: &str| rows[0].iter().position(|h| h == n).unwrap();
    let at = |r: &Vec<String>, n: &str| -> u64 { r[col(n)].parse().unwrap() };
    let periods: Vec<Period> = rows[1..]
        .iter()
        .map(|r| Period {
            release: at(r, "release"),
            woke: at(r, "high_woke"),
            got: at(r, "high_got"),
            late: r[col("late")] == "1",
        })
        .collect();
    // The period a time falls in, by release.
    let period_of = |ts: u64| periods.iter().rposition(|p| p.release <= ts);
    // The period a job belongs to: the first whose [release, woke] holds its
    // start. A wake-up held back past the next release (a virtual CPU
    // descheduled by its host) starts the job after that release, in the
    // next period by release alone, which would then seem to have two jobs.
    let period_of_job = |start: u64| {
        periods
            .iter()
            .position(|p| (p.release..=p.woke).contains(&start))
            .or_else(|| period_of(start))
    };
    let rt_high: i64 = tsv_rows(&dir.join("gt.tsv.threads"))
        .iter()
        .find(|r| r[0] == "rt_high")
        .map(|r| r[1].parse().unwrap())
        .unwrap();

    // Periods where the trace shows a switch to or from rt_high missing:
    // rt_high's events on a CPU the switches say runs another thread, or
    // another thread's on the CPU they give to rt_high (read with
    // babeltrace2, which gives each event's thread: the stream event
    // context). A kernel may not record what some tasks execute (on the CI
    // virtual machines: the threads of its agent, outside our PID
    // namespace), so a switch away from or to such a task is missing; the
    // model, which takes an LTTng-style event's thread from the switches,
    // then cannot see that period's job as rt_high's.
    let mut on_cpu: HashMap<u64, i64> = HashMap::new();
    let mut unswitched: BTreeSet<usize> = BTreeSet::new();
    for ev in bt_lines.iter().map(|l| bt2_event(l)) {
        if let Some(&current) = on_cpu.get(&ev.cpu) {
            if current != ev.tid && (current == rt_high || ev.tid == rt_high) {
                unswitched.extend(period_of(ev.ts));
            }
        } else if ev.tid == rt_high {
            unswitched.extend(period_of(ev.ts));
        }
        if ev.name == "sched_switch" {
            on_cpu.insert(ev.cpu, ev.next_tid.expect("sched_switch has next_tid"));
        }
    }
    // Every other period has one job, at the times the program itself
    // measured (the trace clock is CLOCK_MONOTONIC): it starts when
    // clock_nanosleep returns, at or after the release and before the
    // program's `high_woke`, and ends at the next clock_nanosleep, after
    // `high_got`. The last period has none: the thread exits instead.
    let mut jobs: HashMap<usize, Vec<&Value>> = HashMap::new();
    for e in executions {
        let p =
            period_of_job(e["start"].as_u64().unwrap()).expect("a job before the first release");
        jobs.entry(p).or_default().push(e);
    }
    let checked: Vec<usize> = (0..periods.len() - 1)
        .filter(|p| !unswitched.contains(p))
        .collect();
    let mut missed = BTreeSet::new();
    for &p in &checked {
        let (this, found) = (&periods[p], jobs.get(&p).map_or(&[][..], Vec::as_slice));
        let [e] = found else {
            // What the neighbouring periods held, to tell a job put in the
            // wrong period from one the model did not find.
            let around: Vec<String> = (p.saturating_sub(1)..=p + 1)
                .filter_map(|q| periods.get(q).map(|r| (q, r)))
                .map(|(q, r)| {
                    let spans: Vec<String> = jobs.get(&q).map_or(vec![], |js| {
                        js.iter()
                            .map(|j| format!("[{}, {}]", j["start"], j["end"]))
                            .collect()
                    });
                    format!(
                        "period {q}: release {}, woke {}, got {}, jobs {spans:?}",
                        r.release, r.woke, r.got
                    )
                })
                .collect();
            panic!("period {p}: {} jobs\n{}", found.len(), around.join("\n"));
        };
        let (start, end) = (e["start"].as_u64().unwrap(), e["end"].as_u64().unwrap());
        assert!(
            (this.release..=this.woke).contains(&start) && end >= this.got,
            "period {p}: job [{start}, {end}] but release {}, woke {}, got the reply {}",
            this.release,
            this.woke,
            this.got
        );
        if e["deadline_miss"] == true {
            missed.insert(p);
        }
    }
    // The program counts a period late from its nominal release, the model
    // from the job's start: a period whose wake-up itself came late (a timer
    // interrupt held back, e.g. a virtual CPU descheduled by its host) is
    // late for the program and not for the model. What the model must flag
    // is every job that, by the program's own clock, took over 1 ms from
    // its wake-up to its reply.
    let long: BTreeSet<usize> = checked
        .iter()
        .copied()
        .filter(|&p| periods[p].got - periods[p].woke > 1_000_000)
        .collect();
    let late = periods.iter().filter(|p| p.late).count();
    eprintln!(
        "analyze: {} jobs, {} deadline misses in the {} periods checked; the program: {late} periods late, {} jobs over 1 ms from wake-up to reply; rt_high ran unswitched in periods {unswitched:?}",
        executions.len(),
        missed.len(),
        checked.len(),
        long.len()
    );
    // Untraced switches are rare (a few per second over all CPUs): most
    // periods are checked.
    assert!(
        checked.len() >= 80,
        "only {} periods checked",
        checked.len()
    );
    // 22 of the 100 periods have a medium burst, 200 µs after the release;
    // it blocks rt_high's reply unless rt_high itself woke after it (a held
    // back wake-up, above). At least 10: the check below cannot pass empty.
    assert!(
        long.len() >= 10,
        "the scenario should block rt_high in about 22 periods"
    );
    assert!(
        long.is_subset(&missed),
        "jobs over 1 ms {long:?} not all flagged: {missed:?}"
    );

    // explain: a long job is held back by a medium thread preempting
    // rt_low. The scenario pins its threads to CPU 0: `--cpus 0`, or a build
    // running on CPU 1 meanwhile may rank first among who ran instead. Of
    // the three longest jobs, one at least: on a loaded machine a single
    // period can be long with no burst in it (rt_low itself slowed, which
    // explain then says), but the bursts make most of the long ones.
    let mut longest: Vec<&serde_json::Value> = executions.iter().collect();
    longest.sort_by_key(|e| std::cmp::Reverse(e["duration"].as_i64().unwrap()));
    let mut diagnoses = Vec::new();
    for e in longest.iter().take(3) {
        let index = e["index"].as_u64().unwrap().to_string();
        let doc = valid_json_output(
            "explain-result.schema.json",
            &[
                "explain",
                s(&trace),
                "--model",
                s(&model),
                "--execution",
                &index,
                "--cpus",
                "0",
                "--format",
                "json",
            ],
        );
        let diagnosis = doc["diagnosis"].as_str().unwrap().to_string();
        eprintln!("explain --execution {index}: {diagnosis}");
        diagnoses.push(diagnosis);
    }
    // "rt_med2 (FIFO/RR 50) preempted rt_low (FIFO/RR 10) ... while rt_high
    // (FIFO/RR 80) waited on it: priority inversion ..."
    assert!(
        diagnoses.iter().any(|d| d.starts_with("rt_med")
            && d.contains(" preempted rt_low (")
            && d.contains("while rt_high (")
            && d.contains("priority inversion")),
        "{diagnoses:#?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tracefs_capture_stops_on_ctrl_c_and_keeps_the_events() {
    let Some((_one_at_a_time, dir)) = tracefs_test("ctrl-c") else {
        return;
    };
    let trace = dir.join("ctf");
    let mut child = common::command()
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
    // Interrupt once tracing is on (the stream files are made just before),
    // plus a little: on a loaded machine, starting may take a while.
    let start = Instant::now();
    while !trace.join("cpu0").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the capture did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
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
    let pid = child.id();
    assert!(!instance_left(pid), "instances/sextant-{pid} left behind");
    let events = dump_jsonl(&trace);
    assert!(
        !events.is_empty(),
        "the events recorded before Ctrl-C are kept"
    );
    assert_eq!(babeltrace2_lines(&trace).0.len(), events.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tracefs_capture_reports_lost_events() {
    let Some((_one_at_a_time, dir)) = tracefs_test("lost") else {
        return;
    };
    let trace = dir.join("ctf");
    // One page per CPU and a burst of system calls: the buffer overflows.
    let events = "sched,syscalls:sys_enter_read,syscalls:sys_exit_read,\
                  syscalls:sys_enter_write,syscalls:sys_exit_write";
    let (out, pid) = capture(&[
        "capture",
        "tracefs",
        "--buffer-kb",
        "4",
        "--events",
        events,
        "--out",
        s(&trace),
        "--",
        "dd",
        "if=/dev/zero",
        "of=/dev/null",
        "bs=1",
        "count=100000",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(!instance_left(pid), "instances/sextant-{pid} left behind");
    let number_after = |text: &str, key: &str| -> Option<u64> {
        text.split(key)
            .nth(1)?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    let lost = number_after(&stderr, "lost (discarded): ")
        .unwrap_or_else(|| panic!("no loss count in {stderr}"));
    assert!(lost > 0, "{stderr}");
    // sextant's reader and babeltrace2 find as many losses in the trace.
    let read = sextant(&["dump", s(&trace), "--format", "none"]);
    let warn = String::from_utf8_lossy(&read.stderr);
    assert_eq!(
        number_after(&warn, "the tracer discarded "),
        Some(lost),
        "{warn}"
    );
    let (lines, bt_err) = babeltrace2_lines(&trace);
    let bt_lost: u64 = bt_err
        .split("Tracer discarded ")
        .skip(1)
        .map(|t| t.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(bt_lost, lost, "babeltrace2: {bt_err}");
    assert_eq!(lines.len(), dump_jsonl(&trace).len());
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
    let events = dump_jsonl(&ctf);
    assert_eq!((babeltrace2_lines(&ctf).0.len(), events.len()), (1, 1));
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
    assert_eq!(dump_jsonl(&ctf2), events);
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
    // What the live path touches on a board: the STM source and an ETF sink
    // in sysfs, configfs's stp-policy, the sink's device node (holding a
    // capture already).
    let sink_bytes = framed(0x20, &OPENCSD_EXAMPLE);
    for (path, content) in [
        ("sys/bus/coresight/devices/stm0/enable_source", &b"0"[..]),
        ("sys/bus/coresight/devices/stm0/traceid", b"0x20"),
        ("sys/bus/coresight/devices/tmc_etf0/enable_sink", b"0"),
        ("dev/tmc_etf0", &sink_bytes),
    ] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    std::fs::create_dir_all(root.join("sys/kernel/config/stp-policy")).unwrap();
    let dev = root.join("sys/bus/coresight/devices");
    let ctf = root.join("ctf");
    let saved = root.join("sink.bin");
    // The "workload" checks, while it runs, that the source and the sink are
    // on and that the policy gives writers named as it is (`sh`) the
    // channels asked for.
    let check = format!(
        "test \"$(cat {})$(cat {})\" = 11 && test \"$(cat {}/stm0:p_sys-t.sextant-*/sh/channels)\" = '0 15'",
        s(&dev.join("stm0/enable_source")),
        s(&dev.join("tmc_etf0/enable_sink")),
        s(&root.join("sys/kernel/config/stp-policy")),
    );
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
        "the source, the sink or the policy was not set: {err}"
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
    assert_eq!(babeltrace2_lines(&ctf).0.len(), 1);
    std::fs::remove_dir_all(&root).unwrap();
}
