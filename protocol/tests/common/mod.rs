//! Helpers shared by the integration tests: run the `sextant` binary, find
//! `../shared` (third-party traces, present in CI, absent on a user's clone).

#![allow(dead_code)] // each test file uses its own subset

pub mod fleet;
pub mod rpc;
pub mod seed;
pub mod server;
pub mod tsp_spec;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The cache directory (`XDG_CACHE_HOME`) of every sextant the tests
/// start: what they store goes neither into the user's cache nor beside the
/// repository's fixtures. One per test binary, emptied when it starts.
pub fn cache_home() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        let name = exe.file_stem().expect("a test binary has a name");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("xdg-cache")
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("making the tests' cache directory");
        dir
    })
}

/// The binary, to be given its arguments, storing under `cache_home()`.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sextant"));
    c.env("XDG_CACHE_HOME", cache_home());
    c
}

/// Runs the binary. Every explanation it gives is checked by its own audit
/// against the trace's states (priority orders, "no thread ran"): a
/// contradiction fails the test that asked, whatever it checks besides.
pub fn sextant(args: &[&str]) -> Output {
    let out = command().args(args).output().expect("running sextant");
    assert_no_contradiction(args, &out.stderr);
    out
}

/// Runs `sextant args`, which must succeed and print one JSON document.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let out = sextant(args);
    assert!(
        out.status.success(),
        "sextant {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

/// `src` (a file or a folder of files) copied into `dir`; the copy's path.
pub fn copy_into(src: &Path, dir: &Path) -> PathBuf {
    let dst = dir.join(src.file_name().unwrap());
    if src.is_dir() {
        std::fs::create_dir_all(&dst).unwrap();
        for e in std::fs::read_dir(src).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    } else {
        std::fs::copy(src, &dst).unwrap();
    }
    dst
}

/// The audit's warning, as `sextant explain` prints it.
pub const CONTRADICTION: &str = "this explanation contradicts the trace";

pub fn assert_no_contradiction(args: &[&str], stderr: &[u8]) {
    let err = String::from_utf8_lossy(stderr);
    assert!(
        !err.contains(CONTRADICTION),
        "sextant {args:?} explained something the trace contradicts:\n{err}"
    );
}

/// `sextant dump --format jsonl` of a trace (a path relative to the
/// repository, or absolute), one JSON object per event.
pub fn dump_jsonl(trace: impl AsRef<Path>) -> Vec<serde_json::Value> {
    let trace = repo_root().join(trace);
    let out = sextant(&["dump", trace.to_str().unwrap(), "--format", "jsonl"]);
    assert!(
        out.status.success(),
        "dump {}: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    jsonl(&out.stdout)
}

/// One JSON value per non-empty line.
pub fn jsonl(bytes: &[u8]) -> Vec<serde_json::Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// The cells of a TSP table line, as text.
pub fn table_cells(line: &serde_json::Value) -> Vec<String> {
    line["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["content"].as_str().unwrap().to_string())
        .collect()
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directories directly under `dir`, sorted.
pub fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// `../shared` beside the checkout, when present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    p.join("traces").is_dir().then(|| p.canonicalize().unwrap())
}

/// Runs `sextant args`, which must succeed and print one JSON document valid
/// against `schemas/<schema>`; returns the document.
pub fn valid_json_output(schema: &str, args: &[&str]) -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join("schemas").join(schema)).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("a valid schema");
    let out = sextant(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{args:?}: {errors:#?}");
    doc
}

pub fn skip_shared() {
    eprintln!("skipped: ../shared (third-party traces) is not beside this checkout");
}

/// Rows of a ground-truth TSV (header line first, `#` comments skipped).
pub fn tsv(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("ground truth {}: {e}", path.display()));
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A synthetic ftrace trace long enough that its work can be watched and
/// cancelled (about 0.3 s of reading): two CPUs switching among 8 threads.
pub fn big_trace(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sextant-big-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("switches.txt");
    if !path.exists() {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(out, "# tracer: nop").unwrap();
        let name = |k: usize| (4600 + k, format!("w{k}"));
        let mut cur = [name(0), name(1)];
        for i in 0..300_000usize {
            let cpu = i % 2;
            let t = 1000.0 + i as f64 * 1e-6;
            let (pp, pc) = cur[cpu].clone();
            let (np, nc) = name((i * 7) % 8);
            let state = if i % 3 == 0 { "S" } else { "R" };
            writeln!(out, "{pc:>16}-{pp:<5} [{cpu:03}] d..2. {t:12.6}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={state} ==> next_comm={nc} next_pid={np} next_prio=120").unwrap();
            cur[cpu] = (np, nc);
        }
    }
    dir
}

pub const SWITCH_MODEL: &str = r#"{"name": "switch to switch", "mode": "same_tid", "threads": {"process": "^w"},
    "events": [{"name": "sched_switch"}, {"name": "sched_switch"}]}"#;

/// A fresh directory under the system temp dir, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// `name` tells the test's directories apart (the process id tells
    /// the test binaries').
    pub fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("sextant-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("creating a temp dir");
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).expect("writing a test file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
