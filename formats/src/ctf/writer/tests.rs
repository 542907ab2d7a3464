use super::*;
use crate::ctf::CtfReader;
use crate::value::{Value, ValueBuilder};

fn spec() -> TraceSpec {
    TraceSpec {
        clock: Clock {
            name: "monotonic".into(),
            description: "test clock".into(),
            freq: 1_000_000_000,
            offset_s: 0,
        },
        env: vec![
            ("domain".into(), EnvValue::Text("kernel".into())),
            ("tracer_major".into(), EnvValue::Int(1)),
        ],
        source_fields: vec!["cpu_id".into()],
        event_context: vec![("tid".into(), FieldType::int(32, true))],
        classes: vec![
            EventClass {
                name: "sched_switch".into(),
                fields: vec![
                    ("prev_comm".into(), FieldType::String),
                    ("prev_tid".into(), FieldType::int(32, true)),
                    ("prev_state".into(), FieldType::int(64, true)),
                    ("flags".into(), FieldType::hex(8)),
                ],
            },
            EventClass {
                name: "blob".into(),
                fields: vec![("payload".into(), FieldType::Bytes)],
            },
        ],
    }
}

/// A directory for a test's trace, absent (the writer makes it).
pub(crate) fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sextant-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Every event read back by the CTF reader, and the discarded count.
/// (name, ts, cpu, payload) per event.
pub(crate) type ReadEvent = (String, i64, Option<u32>, Value);

pub(crate) fn read_back(dir: &Path) -> (Vec<ReadEvent>, u64) {
    let mut r = CtfReader::open(dir).unwrap();
    let mut out = Vec::new();
    while r.advance().unwrap() {
        let ev = r.event().unwrap();
        let mut v = ValueBuilder::default();
        ev.visit_payload(&mut v).unwrap();
        out.push((
            ev.name().to_string(),
            ev.ts(),
            ev.cpu(),
            v.finish().unwrap(),
        ));
    }
    (out, r.warnings().discarded_events)
}

