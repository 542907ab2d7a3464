//! Synthetic CTF traces the reader's tests write with `CtfWriter` in a temp
//! dir: one kernel-domain clock in ns, `cpu_id` in each packet's context,
//! and the event classes a test asks for.

#![allow(dead_code)] // each test file uses its own subset

use std::path::PathBuf;

use sextant_engine::ctf::writer::{
    Clock, CtfWriter, EnvValue, EventClass, FieldType, FieldValue, TraceSpec,
};

/// A trace of `classes` on a 1 GHz clock, in the kernel domain.
pub fn spec(classes: Vec<EventClass>) -> TraceSpec {
    TraceSpec {
        clock: Clock {
            name: "monotonic".into(),
            description: "test clock".into(),
            freq: 1_000_000_000,
            offset_s: 0,
        },
        env: vec![("domain".into(), EnvValue::Text("kernel".into()))],
        source_fields: vec!["cpu_id".into()],
        event_context: vec![],
        classes,
    }
}

/// Event `i` of stream `cpu` in [`ticks`] is at `1000 + 10 i + cpu`: every
/// time distinct.
pub fn ts(cpu: u64, i: u64) -> i64 {
    (1_000 + i * 10 + cpu) as i64
}

/// A fresh directory under the temp dir for test `test`'s trace `name`.
pub fn fresh_dir(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sextant-{test}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Two streams, `cpu0` and `cpu1`, of `events` `tick` events each (a
/// `u64` field `n` = the event's rank in its stream, at [`ts`]), in packets
/// of 256 KiB: at least 8 packets.
pub fn ticks(test: &str, name: &str, events: u64) -> PathBuf {
    let dir = fresh_dir(test, name);
    let tick = EventClass {
        name: "tick".into(),
        fields: vec![("n".into(), FieldType::int(64, false))],
    };
    let mut w = CtfWriter::create(&dir, spec(vec![tick])).unwrap();
    let streams = [
        w.add_stream("cpu0", &[0]).unwrap(),
        w.add_stream("cpu1", &[1]).unwrap(),
    ];
    for i in 0..events {
        for (cpu, s) in streams.iter().enumerate() {
            let t = ts(cpu as u64, i) as u64;
            w.event(*s, 0, t, &[], &[FieldValue::UInt(i)]).unwrap();
        }
    }
    let summary = w.finish().unwrap();
    assert!(summary.packets >= 8, "{} packets", summary.packets);
    dir
}
