//! BTF (Best Trace Format) traces: the CSV format of the TA Simulator,
//! Eclipse APP4MC and RTOS loggers, in which each row says how one entity
//! (a core, a stimulus, a process) changed another (a task, an ISR, a
//! runnable, a semaphore, ...).
//!
//! reader (`reader`, `header`, `row`, `time`: the file, row by row, times in
//! ns) → model (`model` over the state machines `process`, `runnable`,
//! `semaphore`, `os`, with the writers' spellings in `names`) → source
//! (`source`: rows plus the canonical scheduling events they amount to, for
//! the kernel model and every analysis).

pub mod classes;
mod error;
pub mod header;
pub mod intern;
pub mod model;
pub mod names;
pub mod os;
pub mod process;
pub mod reader;
pub mod row;
pub mod runnable;
pub mod semaphore;
pub mod source;
pub mod time;

pub use error::BtfError;
pub use reader::{BtfReader, Options};
pub use source::BtfSource;

/// Whether the start of a file looks like BTF: a `#version` (or another
/// BTF meta line) first, or, without a header, rows of at least seven
/// comma-separated fields beginning with a time.
pub fn looks_like_btf(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("# ") && *l != "#");
    let Some(first) = lines.next() else {
        return false;
    };
    if let Some(meta) = first.strip_prefix('#') {
        let name = meta.split([' ', '\t']).next().unwrap_or("");
        return matches!(name, "version" | "creator" | "creationDate" | "timeScale");
    }
    std::iter::once(first).chain(lines).take(3).all(row_shaped)
}

/// Whether `path` is a file whose start looks like BTF.
pub fn is_btf_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4096];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    path.is_file() && looks_like_btf(&head[..n])
}

fn row_shaped(line: &str) -> bool {
    let fields: Vec<&str> = line.splitn(8, ',').map(str::trim).collect();
    fields.len() >= 7
        && fields[0].bytes().all(|b| b.is_ascii_digit())
        && !fields[0].is_empty()
        && fields[3].bytes().all(|b| b.is_ascii_alphabetic())
        && !fields[3].is_empty()
}

#[cfg(test)]
pub(crate) mod tests;
