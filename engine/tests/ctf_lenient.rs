//! A CTF trace with a damaged stream read with `--lenient`
//! (`OpenOptions::lenient`): the damaged stream's events before the damage
//! and every event of the other stream, in time order, and one warning
//! naming the file, the byte and what was skipped; on one thread and with
//! `--jobs 2`, read whole and after seeks. Without `--lenient` the same
//! damage is an error that suggests it.
//!
//! The trace is written by `CtfWriter` (packets of 256 KiB, so that a seek
//! skips packets by their headers), copied to a temp dir and damaged there.

mod common;

use std::path::{Path, PathBuf};

use common::ts;
use sextant_engine::event::{Event, EventSource};
use sextant_engine::jsonl::JsonSink;
use sextant_engine::reader::{AnyReader, OpenOptions, WithSource};

/// Events per stream: 20 bytes each, about 5 packets of 256 KiB.
const EVENTS: u64 = 60_000;
/// Packet header (magic, uuid, stream_id) and context (5 × u64, cpu_id).
const HEADER: usize = 4 + 16 + 4 + 5 * 8 + 4;
/// `content_size`, then `packet_size` (bits, u64).
const CONTENT_SIZE_AT: usize = 4 + 16 + 4 + 2 * 8;
/// Event: id (u32), timestamp (u64), `n` (u64).
const EVENT: usize = 4 + 8 + 8;

/// Each packet of a stream file: its byte offset and how many events it holds.
fn packets(bytes: &[u8]) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let word = |k: usize| u64::from_le_bytes(bytes[at + k..][..8].try_into().unwrap());
        let (content, size) = (word(CONTENT_SIZE_AT) / 8, word(CONTENT_SIZE_AT + 8) / 8);
        out.push((at, (content as usize - HEADER) as u64 / EVENT as u64));
        at += size as usize;
    }
    out
}

/// Events of the packets before packet `k`.
fn events_before(packets: &[(usize, u64)], k: usize) -> u64 {
    packets[..k].iter().map(|p| p.1).sum()
}

type Events = Vec<(i64, u32, u64)>;

/// Reads from the start (`None`) or from a seek, one after the other on the
/// same reader: (time, cpu, n) of every event of each, and the warnings.
struct Passes(Vec<Option<i64>>);

impl WithSource for Passes {
    type Output = Result<(Vec<Events>, Vec<String>), String>;
    fn run<S: EventSource>(self, mut s: S) -> Self::Output {
        let mut all = Vec::new();
        for seek in self.0 {
            if let Some(t) = seek {
                s.seek(t).map_err(|e| e.to_string())?;
            }
            let mut out = Vec::new();
            while s.advance().map_err(|e| e.to_string())? {
                let e = s.event().expect("advanced");
                let mut json = Vec::new();
                e.visit_fields(&mut JsonSink::new(&mut json))
                    .map_err(|e| e.to_string())?;
                let fields: serde_json::Value = serde_json::from_slice(&json).unwrap();
                out.push((e.ts(), e.cpu().unwrap(), fields["n"].as_u64().unwrap()));
            }
            all.push(out);
        }
        Ok((all, s.warnings()))
    }
}

fn read(
    dir: &Path,
    lenient: bool,
    jobs: usize,
    passes: Vec<Option<i64>>,
) -> Result<(Vec<Events>, Vec<String>), String> {
    let options = OpenOptions {
        lenient,
        jobs: std::num::NonZeroUsize::new(jobs),
        ..OpenOptions::default()
    };
    AnyReader::open_with(dir, options)
        .map_err(|e| e.to_string())?
        .with(Passes(passes))
}

/// What a lenient read must give from `from` on: every event of cpu1, and
/// cpu0's first `kept`.
fn expected(kept: u64, from: i64) -> Events {
    let mut out: Events = (0..EVENTS).map(|i| (ts(1, i), 1, i)).collect();
    out.extend((0..kept).map(|i| (ts(0, i), 0, i)));
    out.sort();
    out.retain(|e| e.0 >= from);
    out
}

/// A damage to cpu0: what it does to the file, given its packets; the
/// events of cpu0 before it, and what the error says after `<file>: `.
struct Expected {
    kept: u64,
    /// `byte N: message`
    error: String,
    /// What the warning says was skipped: `(B bytes, [at least ]N packet[s])`.
    skipped: String,
    /// A fresh reader's seek past the damage also meets it (it is in a
    /// packet header, which a seek reads while skipping packets).
    in_header: bool,
}

const MIDDLE: usize = 2;

fn cut(bytes: &mut Vec<u8>, inside_event: bool) -> Expected {
    let p = packets(bytes);
    let (at, _) = p[MIDDLE];
    let size = u64::from_le_bytes(bytes[at + CONTENT_SIZE_AT + 8..][..8].try_into().unwrap()) / 8;
    let end = at + HEADER + 10 * EVENT + if inside_event { 7 } else { 0 };
    bytes.truncate(end);
    let left = end - at;
    Expected {
        kept: events_before(&p, MIDDLE),
        error: format!(
            "byte {at}: truncated packet: its size is {size} bytes but the file has {left} bytes left"
        ),
        skipped: format!("({left} bytes, 1 packet)"),
        in_header: true,
    }
}

