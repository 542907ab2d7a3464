//! The protocol and SQL crates ask the engine through its front door
//! (`sextant_engine::session`): neither runs a pass over a trace nor reads
//! or writes the store's files itself. Read from the text of protocol/src,
//! service/src and sql/src (comments left out), so that a new shortcut fails here with
//! its file and line.

use std::fs;
use std::path::{Path, PathBuf};

/// What only the session may use: running a pass, and the store's inner
/// modules and entry points.
const FORBIDDEN: &[&str] = &[
    "Pass::new",
    "run::Pass",
    "load_or_find",
    "explain_trace",
    "find_in_traces",
    "TraceStore",
    "store::results",
    "store::index",
    "store::unit",
    "store::mapped",
    "store::sequences",
    "store::identity",
    "store::scratch",
    "collect_cache_garbage",
    "thread_table::COUNTED",
    "FANOUT",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("reading a source folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each line's code, without its `//` comment.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or_default()
}

fn shortcuts(text: &str) -> Vec<(usize, &'static str)> {
    text.lines()
        .enumerate()
        .flat_map(|(i, line)| {
            FORBIDDEN
                .iter()
                .filter(move |f| code(line).contains(*f))
                .map(move |f| (i + 1, *f))
        })
        .collect()
}

/// Every shortcut in the sources below `dir` (relative to the workspace),
/// as `file:line: what`; at least `min_files` files read.
fn shortcuts_in(dir: &str, min_files: usize) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(
        files.len() >= min_files,
        "{dir} read: {} files",
        files.len()
    );
    let mut found = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).expect("a source file");
        for (line, what) in shortcuts(&text) {
            found.push(format!("{}:{line}: {what}", f.display()));
        }
    }
    found
}

#[test]
fn the_protocol_crate_goes_through_the_session() {
    let found = shortcuts_in("protocol/src", 20);
    assert!(
        found.is_empty(),
        "protocol/src reaches past sextant_engine::session:\n{}",
        found.join("\n")
    );
}

/// The TSP service, a crate of its own below the transports.
#[test]
fn the_service_crate_goes_through_the_session() {
    let found = shortcuts_in("service/src", 20);
    assert!(
        found.is_empty(),
        "service/src reaches past sextant_engine::session:\n{}",
        found.join("\n")
    );
}

/// The SQL front end too: its passes are the session's.
#[test]
fn the_sql_crate_goes_through_the_session() {
    let found = shortcuts_in("sql/src", 5);
    assert!(
        found.is_empty(),
        "sql/src reaches past sextant_engine::session:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_shortcut_is_found_and_a_comment_is_not() {
    let text = "use sextant_engine::run::{Pass, Work};\n\
                // Pass::new in a comment\n\
                let r = Pass::new(&mut []).read(p, w); // load_or_find\n\
                let s = TraceStore::open(&places, p);\n";
    assert_eq!(shortcuts(text), vec![(3, "Pass::new"), (4, "TraceStore")]);
}
