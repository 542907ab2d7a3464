//! Every decoding path of the CTF reader against the reference walk, event
//! by event (`sextant_engine::ctf::crosscheck`): on the shared real traces,
//! the recorded fixtures and the fuzz corpus of the `stream` target. Random
//! layouts and the 32-bit ARM layout are checked by the engine's own tests
//! (`ctf::crosscheck::tests`), on traces they write.

mod common;

use std::path::Path;

use common::{repo_root, shared_dir, subdirs};
use sextant_engine::ctf::crosscheck::{check, CheckError, Report};

fn assert_agrees(dir: &Path) -> Report {
    let report = check(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    assert!(report.events > 0, "{}: no events", dir.display());
    assert_eq!(report.failed_streams, 0, "{}", dir.display());
    report
}

#[test]
fn shared_traces_agree_on_every_path() {
    let Some(shared) = shared_dir() else {
        return common::skip_shared();
    };
    let mut events = 0;
    for t in subdirs(&shared.join("traces/ctf")) {
        events += assert_agrees(&t).events;
    }
    // many-threads alone holds 240,644 events.
    assert!(events > 500_000, "{events} events");
}

#[test]
fn fixtures_agree_on_every_path() {
    let mut n = 0;
    for f in subdirs(&repo_root().join("fixtures")) {
        if f.join("ctf/metadata").is_file() {
            assert_agrees(&f.join("ctf"));
            n += 1;
        }
    }
    assert!(n >= 2, "{n} recorded traces");
}

/// The `stream` fuzz target's inputs: `METADATA \n%%stream%%\n STREAM`, or a
/// stream alone for `small.tsdl`. Decoding errors are expected there; what
/// must hold is that every path fails on the same event, or none does.
#[test]
fn fuzz_corpus_agrees_on_every_path() {
    let fuzz = repo_root().join("engine/fuzz");
    let mut corpus = fuzz.join("corpus/stream");
    let tmp = std::env::temp_dir().join(format!("sextant-ctf-paths-{}", std::process::id()));
    if !corpus.is_dir() {
        let status = std::process::Command::new("python3")
            .arg(fuzz.join("seed.py"))
            .args(["--out", tmp.join("corpus").to_str().unwrap()])
            .status()
            .expect("running engine/fuzz/seed.py");
        assert!(status.success());
        corpus = tmp.join("corpus/stream");
    }
    let small = std::fs::read(fuzz.join("fuzz_targets/small.tsdl")).unwrap();
    const SPLIT: &[u8] = b"\n%%stream%%\n";
    let (mut inputs, mut events) = (0, 0);
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let (metadata, stream) = match data.windows(SPLIT.len()).position(|w| w == SPLIT) {
            Some(i) => (&data[..i], &data[i + SPLIT.len()..]),
            None => (&small[..], &data[..]),
        };
        let dir = tmp.join(format!("trace-{inputs}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("metadata"), metadata).unwrap();
        std::fs::write(dir.join("stream_0"), stream).unwrap();
        match check(&dir) {
            Ok(r) => events += r.events,
            Err(CheckError::Open(_)) => {}
            Err(e) => panic!("{e}"),
        }
        inputs += 1;
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(inputs >= 20, "{inputs} corpus inputs");
    // The seeds are mostly small broken traces; 97 of their events decode
    // when the shared traces are beside the checkout.
    assert!(events > 50, "{events} events decoded by every path");
}
