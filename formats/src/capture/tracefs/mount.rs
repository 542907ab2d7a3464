//! Finding tracefs, mounting it when it is not (as trace-cmd does): tracefs
//! on its own mount point, else debugfs, under which the kernel mounts
//! tracefs as `tracing`. What was mounted here is unmounted when the capture
//! ends, on every path out (the guard's drop). The mount calls go through
//! `Mount`, so that tests replace them and the root with a directory tree.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::CaptureError;

/// Mounting and unmounting a file system with no device (tracefs, debugfs).
pub trait Mount {
    fn mount(&self, fstype: &str, target: &Path) -> io::Result<()>;
    fn unmount(&self, target: &Path) -> io::Result<()>;
}

/// The system's mount(2) and umount2(2).
pub struct System;

fn c_path(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

impl Mount for System {
    fn mount(&self, fstype: &str, target: &Path) -> io::Result<()> {
        let target = c_path(target)?;
        let fstype = CString::new(fstype).expect("a file system name has no NUL");
        // SAFETY: every pointer is a NUL-terminated string that lives
        // through the call; no data argument.
        let r = unsafe {
            libc::mount(
                c"nodev".as_ptr(),
                target.as_ptr(),
                fstype.as_ptr(),
                0,
                std::ptr::null(),
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    fn unmount(&self, target: &Path) -> io::Result<()> {
        let target = c_path(target)?;
        // Detached: a debugfs mounted here holds the tracefs the kernel
        // mounted under it, which a plain unmount would refuse as busy.
        // SAFETY: a NUL-terminated string that lives through the call.
        let r = unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// Where tracefs is, and what was mounted to get it: unmounted on drop.
pub struct Tracefs<'m> {
    root: PathBuf,
    mounted: Option<PathBuf>,
    mounter: &'m dyn Mount,
}

impl Tracefs<'_> {
    /// The tracefs directory to work in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What this capture mounted (and will unmount), if anything.
    pub fn mounted(&self) -> Option<&Path> {
        self.mounted.as_deref()
    }
}

impl Drop for Tracefs<'_> {
    fn drop(&mut self) {
        let Some(target) = self.mounted.take() else {
            return;
        };
        match self.mounter.unmount(&target) {
            Ok(()) => eprintln!("sextant: unmounted {}", target.display()),
            Err(e) => eprintln!(
                "sextant: could not unmount {}: {e}; as root: umount {}",
                target.display(),
                target.display()
            ),
        }
    }
}

/// A tracefs directory holds `instances` (what the capture needs).
fn is_tracefs(dir: &Path) -> bool {
    dir.join("instances").is_dir()
}

/// Tracefs at `root`, mounting it when it is not there: tracefs on `root`,
/// else (for a root named `tracing`, as `/sys/kernel/tracing`) debugfs on
/// the `debug` directory beside it, whose `tracing` is tracefs. Says on
/// stderr what it mounted.
pub fn find<'m>(root: &Path, mounter: &'m dyn Mount) -> Result<Tracefs<'m>, CaptureError> {
    let found = |root: PathBuf, mounted: Option<PathBuf>| Tracefs {
        root,
        mounted,
        mounter,
    };
    if is_tracefs(root) {
        return Ok(found(root.to_path_buf(), None));
    }
    let debugfs = match root.file_name() {
        Some(n) if n == "tracing" => root.parent().map(|p| p.join("debug")),
        _ => None,
    };
    // Already mounted under a debugfs someone mounted.
    if let Some(d) = debugfs.as_ref().map(|d| d.join("tracing")) {
        if is_tracefs(&d) {
            return Ok(found(d, None));
        }
    }
    let mut tried = Vec::new();
    let mut attempts = vec![("tracefs", root.to_path_buf(), root.to_path_buf())];
    if let Some(d) = debugfs {
        attempts.push(("debugfs", d.clone(), d.join("tracing")));
    }
    for (fstype, target, tracing) in attempts {
        match mounter.mount(fstype, &target) {
            Ok(()) => {
                // The guard unmounts it, whether it serves or not.
                let t = found(tracing, Some(target));
                if is_tracefs(t.root()) {
                    eprintln!(
                        "sextant: tracefs was not mounted: mounted {fstype} on {} for this capture (unmounted when it ends)",
                        t.mounted.as_deref().unwrap_or(root).display()
                    );
                    return Ok(t);
                }
                tried.push(format!(
                    "{fstype} mounted on {} has no {}",
                    t.mounted.as_deref().unwrap_or(root).display(),
                    t.root().join("instances").display()
                ));
            }
            Err(e) => tried.push(format!("mount -t {fstype} nodev {}: {e}", target.display())),
        }
    }
    let root_hint = if tried
        .iter()
        .any(|t| t.contains("ermission") || t.contains("not permitted"))
    {
        " (capturing through tracefs needs root)"
    } else {
        ""
    };
    Err(CaptureError::tracefs(
        root,
        format!(
            "no tracefs here (no `instances` directory) and mounting it failed{root_hint}: {}",
            tried.join("; ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Mounts that make a directory tree look mounted: tracefs gives its
    /// target an `instances` directory, debugfs a `tracing/instances` one
    /// (when `has_tracing`), unless the file system is in `refuse`.
    struct Fake {
        refuse: Vec<&'static str>,
        has_tracing: bool,
        calls: RefCell<Vec<String>>,
    }

    impl Fake {
        fn new(refuse: &[&'static str]) -> Fake {
            Fake {
                refuse: refuse.to_vec(),
                has_tracing: true,
                calls: RefCell::new(Vec::new()),
            }
        }
        fn calls(&self) -> Vec<String> {
            self.calls.borrow().clone()
        }
    }

    impl Mount for Fake {
        fn mount(&self, fstype: &str, target: &Path) -> io::Result<()> {
            self.calls
                .borrow_mut()
                .push(format!("mount {fstype} {}", target.display()));
            if self.refuse.contains(&fstype) || !target.is_dir() {
                return Err(io::Error::from_raw_os_error(libc::ENODEV));
            }
            match fstype {
                "tracefs" => std::fs::create_dir(target.join("instances")),
                _ if self.has_tracing => std::fs::create_dir_all(target.join("tracing/instances")),
                _ => Ok(()),
            }
        }
        fn unmount(&self, target: &Path) -> io::Result<()> {
            self.calls
                .borrow_mut()
                .push(format!("umount {}", target.display()));
            for e in std::fs::read_dir(target)? {
                std::fs::remove_dir_all(e?.path())?;
            }
            Ok(())
        }
    }

    /// `<tmp>/sys/kernel/{tracing,debug}`, empty: nothing mounted.
    fn tree(name: &str) -> (PathBuf, PathBuf, PathBuf) {
        let top = std::env::temp_dir().join(format!("sextant-mount-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let (tracing, debug) = (top.join("sys/kernel/tracing"), top.join("sys/kernel/debug"));
        std::fs::create_dir_all(&tracing).unwrap();
        std::fs::create_dir_all(&debug).unwrap();
        (top, tracing, debug)
    }

    fn empty(dir: &Path) -> bool {
        std::fs::read_dir(dir).unwrap().next().is_none()
    }

    #[test]
    fn a_mounted_tracefs_is_used_as_it_is() {
        let (top, tracing, _) = tree("mounted");
        std::fs::create_dir(tracing.join("instances")).unwrap();
        let fake = Fake::new(&[]);
        let t = find(&tracing, &fake).unwrap();
        assert_eq!(t.root(), tracing);
        assert_eq!(t.mounted(), None);
        drop(t);
        assert!(fake.calls().is_empty(), "{:?}", fake.calls());
        assert!(is_tracefs(&tracing), "left as it was");
        std::fs::remove_dir_all(top).unwrap();
    }

    #[test]
    fn tracefs_is_mounted_and_unmounted_when_done() {
        let (top, tracing, debug) = tree("tracefs");
        let fake = Fake::new(&[]);
        let t = find(&tracing, &fake).unwrap();
        assert_eq!(t.root(), tracing);
        assert_eq!(t.mounted(), Some(tracing.as_path()));
        assert!(is_tracefs(t.root()));
        drop(t);
        let want = [
            format!("mount tracefs {}", tracing.display()),
            format!("umount {}", tracing.display()),
        ];
        assert_eq!(fake.calls(), want);
        assert!(empty(&tracing) && empty(&debug));
        std::fs::remove_dir_all(top).unwrap();
    }

    #[test]
    fn without_tracefs_debugfs_is_mounted_and_its_tracing_used() {
        let (top, tracing, debug) = tree("debugfs");
        let fake = Fake::new(&["tracefs"]);
        let t = find(&tracing, &fake).unwrap();
        assert_eq!(t.root(), debug.join("tracing"));
        assert_eq!(t.mounted(), Some(debug.as_path()));
        drop(t);
        let want = [
            format!("mount tracefs {}", tracing.display()),
            format!("mount debugfs {}", debug.display()),
            format!("umount {}", debug.display()),
        ];
        assert_eq!(fake.calls(), want);
        assert!(empty(&tracing) && empty(&debug));
        std::fs::remove_dir_all(top).unwrap();
    }

    #[test]
    fn a_debugfs_mounted_already_is_used_as_it_is() {
        let (top, tracing, debug) = tree("debugfs-mounted");
        std::fs::create_dir_all(debug.join("tracing/instances")).unwrap();
        let fake = Fake::new(&[]);
        let t = find(&tracing, &fake).unwrap();
        assert_eq!(t.root(), debug.join("tracing"));
        assert_eq!(t.mounted(), None);
        drop(t);
        assert!(fake.calls().is_empty(), "{:?}", fake.calls());
        std::fs::remove_dir_all(top).unwrap();
    }

    #[test]
    fn when_nothing_mounts_the_error_says_what_was_tried_and_nothing_stays() {
        let (top, tracing, debug) = tree("nothing");
        let mut fake = Fake::new(&["tracefs"]);
        // debugfs mounts but holds no tracing (a kernel without tracefs).
        fake.has_tracing = false;
        let e = find(&tracing, &fake).err().expect("no tracefs").to_string();
        assert!(
            e.starts_with(&format!("{}: no tracefs here", tracing.display())),
            "{e}"
        );
        assert!(
            e.contains(&format!("mount -t tracefs nodev {}", tracing.display())),
            "{e}"
        );
        assert!(
            e.contains(&format!("debugfs mounted on {} has no", debug.display())),
            "{e}"
        );
        let want = [
            format!("mount tracefs {}", tracing.display()),
            format!("mount debugfs {}", debug.display()),
            format!("umount {}", debug.display()),
        ];
        assert_eq!(fake.calls(), want);
        std::fs::remove_dir_all(top).unwrap();
    }

    #[test]
    fn another_root_is_only_tried_with_tracefs() {
        let (top, _, _) = tree("custom");
        let custom = top.join("mytrace");
        std::fs::create_dir(&custom).unwrap();
        let fake = Fake::new(&["tracefs"]);
        assert!(find(&custom, &fake).is_err());
        assert_eq!(
            fake.calls(),
            [format!("mount tracefs {}", custom.display())]
        );
        std::fs::remove_dir_all(top).unwrap();
    }
}
