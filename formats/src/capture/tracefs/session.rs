//! A tracefs instance of our own (`instances/sextant-<pid>`), so that the
//! global buffer and other users' instances are untouched, removed on every
//! path out (success, error, Ctrl-C, panic): dropping it stops tracing,
//! disables its events and removes the directory.

use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::CaptureError;

pub struct Instance {
    dir: PathBuf,
}

impl Instance {
    /// Creates the instance under the tracefs at `root` (`mount::find`).
    pub fn create(root: &Path) -> Result<Instance, CaptureError> {
        let dir = root
            .join("instances")
            .join(format!("sextant-{}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => Ok(Instance { dir }),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => Err(CaptureError::tracefs(
                &dir,
                "permission denied: capturing through tracefs needs root",
            )),
            Err(e) => Err(CaptureError::io(&dir, e)),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Writes a control file (`tracing_on`, `events/.../enable`, ...).
    pub fn write(&self, rel: &str, value: &str) -> Result<(), CaptureError> {
        let p = self.path(rel);
        write_control(&p, value).map_err(|e| CaptureError::io(&p, e))
    }

    pub fn read(&self, rel: &str) -> Result<String, CaptureError> {
        let p = self.path(rel);
        read_control(&p).map_err(|e| CaptureError::io(&p, e))
    }
}

/// Reads a tracefs file whole. Some (`events/header_page`) give their text
/// in one read and then end, so small first reads would cut it: the buffer
/// is large from the start.
pub fn read_control(path: &Path) -> io::Result<String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut len = 0;
    loop {
        if len == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        match f.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(len);
    String::from_utf8(buf).map_err(|e| io::Error::new(ErrorKind::InvalidData, e))
}

/// tracefs takes a value in one write, without truncation or creation.
fn write_control(path: &Path, value: &str) -> io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.write_all(value.as_bytes())
}

impl Drop for Instance {
    fn drop(&mut self) {
        // Best effort: each step may fail (the instance half-made); the
        // removal is what matters, and it needs the readers closed, which
        // the capture ensures by dropping them first.
        let _ = write_control(&self.dir.join("tracing_on"), "0");
        let _ = write_control(&self.dir.join("events/enable"), "0");
        for _ in 0..50 {
            match std::fs::remove_dir(&self.dir) {
                Err(e) if e.kind() == ErrorKind::ResourceBusy => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(e) => {
                    eprintln!(
                        "sextant: could not remove the tracefs instance {}: {e}",
                        self.dir.display()
                    );
                    return;
                }
                Ok(()) => return,
            }
        }
        eprintln!(
            "sextant: the tracefs instance {} is still busy; remove it with rmdir",
            self.dir.display()
        );
    }
}
