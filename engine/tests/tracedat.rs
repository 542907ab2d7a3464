//! The trace.dat reader against its oracle, `trace-cmd report`, on the
//! recordings of fixtures/tracedat-a: every event's time, CPU, name, thread
//! and field values; and the kernel model on a trace.dat against the same
//! events as ftrace text (`trace-cmd report` without plugins prints the
//! kernel's own text). Skipped, saying so, when trace-cmd is not installed
//! (tests/run-all.sh installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;
use sextant_engine::analysis::states::ThreadStates;
use sextant_engine::event::Event;
use sextant_engine::run::{Pass, Work};
use sextant_engine::tracedat::TracedatReader;
use sextant_engine::value::{Value, ValueBuilder};

const FIXTURES: [&str; 3] = ["trace-v6.dat", "trace-v7.dat", "trace-v7-zstd.dat"];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/tracedat-a")
        .join(name)
}

/// `trace-cmd report ARGS -i FILE`, or `None` when trace-cmd is missing.
fn report(file: &Path, args: &[&str]) -> Option<String> {
    let out = match Command::new("trace-cmd")
        .arg("report")
        .args(args)
        .arg("-i")
        .arg(file)
        .output()
    {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("trace-cmd is not installed: skipping the comparison with trace-cmd report");
            return None;
        }
        Err(e) => panic!("trace-cmd report: {e}"),
    };
    assert!(
        out.status.success(),
        "trace-cmd report {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("report is text"))
}

/// One event line of `trace-cmd report -R -t`.
struct Line<'a> {
    pid: i64,
    cpu: u32,
    ts: i64,
    name: &'a str,
    payload: &'a str,
}

fn parse_lines(text: &str) -> Vec<Line<'_>> {
    let re = Regex::new(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\w+):\s*(.*)$").unwrap();
    text.lines()
        .filter(|l| !l.starts_with("cpus=") && !l.trim().is_empty())
        .map(|l| {
            let c = re
                .captures(l)
                .unwrap_or_else(|| panic!("report line `{l}`"));
            let n = |i: usize| c.get(i).unwrap().as_str();
            Line {
                pid: n(2).parse().unwrap(),
                cpu: n(3).parse().unwrap(),
                ts: n(4).parse::<i64>().unwrap() * 1_000_000_000 + n(5).parse::<i64>().unwrap(),
                name: c.get(6).unwrap().as_str(),
                payload: c.get(7).unwrap().as_str(),
            }
        })
        .collect()
}

/// The report's `name=value` payload split by the field names we expect,
/// in order (values may hold spaces: task names do).
fn split_fields<'a>(payload: &'a str, names: &[String]) -> Option<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut rest = payload.strip_prefix(&format!("{}=", names.first()?))?;
    for next in &names[1..] {
        let at = rest.find(&format!(" {next}="))?;
        out.push(&rest[..at]);
        rest = &rest[at + next.len() + 2..];
    }
    out.push(rest.trim_end());
    Some(out)
}

/// Whether a value printed by trace-cmd is the one decoded.
fn same(printed: &str, decoded: &Value) -> bool {
    let number = |s: &str| -> Option<u64> {
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => s.trim().parse::<i64>().ok().map(|v| v as u64),
        }
    };
    match decoded {
        Value::Str(s) => printed == s,
        Value::Signed(v) => number(printed).is_some_and(|p| {
            // `%x` of a negative int prints its 32 bits.
            p == *v as u64 || (p >> 32 == 0 && p == (*v as u64) & 0xffff_ffff)
        }),
        Value::Unsigned(v) => number(printed) == Some(*v),
        _ => false,
    }
}

