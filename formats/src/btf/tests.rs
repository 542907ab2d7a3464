//! Reader and model tests on small files written here.

use super::reader::{BtfReader, Options};
use super::source::BtfSource;
use crate::event::{Event, EventSource};
use crate::testing::TempFile;
use crate::value::{Scalar, Sink};

/// (time, target, action, note) of a row.
type RowText = (i64, String, String, String);

fn rows(path: &std::path::Path, options: Options) -> Result<Vec<RowText>, String> {
    let mut r = BtfReader::open(path, options).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while r.advance().map_err(|e| e.to_string())? {
        let row = r.row().unwrap();
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        out.push((row.ts, s(row.target()), s(row.action()), s(row.note())));
    }
    Ok(out)
}

const SEED_EXAMPLE: &str = "#version 2.1.4
#creator BTF-Writer (15.01.0.537)
#creationDate 2015-02-18T14:18:20Z
#timeScale ns
0, Sim, 0, STI, S_1MS, 0, trigger
0, S_1MS, 0, T, T_1MS_0, 0, activate
100, Core_0, 0, T, T_1MS_0, 0, start
100, T_1MS_1, 0, R, Runnable_0, 0, start
25000, T_1MS_1, 0, R, Runnable_0, 0, terminate
25100, Core_1, 0, T, T_1MS_0, 0, terminate
# | | | | | | |
# time source | | target | action
#
";

#[test]
fn the_seed_example() {
    let f = TempFile::new("seed.btf", SEED_EXAMPLE.as_bytes());
    let r = BtfReader::open(&f.0, Options::default()).unwrap();
    let h = r.header();
    assert_eq!(h.version.as_ref().unwrap().text, "2.1.4");
    assert_eq!(h.get("creator"), Some("BTF-Writer (15.01.0.537)"));
    assert_eq!(h.get("creationDate"), Some("2015-02-18T14:18:20Z"));
    let all = rows(&f.0, Options::default()).unwrap();
    assert_eq!(all.len(), 6);
    assert_eq!(
        all[5],
        (25100, "T_1MS_0".into(), "terminate".into(), "".into())
    );
}

#[test]
fn time_scales_comments_notes_and_unknown_meta() {
    let text = "# a comment before the header\n#version 2.2.0\n#timeScale us\n#inputFile x.rte\n#signalAccesses false\n\
                1,Core_0,0,C,Core_0,0,set_frequency,20000000\n# a comment among rows\n\n\
                2,Core_0,0,T,[0/0001]Runner,0,preempt,create pri:4\r\n3,SIM,-1,STI,X,0,trigger\n";
    let f = TempFile::new("scales.btf", text.as_bytes());
    let r = BtfReader::open(&f.0, Options::default()).unwrap();
    assert_eq!(r.header().get("inputFile"), Some("x.rte"));
    assert_eq!(r.header().get("signalAccesses"), Some("false"));
    assert_eq!(r.header().meta.len(), 4);
    let all = rows(&f.0, Options::default()).unwrap();
    let times: Vec<i64> = all.iter().map(|r| r.0).collect();
    assert_eq!(times, [1000, 2000, 3000]);
    assert_eq!(all[1].3, "create pri:4");
    assert_eq!(all[2].3, "");
    for (scale, ns) in [
        ("ps", 0),
        ("ns", 7),
        ("ms", 7_000_000),
        ("s", 7_000_000_000),
    ] {
        let text = format!("#version 2.1\n#timeScale {scale}\n7,A,0,T,B,0,start\n");
        let f = TempFile::new("scale.btf", text.as_bytes());
        assert_eq!(rows(&f.0, Options::default()).unwrap()[0].0, ns, "{scale}");
    }
}

/// `(line, column, message)` of the error reading `text`, and what
/// `--lenient` makes of it.
fn error_of(text: &[u8]) -> (String, Result<Vec<RowText>, String>, Vec<String>) {
    let f = TempFile::new("bad.btf", text);
    let strict = rows(&f.0, Options::default()).unwrap_err();
    let lenient = Options { lenient: true };
    let kept = rows(&f.0, lenient);
    let warnings = match BtfReader::open(&f.0, lenient) {
        Ok(mut r) => {
            while r.advance().unwrap_or(false) {}
            r.warnings()
        }
        Err(_) => Vec::new(),
    };
    let path = f.0.display().to_string();
    (
        strict.strip_prefix(&path).unwrap_or(&strict).to_string(),
        kept,
        warnings,
    )
}

