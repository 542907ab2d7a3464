//! The engine's layers, checked on its source: a module imports only from its
//! own layer or the ones below it, never from one above. ARCHITECTURE.md
//! states this rule; this test is what holds it.
//!
//! Read from the text of `engine/src` (comments and test modules left out),
//! so that a new `use crate::…` that climbs back up fails here with the file
//! and line, before anyone builds on it.

use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of the engine and its layer, from the bottom up.
/// A module missing here fails the test: a new module must be placed.
const LAYERS: &[(&str, u8)] = &[
    // Values and events: what every reader produces (`value`, `event` and
    // `mapped` are sextant-formats' modules, re-exported).
    ("value", 0),
    ("duration", 0),
    ("event", 0),
    ("jsonl", 0),
    ("mapped", 0),
    // Readers of every format, the CTF writer's users, and opening a path:
    // sextant-formats, re-exported. The crate graph keeps them from
    // importing anything above; this list places the engine's uses of them.
    ("ctf", 1),
    ("ftrace", 1),
    ("tracedat", 1),
    ("btf", 1),
    ("capture", 1),
    ("hosts", 1),
    ("reader", 1),
    // The kernel model, fed one event at a time.
    ("kernel", 2),
    // The single pass over a trace.
    ("run", 3),
    // What is computed in a pass.
    ("analysis", 4),
    // What is kept and handed to other tools.
    ("export", 5),
    ("store", 5),
    // Several hosts on one timeline: packets read, corrections kept.
    ("sync", 6),
    // The front door: what every front end (CLI, TSP service, SQL, Python)
    // asks of the engine, each question in one call.
    ("session", 7),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("reading engine/src") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The code of a file that ships: up to its inline test module, without
/// comments.
fn shipped_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|n| n.trim() == "mod tests {") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push((i + 1, *line));
    }
    out
}

/// Every `crate::NAME` a line mentions.
fn crate_paths(line: &str) -> Vec<&str> {
    line.match_indices("crate::")
        .filter(|(i, _)| {
            // `sextant_crate::` or `$crate::` are not this crate's root.
            *i == 0
                || !line.as_bytes()[i - 1].is_ascii_alphanumeric() && line.as_bytes()[i - 1] != b'_'
        })
        .map(|(i, m)| {
            let rest = &line[i + m.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|name| !name.is_empty())
        .collect()
}

#[test]
fn no_module_imports_from_a_layer_above_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    assert!(
        files.len() > 50,
        "engine/src looks empty: {} files",
        files.len()
    );

    let mut unplaced = Vec::new();
    let mut upward = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).expect("under engine/src");
        let first = rel
            .components()
            .next()
            .expect("a path")
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs");
        if module == "lib" {
            continue;
        }
        let Some(own) = layer(module) else {
            unplaced.push(module.to_string());
            continue;
        };
        let text = fs::read_to_string(file).expect("reading a source file");
        for (n, line) in shipped_lines(&text) {
            for target in crate_paths(line) {
                match layer(target) {
                    Some(l) if l > own => upward.push(format!(
                        "engine/src/{}:{n}: {module} (layer {own}) uses crate::{target} (layer {l})",
                        rel.display()
                    )),
                    Some(_) => {}
                    None => unplaced.push(target.to_string()),
                }
            }
        }
    }
    unplaced.sort();
    unplaced.dedup();
    assert!(
        unplaced.is_empty(),
        "modules with no layer in tests/layers.rs (place them): {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports that climb to a layer above:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_checker_sees_an_upward_import() {
    // The scanner itself: a reader line naming the analyses is caught, a
    // comment or another crate's `crate::` is not.
    assert_eq!(
        crate_paths("use crate::analysis::executions::Execution;"),
        ["analysis"]
    );
    assert!(crate_paths("use sextant_crate::run;").is_empty());
    let text = "use crate::event::Event;\n// crate::run in a comment\n#[cfg(test)]\nmod tests {\n    use crate::run::Pass;\n}\n";
    let seen: Vec<&str> = shipped_lines(text)
        .into_iter()
        .flat_map(|(_, l)| crate_paths(l))
        .collect();
    assert_eq!(seen, ["event"]);
    assert!(layer("analysis") > layer("ctf"));
}

#[test]
fn no_source_file_is_over_800_lines() {
    // Small modules named for what they hold: a file past 800 lines holds
    // several things. Tests (`tests.rs`, `tests/`) are left out.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "src",
        "../formats/src",
        "../service/src",
        "../protocol/src",
        "../sql/src",
        "../cluster/src",
    ] {
        sources(&root.join(dir), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = fs::read_to_string(f).ok()?.lines().count();
            (n > 800).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "source files over 800 lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn every_file_mapping_is_a_mapped() {
    // A file mapped elsewhere would end the process with SIGBUS when another
    // process cuts it short: `mapped::Mapped` turns that into an error.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "src",
        "../formats/src",
        "../service/src",
        "../protocol/src",
        "../sql/src",
        "../cluster/src",
    ] {
        sources(&root.join(dir), &mut files);
    }
    let own = root.join("../formats/src").join("mapped.rs");
    let mut found = Vec::new();
    for file in files.iter().filter(|f| **f != own) {
        let text = fs::read_to_string(file).expect("reading a source file");
        for (n, line) in shipped_lines(&text) {
            if ["Mmap::map", "MmapOptions", "libc::mmap"]
                .iter()
                .any(|m| line.contains(m))
            {
                found.push(format!("{}:{n}: {}", file.display(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files mapped without mapped::Mapped:\n{}",
        found.join("\n")
    );
}
