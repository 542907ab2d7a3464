//! A trace.dat file from the input, read as `sextant dump` and `analyze`
//! read it: the metadata (v6 sequence or v7 sections, compressed or not),
//! every CPU's pages merged by time (`tracedat::TracedatReader`), every
//! event's fields walked into values, one pass of the kernel model with
//! thread states, then a seek to the middle event's time and a read from
//! there. Any input must end in `Ok` or `Err`, quickly, never a panic.
//!
//! The input is written to a file under /dev/shm: the reader maps files.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::analysis::states::ThreadStates;
use sextant_engine::event::{Event, EventSource};
use sextant_engine::run::{Pass, Work};
use sextant_engine::tracedat::{looks_like_tracedat, TracedatReader};
use sextant_engine::value::ValueBuilder;

mod common;

/// Every event to the end (or the first error); the times seen.
fn drain(r: &mut TracedatReader) -> Vec<i64> {
    let mut times = Vec::new();
    while let Ok(true) = r.advance() {
        let ev = r.event().expect("advance returned true");
        times.push(ev.ts());
        let _ = (ev.name(), ev.cpu(), ev.thread(), ev.class());
        let mut v = ValueBuilder::default();
        let _ = ev.visit_fields(&mut v);
        let _ = v.finish();
    }
    let _ = (EventSource::warnings(r), r.progress());
    times
}

fuzz_target!(|data: &[u8]| {
    let _ = looks_like_tracedat(data);
    let dir = common::trace_dir("tracedat");
    std::fs::create_dir_all(&dir).expect("creating the trace directory");
    let path = dir.join("trace.dat");
    std::fs::write(&path, data).expect("writing the trace");
    if let Ok(mut r) = TracedatReader::open(&path) {
        let times = drain(&mut r);
        if let Ok(mut source) = TracedatReader::open(&path) {
            let mut states = ThreadStates::default();
            let _ = Pass::new(&mut [&mut states]).read_source(&mut source, &Work::none());
            let _ = states.into_rows();
        }
        if let Some(&t) = times.get(times.len() / 2) {
            if r.seek(t).is_ok() {
                let tail = drain(&mut r);
                assert!(
                    tail.first().is_none_or(|&first| first >= t),
                    "after seek({t}), an event at {:?}",
                    tail.first()
                );
            }
        }
    }
    let _ = std::fs::remove_file(&path);
});