#[test]
fn malformed_rows_name_line_and_column() {
    let head = "#version 2.2.0\n#timeScale ns\n0,A,0,T,B,0,activate\n";
    let cases: [(&str, &str); 5] = [
        (
            "5,A,0,T,B",
            ":4:10: truncated row: 5 fields, a BTF row has 7 or 8",
        ),
        (
            "5,A,x,T,B,0,start",
            ":4:5: source instance `x` is not an integer",
        ),
        (
            "12a,A,0,T,B,0,start",
            ":4:3: time `12a` is not a non-negative integer",
        ),
        ("5,A,0,T,,0,start", ":4:9: empty target"),
        ("5,A,0,T,B,0,", ":4:13: empty action"),
    ];
    for (bad, expected) in cases {
        let text = format!("{head}{bad}\n9,A,0,T,B,0,start\n");
        let (err, kept, warnings) = error_of(text.as_bytes());
        assert!(err.starts_with(expected), "{bad}: {err}");
        let kept = kept.unwrap();
        assert_eq!(kept.len(), 2, "{bad}: the good rows are kept");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0]
                .starts_with("1 malformed row skipped (--lenient), the first: line 4, column"),
            "{}",
            warnings[0]
        );
    }
}

#[test]
fn time_going_back_is_an_error() {
    let text = "#version 2.2.0\n#timeScale ns\n100,A,0,T,B,0,activate\n# note\n50,A,0,T,B,0,start\n120,A,0,T,B,0,start\n";
    let (err, kept, warnings) = error_of(text.as_bytes());
    assert_eq!(
        err,
        ":5:1: time 50 is earlier than the previous row's 100: BTF rows are in time order"
    );
    assert_eq!(
        kept.unwrap().iter().map(|r| r.0).collect::<Vec<_>>(),
        [100, 120]
    );
    assert!(
        warnings[0].contains("line 5, column 1: time 50 is earlier"),
        "{warnings:?}"
    );
}

#[test]
fn header_problems() {
    let (err, kept, warnings) =
        error_of(b"#version 2.2.0\n#timeScale fortnights\n1,A,0,T,B,0,start\n");
    assert_eq!(
        err,
        ":2:12: unknown time scale `fortnights` (ps, ns, us, ms or s)"
    );
    assert_eq!(kept.unwrap()[0].0, 1, "read in ns when lenient");
    assert!(
        warnings[0].starts_with("line 2: unknown time scale"),
        "{warnings:?}"
    );

    let (err, kept, _) = error_of(b"1,A,0,T,B,0,start\n2,A,0,T,B,0,resume\n");
    assert!(
        err.starts_with(": missing header: no `#version` line before the first row"),
        "{err}"
    );
    assert_eq!(kept.unwrap().len(), 2);

    let (err, _, _) = error_of(b"#version 1.0\n1,A,0,T,B,0,start\n");
    assert_eq!(
        err,
        ":1:10: BTF version 1.0 is not read (versions 2.1 and 2.2 are)"
    );

    let (err, _, _) = error_of(b"#version 2.2\n#timeScale ns\n#timeScale us\n1,A,0,T,B,0,start\n");
    assert_eq!(
        err,
        ":3:12: #timeScale us contradicts the earlier #timeScale ns"
    );

    let (err, kept, _) = error_of(
        b"#version 2.2\n#timeScale ns\n1,A,0,T,B,0,start\n#timeScale us\n2,A,0,T,B,0,resume\n",
    );
    assert_eq!(
        err,
        ":4:1: #timeScale us among the rows: the timeScale cannot change after the first row"
    );
    assert_eq!(kept.unwrap().len(), 2);

    let (err, _, _) = error_of(b"#version 2.2\n#timeScale s\n9223372037,A,0,T,B,0,start\n");
    assert_eq!(
        err,
        ":3:1: time 9223372037 s is beyond what 64-bit nanoseconds hold"
    );
}

#[test]
fn empty_and_header_only_files() {
    let f = TempFile::new("empty.btf", b"");
    let e = BtfReader::open(&f.0, Options::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.ends_with("empty.btf: empty file: no BTF header and no rows"),
        "{e}"
    );
    let f = TempFile::new("header.btf", b"#version 2.2\n#timeScale ns\n");
    assert!(rows(&f.0, Options::default()).unwrap().is_empty());
}

#[test]
fn a_repeated_header_keeps_the_first_version() {
    let f = TempFile::new(
        "twice.btf",
        b"#version 2.2.0\n#timeScale ns\n#version 2.1.0\n#timeScale ns\n0,A,0,T,B,0,activate\n",
    );
    let r = BtfReader::open(&f.0, Options::default()).unwrap();
    assert_eq!(r.header().version.as_ref().unwrap().text, "2.2.0");
    let versions: Vec<&str> = r
        .header()
        .meta
        .iter()
        .filter(|m| m.0 == "version")
        .map(|m| m.1.as_str())
        .collect();
    assert_eq!(versions, ["2.2.0", "2.1.0"]);
    assert!(r.warnings().is_empty());
}

