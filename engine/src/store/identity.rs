//! A trace's identity: its files with their sizes and modification times,
//! and a hash of its metadata. A stored index is used only while the trace
//! still has that identity.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

/// One file of a trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// Relative to the trace's path (empty for a trace that is one file).
    pub path: String,
    pub size: u64,
    /// Modification time, ns since the Unix epoch.
    pub mtime_ns: i64,
}

/// What a trace was when it was indexed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceIdentity {
    /// The trace's canonical path.
    pub path: String,
    /// Every file, by path.
    pub files: Vec<FileStamp>,
    /// FNV-1a over words (64 bits, hex; `Fnv::add_words`) of every CTF
    /// `metadata` file, or of the first 64 KiB of a trace that is one file.
    pub metadata_hash: String,
}

/// Bytes of a one-file trace that the metadata hash covers.
const HEAD: usize = 64 * 1024;

impl TraceIdentity {
    /// The identity of the trace at `path` as it is now.
    pub fn of(path: &Path) -> std::io::Result<TraceIdentity> {
        let canonical = path.canonicalize()?;
        let mut files = Vec::new();
        let mut hash = Fnv::default();
        if canonical.is_dir() {
            let mut found = Vec::new();
            walk(&canonical, &mut found)?;
            found.sort();
            for f in found {
                let rel = f
                    .strip_prefix(&canonical)
                    .unwrap_or(&f)
                    .to_string_lossy()
                    .into_owned();
                if f.file_name().is_some_and(|n| n == "metadata") {
                    hash.add_words(rel.as_bytes());
                    hash.add_words(&std::fs::read(&f)?);
                }
                files.push(stamp(&f, rel)?);
            }
        } else {
            use std::io::Read;
            let mut head = Vec::with_capacity(HEAD);
            std::fs::File::open(&canonical)?
                .take(HEAD as u64)
                .read_to_end(&mut head)?;
            hash.add_words(&head);
            files.push(stamp(&canonical, String::new())?);
        }
        Ok(TraceIdentity {
            path: canonical.to_string_lossy().into_owned(),
            files,
            metadata_hash: format!("{:016x}", hash.0),
        })
    }

    /// What differs from `now` (the first difference), or `None`.
    pub fn difference(&self, now: &TraceIdentity) -> Option<String> {
        if self.path != now.path {
            return Some(format!("indexed as {}", self.path));
        }
        for (a, b) in self.files.iter().zip(&now.files) {
            let name = if b.path.is_empty() {
                &now.path
            } else {
                &b.path
            };
            if a.path != b.path {
                return Some(format!("files differ: {} then, {} now", a.path, b.path));
            }
            if a.size != b.size {
                return Some(format!("{name} was {} bytes, is {}", a.size, b.size));
            }
            if a.mtime_ns != b.mtime_ns {
                return Some(format!("{name} was modified"));
            }
        }
        if self.files.len() != now.files.len() {
            return Some(format!(
                "{} files then, {} now",
                self.files.len(),
                now.files.len()
            ));
        }
        (self.metadata_hash != now.metadata_hash).then(|| "its metadata changed".to_string())
    }
}

/// Whether a directory entry is one of the store's own (an index beside a
/// trace that lies inside a directory being opened).
pub(super) fn is_store_entry(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().ends_with(super::SUFFIX)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if is_store_entry(&entry.file_name()) {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), out)?;
        } else {
            out.push(entry.path());
        }
    }
    Ok(())
}

fn stamp(path: &Path, rel: String) -> std::io::Result<FileStamp> {
    let meta = std::fs::metadata(path)?;
    let mtime_ns = meta
        .modified()?
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    Ok(FileStamp {
        path: rel,
        size: meta.len(),
        mtime_ns,
    })
}

/// FNV-1a, 64 bits: stable across versions and platforms, unlike the
/// standard library's hashers.
pub(super) struct Fnv(pub(super) u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

const PRIME: u64 = 0x0000_0100_0000_01b3;

impl Fnv {
    pub(super) fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }

    /// FNV-1a's step over 64-bit little-endian words, the tail (under 8
    /// bytes) byte by byte: eight times fewer serial multiplications, for
    /// what is hashed on every open (metadata, a file's head, stored
    /// files).
    pub(super) fn add_words(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            self.0 = (self.0 ^ w).wrapping_mul(PRIME);
        }
        self.add(words.remainder());
    }
}
