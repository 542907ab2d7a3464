//! Metadata bytes (plain TSDL or packetized) → text → declarations → layout.
//! Any input must give `Ok` or `Err`, quickly; never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sextant_engine::ctf::{layout, metadata};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = metadata::metadata_text(data) else {
        return;
    };
    let Ok(decl) = metadata::parse_text(&text) else {
        return;
    };
    let _ = layout::build(&decl);
});
