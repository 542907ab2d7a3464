//! The cross-check on synthetic traces: given layouts and random ones.

use super::*;
use crate::ctf::synth::{Choices, Class, Header, IntSpec, Spec, Synth, Ty};
use crate::ctf::types::ByteOrder;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sextant-crosscheck-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn a_nan_field_is_no_disagreement() {
    let nan = |bits: u64| Value::Float(f64::from_bits(bits));
    let event = |x: Value| Value::Struct(vec![("_x".into(), Value::List(vec![x]))]);
    let quiet = event(nan(0x7ff8_0000_0000_0000));
    assert!(same(Some(&quiet), Some(&quiet.clone())));
    // Another NaN, another number, a missing payload: disagreements.
    assert!(!same(
        Some(&quiet),
        Some(&event(nan(0x7ff8_0000_0000_0001)))
    ));
    assert!(!same(Some(&quiet), Some(&event(Value::Float(1.0)))));
    assert!(!same(Some(&quiet), None));
    assert!(same(None, None));
}

fn check_synth(name: &str, synth: &Synth) -> Report {
    let dir = temp_dir(name);
    synth.write_to(&dir).unwrap();
    let report = check(&dir).unwrap_or_else(|e| panic!("{name}: {e}\n{}", synth.metadata));
    check_expected(&dir, synth).unwrap_or_else(|e| panic!("{name}: {e}"));
    if std::env::var_os("SEXTANT_KEEP_SYNTH").is_none() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    report
}

/// An LTTng 2.x kernel trace as recorded on 32-bit ARM: `event_header_large`
/// (16-bit id, 32-bit-aligned compact timestamps, 64-bit-aligned extended
/// ones), 32-bit-aligned integers after strings, and file names of every
/// length, the empty one included, at every alignment.
fn arm_spec() -> Spec {
    let int = |bits: u8, align: u32| IntSpec::new(bits, align);
    let class = |id: u64, name: &str, fields: Vec<(&str, Ty)>| Class {
        id,
        name: name.into(),
        context: None,
        payload: Some(fields.into_iter().map(|(n, t)| (n.into(), t)).collect()),
    };
    let comm = Ty::Array(
        Box::new(Ty::Int(IntSpec {
            text: true,
            ..int(8, 8)
        })),
        16,
    );
    Spec {
        order: ByteOrder::Little,
        header: Header::Large {
            align: 16,
            a32: 32,
            a64: 64,
        },
        freq: 1_000_000_000,
        offset_s: 1_417_383_477,
        stream_context: None,
        classes: vec![
            class(
                1,
                "sys_open",
                vec![
                    ("_filename", Ty::Str),
                    ("_flags", Ty::Int(int(32, 32).signed())),
                    ("_mode", Ty::Int(int(16, 16))),
                ],
            ),
            class(
                2,
                "sys_stat64",
                vec![("_filename", Ty::Str), ("_statbuf", Ty::Int(int(32, 32)))],
            ),
            class(
                3,
                "exit_syscall",
                vec![("_ret", Ty::Int(int(32, 32).signed()))],
            ),
            class(
                4,
                "sched_switch",
                vec![
                    ("_prev_comm", comm.clone()),
                    ("_prev_tid", Ty::Int(int(32, 32).signed())),
                    ("_prev_state", Ty::Int(int(32, 32))),
                    ("_next_comm", comm),
                    ("_next_tid", Ty::Int(int(32, 32).signed())),
                ],
            ),
            class(
                5,
                "lttng_statedump_file_descriptor",
                vec![
                    ("_pid", Ty::Int(int(32, 32).signed())),
                    ("_fd", Ty::Int(int(32, 32).signed())),
                    ("_filename", Ty::Str),
                ],
            ),
            // A string after a 32-bit-aligned sequence with an 8-bit
            // length: when the sequence is empty, the string starts
            // after the sequence's alignment padding (zeros), and a
            // reader that does not align an empty sequence reads it as
            // "" there.
            class(
                6,
                "seq_then_filename",
                vec![
                    ("_n", Ty::Int(int(8, 8))),
                    ("_ids", Ty::Seq(Box::new(Ty::Int(int(32, 32))), "_n".into())),
                    ("_filename", Ty::Str),
                ],
            ),
            class(70_000, "extended_id", vec![("_v", Ty::Int(int(64, 64)))]),
        ],
        words: [
            "",
            "/usr/local/lib/v7l/neon/vfp/libc.so.6",
            "/lib/vfp",
            "/etc/ld.so.cache",
            "a",
            "ab",
            "abc",
        ]
        .map(String::from)
        .to_vec(),
    }
}

/// The layout of issue 12's trace (an empty `filename` where babeltrace2
/// 2.0.4 prints a path): every path must read back exactly what was
/// written, empty strings included. The classes the issue names decode
/// right even without the fixes; `seq_then_filename` shows how the old
/// code read a written path as "": an empty sequence left unaligned, the
/// string then read from the padding before it (the likely cause; the
/// real trace is not here to confirm it).
#[test]
fn arm_large_header_strings_read_back() {
    let synth = arm_spec().write(&mut Choices::Seeded(12), 2, 3, 400);
    let empty = synth
        .expected
        .iter()
        .flatten()
        .filter(|e| {
            e.payload
                .as_ref()
                .and_then(|p| p.get("filename"))
                .and_then(Value::as_str)
                == Some("")
        })
        .count();
    assert!(empty > 20, "the trace holds empty file names ({empty})");
    let report = check_synth("arm", &synth);
    assert_eq!(report.failed_streams, 0);
    assert!(report.events > 1000);
}

