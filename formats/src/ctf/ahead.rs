//! Bytes asked for before they are read.
//!
//! A stream's packets come from the page cache, not the processor's caches,
//! and the events of a perf recording are read once each: where a string or
//! a payload's first value is loaded, the processor waited for memory (a
//! quarter of framing's time and the largest share of a payload's decoding,
//! by `perf annotate`). Asking for the bytes a little ahead of framing
//! lets them arrive while the events before them are framed. (Asking
//! again for each payload a few events before it is decoded gained
//! nothing measurable: framing's lines are still in the caches then.)

/// Framing's reads, asked for `DISTANCE` bytes ahead as framing moves on.
pub(super) struct Ahead {
    /// The next byte not asked for yet.
    next: usize,
}

impl Ahead {
    /// About ten perf events: far enough for memory to answer, near enough
    /// to stay in the first-level cache until framing reaches them.
    const DISTANCE: usize = 1024;
    const LINE: usize = 64;

    /// For framing from bit `pos` on.
    pub(super) fn new(pos: u64) -> Ahead {
        Ahead {
            next: (pos / 8) as usize,
        }
    }

    /// Framing is at bit `pos` of `bytes`: asks for what lies up to
    /// `DISTANCE` bytes after it.
    #[inline(always)]
    pub(super) fn fetch(&mut self, bytes: &[u8], pos: u64) {
        let want = ((pos / 8) as usize + Ahead::DISTANCE).min(bytes.len());
        while self.next < want {
            prefetch(&bytes[self.next]);
            self.next += Ahead::LINE;
        }
    }
}

/// Asks for the cache line that holds `byte`.
#[inline(always)]
fn prefetch(byte: &u8) {
    // SAFETY: a prefetch reads nothing and cannot fault; SSE, which has
    // it, is part of x86-64.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (byte as *const u8).cast(),
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}
