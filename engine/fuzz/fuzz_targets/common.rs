//! Where the fuzz targets write their traces: the reader works on files.

use std::path::PathBuf;

/// A directory of this process under /dev/shm (memory), or the temp directory.
pub fn trace_dir(target: &str) -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    base.join(format!("sextant-fuzz-{target}-{}", std::process::id()))
}