/// Sequences and variants at the same place in two event classes,
/// referring to different fields: each class keeps its own references
/// (they once shared them, and one class read its lengths and tags from
/// the other's fields).
#[test]
fn references_stay_in_their_class() {
    let u8t = || Ty::Int(IntSpec::new(8, 8));
    let class = |id: u64, fields: Vec<(&str, Ty)>| Class {
        id,
        name: format!("e{id}"),
        context: None,
        payload: Some(fields.into_iter().map(|(n, t)| (n.into(), t)).collect()),
    };
    let tag = |labels: &[&str]| {
        let l = labels.iter().enumerate();
        Ty::Enum(
            IntSpec::new(8, 8),
            l.map(|(i, n)| (n.to_string(), i as i64, i as i64))
                .collect(),
        )
    };
    let spec = Spec {
        order: ByteOrder::Little,
        header: Header::Plain,
        freq: 1_000_000_000,
        offset_s: 0,
        stream_context: None,
        classes: vec![
            class(
                0,
                vec![
                    ("len", u8t()),
                    ("x", u8t()),
                    ("seq", Ty::Seq(Box::new(u8t()), "len".into())),
                    ("sel", tag(&["a", "b"])),
                    ("y", u8t()),
                    (
                        "v",
                        Ty::Variant(
                            "sel".into(),
                            vec![("a".into(), u8t()), ("b".into(), Ty::Str)],
                        ),
                    ),
                ],
            ),
            class(
                1,
                vec![
                    ("x", u8t()),
                    ("len", u8t()),
                    ("seq", Ty::Seq(Box::new(u8t()), "len".into())),
                    ("y", u8t()),
                    ("sel", tag(&["c", "d"])),
                    (
                        "v",
                        Ty::Variant(
                            "sel".into(),
                            vec![("c".into(), Ty::Str), ("d".into(), u8t())],
                        ),
                    ),
                ],
            ),
        ],
        words: Vec::new(),
    };
    let synth = spec.write(&mut Choices::Seeded(1), 1, 2, 50);
    check_synth("references", &synth);
}

/// Random layouts (every CTF type, alignments from 1 to 64 bits, both byte
/// orders, the real tracers' event headers), random values: every path
/// reads back what was written.
#[test]
fn random_layouts_read_back() {
    let mut events = 0;
    for seed in 0..300 {
        let mut ch = Choices::Seeded(seed);
        let spec = Spec::random(&mut ch);
        let synth = spec.write(&mut ch, 2, 2, 30);
        let report = check_synth(&format!("random-{seed}"), &synth);
        assert_eq!(report.failed_streams, 0, "seed {seed}");
        events += report.events;
    }
    assert!(events > 10_000, "{events} events");
}

/// perf's `raw_syscalls:sys_enter` and `sys_exit` (issue 32): scalars of
/// alignment 1 and `u64 args[6]`, decoded from the flat plan; and a class
/// with values after such an array (a byte, a string), whose offsets the
/// plan must get right. Every path reads back what was written.
#[test]
fn perf_syscall_arrays_read_back() {
    let u = |bits: u8| Ty::Int(IntSpec::new(bits, 1));
    let i = |bits: u8| Ty::Int(IntSpec::new(bits, 1).signed());
    let common = || {
        vec![
            ("perf_ip", u(64)),
            ("perf_tid", i(32)),
            ("perf_pid", i(32)),
            ("perf_id", u(64)),
            ("perf_period", u(64)),
            ("common_type", u(32)),
            ("common_flags", u(32)),
            ("common_preempt_count", u(32)),
            ("common_pid", i(32)),
            ("id", i(64)),
        ]
    };
    let args = || Ty::Array(Box::new(u(64)), 6);
    let class = |id: u64, name: &str, tail: Vec<(&str, Ty)>| Class {
        id,
        name: name.into(),
        context: None,
        payload: Some(
            common()
                .into_iter()
                .chain(tail)
                .map(|(n, t)| (n.into(), t))
                .collect(),
        ),
    };
    let spec = Spec {
        order: ByteOrder::Little,
        header: Header::Plain,
        freq: 1_000_000_000,
        offset_s: 0,
        stream_context: None,
        classes: vec![
            class(3, "raw_syscalls:sys_enter", vec![("args", args())]),
            class(4, "raw_syscalls:sys_exit", vec![("ret", i(64))]),
            class(
                5,
                "args_then_more",
                vec![
                    ("args", args()),
                    ("after", u(8)),
                    ("s", Ty::Str),
                    ("z", u(3)),
                ],
            ),
        ],
        words: Vec::new(),
    };
    let synth = spec.write(&mut Choices::Seeded(32), 2, 3, 200);
    let meta = crate::ctf::metadata::parse_text(&synth.metadata).unwrap();
    let layout = crate::ctf::layout::build(&meta).unwrap();
    for id in [3, 5] {
        let class = layout.streams[0].event(id).unwrap();
        let flat = class.payload_flat.as_ref().expect("a flat plan");
        assert!(flat.decodable(), "{} is decoded from its plan", class.name);
    }
    let report = check_synth("perf-syscalls", &synth);
    assert_eq!(report.failed_streams, 0);
    assert!(report.events > 500, "{} events", report.events);
}
