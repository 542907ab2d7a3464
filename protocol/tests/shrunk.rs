//! A trace cut short by another process while `sextant dump` reads it: the
//! command ends with an error naming the file and both sizes, not killed
//! by SIGBUS (the reader maps its files: `formats/src/mapped.rs`).
//!
//! Deterministic: dump writes into a pipe this test reads only after the
//! cut, so dump is held a pipe's worth of output past its start, far from
//! the end of files that print megabytes of JSON. CTF on one thread and with
//! `--jobs 2`, trace.dat (fixtures), BTF (`../shared`, skipped when absent).

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn temp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("shrunk-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Halves `file`, as `truncate -s` from another shell would.
fn halve(file: &Path) -> (u64, u64) {
    let len = std::fs::metadata(file).unwrap().len();
    let f = std::fs::File::options().write(true).open(file).unwrap();
    f.set_len(len / 2).unwrap();
    (len, len / 2)
}

/// Starts `sextant dump` on `trace`, reads its first line, cuts `cut` (each
/// file halved), then reads the rest: the exit and what it said.
fn dump_while_cut(trace: &Path, cut: &[PathBuf], args: &[&str]) -> (String, Vec<(u64, u64)>) {
    let mut child = common::command()
        .arg("dump")
        .args(["--format", "jsonl"])
        .args(args)
        .arg(trace)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.starts_with('{'), "{first}");
    let sizes = cut.iter().map(|f| halve(f)).collect();
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        None,
        "dump was killed by signal {:?} (7: SIGBUS); it said: {err}",
        status.signal()
    );
    assert_eq!(status.code(), Some(1), "{err}");
    (err, sizes)
}

/// The error names one of the files cut, with its sizes before and after.
fn says_it_shrank(err: &str, cut: &[PathBuf], sizes: &[(u64, u64)]) {
    let told = cut.iter().zip(sizes).any(|(f, (was, now))| {
        err.contains(&format!(
            "{}: the file shrank while being read ({was} bytes, now {now})",
            f.display()
        ))
    });
    assert!(told, "{err}");
}

fn ctf(jobs: &str) {
    let dir = temp(&format!("ctf-{jobs}"));
    let src = common::repo_root().join("fixtures/scenario-b/ctf");
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let streams: Vec<PathBuf> = ["perf_stream_0", "perf_stream_1"]
        .iter()
        .map(|s| dir.join(s))
        .collect();
    let (err, sizes) = dump_while_cut(&dir, &streams, &["--jobs", jobs]);
    says_it_shrank(&err, &streams, &sizes);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctf_on_one_thread() {
    ctf("1");
}

#[test]
fn ctf_framed_on_workers() {
    ctf("2");
}

fn one_file(name: &str, src: &Path) {
    let dir = temp(name);
    let file = dir.join(src.file_name().unwrap());
    std::fs::copy(src, &file).unwrap();
    let cut = [file.clone()];
    let (err, sizes) = dump_while_cut(&file, &cut, &[]);
    says_it_shrank(&err, &cut, &sizes);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tracedat() {
    one_file(
        "tracedat",
        &common::repo_root().join("fixtures/tracedat-a/trace-v6.dat"),
    );
}

#[test]
fn btf() {
    let Some(shared) = common::shared_dir() else {
        eprintln!("skipped: ../shared is absent (a BTF trace of 2 MB is needed)");
        return;
    };
    one_file(
        "btf",
        &shared.join("traces/btf/ta-simulator-20140219-123819.btf"),
    );
}
