//! Test machinery shared by this crate's tests and the engine's (feature
//! `test-support`): text written to a temporary file, the shared traces.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A file with `text` in the system's temporary directory, removed on drop.
pub struct TempFile(pub PathBuf);

impl TempFile {
    /// Tests run in parallel: each file has a name of its own.
    pub fn new(name: &str, text: &[u8]) -> TempFile {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        // In the temporary directory itself, not in a folder of our own:
        // dropping the file then leaves nothing behind.
        let path =
            std::env::temp_dir().join(format!("sextant-test-{}-{n}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A trace of `../shared/traces/ctf`, or `None` (and a line saying the test
/// is skipped) when it is absent.
pub fn shared_ctf(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces/ctf")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: {} is absent", p.display());
        None
    }
}