fn bad_magic(bytes: &mut [u8]) -> Expected {
    let p = packets(bytes);
    let (at, _) = p[MIDDLE];
    bytes[at..at + 4].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    Expected {
        kept: events_before(&p, MIDDLE),
        error: format!("byte {at}: bad packet magic 0xdeadbeef (expected 0xc1fc1fc1)"),
        skipped: format!("({} bytes, at least 1 packet)", bytes.len() - at),
        in_header: true,
    }
}

fn size_past_the_end(bytes: &mut [u8]) -> Expected {
    let p = packets(bytes);
    let (at, _) = p[MIDDLE];
    let left = bytes.len() - at;
    let size = left + 4096;
    let size_at = at + CONTENT_SIZE_AT + 8;
    bytes[size_at..size_at + 8].copy_from_slice(&(size as u64 * 8).to_le_bytes());
    Expected {
        kept: events_before(&p, MIDDLE),
        error: format!(
            "byte {at}: truncated packet: its size is {size} bytes but the file has {left} bytes left"
        ),
        // The packet says it runs to past the end: one packet, as its header says.
        skipped: format!("({left} bytes, 1 packet)"),
        in_header: true,
    }
}

fn corrupt_event(bytes: &mut [u8]) -> Expected {
    let p = packets(bytes);
    let (at, _) = p[1];
    let event = at + HEADER + 100 * EVENT;
    bytes[event..event + 4].copy_from_slice(&7u32.to_le_bytes());
    Expected {
        kept: events_before(&p, 1) + 100,
        error: format!("byte {event}: unknown event id 7 in stream 0"),
        skipped: format!("({} bytes, {} packets)", bytes.len() - event, p.len() - 1),
        in_header: false,
    }
}

/// Damages cpu0's bytes (cutting them, maybe): what is to be read then.
type Damaging = fn(&mut Vec<u8>) -> Expected;

/// The written trace copied to `name`, its cpu0 stream damaged by `how`.
fn damaged(src: &Path, name: &str, how: Damaging) -> (PathBuf, PathBuf, Expected) {
    let dir = src.with_file_name(format!(
        "{}-{name}",
        src.file_name().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["metadata", "cpu0", "cpu1"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let file = dir.join("cpu0");
    let mut bytes = std::fs::read(&file).unwrap();
    let d = how(&mut bytes);
    std::fs::write(&file, &bytes).unwrap();
    (dir, file, d)
}

const HINT: &str = " (--lenient keeps the events before this and skips the rest of the stream)";
const KEPT: &str = "; --lenient: kept the events before, skipped the rest of this stream ";

#[test]
fn a_damaged_stream_is_read_up_to_its_damage_with_lenient() {
    let src = common::ticks("lenient", "trace", EVENTS);
    let all: Vec<(&str, Damaging)> = vec![
        ("cut-between-events", |b| cut(b, false)),
        ("cut-inside-an-event", |b| cut(b, true)),
        ("bad-magic", |b| bad_magic(b)),
        ("size-past-the-end", |b| size_past_the_end(b)),
        ("corrupt-event", |b| corrupt_event(b)),
    ];
    for (name, how) in all {
        let (dir, file, d) = damaged(&src, name, how);
        let at_file = format!("{}: ", file.display());
        let warning = format!("{at_file}{}{KEPT}{}", d.error, d.skipped);
        let damage_ts = ts(0, d.kept);
        let seeks = [
            ts(0, 0) - 1,
            ts(1, 777),
            ts(0, d.kept - 1),
            damage_ts,
            ts(1, d.kept + 3000),
            ts(1, EVENTS - 1),
        ];
        for jobs in [1, 2] {
            let what = format!("{name}, --jobs {jobs}");
            // Strictly: the error, naming the file and the byte, and the hint.
            let e = read(&dir, false, jobs, vec![None]).expect_err(&what);
            assert_eq!(e, format!("{at_file}{}{HINT}", d.error), "{what}");

            // Leniently, read whole, then seeks on the same reader.
            let mut passes = vec![None];
            passes.extend(seeks.iter().map(|&t| Some(t)));
            let (got, warnings) = read(&dir, true, jobs, passes).expect(&what);
            assert!(got[0] == expected(d.kept, i64::MIN), "{what}: read whole");
            for (t, g) in seeks.iter().zip(&got[1..]) {
                assert!(*g == expected(d.kept, *t), "{what}: seek to {t}");
            }
            assert_eq!(warnings, std::slice::from_ref(&warning), "{what}");

            // A fresh reader's seek: the same events, up to where its pass
            // over headers can see damage.
            for &t in &seeks {
                if !d.in_header && t > damage_ts {
                    continue;
                }
                let (got, warnings) = read(&dir, true, jobs, vec![Some(t)]).expect(&what);
                assert!(got[0] == expected(d.kept, t), "{what}: fresh seek to {t}");
                assert_eq!(
                    warnings,
                    std::slice::from_ref(&warning),
                    "{what}: fresh seek to {t}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&src).unwrap();
}
