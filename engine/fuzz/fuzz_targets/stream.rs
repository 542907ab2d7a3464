//! A trace directory from the input, read to the end: every event's header,
//! context and payload decoded. Any input must give events and then `Ok` or
//! `Err`, quickly; never a panic.
//!
//! Input: `METADATA SPLIT STREAM`, or just `STREAM` (then the metadata is
//! `small.tsdl`). The stream is written as the trace's one stream file under
//! /dev/shm, because the reader works on files, and removed once opened.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sextant_engine::ctf::CtfReader;
use sextant_engine::value::ValueBuilder;

const SMALL: &[u8] = include_bytes!("small.tsdl");
/// Between the metadata and the stream file (seed.py writes the same).
const SPLIT: &[u8] = b"\n%%stream%%\n";

fn trace_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        base.join(format!("sextant-fuzz-stream-{}", std::process::id()))
    })
}

fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.windows(SPLIT.len()).position(|w| w == SPLIT) {
        Some(i) => (&data[..i], &data[i + SPLIT.len()..]),
        None => (SMALL, data),
    }
}

fuzz_target!(|data: &[u8]| {
    let (metadata, stream) = split(data);
    let dir = trace_dir();
    std::fs::create_dir_all(dir).expect("creating the trace directory");
    std::fs::write(dir.join("metadata"), metadata).expect("writing metadata");
    std::fs::write(dir.join("stream_0"), stream).expect("writing the stream file");
    let reader = CtfReader::open(dir);
    // The reader holds the stream file open: the directory can go now, so that
    // none is left behind by the fuzzer's worker processes.
    let _ = std::fs::remove_dir_all(dir);
    let Ok(mut reader) = reader else {
        return;
    };
    while let Ok(true) = reader.advance() {
        let ev = reader.event().expect("advance returned true");
        let _ = (ev.name(), ev.ts(), ev.cycles(), ev.cpu(), ev.trace());
        let _ = ev.payload_type();
        let mut v = ValueBuilder::default();
        let _ = ev.visit_context(&mut v);
        let _ = v.finish();
        let mut v = ValueBuilder::default();
        let _ = ev.visit_payload(&mut v);
        let _ = v.finish();
    }
    let _ = reader.warnings();
    let _ = reader.progress();
});