#[test]
fn every_event_and_field_matches_trace_cmd_report() {
    for name in FIXTURES {
        let path = fixture(name);
        let Some(text) = report(&path, &["-R", "-t"]) else {
            return;
        };
        let lines = parse_lines(&text);
        let mut r = TracedatReader::open(&path).unwrap();
        let mut n = 0;
        let mut fields = 0;
        while r.advance().unwrap() {
            let e = r.event().unwrap();
            let l = lines.get(n).unwrap_or_else(|| {
                panic!(
                    "{name}: more events than trace-cmd report's {}",
                    lines.len()
                )
            });
            let at = format!("{name}: event {n} ({} at {})", l.name, l.ts);
            assert_eq!(
                (e.ts(), e.cpu(), e.name(), e.thread()),
                (l.ts, Some(l.cpu), l.name, Some(l.pid)),
                "{at}"
            );
            let mut b = ValueBuilder::default();
            e.visit_fields(&mut b).unwrap();
            let Some(Value::Struct(members)) = b.finish() else {
                panic!("{at}: no payload")
            };
            let names: Vec<String> = members.iter().map(|(n, _)| n.clone()).collect();
            if names.is_empty() {
                assert_eq!(l.payload, "", "{at}");
            } else {
                let printed = split_fields(l.payload, &names)
                    .unwrap_or_else(|| panic!("{at}: fields {names:?} in `{}`", l.payload));
                for ((field, value), p) in members.iter().zip(printed) {
                    assert!(
                        same(p, value),
                        "{at}: {field}: trace-cmd `{p}`, sextant {value:?}"
                    );
                    fields += 1;
                }
            }
            n += 1;
        }
        assert_eq!(n, lines.len(), "{name}: events");
        assert!(n > 1000, "{name}: {n} events");
        eprintln!("{name}: {n} events, {fields} field values as trace-cmd report prints them");
    }
}

#[test]
fn thread_states_from_trace_dat_equal_those_from_its_text() {
    for name in FIXTURES {
        let path = fixture(name);
        // Without plugins, trace-cmd prints each event with the kernel's
        // own format: the text /sys/kernel/tracing/trace would have shown.
        let Some(text) = report(&path, &["-N", "-t"]) else {
            return;
        };
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with("cpus="))
            .map(|l| format!("{l}\n"))
            .collect();
        let dir = std::env::temp_dir().join(format!(
            "sextant-tracedat-text-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let txt = dir.join("trace.txt");
        std::fs::write(&txt, body).unwrap();

        let rows = |p: &Path| {
            let mut states = ThreadStates::default();
            let ran = Pass::new(&mut [&mut states])
                .read(p, &Work::none())
                .unwrap();
            (ran.summary.events, states.into_rows())
        };
        let (n_dat, from_dat) = rows(&path);
        let (n_txt, from_txt) = rows(&txt);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(n_dat, n_txt, "{name}: events");
        assert!(from_dat.len() > 5, "{name}: {} threads", from_dat.len());
        let intervals: usize = from_dat.iter().map(|r| r.intervals.len()).sum();
        assert_eq!(from_dat.len(), from_txt.len(), "{name}: threads");
        for (a, b) in from_dat.iter().zip(&from_txt) {
            assert_eq!(a, b, "{name}: thread {}", a.tid);
        }
        eprintln!(
            "{name}: {} threads, {intervals} state intervals, the same from trace.dat and from its text",
            from_dat.len()
        );
    }
}

#[test]
fn the_periodic_thread_wakes_as_its_ground_truth_says() {
    // The workload's own record of when it woke (CLOCK_MONOTONIC, the trace
    // clock `mono`): one sys_exit_clock_nanosleep of its thread per period,
    // each shortly before the wake the workload read from the clock.
    for name in FIXTURES {
        let stem = name.trim_end_matches(".dat");
        let truth = std::fs::read_to_string(fixture(&format!("ground-truth-{stem}.tsv"))).unwrap();
        let rows: Vec<(i64, i64)> = truth
            .lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (c[1].parse().unwrap(), c[2].parse().unwrap())
            })
            .collect();
        let tid = rows[0].0;
        let mut exits = Vec::new();
        let mut r = TracedatReader::open(&fixture(name)).unwrap();
        while r.advance().unwrap() {
            let e = r.event().unwrap();
            if e.name() == "sys_exit_clock_nanosleep" && e.thread() == Some(tid) {
                exits.push(e.ts());
            }
        }
        assert_eq!(
            exits.len(),
            rows.len(),
            "{name}: one nanosleep exit per period"
        );
        for (exit, (_, wake)) in exits.iter().zip(&rows) {
            // The syscall returns, then the workload reads the clock.
            assert!(
                *exit <= *wake && wake - exit < 1_000_000,
                "{name}: exit {exit}, wake {wake}"
            );
        }
    }
}

#[test]
fn analyze_reads_a_trace_dat() {
    let mut states = ThreadStates::default();
    let ran = Pass::new(&mut [&mut states])
        .read(&fixture("trace-v7-zstd.dat"), &Work::none())
        .unwrap();
    assert!(ran.summary.events > 1000);
    assert!(ran.warnings.is_empty(), "{:?}", ran.warnings);
    assert!(states.into_rows().iter().any(|r| r.comm == "td_periodic"));
}
