//! The CTF reader's memory stays bounded by a few packets whatever the size
//! of the trace, also when it reads every packet header first (`--jobs`) or
//! skips packets by their headers (a seek). Measured on the stream file's own
//! mapping (its `Rss` in /proc/self/smaps), which nothing else in this test
//! binary touches. Linux only, as the mapping's accounting is.

#![cfg(target_os = "linux")]

mod common;

use std::path::Path;

use sextant_engine::ctf::writer::{CtfWriter, EventClass, FieldType, FieldValue};
use sextant_engine::ctf::CtfReader;

/// Events of 4 KiB: 96 MiB of stream in about 390 packets of 256 KiB.
const EVENTS: u64 = 24_000;
const BLOB: usize = 4096;

/// Resident KiB of the mappings of `file` in this process.
fn resident_kib(file: &Path) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
    let name = file.to_str().expect("a UTF-8 path");
    let mut ours = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            ours = line.ends_with(name);
        } else if ours {
            if let Some(v) = line.strip_prefix("Rss:") {
                kib += v
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .unwrap_or(0);
            }
        }
    }
    kib
}

#[test]
fn header_passes_keep_a_few_packets_resident() {
    let dir = common::fresh_dir("memory", "blobs");
    let blobs = EventClass {
        name: "blob".into(),
        fields: vec![("payload".into(), FieldType::Bytes)],
    };
    let mut w = CtfWriter::create(&dir, common::spec(vec![blobs])).unwrap();
    let s = w.add_stream("cpu0", &[0]).unwrap();
    let blob = vec![0x5a; BLOB];
    for i in 0..EVENTS {
        w.event(s, 0, 1_000 + i * 10, &[], &[FieldValue::Bytes(&blob)])
            .unwrap();
    }
    let summary = w.finish().unwrap();
    assert!(summary.packets > 300, "{} packets", summary.packets);
    let file = dir.join("cpu0");
    let size_kib = std::fs::metadata(&file).unwrap().len() / 1024;

    // Every header read for the workers: without giving their pages back,
    // the 64 KiB the kernel maps around each fault stay (a quarter of the
    // file here). The workers frame a window of packets ahead meanwhile.
    let mut reader = CtfReader::open(&dir).unwrap().with_jobs(2);
    let after_scan = resident_kib(&file);
    // At most the skim's step (8 MiB), the packets framed ahead and a few
    // partial pages; a quarter of the file is 24 MiB.
    assert!(
        after_scan < 12 * 1024,
        "{after_scan} KiB of the {size_kib} KiB stream file resident after the header scan"
    );

    // A seek to the last events skips the packets before by their headers.
    reader.seek(1_000 + (EVENTS as i64 - 5) * 10).unwrap();
    assert!(reader.advance().unwrap());
    let after_seek = resident_kib(&file);
    assert!(
        after_seek < 12 * 1024,
        "{after_seek} KiB of the {size_kib} KiB stream file resident after a seek to its end"
    );
    drop(reader);

    // Read whole, on one thread then with workers: what stays resident at the
    // end is about the last packet, not a page per packet (the packets do
    // not start on page boundaries).
    for jobs in [1, 2] {
        let mut reader = CtfReader::open(&dir).unwrap().with_jobs(jobs);
        let mut events = 0;
        while reader.advance().unwrap() {
            events += 1;
        }
        assert_eq!(events, EVENTS);
        let at_end = resident_kib(&file);
        assert!(
            at_end < 1024,
            "{at_end} KiB of the {size_kib} KiB stream file resident after reading it whole with --jobs {jobs}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
