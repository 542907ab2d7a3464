use std::io::Cursor;
use std::path::Path;

use super::*;
use crate::value::{Value, ValueBuilder};

/// One yielded event, owned.
#[derive(Debug)]
struct Ev {
    name: String,
    ts: i64,
    cpu: u32,
    comm: String,
    pid: i64,
    tgid: Option<i64>,
    flags: Option<String>,
    class: u64,
    line: u64,
    fields: Value,
}

impl Ev {
    fn get(&self, name: &str) -> &Value {
        self.fields
            .get(name)
            .unwrap_or_else(|| panic!("no field {name} in {self:?}"))
    }

    fn names(&self) -> Vec<&str> {
        match &self.fields {
            Value::Struct(m) => m.iter().map(|(n, _)| n.as_str()).collect(),
            _ => panic!("not a structure: {:?}", self.fields),
        }
    }
}

fn reader(text: &str) -> FtraceReader {
    FtraceReader::from_reader("test.trace", Cursor::new(text.as_bytes().to_vec()), 0)
}

fn drain(r: &mut FtraceReader) -> Result<Vec<Ev>, FtraceError> {
    let mut out = Vec::new();
    while r.advance()? {
        let e = r.event().expect("after advance");
        let mut b = ValueBuilder::default();
        e.visit_fields(&mut b).unwrap();
        out.push(Ev {
            name: e.name().to_string(),
            ts: e.ts(),
            cpu: e.cpu().unwrap(),
            comm: String::from_utf8_lossy(e.common_comm()).into_owned(),
            pid: e.common_pid(),
            tgid: e.common_tgid(),
            flags: e.flags().map(|f| String::from_utf8_lossy(f).into_owned()),
            class: e.class(),
            line: e.line_number(),
            fields: b.finish().expect("open/close"),
        });
    }
    Ok(out)
}

fn read(text: &str) -> Vec<Ev> {
    drain(&mut reader(text)).unwrap()
}

fn one(line: &str) -> Ev {
    let mut v = read(line);
    assert_eq!(v.len(), 1, "{line}");
    v.pop().unwrap()
}

fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

#[test]
fn prefix_variants() {
    // Kernel 6.x: five flag columns.
    let e = one("       record.sh-4601    [001] d..2.   245.590149: sched_wakeup_new: comm=record.sh pid=4619 prio=120 target_cpu=001");
    assert_eq!((e.comm.as_str(), e.pid, e.cpu), ("record.sh", 4601, 1));
    assert_eq!(e.flags.as_deref(), Some("d..2."));
    assert_eq!(e.ts, 245_590_149_000);
    assert_eq!(e.name, "sched_wakeup_new");
    assert_eq!(e.get("target_cpu"), &Value::Signed(1));

    // Spaces in TASK; the PID is after the last dash.
    let e = one("     Web Content-2711  [003] d... 26186.336632: sched_waking: comm=Timer pid=2745 prio=120 target_cpu=001");
    assert_eq!((e.comm.as_str(), e.pid, e.cpu), ("Web Content", 2711, 3));
    let e = one(" my-odd - task-1-2345 [002] .... 1.000001: foo: a=1");
    assert_eq!((e.comm.as_str(), e.pid), ("my-odd - task-1", 2345));
    let e = one("           <...>-4083  [004] ....   395.705673: sys_rt_sigprocmask -> 0x0");
    assert_eq!((e.comm.as_str(), e.pid), ("<...>", 4083));
    let e =
        one("          <idle>-0     [000] d... 26186.336771: tick_stop: success=1 dependency=NONE");
    assert_eq!((e.comm.as_str(), e.pid), ("<idle>", 0));
    // A `[` in TASK is not the CPU field.
    let e = one("  foo[1] x-12    [002] .... 1.5: bar: x=1");
    assert_eq!((e.comm.as_str(), e.pid, e.cpu), ("foo[1] x", 12, 2));
    // Older format without flags.
    let e = one("            bash-1234  [000]   123.456789: sched_process_exit: comm=bash pid=1234 prio=120");
    assert_eq!(
        (e.comm.as_str(), e.pid, e.cpu, e.flags),
        ("bash", 1234, 0, None)
    );
    assert_eq!(e.ts, 123_456_789_000);
    // TGID column, known and unknown.
    let e = one("            bash-1235  (   1234) [001] d... 10.000001: foo: a=1");
    assert_eq!((e.pid, e.tgid, e.cpu), (1235, Some(1234), 1));
    let e = one("           <...>-77    (-------) [001] d... 10.000001: foo: a=1");
    assert_eq!((e.comm.as_str(), e.pid, e.tgid), ("<...>", 77, None));
    // Long task names are not padded.
    let e = one("kworker/u16:2-123456 [015] ..... 99.000000: foo: a=1");
    assert_eq!(
        (e.comm.as_str(), e.pid, e.cpu),
        ("kworker/u16:2", 123456, 15)
    );
}

