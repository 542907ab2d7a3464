//! A file writer that gives back the pages of mapped files it copies out.
//!
//! An index built from spilled intervals has its interval columns as mapped
//! scratch files; the Arrow writer writes those columns straight from the
//! mapping (no copy), and every page it reads becomes part of the process's
//! resident memory until unmapped. Dropping each page once written keeps
//! the resident share of a column at one chunk, whatever its length.

use std::fs::File;
use std::io::{self, Write};
use std::sync::Arc;

use memmap2::UncheckedAdvice;

use crate::mapped::Mapped;

/// Bytes written between two checks for pages to give back.
const CHUNK: usize = 8 << 20;

/// Writes to `file`; a write whose bytes lie in one of `maps` drops the
/// pages it has written from this process's memory.
pub struct Shedding {
    pub file: File,
    pub maps: Vec<Arc<Mapped>>,
}

impl Write for Shedding {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let chunk = &buf[..buf.len().min(CHUNK)];
        self.file.write_all(chunk)?;
        let (lo, hi) = (
            chunk.as_ptr() as usize,
            chunk.as_ptr() as usize + chunk.len(),
        );
        for m in &self.maps {
            let base = m.as_ptr() as usize;
            if lo >= base && hi <= base + m.len() {
                // Zeros of a file cut short under the map were written:
                // the write fails, naming the file.
                m.check().map_err(io::Error::other)?;
                // SAFETY: the mapping is of a read-only file that nothing
                // writes while it is mapped: dropped pages read back as the
                // same bytes, from the page cache or the file.
                unsafe { m.unchecked_advise_range(UncheckedAdvice::DontNeed, lo - base, hi - lo)? };
            }
        }
        Ok(chunk.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}
