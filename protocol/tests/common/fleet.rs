//! The fleets `sextant sql` is tested on (embedded in `sql.rs`, on
//! workers in `sql_cluster.rs`): copies of fixtures of every format, and of
//! ../shared's traces when present, in a folder of the test's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::{command, repo_root, shared_dir, skip_shared};

/// `src` copied to `dst`, folders with everything below them.
pub fn copy_tree(src: &Path, dst: &Path) {
    if src.is_dir() {
        std::fs::create_dir_all(dst).unwrap();
        for e in std::fs::read_dir(src).unwrap() {
            let e = e.unwrap();
            copy_tree(&e.path(), &dst.join(e.file_name()));
        }
    } else {
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(src, dst).unwrap();
    }
}

/// The fleet copied into `dir`: each trace's name (its path relative to
/// `dir`) with its source. `extra`: more fixtures, as (name, path under
/// `fixtures/`).
pub fn corpus(dir: &Path, extra: &[(&str, &str)]) -> BTreeMap<String, PathBuf> {
    let fixtures = repo_root().join("fixtures");
    let mut picks: Vec<(&str, PathBuf)> = vec![
        ("perf/scenario-a", fixtures.join("scenario-a/ctf")),
        ("perf/taskset", fixtures.join("taskset/ctf")),
        (
            "ftrace/scenario-a.txt",
            fixtures.join("scenario-a/trace.txt"),
        ),
        ("ftrace/taskset.txt", fixtures.join("taskset/trace.txt")),
        ("tracedat/v7.dat", fixtures.join("tracedat-a/trace-v7.dat")),
        // Copies: the same trace twice is two partitions with equal answers.
        ("copies/1/scenario-a", fixtures.join("scenario-a/ctf")),
        (
            "copies/2/scenario-a.txt",
            fixtures.join("scenario-a/trace.txt"),
        ),
    ];
    picks.extend(extra.iter().map(|&(name, src)| (name, fixtures.join(src))));
    match shared_dir() {
        Some(shared) => {
            let t = shared.join("traces");
            picks.push(("lttng/many-threads", t.join("ctf/many-threads")));
            picks.push(("btf/freertos.btf", t.join("btf/freertos-example.btf")));
            picks.push(("copies/3/freertos.btf", t.join("btf/freertos-example.btf")));
        }
        None => skip_shared(),
    }
    let mut traces = BTreeMap::new();
    for (name, src) in picks {
        copy_tree(&src, &dir.join(name));
        traces.insert(name.to_string(), src);
    }
    traces
}

/// `sextant sql ARGS`.
pub fn sql(args: &[&str]) -> Output {
    command()
        .arg("sql")
        .args(args)
        .output()
        .expect("running sextant")
}

/// The non-empty lines an oracle prints; it must succeed.
pub fn lines(cmd: &mut Command) -> u64 {
    let out = cmd.output().expect("running the oracle");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count() as u64
}
