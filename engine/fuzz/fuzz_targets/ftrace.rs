//! ftrace text from the input, read to the end through the kernel model:
//! every line parsed, every event's fields walked, the model fed as
//! `sextant analyze` feeds it. Any input must end in `Ok` or `Err`,
//! quickly; never a panic.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use sextant_engine::ftrace::FtraceReader;
use sextant_engine::run::{Pass, Work};
use sextant_engine::value::ValueBuilder;

fuzz_target!(|data: &[u8]| {
    let text = data.to_vec();
    let total = text.len() as u64;
    // Fields of every event, walked.
    let mut reader = FtraceReader::from_reader("fuzz.txt", Cursor::new(text.clone()), total);
    while let Ok(true) = reader.advance() {
        let ev = reader.event().expect("advance returned true");
        let _ = (ev.name(), ev.ts(), ev.cpu(), ev.common_pid(), ev.line_number());
        let mut v = ValueBuilder::default();
        let _ = ev.visit_fields(&mut v);
        let _ = v.finish();
    }
    let _ = reader.warnings();
    // The kernel model over the same lines.
    let mut reader = FtraceReader::from_reader("fuzz.txt", Cursor::new(text), total);
    let _ = Pass::new(&mut []).read_source(&mut reader, &Work::none());
});
