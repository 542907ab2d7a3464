//! `--jobs`: reading a CTF trace with packets framed on several threads
//! prints the same bytes as reading it on one, on every shared real trace,
//! every recorded fixture, and a trace cut in the middle of a packet (the
//! same events, then the same error).

mod common;

use std::path::{Path, PathBuf};

use common::{repo_root, sextant, shared_dir, subdirs};

/// `dump --format jsonl` with `--jobs 1` and with more: same stdout, same
/// stderr, same exit status. Returns the number of lines.
fn same_output(trace: &Path) -> usize {
    let run = |jobs: &str| {
        let out = sextant(&[
            "dump",
            trace.to_str().unwrap(),
            "--format",
            "jsonl",
            "--jobs",
            jobs,
        ]);
        (out.status.code(), out.stdout, out.stderr)
    };
    let one = run("1");
    for jobs in ["2", "3"] {
        let many = run(jobs);
        assert!(
            one == many,
            "{}: --jobs {jobs} differs from --jobs 1 (status {:?} vs {:?}, {} vs {} bytes out, stderr {:?} vs {:?})",
            trace.display(),
            one.0,
            many.0,
            one.1.len(),
            many.1.len(),
            String::from_utf8_lossy(&one.2),
            String::from_utf8_lossy(&many.2),
        );
    }
    one.1.iter().filter(|&&b| b == b'\n').count()
}

#[test]
fn shared_traces_read_the_same_with_jobs() {
    let Some(shared) = shared_dir() else {
        return common::skip_shared();
    };
    let mut lines = 0;
    for t in subdirs(&shared.join("traces/ctf")) {
        lines += same_output(&t);
    }
    assert!(lines > 500_000, "{lines} events");
}

#[test]
fn fixtures_read_the_same_with_jobs() {
    let mut n = 0;
    for f in subdirs(&repo_root().join("fixtures")) {
        if f.join("ctf/metadata").is_file() {
            assert!(same_output(&f.join("ctf")) > 0);
            n += 1;
        }
    }
    assert!(n >= 2, "{n} recorded traces");
}

/// A copy of a shared LTTng trace (packets of 256 KiB) whose largest stream
/// file is cut inside a later packet: both readings give the events before
/// the cut (tens of thousands), then fail alike.
#[test]
fn a_cut_trace_fails_the_same_with_jobs() {
    let Some(shared) = shared_dir() else {
        return common::skip_shared();
    };
    let src = shared.join("traces/ctf/many-threads");
    let dir = std::env::temp_dir().join(format!("sextant-ctf-jobs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut largest: Option<(u64, PathBuf)> = None;
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            let to = dir.join(p.file_name().unwrap());
            std::fs::copy(&p, &to).unwrap();
            // The shared files are read-only, and so are their copies.
            let mut perm = std::fs::metadata(&to).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&to, perm).unwrap();
            let len = std::fs::metadata(&to).unwrap().len();
            if p.file_name().unwrap() != "metadata"
                && largest.as_ref().is_none_or(|(l, _)| len > *l)
            {
                largest = Some((len, to));
            }
        }
    }
    let (len, path) = largest.expect("a stream file");
    // Packets are whole pages: 100 bytes past a page boundary is inside one.
    let cut = (len * 3 / 5) / 4096 * 4096 + 100;
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(cut).unwrap();
    drop(f);
    assert!(same_output(&dir) > 10_000);
    let cut = sextant(&[
        "dump",
        dir.to_str().unwrap(),
        "--format",
        "jsonl",
        "--jobs",
        "2",
    ]);
    assert!(!cut.status.success());
    let err = String::from_utf8_lossy(&cut.stderr);
    assert!(err.contains("truncated packet"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
