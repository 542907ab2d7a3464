//! Metadata bytes (plain TSDL, packetized, or CTF 2's JSON fragments) →
//! text → declarations → layout; TSDL declarations are also written as CTF 2
//! and read back. Any input must give `Ok` or `Err`, quickly; never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::ctf::{json_metadata, layout, metadata};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = metadata::metadata_text(data) else {
        return;
    };
    if json_metadata::is_json_sequence(text.as_bytes()) {
        if let Ok(decl) = json_metadata::parse(&text) {
            let _ = layout::build(&decl);
        }
        return;
    }
    let Ok(decl) = metadata::parse_text(&text) else {
        return;
    };
    if layout::build(&decl).is_ok() {
        if let Ok(json) = json_metadata::write::to_json_sequence(&decl) {
            let _ = json_metadata::parse(&json).map(|d| layout::build(&d));
        }
    }
});
