//! Read-only file mappings that outlive their file shrinking.
//!
//! The engine maps trace files and stored units instead of reading them, so
//! that decoding reads the page cache with no copy. But a mapped file cut
//! short by another process (a trace truncated while it is served, a store
//! rewritten in place) makes the kernel answer a read of a page past the new
//! end with SIGBUS, whose default action kills the whole process: a server
//! and every client with it, for one request's file.
//!
//! Every mapping the engine makes is therefore a `Mapped`, whose address
//! range sits in a fixed table while it lives. A SIGBUS handler, installed
//! once, looks the faulting address up in that table: inside a mapping, it
//! maps anonymous zero pages over the rest of it (so the access, retried,
//! reads zeros), marks the mapping as shrunk and returns. Readers check the
//! mark where they hand data on (`check`) and turn it into an error naming
//! the file, so zeros are never taken for data. A fault outside every
//! mapping goes to the action that was there before, a crash as it was.
//! (The JVM does the same for its mapped buffers: a fault in a mapped copy
//! becomes an exception in the thread that read, not the end of the process.)
//!
//! The handler may neither lock nor allocate: the table is slots of atomics
//! in chunks that are allocated by `map` and never freed.

use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

use memmap2::Mmap;

/// A file mapped read-only, whose shrinking is an error for its readers
/// rather than a signal that ends the process. Dereferences to the map.
pub struct Mapped {
    slot: &'static Slot,
    path: PathBuf,
    len: u64,
    // Dropped after `drop` freed the slot: no fault is looked up in a range
    // that may be mapped again by then.
    map: Mmap,
}

/// A mapped file found shorter than when it was mapped.
#[derive(Debug, thiserror::Error)]
#[error("{}: the file shrank while being read ({len} bytes, now {})", path.display(), now.map_or("gone".to_string(), |n| format!("{n}")))]
pub struct Shrank {
    pub path: PathBuf,
    pub len: u64,
    /// Its size when the reader noticed, `None` when it is no longer there.
    pub now: Option<u64>,
}

impl Mapped {
    /// Maps `file` (opened from `path`) whole, read-only.
    pub fn map(file: &File, path: &Path) -> std::io::Result<Mapped> {
        install();
        // SAFETY: read-only and private. A file that shrinks under the map
        // is what this module is for: its missing pages read as zeros and
        // `check` says so; nothing here assumes the bytes do not change.
        let map = unsafe { Mmap::map(file)? };
        let start = map.as_ptr() as usize;
        let end = start + map.len().div_ceil(page()) * page();
        let slot = claim(start, end).ok_or_else(|| {
            std::io::Error::other(format!(
                "{}: more than {} files mapped at once",
                path.display(),
                CHUNKS * CHUNK
            ))
        })?;
        Ok(Mapped {
            slot,
            path: path.to_path_buf(),
            len: map.len() as u64,
            map,
        })
    }

    /// Whether the file shrank under the mapping since it was made (some of
    /// what was read since may be zeros that are not in the file).
    #[inline]
    pub fn shrank(&self) -> bool {
        self.slot.shrank.load(Ordering::Acquire)
    }

    /// An error naming the file if it shrank under the mapping: call it
    /// after reading and before handing on what was read.
    #[inline]
    pub fn check(&self) -> Result<(), Shrank> {
        match self.shrank() {
            false => Ok(()),
            true => Err(self.shrank_error()),
        }
    }

    #[cold]
    pub fn shrank_error(&self) -> Shrank {
        Shrank {
            path: self.path.clone(),
            len: self.len,
            now: std::fs::metadata(&self.path).ok().map(|m| m.len()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::fmt::Debug for Mapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mapped({}, {} bytes)", self.path.display(), self.len)
    }
}

impl Deref for Mapped {
    type Target = Mmap;

    fn deref(&self) -> &Mmap {
        &self.map
    }
}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // Free, then unmapped (the field is dropped after this).
        self.slot.start.store(FREE, Ordering::Release);
    }
}

/// One live mapping's page-rounded address range.
struct Slot {
    /// `FREE`, `CLAIMED` while being filled, or the first address.
    start: AtomicUsize,
    end: AtomicUsize,
    shrank: AtomicBool,
}

const FREE: usize = 0;
const CLAIMED: usize = usize::MAX;
/// Slots in a chunk, and chunks: 65,536 files mapped at once at most.
const CHUNK: usize = 1024;
const CHUNKS: usize = 64;

type Chunk = [Slot; CHUNK];

static TABLE: [AtomicPtr<Chunk>; CHUNKS] = [const { AtomicPtr::new(ptr::null_mut()) }; CHUNKS];

fn page() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    // SAFETY: sysconf reads a constant of the system.
    *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as usize,
        _ => 4096,
    })
}