/// After `seek(t)`, the reader yields exactly the rows a full read yields
/// from the first one at or after `t`.
fn check_seeks(path: &std::path::Path) {
    let all = rows(path, Options::default()).unwrap();
    assert!(all.len() > 1000, "{}", path.display());
    let (first, last) = (all[0].0, all[all.len() - 1].0);
    let mut points = vec![first - 1, first, last, last + 1];
    for k in [1, 7, 100, 333, 500, 901, 999] {
        let t = all[all.len() * k / 1000].0;
        points.extend([t - 1, t, t + 1]);
    }
    for t in points {
        let from = all.partition_point(|r| r.0 < t);
        let mut r = BtfReader::open(path, Options::default()).unwrap();
        r.seek(t).unwrap();
        let mut tail = Vec::new();
        while r.advance().unwrap() {
            let row = r.row().unwrap();
            let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            tail.push((row.ts, s(row.target()), s(row.action()), s(row.note())));
        }
        assert!(tail[..] == all[from..], "{}: seek to {t}", path.display());
    }
}

#[test]
fn seek_equals_the_tail_of_a_full_read() {
    // Times repeated, comments and blank lines between rows.
    let mut text = String::from("#version 2.2\n#timeScale us\n");
    for i in 0..6000 {
        if i % 97 == 0 {
            text.push_str("# a comment\n\n");
        }
        text.push_str(&format!(
            "{},Core_0,0,T,TASK_{},0,resume,n{i}\n",
            i / 3 * 10,
            i % 5
        ));
    }
    let f = TempFile::new("seek.btf", text.as_bytes());
    check_seeks(&f.0);
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces/btf");
    if !shared.is_dir() {
        eprintln!(
            "skipped the shared traces: ../shared (third-party traces) is not beside this checkout"
        );
        return;
    }
    for name in [
        "ta-simulator-20140219-123819.btf",
        "freertos-example-4cores.btf",
    ] {
        check_seeks(&shared.join(name));
    }
}

/// (time, name, cpu, thread, fields as text) of an event.
type EventText = (i64, String, Option<u32>, Option<i64>, String);

/// Every event of a source.
fn events(path: &std::path::Path) -> Vec<EventText> {
    struct Text(String);
    impl<'d> Sink<'d> for Text {
        fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
            let v = match v {
                Scalar::Signed(i) => i.to_string(),
                Scalar::Unsigned(u) => u.to_string(),
                Scalar::Float(f) => f.to_string(),
                Scalar::Str(s) => String::from_utf8_lossy(s).into_owned(),
            };
            if !self.0.is_empty() {
                self.0.push(' ');
            }
            self.0.push_str(&format!("{}={v}", name.unwrap_or("")));
        }
        fn open(&mut self, _: Option<&str>, _: bool) {}
        fn close(&mut self, _: bool) {}
    }
    let mut s = BtfSource::open(path, Options::default()).unwrap();
    let mut out = Vec::new();
    while s.advance().unwrap() {
        let e = s.event().unwrap();
        let mut t = Text(String::new());
        e.visit_fields(&mut t).unwrap();
        out.push((e.ts(), e.name().to_string(), e.cpu(), e.thread(), t.0));
    }
    out
}

