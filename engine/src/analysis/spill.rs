//! A pass's finished state intervals written out in sorted runs, so that
//! building an index keeps a bounded number of them in memory whatever the
//! length of the trace (`ThreadStates::spilling`).
//!
//! A run holds, for every thread life that had intervals waiting, those
//! intervals (all but each life's latest, which the next state change may
//! still extend), lives in their final order: by TID, then start, then
//! creation. That order is known when a run is written, since a life's TID
//! and start never change and lives created later only fall between those
//! already there. So each run is sorted as the table will be, every life's
//! intervals in a run come after its intervals in the runs before, and the
//! table is read off by walking the lives in order and taking each one's
//! intervals from every run in turn: no sort, no heap.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::intervals::{Interval, ThreadRow};
use super::thread_table::{code, state_of};
use crate::kernel::model::ThreadState;

/// One interval in a run file: life (u32), state code (u8), start, end.
const RECORD: usize = 4 + 1 + 8 + 8;

/// Intervals waiting in memory before they are written as a run: at 24
/// bytes each and per-life vectors up to twice their length, at most
/// about 48 MiB.
pub const BUDGET: usize = 1 << 20;

/// Run files being written in a directory (the trace's store's scratch
/// directory), and the first write error, reported at the end of the pass.
pub struct Runs {
    dir: PathBuf,
    files: Vec<PathBuf>,
    budget: usize,
    error: Option<io::Error>,
}

impl Runs {
    /// Runs in `dir` (which exists), one each time `budget` intervals wait.
    pub fn new(dir: &Path, budget: usize) -> Runs {
        Runs {
            dir: dir.to_path_buf(),
            files: Vec::new(),
            budget: budget.max(1),
            error: None,
        }
    }

    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Writes every life's waiting intervals but its latest, lives in
    /// `order`, and takes them out of `rows`; `spilled[life]` counts them.
    pub(crate) fn write_run(
        &mut self,
        rows: &mut [ThreadRow],
        order: &[usize],
        spilled: &mut [u64],
    ) {
        if self.error.is_some() {
            // Kept in memory from now on: the pass goes on, and its end
            // reports the error.
            return;
        }
        let path = self.dir.join(format!("run-{}", self.files.len()));
        let written = (|| {
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            for &life in order {
                let ivs = &mut rows[life].intervals;
                let done = ivs.len().saturating_sub(1);
                let id = u32::try_from(life).map_err(io::Error::other)?;
                for iv in &ivs[..done] {
                    let mut rec = [0u8; RECORD];
                    rec[..4].copy_from_slice(&id.to_le_bytes());
                    rec[4] = code(iv.state);
                    rec[5..13].copy_from_slice(&iv.start.to_le_bytes());
                    rec[13..].copy_from_slice(&iv.end.to_le_bytes());
                    w.write_all(&rec)?;
                }
                spilled[life] += done as u64;
                if done > 0 {
                    // A new vector: the old one's capacity would otherwise
                    // stay reserved for the whole pass.
                    let last = ivs[done];
                    *ivs = vec![last];
                }
            }
            w.flush()
        })();
        match written {
            Ok(()) => self.files.push(path),
            Err(e) => {
                self.error = Some(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
            }
        }
    }

    /// The first error writing a run, if any.
    pub(crate) fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// Every interval of the lives in `order`, each life's in time order:
    /// those of every run, then those still in `rows`. `emit` gets the
    /// life's place in `order` and the interval.
    pub(crate) fn merge(
        &self,
        rows: &[ThreadRow],
        order: &[usize],
        mut emit: impl FnMut(usize, Interval) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut readers = self
            .files
            .iter()
            .map(|p| RunReader::open(p))
            .collect::<io::Result<Vec<_>>>()?;
        for (place, &life) in order.iter().enumerate() {
            for r in &mut readers {
                while r.peek_life() == Some(life) {
                    emit(place, r.take()?)?;
                }
            }
            for &iv in &rows[life].intervals {
                emit(place, iv)?;
            }
        }
        for (r, p) in readers.iter_mut().zip(&self.files) {
            if r.peek_life().is_some() {
                return Err(io::Error::other(format!(
                    "{}: intervals of a life that is not in the table",
                    p.display()
                )));
            }
        }
        Ok(())
    }
}

/// One run file read in order, one record ahead.
struct RunReader {
    path: PathBuf,
    inner: BufReader<File>,
    next: Option<[u8; RECORD]>,
    at: u64,
}

impl RunReader {
    fn open(path: &Path) -> io::Result<RunReader> {
        let file = File::open(path).map_err(|e| with_path(path, e))?;
        let mut r = RunReader {
            path: path.to_path_buf(),
            inner: BufReader::with_capacity(64 << 10, file),
            next: None,
            at: 0,
        };
        r.advance()?;
        Ok(r)
    }

    fn advance(&mut self) -> io::Result<()> {
        let mut rec = [0u8; RECORD];
        let mut filled = 0;
        while filled < RECORD {
            match self.inner.read(&mut rec[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(with_path(&self.path, e)),
            }
        }
        self.next = match filled {
            0 => None,
            RECORD => Some(rec),
            _ => {
                return Err(io::Error::other(format!(
                    "{}: a record cut short at byte {}",
                    self.path.display(),
                    self.at
                )))
            }
        };
        self.at += filled as u64;
        Ok(())
    }

    fn peek_life(&self) -> Option<usize> {
        self.next
            .map(|rec| u32::from_le_bytes(rec[..4].try_into().expect("4 bytes")) as usize)
    }

    fn take(&mut self) -> io::Result<Interval> {
        let rec = self.next.expect("peeked");
        let word =
            |r: std::ops::Range<usize>| i64::from_le_bytes(rec[r].try_into().expect("8 bytes"));
        let iv = Interval {
            start: word(5..13),
            end: word(13..21),
            state: state_of(rec[4]).unwrap_or(ThreadState::Unknown),
        };
        self.advance()?;
        Ok(iv)
    }
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
