//! The STM decoder on arbitrary bytes: as formatter frames (every trace ID
//! present), and as a bare STP stream. Any input must decode to messages and
//! warnings, quickly; never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::capture::stm::decoder::Decoder;
use sextant_engine::capture::stm::{frames, syst};

fn decode(bytes: &[u8]) {
    let mut d = Decoder::new(bytes);
    let mut gathered = Vec::new();
    while let Some(m) = d.next_message() {
        // Feed data values to the SyS-T parser as the converter does.
        if let sextant_engine::capture::stm::decoder::Packet::Data { value, .. } = m.packet {
            gathered.extend_from_slice(&value.to_le_bytes());
            if gathered.len() > 4096 {
                gathered.clear();
            }
        } else {
            let _ = syst::parse(&gathered);
            gathered.clear();
        }
    }
    let _ = d.take_warnings();
}

fuzz_target!(|data: &[u8]| {
    decode(data);
    let demuxed = frames::demux(data);
    for s in demuxed.sources.values() {
        for (start, run) in s.runs() {
            let _ = s.file_offset(start);
            decode(run);
        }
    }
});