#[test]
fn timestamps_exact() {
    let ts = |t: &str| one(&format!("  a-1 [000] .... {t}: e: x=1")).ts;
    assert_eq!(ts("26186.336630"), 26_186_336_630_000);
    assert_eq!(ts("1234.123456789"), 1_234_123_456_789);
    // Where an f64 would round: 2^53 ns is about 104 days.
    assert_eq!(ts("9007199.254740993"), 9_007_199_254_740_993);
    assert_eq!(ts("0.000001"), 1_000);
    assert_eq!(ts("12.5"), 12_500_000_000);
    // No decimals (counter clocks): taken as is.
    assert_eq!(ts("123456789"), 123_456_789);
}

#[test]
fn syscalls_new_spelling() {
    let v = read(concat!(
        "         rt_high-4620    [000] .....   245.601006: sys_clock_nanosleep(which_clock: 1, flags: 1, rqtp: 0x7fc4b894ce60, rmtp: 0)\n",
        "         rt_high-4620    [000] .....   245.621153: sys_clock_nanosleep -> 0x0\n",
        "           xfwm4-3252  [005] ....   395.705681: sys_recvmsg -> 0xfffffffffffffff5\n",
        "          rt_low-4621    [000] .....   245.621202: sys_mq_timedreceive -> 0x4\n",
        "            sshd-3977  [003] ....   395.705844: sys_getpid()\n",
    ));
    let mut v = v.into_iter();
    let e = v.next().unwrap();
    assert_eq!(e.name, "sys_enter_clock_nanosleep");
    assert_eq!(e.names(), ["which_clock", "flags", "rqtp", "rmtp"]);
    assert_eq!(e.get("which_clock"), &Value::Unsigned(1));
    assert_eq!(e.get("rqtp"), &Value::Unsigned(0x7fc4b894ce60));
    assert_eq!(e.get("rmtp"), &Value::Unsigned(0));
    let e = v.next().unwrap();
    assert_eq!(e.name, "sys_exit_clock_nanosleep");
    assert_eq!(e.names(), ["ret"]);
    assert_eq!(e.get("ret"), &Value::Signed(0));
    // Sorted by time: 245.62 < 395.70.
    let e = v.next().unwrap();
    assert_eq!(
        (e.name.as_str(), e.get("ret")),
        ("sys_exit_mq_timedreceive", &Value::Signed(4))
    );
    let e = v.next().unwrap();
    assert_eq!(
        (e.name.as_str(), e.get("ret")),
        ("sys_exit_recvmsg", &Value::Signed(-11))
    );
    let e = v.next().unwrap();
    assert_eq!(e.name, "sys_enter_getpid");
    assert_eq!(e.fields, Value::Struct(vec![]));
}

