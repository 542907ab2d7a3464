//! Pages of the mapped stream files handed back to the kernel
//! (`MADV_DONTNEED`) once read: they stay in the page cache but no longer
//! count in this process's memory, which stays bounded by what is being
//! read, whatever the file size.

use std::ops::Range;

use memmap2::{Mmap, UncheckedAdvice};

use crate::mapped::Mapped;

/// Gives back the pages of `range` of `map`, bytes of a finished packet:
/// they stay in the page cache, but no longer count in this process's
/// memory. Packets of a stream finish in file order, so the page shared with
/// the packet before goes too, and the one shared with the next is kept.
/// (Keeping both leaked a page per packet: 24 MB over the 6,100 unaligned
/// packets of a 1.6 GB capture.)
pub(super) fn release_pages(map: &Mmap, range: Range<usize>) {
    const PAGE: usize = 4096;
    let start = range.start / PAGE * PAGE;
    let end = range.end / PAGE * PAGE;
    if end > start {
        // SAFETY: DONTNEED on a read-only private file mapping drops
        // resident pages; reading them again refaults them from the file.
        // Nothing borrows these bytes any more: a finished packet, or
        // headers already read.
        unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start) }.ok();
    }
}

/// Gives back, as a pass over packet headers goes (a scan for `--jobs`, a
/// seek), the pages that reading the headers mapped: the kernel maps up to
/// 64 KiB around each page fault, so with small packets a pass over a large
/// trace would otherwise keep a share of the whole file resident until
/// its packets were read (a quarter of a 1.6 GB capture, seen).
#[derive(Default)]
pub(super) struct Skim {
    /// Bytes before this are given back.
    released: usize,
}

impl Skim {
    /// Bytes of the pass given back at once: few system calls, little kept.
    const STEP: usize = 8 << 20;

    /// The pass has read everything before byte `to` that it will read.
    pub(super) fn passed(&mut self, map: Option<&Mapped>, to: usize) {
        if to - self.released >= Self::STEP {
            self.passed_all(map, to);
        }
    }

    /// The same, and give back now what is left.
    pub(super) fn passed_all(&mut self, map: Option<&Mapped>, to: usize) {
        if let Some(map) = map {
            release_pages(map, self.released..to);
        }
        self.released = to;
    }
}
