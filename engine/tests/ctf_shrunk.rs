//! A CTF stream file cut short by another process while a pass reads it
//! (a trace truncated while it is served): the pass ends with an error
//! naming the file and both sizes, every event handed on before is one the
//! writer wrote (no zeros of the missing pages taken for events), and the
//! process goes on. Without `mapped`'s handler the read past the new end is
//! a SIGBUS that ends this test binary. On one thread and with `--jobs 2`
//! (packets framed on workers), strict and `--lenient` (a file shrinking
//! is not damage in the trace: never skipped).
//!
//! The trace is written by `CtfWriter` in a temp dir: 2 streams of 60,000
//! events, packets of 256 KiB.

mod common;

use std::path::{Path, PathBuf};

use sextant_engine::event::{Event, ReadError};
use sextant_engine::jsonl::JsonSink;
use sextant_engine::kernel::model::KernelModel;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::{Flow, Pass, RunError, Tap, Work};

const EVENTS: u64 = 60_000;
/// Events read before the cut: well inside the first packet of each
/// stream (about 13,000 events a packet), past the first batches.
const CUT_AFTER: u64 = 5_000;
/// What is left of `cpu0`: its first 16 KiB, a part of what was read.
const LEFT: u64 = 16 << 10;

/// (time, cpu, n) of each event handed on.
type Seen = Vec<(i64, u32, u64)>;

/// Reads each event's `n`; after `CUT_AFTER` events, cuts `file` short.
struct Cutter {
    file: PathBuf,
    seen: Seen,
}

impl Tap for Cutter {
    fn event<'s, E: Event<'s>>(&mut self, ev: &E, _: &KernelModel) -> Result<Flow, ReadError> {
        let mut json = Vec::new();
        ev.visit_fields(&mut JsonSink::new(&mut json))?;
        let fields: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let n = fields["n"].as_u64().expect("an n");
        self.seen.push((ev.ts(), ev.cpu().expect("a cpu"), n));
        if self.seen.len() as u64 == CUT_AFTER {
            std::fs::File::options()
                .write(true)
                .open(&self.file)
                .unwrap()
                .set_len(LEFT)
                .unwrap();
        }
        Ok(Flow::Apply)
    }
}

fn pass(dir: &Path, jobs: usize, lenient: bool) -> (Result<(), RunError>, Seen) {
    let mut cutter = Cutter {
        file: dir.join("cpu0"),
        seen: Vec::new(),
    };
    let options = OpenOptions {
        lenient,
        jobs: std::num::NonZeroUsize::new(jobs),
        ..OpenOptions::default()
    };
    let ran = Pass::new(&mut [])
        .tap(&mut cutter)
        .options(options)
        .read(dir, &Work::none());
    (ran.map(|_| ()), cutter.seen)
}

fn shrunk_while_read(name: &str, jobs: usize, lenient: bool) {
    let dir = common::ticks("shrunk", name, EVENTS);
    let file = dir.join("cpu0");
    let len = std::fs::metadata(&file).unwrap().len();
    let (ran, seen) = pass(&dir, jobs, lenient);
    let e = ran.expect_err("the pass goes on past a file cut short");
    assert_eq!(
        e.to_string(),
        format!(
            "{}: the file shrank while being read ({len} bytes, now {LEFT})",
            file.display()
        )
    );
    // Every event handed on is one the writer wrote, each stream's in order
    // from its first: none made of the zeros that replaced the lost pages.
    assert!(seen.len() as u64 >= CUT_AFTER);
    let mut next = [0u64; 2];
    for &(t, cpu, n) in &seen {
        assert_eq!(
            (t, n),
            (
                common::ts(cpu as u64, next[cpu as usize]),
                next[cpu as usize]
            )
        );
        next[cpu as usize] += 1;
    }
    // cpu0 was not read to its end (its events past the cut are gone).
    assert!(next[0] < EVENTS, "{next:?}");

    // Opened after the cut, the file is damage in the trace, told as such
    // (its size at open is what is read, so nothing shrinks under the map).
    let (ran, _) = pass(&dir, jobs, false);
    let e = ran.expect_err("a packet cut short").to_string();
    assert!(
        e.contains("truncated packet") && !e.contains("shrank"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_thread() {
    shrunk_while_read("one", 1, false);
}

#[test]
fn packets_framed_on_workers() {
    shrunk_while_read("jobs", 2, false);
}

#[test]
fn lenient_does_not_skip_a_file_that_shrank() {
    shrunk_while_read("lenient", 2, true);
}