#[test]
fn syscalls_old_spellings() {
    // Older kernels print arguments in hex without `0x`.
    let e = one("           <...>-4083  [004] ....   395.705679: sys_ioctl(fd: ff, cmd: 5410, arg: 7ffe0babe8fc)");
    assert_eq!(e.get("fd"), &Value::Unsigned(255));
    assert_eq!(e.get("cmd"), &Value::Unsigned(0x5410));
    // `sys_enter_X:` / `sys_exit_X:` (print_fmt of the syscall events).
    let mut r = reader(concat!(
        "  cat-10 [001] .... 5.000001: sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffc1000, flags: 0x00000000, mode: 0x00000000\n",
        "  cat-10 [001] .... 5.000002: sys_exit_openat: 0xfffffffffffffffe\n",
        "  cat-10 [001] .... 5.000003: sys_openat(dfd: ffffff9c, filename: 7ffc1000, flags: 0, mode: 0)\n",
        "  cat-10 [001] .... 5.000004: sys_openat -> 0x3\n",
        "  cat-10 [001] .... 5.000005: sys_exit_read: ret=-4\n",
    ));
    let v = drain(&mut r).unwrap();
    assert_eq!(v[0].name, "sys_enter_openat");
    assert_eq!(v[0].get("dfd"), &Value::Unsigned(0xffffff9c));
    assert_eq!(v[0].names(), ["dfd", "filename", "flags", "mode"]);
    assert_eq!(v[1].name, "sys_exit_openat");
    assert_eq!(v[1].get("ret"), &Value::Signed(-2));
    // Both spellings are one class.
    assert_eq!(v[2].name, "sys_enter_openat");
    assert_eq!(v[0].class, v[2].class);
    assert_eq!(v[1].class, v[3].class);
    assert_eq!(v[3].get("ret"), &Value::Signed(3));
    assert_eq!(v[4].get("ret"), &Value::Signed(-4));
    assert_eq!(r.class_name(v[0].class), Some("sys_enter_openat"));
    assert_eq!(r.class_count(), 3);
}

#[test]
fn sched_switch_comms_and_states() {
    let e = one("     Web Content-2711  [003] d... 26186.336716: sched_switch: prev_comm=Web Content prev_pid=2711 prev_prio=120 prev_state=S ==> next_comm=CompositorTileW next_pid=3490 next_prio=120");
    assert_eq!(
        e.fields,
        Value::Struct(vec![
            ("prev_comm".into(), s("Web Content")),
            ("prev_pid".into(), Value::Signed(2711)),
            ("prev_prio".into(), Value::Signed(120)),
            ("prev_state".into(), s("S")),
            ("next_comm".into(), s("CompositorTileW")),
            ("next_pid".into(), Value::Signed(3490)),
            ("next_prio".into(), Value::Signed(120)),
        ])
    );
    // Task names with `=`, spaces and digits only; the comm is always a string.
    let e = one("  a b=c-5 [000] d... 1.000000: sched_switch: prev_comm=a b=c prev_pid=5 prev_prio=120 prev_state=R+ ==> next_comm=x y=1 z next_pid=6 next_prio=19");
    assert_eq!(e.comm, "a b=c");
    assert_eq!(e.get("prev_comm"), &s("a b=c"));
    assert_eq!(e.get("prev_state"), &s("R+"));
    assert_eq!(e.get("next_comm"), &s("x y=1 z"));
    assert_eq!(e.get("next_prio"), &Value::Signed(19));
    let e = one("  123-5 [000] d... 1.000000: sched_switch: prev_comm=123 prev_pid=5 prev_prio=120 prev_state=D ==> next_comm=swapper/0 next_pid=0 next_prio=120");
    assert_eq!(e.get("prev_comm"), &s("123"));
    for st in [
        "R", "R+", "S", "D", "T", "t", "X", "Z", "P", "I", "X|Z", "D|K", "0",
    ] {
        let e = one(&format!("  a-5 [000] d... 1.000000: sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state={st} ==> next_comm=b next_pid=6 next_prio=120"));
        assert_eq!(e.get("prev_state"), &s(st));
        assert_eq!(e.names().len(), 7);
    }
    // Two comms in one event.
    let e = one("  sh-1 [000] .... 1.0: sched_process_fork: comm=my sh pid=1 child_comm=my sh 2 child_pid=2");
    assert_eq!(e.get("comm"), &s("my sh"));
    assert_eq!(e.get("pid"), &Value::Signed(1));
    assert_eq!(e.get("child_comm"), &s("my sh 2"));
    assert_eq!(e.get("child_pid"), &Value::Signed(2));
}

