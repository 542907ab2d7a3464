//! Random layouts and values chosen by the input (`ctf::synth`): the trace
//! is written by the synthetic encoder, then every decoding path must read
//! back exactly what was written (`ctf::crosscheck`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::ctf::crosscheck::{check, check_expected};
use sextant_engine::ctf::synth::{Choices, Spec};

mod common;

fuzz_target!(|data: &[u8]| {
    let mut ch = Choices::Bytes(data);
    let spec = Spec::random(&mut ch);
    let synth = spec.write(&mut ch, 2, 2, 20);
    let dir = common::trace_dir("synth");
    synth.write_to(&dir).expect("writing the trace");
    let result = check(&dir).and_then(|_| check_expected(&dir, &synth));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = result {
        panic!("{e}\n{}", synth.metadata);
    }
});
