//! A BTF file from the input, read as `sextant dump` and `sextant analyze`
//! read it, strict and `--lenient`: the header and every row through the
//! reader (`btf::BtfReader`), the task model and its derived scheduling
//! events (`btf::BtfSource`), every event's fields written as `dump`'s JSON
//! lines and walked into values, then one pass of the kernel model with
//! the BTF analyses (the lanes of the BTF outputs, the `task-instance`
//! preset, thread states), then a seek to the middle row's time and a read
//! from there. Any input must end in `Ok` or `Err`, quickly, never a panic.
//!
//! The input is written to a file under /dev/shm: the reader maps files.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::analysis::executions::{ExecutionAnalysis, Target};
use sextant_engine::analysis::model::{Preset, ThreadFilter};
use sextant_engine::analysis::states::ThreadStates;
use sextant_engine::analysis::btf::lanes::BtfLanes;
use sextant_engine::btf::{looks_like_btf, BtfSource, Options};
use sextant_engine::event::{Event, EventSource};
use sextant_engine::jsonl::JsonSink;
use sextant_engine::run::{Pass, Work};
use sextant_engine::value::ValueBuilder;

mod common;

/// Every event to the end (or the first error), as `dump` writes them;
/// the times seen.
fn drain(source: &mut BtfSource) -> Vec<i64> {
    let mut times = Vec::new();
    let mut line = Vec::new();
    while let Ok(true) = source.advance() {
        let ev = source.event().expect("advance returned true");
        times.push(ev.ts());
        let _ = (ev.name(), ev.cpu(), ev.thread(), ev.class());
        line.clear();
        let _ = ev.visit_fields(&mut JsonSink::new(&mut line));
        let mut v = ValueBuilder::default();
        let _ = ev.visit_fields(&mut v);
        let _ = v.finish();
    }
    let _ = (source.warnings(), source.progress());
    times
}

fuzz_target!(|data: &[u8]| {
    let _ = looks_like_btf(&data[..data.len().min(4096)]);
    let dir = common::trace_dir("btf");
    std::fs::create_dir_all(&dir).expect("creating the trace directory");
    let path = dir.join("trace.btf");
    std::fs::write(&path, data).expect("writing the trace");
    for lenient in [false, true] {
        let options = Options { lenient };
        let Ok(mut source) = BtfSource::open(&path, options) else {
            continue;
        };
        let times = drain(&mut source);
        // The pass, with what the BTF outputs and presets subscribe.
        if let Ok(mut source) = BtfSource::open(&path, options) {
            let mut lanes = BtfLanes::default();
            let mut instances = ExecutionAnalysis::new(Target::States(
                Preset::TaskInstance,
                ThreadFilter::default(),
            ));
            let mut states = ThreadStates::default();
            let _ = Pass::new(&mut [&mut lanes, &mut instances, &mut states])
                .read_source(&mut source, &Work::none());
            let _ = (instances.into_executions(), states.into_rows());
            for l in [&lanes.tasks, &lanes.semaphores, &lanes.events] {
                for i in 0..l.lanes.len() {
                    let _ = l.extent(i);
                }
            }
        }
        // A seek into the rows, then the read from there.
        if let Some(&t) = times.get(times.len() / 2) {
            if source.seek(t).is_ok() {
                let tail = drain(&mut source);
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