#[test]
fn generic_payloads() {
    let e = one("  a-1 [000] d... 1.0: sched_stat_runtime: comm=bash pid=3979 runtime=320327 [ns] vruntime=275920664 [ns]");
    assert_eq!(e.names(), ["comm", "pid", "runtime", "vruntime"]);
    assert_eq!(e.get("runtime"), &Value::Signed(320327));
    let e = one("  a-1 [000] ..s1 1.0: softirq_entry: vec=3 [action=NET_RX]");
    assert_eq!(e.names(), ["vec", "action"]);
    assert_eq!(
        (e.get("vec"), e.get("action")),
        (&Value::Signed(3), &s("NET_RX"))
    );
    // Pointers printed with %p are hex even when they look decimal.
    let e = one("  a-1 [000] d... 1.0: hrtimer_start: hrtimer=0000000012345678 function=tick_nohz_handler expires=245592000000 softexpires=245592000000 mode=ABS|PINNED|HARD was_armed=0");
    assert_eq!(e.get("hrtimer"), &Value::Unsigned(0x12345678));
    assert_eq!(e.get("function"), &s("tick_nohz_handler"));
    assert_eq!(e.get("expires"), &Value::Signed(245_592_000_000));
    assert_eq!(e.get("mode"), &s("ABS|PINNED|HARD"));
    let e = one("  a-1 [000] d... 1.0: hrtimer_cancel: hrtimer=ffff90949dd98620");
    assert_eq!(e.get("hrtimer"), &Value::Unsigned(0xffff90949dd98620));
    let e = one("  a-1 [000] d... 1.0: foo: a=0x1f b=-3 c=18446744073709551615 d=some text e=");
    assert_eq!(e.get("a"), &Value::Unsigned(0x1f));
    assert_eq!(e.get("b"), &Value::Signed(-3));
    assert_eq!(e.get("c"), &Value::Unsigned(u64::MAX));
    assert_eq!(e.get("d"), &s("some text"));
    assert_eq!(e.get("e"), &s(""));
    // Unknown shapes: one `raw` field.
    let e = one("  kworker/0:1-9 [000] .... 1.0: workqueue_execute_start: work struct 00000000abcd: function vmstat_update");
    assert_eq!(
        e.fields,
        Value::Struct(vec![(
            "raw".into(),
            s("work struct 00000000abcd: function vmstat_update")
        )])
    );
    let e = one("  a-1 [000] .... 1.0: tracing_mark_write: hello = world");
    assert_eq!(e.get("raw"), &s("hello = world"));
    let e = one("  a-1 [000] .... 1.0: empty:");
    assert_eq!(e.fields, Value::Struct(vec![]));
    // Function tracer and stack traces.
    let v = read(concat!(
        "  a-1 [000] .... 1.000001: do_sys_open.isra.0 <-__x64_sys_openat\n",
        "  a-1 [000] .... 1.000002: <stack trace>\n",
        " => __x64_sys_openat\n",
        " => do_syscall_64\n",
    ));
    assert_eq!(v[0].name, "function");
    assert_eq!(v[0].get("ip"), &s("do_sys_open.isra.0"));
    assert_eq!(v[0].get("parent_ip"), &s("__x64_sys_openat"));
    assert_eq!(v[1].name, "kernel_stack");
    let mut r = reader(" => x\n");
    assert!(drain(&mut r).unwrap().is_empty());
    assert_eq!(r.warnings().skipped_lines, 1);
}

#[test]
fn headers_and_lost_events() {
    let mut r = reader(concat!(
        "# tracer: nop\n",
        "#\n",
        "# entries-in-buffer/entries-written: 3/10   #P:2\n",
        "\n",
        "   \n",
        "  a-1 [000] .... 1.000001: e: x=1\r\n",
        "CPU:1 [LOST 120 EVENTS]\n",
        "  a-1 [001] .... 1.000002: e: x=2\n",
        "##### CPU 0 buffer started ####\n",
        "CPU:0 [LOST EVENTS]\n",
        "  a-1 [000] .... 1.000003: e: x=3\n",
    ));
    let v = drain(&mut r).unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0].line, 6);
    assert_eq!(v[0].get("x"), &Value::Signed(1));
    assert_eq!(r.tracer(), Some("nop"));
    let w = r.warnings();
    assert_eq!(w.discarded_events, 120);
    assert_eq!(w.lost_markers, 2);
    assert_eq!(w.overwritten_events, 7);
    assert_eq!(w.backwards_timestamps, 0);
    let (done, total) = r.progress();
    assert_eq!(done, total);
}

