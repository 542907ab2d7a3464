//! Where stores go: the cache directory by default (`XDG_CACHE_HOME`, else
//! `~/.cache`, or `--cache-dir`), beside the trace only with `--store
//! beside`, a store beside the trace still read; where is said. And every
//! model's executions are stored (nested ones, state-based presets, BTF
//! task instances): a second run reads them, with the same answer.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{command, repo_root, shared_dir};

/// A fresh directory with a copy of scenario-a's ftrace text.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let root =
            std::env::temp_dir().join(format!("sextant-places-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("traces")).unwrap();
        std::fs::copy(
            repo_root().join("fixtures/scenario-a/trace.txt"),
            root.join("traces/trace.txt"),
        )
        .unwrap();
        Scratch { root }
    }

    fn trace(&self) -> String {
        self.root.join("traces/trace.txt").display().to_string()
    }

    fn beside(&self) -> PathBuf {
        self.root.join("traces/trace.txt.sextant")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Runs sextant with `XDG_CACHE_HOME` and `HOME` as given (`None`: unset).
fn run(args: &[&str], xdg: Option<&Path>, home: Option<&Path>) -> Output {
    let mut c = command();
    c.env_remove("XDG_CACHE_HOME").env_remove("HOME");
    if let Some(x) = xdg {
        c.env("XDG_CACHE_HOME", x);
    }
    if let Some(h) = home {
        c.env("HOME", h);
    }
    let out = c.args(args).output().expect("running sextant");
    assert!(
        out.status.success(),
        "sextant {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The directory the run says it stored executions in, if it did.
fn stored_in(out: &Output) -> Option<PathBuf> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("sextant: executions stored in "))
        .map(PathBuf::from)
}

#[test]
fn by_default_the_store_is_in_the_cache_directory_and_said() {
    let s = Scratch::new("default");
    let t = s.trace();
    let analyze = ["analyze", &t, "--preset", "periodic", "--format", "json"];
    // XDG_CACHE_HOME first.
    let xdg = s.root.join("xdg");
    let unit = stored_in(&run(&analyze, Some(&xdg), None)).expect("stored, and said where");
    assert!(unit.starts_with(xdg.join("sextant")), "{}", unit.display());
    let store = unit
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    assert!(
        store.starts_with("trace.txt-") && store.ends_with(".sextant"),
        "{store}"
    );
    assert!(!s.beside().exists(), "a store was written beside the trace");
    // Without it, ~/.cache.
    let home = s.root.join("home");
    let unit = stored_in(&run(&analyze, None, Some(&home))).expect("stored");
    assert!(
        unit.starts_with(home.join(".cache/sextant")),
        "{}",
        unit.display()
    );
    // --cache-dir over both.
    let dir = s.root.join("mine");
    let dir_str = dir.display().to_string();
    let asked = [&analyze[..], &["--cache-dir", &dir_str]].concat();
    let unit = stored_in(&run(&asked, Some(&xdg), Some(&home))).expect("stored");
    assert!(unit.starts_with(&dir), "{}", unit.display());
    // discover too.
    let discover = [
        "discover",
        &t,
        "--tid",
        "4620",
        "--format",
        "json",
        "--cache-dir",
        &dir_str,
    ];
    let out = run(&discover, None, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("events stored in {dir_str}/trace.txt-")),
        "{err}"
    );
    assert!(!s.beside().exists(), "a store was written beside the trace");
}

#[test]
fn beside_when_asked_and_a_store_beside_is_still_read() {
    let s = Scratch::new("beside");
    let t = s.trace();
    let xdg = s.root.join("xdg");
    let analyze = ["analyze", &t, "--preset", "periodic", "--format", "json"];
    let beside = [&analyze[..], &["--store", "beside"]].concat();
    let first = run(&beside, Some(&xdg), None);
    let unit = stored_in(&first).expect("stored");
    assert!(unit.starts_with(s.beside()), "{}", unit.display());
    // As earlier versions left it: read by default, nothing stored again.
    let again = run(&analyze, Some(&xdg), None);
    assert_eq!(stored_in(&again), None, "the store beside was not read");
    assert_eq!(again.stdout, first.stdout);
    assert!(!xdg.join("sextant").exists());
    // `--no-store` goes with neither.
    let out = command()
        .args([&analyze[..], &["--no-store", "--store", "beside"]].concat())
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// Runs `analyze` twice with `args` on `trace`, its store in a cache of
/// its own: the first run stores, the second reads, both answer the same.
fn stored_and_read_back(trace: &str, args: &[&str], cache: &Path) -> serde_json::Value {
    let cache = cache.display().to_string();
    let all = [
        &["analyze", trace, "--format", "json", "--cache-dir", &cache][..],
        args,
    ]
    .concat();
    let first = run(&all, None, None);
    assert!(
        stored_in(&first).is_some(),
        "{args:?} not stored: {}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = run(&all, None, None);
    assert_eq!(stored_in(&second), None, "{args:?}: a pass again");
    assert_eq!(
        String::from_utf8_lossy(&second.stdout),
        String::from_utf8_lossy(&first.stdout),
        "{args:?}"
    );
    serde_json::from_slice(&second.stdout).unwrap()
}

#[test]
fn every_model_s_executions_are_stored_and_read_back_the_same() {
    let s = Scratch::new("every");
    let t = s.trace();
    let nested = r#"{"name":"job","threads":{"process":"^rt_high$"},
        "events":[{"name":"syscall_exit_clock_nanosleep"},{"name":"syscall_entry_clock_nanosleep"}],
        "nested":{"name":"reply","events":[{"name":"syscall_entry_mq_timedreceive"},{"name":"syscall_exit_mq_timedreceive"}]}}"#;
    let doc = stored_and_read_back(&t, &["--model", nested], &s.root.join("c1"));
    assert!(
        doc["executions"][0]["nested"]
            .as_array()
            .is_some_and(|n| !n.is_empty()),
        "{doc}"
    );
    for preset in ["running", "whole-thread", "blocking"] {
        let doc = stored_and_read_back(
            &t,
            &["--preset", preset, "--process", "^rt_"],
            &s.root.join(format!("c-{preset}")),
        );
        assert!(
            !doc["executions"].as_array().unwrap().is_empty(),
            "{preset}"
        );
    }
    // Other threads are other executions, kept apart.
    let cache = s.root.join("c-running").display().to_string();
    let other = run(
        &[
            "analyze",
            &t,
            "--format",
            "json",
            "--cache-dir",
            &cache,
            "--preset",
            "running",
            "--process",
            "^rt_high$",
        ],
        None,
        None,
    );
    assert!(stored_in(&other).is_some(), "another filter read the store");
    // BTF task instances, with their runnables nested and their times.
    let Some(shared) = shared_dir() else {
        eprintln!("skipped the BTF part: ../shared is absent");
        return;
    };
    let ta = shared.join("traces/btf/ta-simulator-20140219-123819.btf");
    let doc = stored_and_read_back(
        ta.to_str().unwrap(),
        &["--preset", "task-instance"],
        &s.root.join("c-btf"),
    );
    let first = &doc["executions"][0];
    assert!(first["btf"].is_object(), "{first}");
}
