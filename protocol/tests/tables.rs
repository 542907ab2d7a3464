//! What the tables say (issue 28, "one spelling"): `analyze --format csv
//! --sort start` and `export --format csv` of the same model are the same
//! bytes (one writer serves both), and the `cpus` cell is the JSON list
//! that `analyze --format json` gives for the same execution.
//!
//! Exports go to a temporary directory; the commands run with `--no-store`.

mod common;

use std::path::{Path, PathBuf};

use common::{repo_root, run_json, sextant};

fn fixture(rel: &str) -> String {
    path(&repo_root().join("fixtures").join(rel))
}

fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_string()
}

const WORKER_MODEL: &str = r#"{"name":"worker response","mode":"different_tids","start":{"name":"sched_process_fork","fields":{"child_tid":"$tid"}},"end":{"name":"sched_process_exit","fields":{"tid":"$tid"}},"start_threads":{"process":"^rt_timer$"},"end_threads":{"process":"^rt_worker$"},"deadline":1000000}"#;

/// A file under the temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `analyze --format csv --sort start` and `export --format csv` of `what`
/// on `trace`: both outputs.
fn both(trace: &str, what: &[&str], tag: &str) -> (String, String) {
    let mut args = vec![
        "analyze",
        trace,
        "--format",
        "csv",
        "--sort",
        "start",
        "--no-store",
    ];
    args.extend_from_slice(what);
    let analyzed = sextant(&args);
    assert!(
        analyzed.status.success(),
        "{}",
        String::from_utf8_lossy(&analyzed.stderr)
    );
    let file = Scratch(
        std::env::temp_dir().join(format!("sextant-tables-{tag}-{}.csv", std::process::id())),
    );
    let out = path(&file.0);
    let mut args = vec!["export", trace, "--out", &out, "--no-store"];
    args.extend_from_slice(what);
    let exported = sextant(&args);
    assert!(
        exported.status.success(),
        "{}",
        String::from_utf8_lossy(&exported.stderr)
    );
    (
        String::from_utf8(analyzed.stdout).expect("UTF-8 CSV"),
        std::fs::read_to_string(&file.0).expect("the exported CSV"),
    )
}

/// The `cpus` cell of each CSV line (RFC 4180: quoted when it holds a comma).
fn cpus_cells(csv: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let at = header
        .iter()
        .position(|h| *h == "cpus")
        .expect("a cpus column");
    lines
        .map(|l| {
            // The cells before `cpus` are numbers and names without commas
            // in these fixtures.
            let rest: String = l.splitn(at + 1, ',').last().unwrap().to_string();
            match rest.strip_prefix('"') {
                Some(q) => q[..q.find('"').unwrap()].to_string(),
                None => rest.split(',').next().unwrap().to_string(),
            }
        })
        .collect()
}

#[test]
fn analyze_csv_and_export_csv_are_the_same_bytes() {
    let rt_high = path(&repo_root().join("schemas/examples/periodic-rt_high.json"));
    let cases: [(String, Vec<&str>, &str); 3] = [
        (fixture("scenario-a/ctf"), vec!["--model", &rt_high], "a"),
        (
            fixture("scenario-b/ctf"),
            vec!["--model", WORKER_MODEL],
            "b",
        ),
        (
            fixture("scenario-b/ctf"),
            vec!["--preset", "running", "--process", "^rt_"],
            "running",
        ),
    ];
    for (trace, what, tag) in cases {
        let (analyzed, exported) = both(&trace, &what, tag);
        assert!(analyzed.lines().count() > 2, "{tag}: {analyzed}");
        assert_eq!(analyzed, exported, "{tag}: analyze's CSV vs export's");
        // Each cpus cell is the JSON list of the same execution.
        let mut args = vec![
            "analyze",
            trace.as_str(),
            "--format",
            "json",
            "--sort",
            "start",
        ];
        args.push("--no-store");
        args.extend_from_slice(&what);
        let doc = run_json(&args);
        let executions = doc["executions"].as_array().unwrap();
        let cells = cpus_cells(&analyzed);
        assert_eq!(cells.len(), executions.len(), "{tag}");
        for (cell, e) in cells.iter().zip(executions) {
            let parsed: serde_json::Value = serde_json::from_str(cell).expect("a JSON list");
            assert_eq!(parsed, e["cpus"], "{tag}: execution {}", e["index"]);
        }
    }
}