#[test]
fn out_of_order_lines() {
    let text = concat!(
        "  a-1 [000] .... 1.000010: e: n=1\n",
        "  b-2 [001] .... 1.000005: e: n=2\n",
        "  b-2 [001] .... 1.000007: e: n=3\n",
        "  a-1 [000] .... 1.000007: e: n=4\n",
        "  a-1 [000] .... 1.000020: e: n=5\n",
    );
    let mut r = reader(text);
    let v = drain(&mut r).unwrap();
    let ns: Vec<_> = v.iter().map(|e| e.get("n").as_i64().unwrap()).collect();
    // Time order, file order among equal times.
    assert_eq!(ns, [2, 3, 4, 1, 5]);
    let w = r.warnings();
    assert_eq!(w.reordered_events, 3);
    assert_eq!(w.backwards_timestamps, 0);

    // Without a window, the file order is kept and counted.
    let mut r = reader(text).with_reorder_window(0, 1);
    let v = drain(&mut r).unwrap();
    assert_eq!(v[0].get("n"), &Value::Signed(1));
    let w = r.warnings();
    assert_eq!(w.backwards_timestamps, 3);
    assert_eq!(w.first_backwards, Some((2, 1_000_005_000)));

    // Later than the window: yielded late, counted.
    let mut r = reader(concat!(
        "  a-1 [000] .... 1.000000: e: n=1\n",
        "  a-1 [000] .... 1.003000: e: n=2\n",
        "  a-1 [000] .... 1.006000: e: n=3\n",
        "  b-2 [001] .... 1.001000: e: n=4\n",
        "  b-2 [001] .... 1.006500: e: n=5\n",
    ));
    let v = drain(&mut r).unwrap();
    let ns: Vec<_> = v.iter().map(|e| e.get("n").as_i64().unwrap()).collect();
    assert_eq!(ns, [1, 2, 4, 3, 5]);
    let w = r.warnings();
    assert_eq!(w.backwards_timestamps, 1);
    assert_eq!(w.first_backwards, Some((4, 1_001_000_000)));

    // The number of held events is bounded.
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!("  a-1 [000] .... 1.{:06}: e: n={i}\n", 1000 - i));
    }
    let mut r = reader(&text).with_reorder_window(1_000_000_000, 10);
    let v = drain(&mut r).unwrap();
    assert_eq!(v.len(), 1000);
    assert!(r.slots.len() <= 11, "{} slots", r.slots.len());
    assert_eq!(r.warnings().backwards_timestamps, 990);
}

#[test]
fn malformed_lines_are_errors() {
    let mut r = reader(concat!(
        "# tracer: nop\n",
        "  a-1 [000] .... 1.000001: e: x=1\n",
        "this is not an event\n",
        "  a-1 [000] .... 1.000002: e: x=2\n",
    ));
    let err = drain(&mut r).unwrap_err().to_string();
    assert!(err.starts_with("test.trace:3: not an event line"), "{err}");
    // The read goes on after the bad line.
    let rest = drain(&mut r).unwrap();
    assert_eq!(rest.iter().map(|e| e.line).collect::<Vec<_>>(), [2, 4]);

    for (line, msg) in [
        ("  a-1 [000] .... x.y: e: x=1", "expected `SECONDS.MICROS:`"),
        (
            "  a-1 [000] .... 1.0000000001: e: x=1",
            "more than 9 decimals",
        ),
        (
            "  a-1 [000] .... 99999999999999999999.0: e: x=1",
            "out of range",
        ),
        (
            "  a-1 [000] .... 1.0: sys_read -> what",
            "bad syscall return value",
        ),
        (
            "  a-1 [000] .... 1.0: sys_read(fd: 3",
            "unterminated syscall arguments",
        ),
        ("  a-1 [000] .... 1.0: ", "no event after the timestamp"),
        ("  a-1 [000] .... 1.0: ???", "cannot parse the event"),
        ("  a [000] .... 1.0: e: x=1", "not an event line"),
        ("CPU:1 [LOST many EVENTS]", "malformed lost-events line"),
    ] {
        let text = format!("# c\n\n{line}\n");
        let err = drain(&mut reader(&text)).unwrap_err();
        let m = err.to_string();
        assert!(m.starts_with("test.trace:3: "), "{line}: {m}");
        assert!(m.contains(msg), "{line}: {m}");
        assert!(matches!(err, FtraceError::Line { line: 3, .. }));
    }
    let err = FtraceReader::open(Path::new("/nonexistent/trace"))
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("/nonexistent/trace: "), "{err}");
}

