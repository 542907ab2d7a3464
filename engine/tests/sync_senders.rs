//! Who sent each packet `sextant sync` matched, checked against
//! babeltrace2's reading of the sending host's trace on synctraces (../shared):
//! LTTng's `inet_sock_local_out` names no thread, so the sender is the
//! thread the last `sched_switch` on the emission's CPU put there (under
//! the name of what it executed since, if it did), when no interrupt or
//! softirq entered since is still open at the emission; else nobody is
//! named (an ACK sent from the net rx softirq).

use std::path::{Path, PathBuf};
use std::process::Command;

use sextant_engine::sync::synchronize;

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared")
        .join(rel);
    if !p.exists() {
        eprintln!("skipped: {} is absent", p.display());
    }
    p.exists().then_some(p)
}

/// One event as babeltrace2 prints it: (time in ns, name, CPU, the line).
type Line<'a> = (i64, &'a str, u32, &'a str);

/// The trace's events as babeltrace2 prints them, seconds with every ns
/// digit. The CTF source goes straight into the sink: a plain
/// `babeltrace2 TRACE` muxes, and its muxer stops where scp_src's stream
/// goes back in time.
fn babeltrace2(trace: &Path) -> String {
    let out = Command::new("babeltrace2")
        .args([
            "run",
            "--component=src:src.ctf.fs",
            &format!("--params=inputs=[\"{}\"]", trace.display()),
            "--component=sink:sink.text.pretty",
            "--params=clock-seconds=true",
            "--connect=src:sink",
        ])
        .output()
        .expect("babeltrace2 (tests/run-all.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// "[S.NNNNNNNNN] (+D) HOST NAME: { cpu_id = C }, { payload }".
fn lines(text: &str) -> Vec<Line<'_>> {
    text.lines()
        .filter_map(|l| {
            let (time, rest) = l.strip_prefix('[')?.split_once(']')?;
            let name = rest.split_whitespace().nth(2)?.trim_end_matches(':');
            let ts = time.replace('.', "").parse().unwrap();
            Some((ts, name, field(l, "cpu_id").parse().unwrap(), l))
        })
        .collect()
}

/// `VALUE` of ` NAME = VALUE` in a line.
fn field<'a>(line: &'a str, name: &str) -> &'a str {
    let key = format!(" {name} = ");
    let at = line
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {line}"))
        + key.len();
    line[at..].split([',', ' ']).next().unwrap()
}

/// The sender of the emission at `at` on `cpu` by babeltrace2's events.
fn sender(events: &[Line<'_>], cpu: u32, at: i64) -> Option<(i64, String)> {
    let before: Vec<_> = events.iter().filter(|e| e.2 == cpu && e.0 < at).collect();
    let switch = before.iter().rposition(|e| e.1 == "sched_switch")?;
    let open: i32 = before[switch..]
        .iter()
        .map(|e| match e.1 {
            "irq_handler_entry" | "softirq_entry" => 1,
            "irq_handler_exit" | "softirq_exit" => -1,
            _ => 0,
        })
        .sum();
    let line = before[switch].3;
    let tid: i64 = field(line, "next_tid").parse().unwrap();
    // Its name then: the switch's, or the program it executed since (scp
    // runs ssh as 7422), as the kernel names a thread that calls exec.
    let mut comm = field(line, "next_comm").trim_matches('"').to_string();
    for e in &before[switch..] {
        if e.1 == "sched_process_exec" && field(e.3, "pid").parse::<i64>().unwrap() == tid {
            let file = field(e.3, "filename").trim_matches('"');
            comm = file.rsplit('/').next().unwrap().chars().take(15).collect();
        }
    }
    (open == 0).then_some((tid, comm))
}

#[test]
fn synctraces_senders_are_babeltrace2s() {
    let Some(root) = shared("traces/ctf/synctraces") else {
        return;
    };
    let s = synchronize(std::slice::from_ref(&root)).unwrap();
    let traces = [root.join("scp_dest"), root.join("scp_src")];
    assert_eq!(
        s.hosts.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
        ["VM3", "VM1"]
    );
    let texts: Vec<String> = traces.iter().map(|t| babeltrace2(t)).collect();
    let events: Vec<Vec<Line<'_>>> = texts.iter().map(|t| lines(t)).collect();
    let (mut named, mut unnamed) = (0, 0);
    for m in &s.exchanged {
        let cpu = m.sent_on.expect("LTTng names the CPU");
        let emitted = events[m.sender]
            .iter()
            .any(|e| e.0 == m.sent && e.1 == "inet_sock_local_out" && e.2 == cpu);
        assert!(emitted, "{m:?}: no such emission in babeltrace2's reading");
        let want = sender(&events[m.sender], cpu, m.sent);
        let got = m
            .sent_by
            .map(|t| (t, m.sent_by_comm.clone().unwrap_or_default()));
        assert_eq!(got, want, "{m:?}");
        if got.is_some() {
            named += 1;
        } else {
            unnamed += 1;
        }
    }
    // Both kinds are in synctraces: data sent by ssh/sshd, ACKs from the
    // net rx softirq.
    assert!(named > 0 && unnamed > 0, "{named} named, {unnamed} not");
}