/// A free slot holding `start..end`, `None` when the table is full.
fn claim(start: usize, end: usize) -> Option<&'static Slot> {
    for cell in &TABLE {
        let mut chunk = cell.load(Ordering::Acquire);
        if chunk.is_null() {
            let fresh = Box::into_raw(Box::new(std::array::from_fn::<Slot, CHUNK, _>(|_| Slot {
                start: AtomicUsize::new(FREE),
                end: AtomicUsize::new(0),
                shrank: AtomicBool::new(false),
            })));
            chunk = match cell.compare_exchange(
                ptr::null_mut(),
                fresh,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => fresh,
                Err(theirs) => {
                    // SAFETY: `fresh` was never shared.
                    drop(unsafe { Box::from_raw(fresh) });
                    theirs
                }
            };
        }
        // SAFETY: chunks are never freed once in the table.
        let chunk: &'static Chunk = unsafe { &*chunk };
        for slot in chunk {
            if slot
                .start
                .compare_exchange(FREE, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                // The handler skips a CLAIMED slot, so `end` and `shrank`
                // are set before the range is seen.
                slot.end.store(end, Ordering::Release);
                slot.shrank.store(false, Ordering::Release);
                slot.start.store(start, Ordering::Release);
                return Some(slot);
            }
        }
    }
    None
}

/// The live mapping holding `addr`, from the signal handler.
fn find(addr: usize) -> Option<&'static Slot> {
    for cell in &TABLE {
        let chunk = cell.load(Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: chunks are never freed once in the table.
        let chunk: &'static Chunk = unsafe { &*chunk };
        for slot in chunk {
            let start = slot.start.load(Ordering::Acquire);
            if start != FREE
                && start != CLAIMED
                && start <= addr
                && addr < slot.end.load(Ordering::Acquire)
            {
                return Some(slot);
            }
        }
    }
    None
}

/// The action SIGBUS had before ours (the default, or the standard
/// library's), for faults that are not a mapping's.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        page();
        // SAFETY: plain sigaction calls with zeroed, then filled, structures.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            // On the thread's alternate stack when it has one, as the
            // standard library's stack-overflow handler runs.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGBUS, ptr::null(), &mut previous) != 0 {
                return;
            }
            // Set before the handler can run, which reads it.
            let _ = PREVIOUS.set(previous);
            libc::sigaction(libc::SIGBUS, &action, ptr::null_mut());
        }
    });
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
    // A fault (si_code > 0), not a SIGBUS sent by someone.
    if code > 0 {
        if let Some(slot) = find(addr) {
            let from = addr & !(page() - 1);
            let end = slot.end.load(Ordering::Acquire);
            // SAFETY: replaces pages of a live read-only mapping of ours
            // (its range is in the table) with zeros of the same protection:
            // a plain system call, which a signal handler may make.
            let zeros = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                slot.shrank.store(true, Ordering::Release);
                // The access is retried, and reads zeros.
                return;
            }
        }
    }
    // Not ours: the action before ours takes it, as if we were not here.
    // SAFETY: sigaction and raise are async-signal-safe. SIGBUS is blocked
    // while this runs, so the raised one arrives on return, under the
    // previous action (a fault would also recur when the access is retried).
    unsafe {
        match PREVIOUS.get() {
            Some(previous) => libc::sigaction(signal, previous, ptr::null_mut()),
            None => {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, ptr::null_mut())
            }
        };
        libc::raise(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("sextant-mapped-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("f")
    }

    #[test]
    fn a_file_cut_short_under_its_map_reads_as_zeros_and_says_so() {
        let path = temp("cut");
        let bytes: Vec<u8> = (0..5 * page() + 100).map(|i| (i % 251) as u8 + 1).collect();
        File::create(&path).unwrap().write_all(&bytes).unwrap();
        let map = Mapped::map(&File::open(&path).unwrap(), &path).unwrap();
        assert_eq!(&map[..], &bytes[..]);
        assert!(map.check().is_ok());
        // Another process's truncation, as the kernel sees it.
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(page() as u64)
            .unwrap();
        // Without the handler, this read ends the test process (SIGBUS).
        let tail = map[3 * page()];
        assert_eq!(tail, 0);
        let e = map.check().unwrap_err();
        assert_eq!((e.len, e.now), (bytes.len() as u64, Some(page() as u64)));
        assert_eq!(
            e.to_string(),
            format!(
                "{}: the file shrank while being read ({} bytes, now {})",
                path.display(),
                bytes.len(),
                page()
            )
        );
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn slots_are_freed_and_taken_again() {
        let path = temp("slots");
        std::fs::write(&path, b"some bytes").unwrap();
        let file = File::open(&path).unwrap();
        // More than a chunk at once, five times: freed slots are taken
        // again, so the table holds two chunks (three with other tests'
        // maps), not the six it would leak to.
        for _ in 0..5 {
            let maps: Vec<Mapped> = (0..CHUNK + 10)
                .map(|_| Mapped::map(&file, &path).unwrap())
                .collect();
            assert!(maps.iter().all(|m| &m[..] == b"some bytes" && !m.shrank()));
        }
        let chunks = TABLE
            .iter()
            .filter(|c| !c.load(Ordering::Acquire).is_null())
            .count();
        assert!(chunks <= 3, "{chunks} chunks");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