#[test]
fn event_source_trait() {
    fn count<R: EventSource>(r: &mut R) -> (usize, Vec<String>) {
        let mut n = 0;
        let mut names = Vec::new();
        while r.advance().unwrap() {
            let e = r.event().unwrap();
            let mut b = ValueBuilder::default();
            e.visit_fields(&mut b).unwrap();
            assert!(e.cpu().is_some());
            names.push(e.name().to_string());
            n += 1;
        }
        (n, names)
    }
    let mut r =
        reader("  a-1 [000] .... 1.0: sys_read(fd: 3)\n  a-1 [000] .... 1.1: sys_read -> 0x1\n");
    assert_eq!(
        count(&mut r),
        (2, vec!["sys_enter_read".into(), "sys_exit_read".into()])
    );
}

// ---------------------------------------------------------------- real traces

fn shared() -> Option<std::path::PathBuf> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"));
    if p.is_dir() {
        Some(p.to_path_buf())
    } else {
        eprintln!("skipped: {} is absent", p.display());
        None
    }
}

/// Counts computed from the text with plain string operations, without the
/// reader's parser.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    events: usize,
    sched_switch: usize,
    sys_enter: usize,
    sys_exit: usize,
    negative_rets: usize,
    first_ts: i64,
    last_ts: i64,
}

fn count_text(text: &str) -> Counts {
    let mut c = Counts::default();
    let mut ts = Vec::new();
    for l in text.lines() {
        if l.trim().is_empty() || l.starts_with('#') || l.starts_with("CPU:") {
            continue;
        }
        c.events += 1;
        if l.contains(": sched_switch: ") {
            c.sched_switch += 1;
        }
        let after = l.split_once("]").unwrap().1;
        let mut words = after.split_whitespace();
        let mut t = words.next().unwrap();
        if !t.ends_with(':') {
            t = words.next().unwrap();
        }
        let (sec, frac) = t.trim_end_matches(':').split_once('.').unwrap();
        ts.push(sec.parse::<i64>().unwrap() * 1_000_000_000 + frac.parse::<i64>().unwrap() * 1000);
        let ev = words.next().unwrap();
        if ev.starts_with("sys_") && ev.contains('(') {
            c.sys_enter += 1;
        }
        if ev.starts_with("sys_") && words.next() == Some("->") {
            c.sys_exit += 1;
            if words.next().unwrap().starts_with("0xffffffff") {
                c.negative_rets += 1;
            }
        }
    }
    ts.sort();
    c.first_ts = ts[0];
    c.last_ts = *ts.last().unwrap();
    c
}

/// Reads a real trace and checks it against `count_text`; returns the events.
fn check_real(path: &Path) -> (Vec<Ev>, FtraceReader) {
    let text = std::fs::read_to_string(path).unwrap();
    let want = count_text(&text);
    let mut r = FtraceReader::open(path).unwrap();
    let v = drain(&mut r).unwrap();
    let mut got = Counts {
        events: v.len(),
        first_ts: v[0].ts,
        last_ts: v.last().unwrap().ts,
        ..Counts::default()
    };
    for e in &v {
        match e.name.as_str() {
            "sched_switch" => got.sched_switch += 1,
            n if n.starts_with("sys_enter_") => got.sys_enter += 1,
            n if n.starts_with("sys_exit_") => {
                got.sys_exit += 1;
                if e.get("ret").as_i64().unwrap() < 0 {
                    got.negative_rets += 1;
                }
            }
            _ => {}
        }
        // Every payload of these traces has a known shape.
        assert!(e.fields.get("raw").is_none(), "{e:?}");
        if e.name == "sched_switch" {
            assert_eq!(
                e.names(),
                [
                    "prev_comm",
                    "prev_pid",
                    "prev_prio",
                    "prev_state",
                    "next_comm",
                    "next_pid",
                    "next_prio"
                ]
            );
            for f in ["prev_pid", "prev_prio", "next_pid", "next_prio"] {
                assert!(matches!(e.get(f), Value::Signed(_)), "{e:?}");
            }
            assert!(matches!(e.get("prev_state"), Value::Str(_)));
        }
        if e.name.starts_with("sys_enter_") {
            if let Value::Struct(m) = &e.fields {
                assert!(
                    m.iter().all(|(_, v)| matches!(v, Value::Unsigned(_))),
                    "{e:?}"
                );
            }
        }
    }
    assert_eq!(got, want, "{}", path.display());
    assert!(v.windows(2).all(|w| w[0].ts <= w[1].ts));
    let w = r.warnings();
    assert_eq!(w.backwards_timestamps, 0);
    assert_eq!(r.progress(), (text.len() as u64, text.len() as u64));
    (v, r)
}

