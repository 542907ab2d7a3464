//! A trace directory from the input, read to the end by every decoding path
//! (`ctf::crosscheck`): any input must give events and then `Ok` or `Err`,
//! quickly, never a panic; and every path must decode the same fields, end
//! at the same place and fail on the same event.
//!
//! Input: `METADATA SPLIT STREAM`, or just `STREAM` (then the metadata is
//! `small.tsdl`). The stream is written as the trace's one stream file under
//! /dev/shm, because the reader works on files.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::ctf::crosscheck::{check, CheckError};

mod common;

const SMALL: &[u8] = include_bytes!("small.tsdl");
/// Between the metadata and the stream file (seed.py writes the same).
const SPLIT: &[u8] = b"\n%%stream%%\n";

fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.windows(SPLIT.len()).position(|w| w == SPLIT) {
        Some(i) => (&data[..i], &data[i + SPLIT.len()..]),
        None => (SMALL, data),
    }
}

fuzz_target!(|data: &[u8]| {
    let (metadata, stream) = split(data);
    let dir = common::trace_dir("stream");
    std::fs::create_dir_all(&dir).expect("creating the trace directory");
    std::fs::write(dir.join("metadata"), metadata).expect("writing metadata");
    std::fs::write(dir.join("stream_0"), stream).expect("writing the stream file");
    let result = check(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e @ CheckError::Mismatch { .. }) = result {
        panic!("{e}");
    }
});
