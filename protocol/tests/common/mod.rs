//! Helpers shared by the integration tests: run the `sextant` binary, find
//! `../shared` (third-party traces, present in CI, absent on a user's clone).

#![allow(dead_code)] // each test file uses its own subset

pub mod rpc;
pub mod server;
pub mod tsp_spec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn sextant(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(args)
        .output()
        .expect("running sextant")
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