#[test]
fn real_trace_critical_path() {
    let Some(shared) = shared() else { return };
    let (v, r) = check_real(&shared.join("traces/ftrace/trace-critical-path"));
    assert_eq!(r.tracer(), Some("nop"));
    assert_eq!(v.len(), 146);
    let e = &v[0];
    assert_eq!(
        (e.name.as_str(), e.comm.as_str(), e.pid, e.cpu),
        ("irq_handler_entry", "Compositor", 3487, 0)
    );
    assert_eq!(e.ts, 26_186_336_630_000);
    assert_eq!(e.get("name"), &s("radeon"));
    let e = v
        .iter()
        .find(|e| e.comm == "Web Content" && e.name == "sched_switch")
        .unwrap();
    assert_eq!(e.pid, 2711);
    assert_eq!(e.get("prev_comm"), &s("Web Content"));
    assert_eq!(e.get("prev_state"), &s("S"));
    assert_eq!(e.get("next_pid"), &Value::Signed(3490));
}

#[test]
fn real_ftrace_syscalls() {
    let Some(shared) = shared() else { return };
    let (v, r) = check_real(&shared.join("traces/ftrace/ftrace_syscalls.txt"));
    assert_eq!(r.tracer(), None);
    // Line 2: `sys_recvmsg -> 0x24`; line 5: `sys_recvmsg -> 0xfffffffffffffff5`.
    let ret = |line| {
        v.iter()
            .find(|e| e.line == line)
            .unwrap()
            .get("ret")
            .clone()
    };
    assert_eq!(ret(2), Value::Signed(0x24));
    assert_eq!(ret(5), Value::Signed(-11));
    let e = v.iter().find(|e| e.name == "sys_enter_wait4").unwrap();
    assert_eq!(e.get("upid"), &Value::Unsigned(0xffff_ffff));
    assert_eq!(e.get("options"), &Value::Unsigned(10));
    let e = v.iter().find(|e| e.name == "softirq_entry").unwrap();
    assert_eq!(e.get("action"), &s("NET_RX"));
}

#[test]
fn real_scenario_a() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/scenario-a/trace.txt"
    ));
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return;
    }
    let (v, r) = check_real(path);
    // The header's own count.
    assert_eq!(v.len(), 3447);
    assert_eq!(r.warnings().overwritten_events, 0);
    // Syscalls of kernel 6: decimal below 10, 0x-hex above.
    let e = v
        .iter()
        .find(|e| e.name == "sys_enter_mq_timedreceive")
        .unwrap();
    assert_eq!(e.get("msg_len"), &Value::Unsigned(16));
    assert_eq!(e.get("mqdes"), &Value::Unsigned(3));
    // Each thread's syscalls pair up: enter, then exit, of the same call.
    let mut open: std::collections::HashMap<i64, String> = Default::default();
    let mut pairs = 0;
    for e in &v {
        if let Some(call) = e.name.strip_prefix("sys_enter_") {
            assert!(open.insert(e.pid, call.to_string()).is_none(), "{e:?}");
        } else if let Some(call) = e.name.strip_prefix("sys_exit_") {
            if let Some(c) = open.remove(&e.pid) {
                assert_eq!(c, call, "{e:?}");
                pairs += 1;
            }
        }
    }
    assert!(pairs > 500, "{pairs}");
}
