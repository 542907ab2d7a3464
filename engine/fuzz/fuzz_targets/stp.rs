//! The STM path on arbitrary bytes, as `sextant capture stm` runs it: the
//! bytes as a bare STP stream, and as CoreSight formatter frames (each trace
//! ID present, and none chosen), decoded and converted into a CTF trace
//! (SyS-T messages gathered, times held monotonic, the writer) written under
//! /dev/shm, then read back with the CTF reader.
//!
//! Any input must convert: a bare stream always (warnings, never an error),
//! formatter frames unless no or several sources leave the trace ID to
//! choose. The trace written must read back whole, with as many events as
//! the decoding counted. A panic, a failed assertion or a hang is a bug.

#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use sextant_engine::capture::stm::{decode_to_ctf, frames, Input, StmError};
use sextant_engine::ctf::CtfReader;

/// A trace is written for every input: in memory (/dev/shm) where possible.
fn out_dir() -> PathBuf {
    let name = format!("sextant-fuzz-stp-{}", std::process::id());
    match Path::new("/dev/shm") {
        shm if shm.is_dir() => shm.join(name),
        _ => std::env::temp_dir().join(name),
    }
}

fn convert(data: &[u8], input: Input) {
    let dir = &out_dir();
    let _ = std::fs::remove_dir_all(dir);
    let report = match decode_to_ctf(data, input, None, dir) {
        Ok(r) => r,
        // No source, or several and none chosen: a clear error, as designed.
        Err(StmError::Input(_)) if input == (Input::Formatted { trace_id: None }) => {
            let _ = std::fs::remove_dir_all(dir);
            return;
        }
        Err(e) => panic!("{input:?}: {e}"),
    };
    let mut events = 0u64;
    if report.events > 0 {
        let mut reader = CtfReader::open(dir).expect("the trace written opens");
        while reader.advance().expect("the trace written reads") {
            events += 1;
        }
    }
    let _ = std::fs::remove_dir_all(dir);
    assert_eq!(events, report.events, "{input:?}: events read back");
}

fuzz_target!(|data: &[u8]| {
    convert(data, Input::Raw);
    let ids: Vec<u8> = frames::demux(data).sources.keys().copied().collect();
    for &id in ids.iter().take(3) {
        convert(data, Input::Formatted { trace_id: Some(id) });
    }
    convert(data, Input::Formatted { trace_id: None });
});
