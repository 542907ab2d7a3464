//! Helpers shared by the integration tests: run the `sextant` binary, find
//! `../shared` (third-party traces, present in CI, absent on a user's clone).

#![allow(dead_code)] // each test file uses its own subset

pub mod rpc;
pub mod server;
pub mod tsp_spec;

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

/// `../shared` beside the checkout, when present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    p.join("traces").is_dir().then(|| p.canonicalize().unwrap())
}

pub fn skip_shared() {
    eprintln!("skipped: ../shared (third-party traces) is not beside this checkout");
}