#[test]
fn events_packets_and_losses_read_back() {
    let dir = tmp("basic");
    let mut w = CtfWriter::create(&dir, spec()).unwrap();
    let s0 = w.add_stream("cpu0", &[0]).unwrap();
    let s1 = w.add_stream("cpu1", &[1]).unwrap();
    let tid = [FieldValue::Int(42)];
    // Enough events on cpu0 to fill several packets.
    let n = 20_000u64;
    for i in 0..n {
        w.event(
            s0,
            0,
            1000 + i * 10,
            &tid,
            &[
                FieldValue::Str(b"rt_high"),
                FieldValue::Int(-(i as i64)),
                FieldValue::Int(1),
                FieldValue::UInt(0xff),
            ],
        )
        .unwrap();
        if i == 5000 {
            w.discarded(s0, 7).unwrap();
        }
    }
    w.event(s1, 1, 1005, &tid, &[FieldValue::Bytes(&[1, 2, 3])])
        .unwrap();
    w.discarded(s1, 3).unwrap();
    let sum = w.finish().unwrap();
    assert_eq!(sum.events, n + 1);
    assert_eq!(sum.discarded, 10);
    assert!(sum.packets > 3, "{} packets", sum.packets);

    let (events, discarded) = read_back(&dir);
    assert_eq!(events.len() as u64, n + 1);
    assert_eq!(discarded, 10);
    // Time order across the two streams: the blob sits between the first two switches.
    assert_eq!(events[0].1, 1000);
    assert_eq!(
        (events[1].0.as_str(), events[1].1, events[1].2),
        ("blob", 1005, Some(1))
    );
    let payload = &events[1].3;
    assert_eq!(
        payload.get("payload"),
        Some(&Value::List(vec![
            Value::Unsigned(1),
            Value::Unsigned(2),
            Value::Unsigned(3)
        ]))
    );
    let last = &events.last().unwrap().3;
    assert_eq!(
        last.get("prev_comm").and_then(Value::as_str),
        Some("rt_high")
    );
    assert_eq!(
        last.get("prev_tid").and_then(Value::as_i64),
        Some(-(n as i64 - 1))
    );
    assert_eq!(last.get("flags").and_then(Value::as_i64), Some(0xff));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wrong_values_are_refused_not_written() {
    let dir = tmp("mismatch");
    let mut w = CtfWriter::create(&dir, spec()).unwrap();
    let s = w.add_stream("cpu0", &[0]).unwrap();
    let tid = [FieldValue::Int(1)];
    assert!(w.event(s, 1, 5, &tid, &[FieldValue::Int(3)]).is_err());
    assert!(w.event(s, 7, 5, &tid, &[]).is_err());
    w.event(s, 1, 5, &tid, &[FieldValue::Bytes(b"ok")]).unwrap();
    // Time going backwards within a stream.
    assert!(w.event(s, 1, 4, &tid, &[FieldValue::Bytes(b"")]).is_err());
    assert!(w.add_stream("metadata", &[0]).is_err());
    assert!(w.add_stream("cpu1", &[]).is_err());
    w.finish().unwrap();
    let (events, _) = read_back(&dir);
    assert_eq!(events.len(), 1);
    // A second writer refuses a directory that holds a trace.
    assert!(CtfWriter::create(&dir, spec()).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A timestamp earlier than the one before it in its stream (patched into
/// the file: the writer refuses to write one) is read, counted and located.
#[test]
fn time_going_backwards_is_counted_and_located() {
    let dir = tmp("backwards");
    let mut w = CtfWriter::create(&dir, spec()).unwrap();
    let s = w.add_stream("cpu0", &[0]).unwrap();
    let tid = [FieldValue::Int(1)];
    let (first, second, third) = (
        0x0011_2233_4455_u64,
        0x0011_2233_4466_u64,
        0x0011_2233_4477_u64,
    );
    for ts in [first, second, third] {
        w.event(s, 1, ts, &tid, &[FieldValue::Bytes(b"x")]).unwrap();
    }
    w.finish().unwrap();
    let path = dir.join("cpu0");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(8)
        .rposition(|b| b == second.to_le_bytes())
        .expect("the second event's timestamp in the stream file");
    bytes[at..at + 8].copy_from_slice(&(first - 1).to_le_bytes());
    std::fs::write(&path, bytes).unwrap();

    let mut r = CtfReader::open(&dir).unwrap();
    let mut seen = Vec::new();
    while r.advance().unwrap() {
        seen.push(r.event().unwrap().ts());
    }
    let ns = |t: u64| t as i64;
    assert_eq!(seen, vec![ns(first), ns(first - 1), ns(third)]);
    let warnings = r.warnings();
    assert_eq!(warnings.backwards_timestamps, 1);
    assert_eq!(warnings.first_backwards, Some((path, ns(first - 1))));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same events written as CTF 1.8 and as CTF 2 read back the same, and
/// the CTF 2 metadata is JSON fragments; a CTF 1.8 trace rewritten as CTF 2
/// reads back event for event too.
#[test]
fn ctf2_writes_and_rewrites_read_back_the_same() {
    let write = |name: &str, version| {
        let dir = tmp(name);
        let mut w = CtfWriter::create_versioned(&dir, spec(), version).unwrap();
        let s = w.add_stream("cpu0", &[3]).unwrap();
        for i in 0..100u64 {
            let tid = [FieldValue::Int(i as i64)];
            w.event(
                s,
                0,
                10 + i,
                &tid,
                &[
                    FieldValue::Str(b"x"),
                    FieldValue::Int(-1),
                    FieldValue::Int(2),
                    FieldValue::UInt(0x7f),
                ],
            )
            .unwrap();
            w.event(s, 1, 10 + i, &tid, &[FieldValue::Bytes(&[i as u8; 3])])
                .unwrap();
        }
        w.discarded(s, 4).unwrap();
        w.finish().unwrap();
        dir
    };
    let v1 = write("v18", CtfVersion::V1_8);
    let v2 = write("v2", CtfVersion::V2);
    let meta = std::fs::read(v2.join("metadata")).unwrap();
    assert_eq!(meta[0], crate::ctf::json_metadata::RS);
    let expected = read_back(&v1);
    assert_eq!(expected.0.len(), 200);
    assert_eq!(read_back(&v2), expected);

    let rewritten = tmp("rewritten");
    assert_eq!(rewrite_as_ctf2(&v1, &rewritten).unwrap(), 1);
    assert_eq!(read_back(&rewritten), expected);
    // A second rewrite refuses the directory that now holds a trace.
    assert!(rewrite_as_ctf2(&v1, &rewritten).is_err());
    for d in [v1, v2, rewritten] {
        std::fs::remove_dir_all(&d).unwrap();
    }
}