#[test]
fn a_task_instance_becomes_scheduling_events() {
    let text = "#version 2.2\n#timeScale ns\n\
        0,SIM,-1,STI,TIMER,0,trigger\n\
        0,TIMER,0,T,TASK,0,activate\n\
        100,Core_1,0,T,TASK,0,start\n\
        100,TASK,0,R,FUNC,0,start\n\
        200,TASK,0,R,FUNC,0,suspend\n\
        200,Core_1,0,T,TASK,0,preempt\n\
        300,Core_2,0,T,TASK,0,resume\n\
        300,TASK,0,R,FUNC,0,resume\n\
        400,Core_2,0,T,TASK,0,wait\n\
        500,Core_2,0,T,TASK,0,release\n\
        600,Core_2,0,T,TASK,0,resume\n\
        700,TASK,0,R,FUNC,0,terminate\n\
        700,Core_2,0,T,TASK,0,terminate\n";
    let f = TempFile::new("instance.btf", text.as_bytes());
    let tid = super::names::hashed_id(b"TASK");
    let got = events(&f.0);
    let names: Vec<(i64, &str, Option<u32>)> =
        got.iter().map(|e| (e.0, e.1.as_str(), e.2)).collect();
    assert_eq!(
        names,
        [
            (0, "STI_trigger", None),
            (0, "btf:sched_wakeup_new", None),
            (0, "T_activate", None),
            (100, "btf:sched_switch", Some(1)),
            (100, "T_start", Some(1)),
            (100, "R_start", Some(1)),
            (200, "R_suspend", Some(1)),
            (200, "T_preempt", Some(1)),
            (200, "btf:sched_switch", Some(1)),
            (300, "btf:sched_switch", Some(2)),
            (300, "T_resume", Some(2)),
            (300, "R_resume", Some(2)),
            (400, "T_wait", Some(2)),
            (400, "btf:sched_switch", Some(2)),
            (500, "btf:sched_wakeup", Some(2)),
            (500, "T_release", None),
            (600, "btf:sched_switch", Some(2)),
            (600, "T_resume", Some(2)),
            (700, "R_terminate", Some(2)),
            (700, "T_terminate", Some(2)),
            (700, "btf:sched_switch", Some(2)),
        ]
    );
    assert_eq!(
        got[3].4,
        format!("prev_comm= prev_tid=0 prev_state=0 next_comm=TASK next_tid={tid}")
    );
    assert_eq!(
        got[8].4,
        format!("prev_comm=TASK prev_tid={tid} prev_state=0 next_comm= next_tid=0")
    );
    assert_eq!(
        got[13].4,
        format!("prev_comm=TASK prev_tid={tid} prev_state=1 next_comm= next_tid=0")
    );
    assert_eq!(
        got[20].4,
        format!("prev_comm=TASK prev_tid={tid} prev_state=1 next_comm= next_tid=0")
    );
    assert_eq!(
        got[2].4,
        format!("source=TIMER source_instance=0 target=TASK target_instance=0 note= tid={tid} core=-1 state=active")
    );
    assert_eq!(got[5].3, Some(tid), "a runnable row belongs to its task");
    assert!(got[5].4.ends_with("core=1 state=running"), "{}", got[5].4);
    assert!(got[6].4.ends_with("state=suspended"), "{}", got[6].4);
}

#[test]
fn freertos_spelling_and_priorities() {
    let text = "#version 2.2.0\n#timeScale us\n\
        1,Core_0,0,C,Core_0,0,set_frequency,20000000\n\
        1,Core_0,0,T,[0/0001]Runner,0,preempt,create pri:4\n\
        2,Core_0,0,T,[0/0002]IDLE0,0,preempt,create pri:0\n\
        3,[0/0000],0,T,[0/0002]IDLE0,0,resume,\n\
        4,Core_0,0,T,[0/0002]IDLE0,0,preempt,\n\
        5,[0/0002]IDLE0,0,T,[0/0001]Runner,0,resume,\n\
        6,Core_1,0,T,[1/0003]IDLE1,0,preempt,\n\
        7,[1/0003]IDLE1,0,T,[1/0002]IDLE0,0,resume,\n\
        8,Core_0,0,STI,sem,0,trigger,take 0x1\n";
    let f = TempFile::new("freertos.btf", text.as_bytes());
    let got = events(&f.0);
    let names: Vec<(i64, &str, Option<u32>, Option<i64>)> = got
        .iter()
        .map(|e| (e.0 / 1000, e.1.as_str(), e.2, e.3))
        .collect();
    assert_eq!(
        names,
        [
            (1, "C_set_frequency", Some(0), None),
            (1, "btf:sched_wakeup_new", Some(0), None),
            (1, "T_preempt", None, Some(1)),
            (2, "btf:sched_wakeup_new", Some(0), None),
            (2, "T_preempt", None, Some(2)),
            (3, "btf:sched_switch", Some(0), None),
            (3, "T_resume", Some(0), Some(2)),
            (4, "T_preempt", Some(0), Some(2)),
            (4, "btf:sched_switch", Some(0), None),
            (5, "btf:sched_switch", Some(0), None),
            (5, "T_resume", Some(0), Some(1)),
            // IDLE1 ran on core 1 before the trace began.
            (6, "T_preempt", Some(1), Some(3)),
            (6, "btf:sched_switch", Some(1), None),
            (7, "btf:sched_switch", Some(1), None),
            (7, "T_resume", Some(1), Some(2)),
            (8, "STI_trigger", Some(0), None),
        ]
    );
    assert_eq!(got[1].4, "comm=Runner tid=1 prio=95");
    assert_eq!(
        got[9].4,
        "prev_comm= prev_tid=0 prev_state=0 next_comm=Runner next_tid=1 next_prio=95"
    );
    assert!(
        got[14].4.ends_with("tid=2 core=1 state=running"),
        "IDLE0 migrated to core 1: {}",
        got[14].4
    );
}
