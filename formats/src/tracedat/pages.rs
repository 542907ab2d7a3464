//! One CPU's ring buffer pages and the events in them.
//!
//! A page: a 64-bit timestamp, the `commit` word (bytes of events in the
//! low 27 bits; bit 31: events were lost before this page; bit 30: their
//! count is stored after the events), then the events. Each event starts
//! with a 32-bit header, `type_len` in its low 5 bits and `time_delta` in the
//! high 27:
//!
//! * 1..=28: a record of `type_len * 4` bytes;
//! * 0: a record whose length (+ 4) is the next 32-bit word;
//! * 29: padding (the next word is its length; a discarded record, whose
//!   delta still counts);
//! * 30: time extend (delta `word << 27 | time_delta`);
//! * 31: absolute time stamp (`word << 27 | time_delta`, the top 5 bits
//!   kept from the current time).
//!
//! The times are what libtraceevent's kbuffer computes (`trace-cmd report`
//! is the oracle of the tests).
//!
//! Pages are raw in the file (v6, v7 uncompressed) or in compressed chunks
//! of whole pages (v7): a chunk is decompressed when one of its pages is
//! read, and kept while its pages are.

use super::bytes::{Bad, Endian};
use super::compress::Codec;
use super::formats::PageHeader;
use super::header::CpuLoc;

const COMMIT_MASK: u64 = (1 << 27) - 1;
const MISSED_EVENTS: u64 = 1 << 31;
const MISSED_STORED: u64 = 1 << 30;
const TS_SHIFT: u32 = 27;
const TS_MSB: u64 = 0xf8 << 56;
const PADDING: u32 = 29;
const TIME_EXTEND: u32 = 30;
const TIME_STAMP: u32 = 31;

/// A compressed chunk of whole pages.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    /// File offset of its compressed bytes.
    at: u64,
    csize: u32,
    usize: u32,
    /// Index of its first page among the CPU's pages.
    first_page: usize,
}

/// The page layout shared by all CPUs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub endian: Endian,
    pub page_size: usize,
    pub header: PageHeader,
    pub codec: Option<Codec>,
}

/// Where the current record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// Raw time (clock units since the clock's origin).
    pub ts: u64,
    /// The record's bytes within the current page.
    pub start: usize,
    pub end: usize,
}

/// Events lost before a page (`None`: some, count unknown).
pub(crate) type Missed = Option<u64>;

/// A cursor over one CPU's events.
pub(crate) struct CpuStream {
    pub cpu: u32,
    loc: CpuLoc,
    /// Bytes of the CPU's data present in the file (less than announced
    /// when the file is cut short).
    avail: u64,
    announced: u64,
    geo: Geometry,
    pages: usize,
    chunks: Vec<Chunk>,
    /// The decompressed chunk (index, bytes), when chunked.
    chunk: Option<(usize, Vec<u8>)>,
    /// Index of the page being read (`pages` at the end).
    page: usize,
    loaded: bool,
    pos: usize,
    end: usize,
    ts: u64,
    /// Pages whose lost events were counted: below this index.
    counted_upto: usize,
}

impl CpuStream {
    /// Reads the chunk table of a compressed CPU (which reads nothing else).
    pub fn new(file: &[u8], loc: CpuLoc, geo: Geometry) -> Result<CpuStream, Bad> {
        // The size of chunked data does not count its leading chunk count.
        let size = if loc.chunked {
            loc.size.saturating_add(4)
        } else {
            loc.size
        };
        let region = region(file, loc.offset, size, "CPU data")?;
        let mut chunks = Vec::new();
        let pages = if loc.chunked {
            let at = |i: usize| loc.offset + i as u64;
            let word = |i: usize| {
                geo.endian.uint(region, i, 4).ok_or_else(|| Bad {
                    offset: at(i),
                    message: format!("CPU {} data: chunk table cut short", loc.cpu),
                })
            };
            let n = if region.is_empty() { 0 } else { word(0)? };
            let mut pos = 4;
            let mut pages = 0usize;
            for _ in 0..n {
                let csize = word(pos)? as u32;
                let usize_ = word(pos + 4)? as u32;
                if !(usize_ as usize).is_multiple_of(geo.page_size) {
                    return Err(Bad {
                        offset: at(pos),
                        message: format!(
                            "CPU {} data: a chunk of {usize_} bytes, not whole pages of {}",
                            loc.cpu, geo.page_size
                        ),
                    });
                }
                let data = pos + 8;
                if data + csize as usize > region.len() {
                    return Err(Bad {
                        offset: at(pos),
                        message: format!(
                            "CPU {} data: a chunk of {csize} bytes past the end of the CPU's {} bytes",
                            loc.cpu,
                            region.len()
                        ),
                    });
                }
                chunks.push(Chunk {
                    at: at(data),
                    csize,
                    usize: usize_,
                    first_page: pages,
                });
                pages += usize_ as usize / geo.page_size;
                pos = data + csize as usize;
            }
            pages
        } else {
            // A partial page at the end (a file cut short) is not read.
            region.len() / geo.page_size
        };
        Ok(CpuStream {
            cpu: loc.cpu,
            loc,
            avail: region.len() as u64,
            announced: size,
            geo,
            pages,
            chunks,
            chunk: None,
            page: 0,
            loaded: false,
            pos: 0,
            end: 0,
            ts: 0,
            counted_upto: 0,
        })
    }

    /// (bytes present, bytes announced) when the file ends before the
    /// CPU's data does (the pages present are read).
    pub fn truncated(&self) -> Option<(u64, u64)> {
        (self.avail < self.announced).then_some((self.avail, self.announced))
    }

    /// The bytes of page `i` (decompressing its chunk if needed).
    fn page_bytes<'a>(&'a mut self, file: &'a [u8], i: usize) -> Result<&'a [u8], Bad> {
        let ps = self.geo.page_size;
        if !self.loc.chunked {
            let at = self.loc.offset as usize + i * ps;
            return Ok(&file[at..at + ps]);
        }
        let c = self.chunks.partition_point(|c| c.first_page <= i) - 1;
        if self.chunk.as_ref().map(|(k, _)| *k) != Some(c) {
            let ch = self.chunks[c];
            let codec = self.geo.codec.ok_or_else(|| Bad {
                offset: ch.at,
                message: "compressed CPU data without a compression algorithm".into(),
            })?;
            let data = &file[ch.at as usize..ch.at as usize + ch.csize as usize];
            let out = codec.decompress(data, ch.usize as usize).map_err(|m| Bad {
                offset: ch.at,
                message: format!("CPU {} data chunk: {m}", self.cpu),
            })?;
            self.chunk = Some((c, out));
        }
        let (_, bytes) = self.chunk.as_ref().expect("just loaded");
        let at = (i - self.chunks[c].first_page) * ps;
        Ok(&bytes[at..at + ps])
    }

    /// The file offset that locates page `i` in errors: the page itself, or
    /// its compressed chunk.
    fn page_at(&self, i: usize) -> u64 {
        if self.loc.chunked {
            let c = self
                .chunks
                .partition_point(|c| c.first_page <= i)
                .saturating_sub(1);
            self.chunks.get(c).map_or(self.loc.offset, |c| c.at)
        } else {
            self.loc.offset + (i * self.geo.page_size) as u64
        }
    }

    /// Message prefix for page `i`.
    fn where_(&self, i: usize) -> String {
        if self.loc.chunked {
            format!("CPU {} page {i} (in the compressed chunk here)", self.cpu)
        } else {
            format!("CPU {} page {i}", self.cpu)
        }
    }

    /// The time stamp of page `i` (its first event is at or after it).
    fn page_ts(&mut self, file: &[u8], i: usize) -> Result<u64, Bad> {
        let endian = self.geo.endian;
        let p = self.page_bytes(file, i)?;
        Ok(endian.uint(p, 0, 8).unwrap_or(0))
    }

    /// Positions the cursor at page `i`, before its first event; returns
    /// the lost events announced by the page, the first time it is read.
    fn load(&mut self, file: &[u8], i: usize) -> Result<Option<Missed>, Bad> {
        let (endian, ps, h) = (self.geo.endian, self.geo.page_size, self.geo.header);
        let (at, place) = (self.page_at(i), self.where_(i));
        let p = self.page_bytes(file, i)?;
        let ts = endian.uint(p, 0, 8).unwrap_or(0);
        let commit = endian.uint(p, 8, h.commit_size as usize).unwrap_or(0);
        let size = (commit & COMMIT_MASK) as usize;
        let data = h.data_offset as usize;
        if data + size > ps {
            return Err(Bad {
                offset: at,
                message: format!("{place}: {size} bytes of events in a page of {ps}"),
            });
        }
        let missed = if commit & MISSED_EVENTS == 0 {
            None
        } else if commit & MISSED_STORED != 0 {
            Some(endian.uint(p, data + size, h.commit_size as usize))
        } else {
            Some(None)
        };
        self.page = i;
        self.loaded = true;
        self.pos = data;
        self.end = data + size;
        self.ts = ts;
        let first_time = i >= self.counted_upto;
        self.counted_upto = self.counted_upto.max(i + 1);
        Ok(missed.filter(|_| first_time))
    }

    /// The next record, or `None` at the end of the CPU's data. Lost events
    /// announced by the pages passed are added to `lost` (count, markers).
    pub fn next(&mut self, file: &[u8], lost: &mut (u64, u64)) -> Result<Option<Record>, Bad> {
        loop {
            if !self.loaded || self.pos >= self.end {
                let next = if self.loaded {
                    self.page + 1
                } else {
                    self.page
                };
                if next >= self.pages {
                    self.page = self.pages;
                    self.loaded = true;
                    self.pos = 0;
                    self.end = 0;
                    return Ok(None);
                }
                if let Some(m) = self.load(file, next)? {
                    lost.0 += m.unwrap_or(0);
                    lost.1 += 1;
                }
                continue;
            }
            if let Some(r) = self.step(file)? {
                return Ok(Some(r));
            }
        }
    }

    /// Decodes the item at `pos`: a record, or `None` for a time item or
    /// padding (or the end of the page).
    fn step(&mut self, file: &[u8]) -> Result<Option<Record>, Bad> {
        let endian = self.geo.endian;
        let (page, pos, end) = (self.page, self.pos, self.end);
        let (at, place) = (self.page_at(page), self.where_(page));
        let p = self.page_bytes(file, page)?;
        let bad = |m: String| Bad {
            offset: at,
            message: format!("{place}, byte {pos}: {m}"),
        };
        let word = |i: usize| -> Result<u64, Bad> {
            if i + 4 > end {
                return Err(bad("event header past the page's events".into()));
            }
            Ok(endian.uint(p, i, 4).expect("within the page"))
        };
        let head = word(pos)? as u32;
        let type_len = head & 0x1f;
        let delta = (head >> 5) as u64;
        let (next, record) = match type_len {
            PADDING => {
                // A null padding (delta 0) fills the page to its end.
                let len = if delta == 0 && pos + 4 >= end {
                    0
                } else {
                    word(pos + 4)?
                };
                self.ts = self.ts.wrapping_add(delta);
                if delta == 0 && len == 0 {
                    (end, None)
                } else {
                    (pos + 4 + len as usize, None)
                }
            }
            TIME_EXTEND => {
                let ext = word(pos + 4)?;
                self.ts = self.ts.wrapping_add((ext << TS_SHIFT) | delta);
                (pos + 8, None)
            }
            TIME_STAMP => {
                let ext = word(pos + 4)?;
                self.ts = (self.ts & TS_MSB) | (ext << TS_SHIFT) | delta;
                (pos + 8, None)
            }
            0 => {
                let len = word(pos + 4)?;
                let len = (len
                    .checked_sub(4)
                    .ok_or_else(|| bad(format!("record length {len}")))?
                    + 3)
                    & !3;
                self.ts = self.ts.wrapping_add(delta);
                let start = pos + 8;
                (start + len as usize, Some((start, start + len as usize)))
            }
            n => {
                self.ts = self.ts.wrapping_add(delta);
                let start = pos + 4;
                (
                    start + 4 * n as usize,
                    Some((start, start + 4 * n as usize)),
                )
            }
        };
        if next > end {
            return Err(bad(format!(
                "an event of type {type_len} runs {} bytes past the page's events",
                next - end
            )));
        }
        self.pos = next;
        Ok(record.map(|(start, end)| Record {
            ts: self.ts,
            start,
            end,
        }))
    }

    /// The current page's bytes (the records returned by `next` are in it).
    pub fn current_page<'a>(&'a self, file: &'a [u8]) -> &'a [u8] {
        if !self.loc.chunked {
            let at = self.loc.offset as usize + self.page * self.geo.page_size;
            return file.get(at..at + self.geo.page_size).unwrap_or(&[]);
        }
        // `next` decompressed the chunk of the current page.
        let Some((c, bytes)) = &self.chunk else {
            return &[];
        };
        let at = self.page.saturating_sub(self.chunks[*c].first_page) * self.geo.page_size;
        bytes.get(at..at + self.geo.page_size).unwrap_or(&[])
    }

    /// The file offset of the current page, or of its compressed chunk.
    pub fn current_at(&self) -> u64 {
        self.page_at(self.page)
    }

    /// Bytes of the CPU's data in the file.
    pub fn size(&self) -> u64 {
        self.avail
    }

    /// Input bytes before the current page (or chunk), for progress.
    pub fn consumed(&self) -> u64 {
        if self.loc.chunked {
            let c = self.chunks.partition_point(|c| c.first_page <= self.page);
            if c >= self.chunks.len() && self.page >= self.pages {
                return self.avail;
            }
            self.chunks
                .get(c.saturating_sub(1))
                .map_or(0, |c| c.at - self.loc.offset)
        } else {
            ((self.page * self.geo.page_size) as u64).min(self.avail)
        }
    }

    /// Positions the cursor so that `next` gives the first record at or
    /// after raw time `raw`: from the last page stamped before it (pages
    /// are in time order), skipping the records before it.
    pub fn seek(
        &mut self,
        file: &[u8],
        raw: u64,
        lost: &mut (u64, u64),
    ) -> Result<Option<Record>, Bad> {
        let (mut lo, mut hi) = (0usize, self.pages);
        // The first page stamped at or after `raw`; start one before it.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.page_ts(file, mid)? < raw {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.page = lo.saturating_sub(1);
        self.loaded = false;
        loop {
            match self.next(file, lost)? {
                Some(r) if r.ts < raw => continue,
                other => return Ok(other),
            }
        }
    }
}

/// `size` bytes at `offset` of the file.
fn region<'a>(file: &'a [u8], offset: u64, size: u64, what: &str) -> Result<&'a [u8], Bad> {
    let end = offset.checked_add(size).filter(|&e| e <= file.len() as u64);
    match end {
        Some(end) => Ok(&file[offset as usize..end as usize]),
        None if offset <= file.len() as u64 => Ok(&file[offset as usize..]),
        None => Err(Bad {
            offset,
            message: format!(
                "{what} at byte {offset} ({size} bytes), past the end of the file ({} bytes)",
                file.len()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PS: usize = 256;

    fn head(type_len: u32, delta: u32) -> [u8; 4] {
        (type_len | (delta << 5)).to_le_bytes()
    }

    /// A page stamped `ts` holding `items`, with the commit's flag bits.
    fn page(ts: u64, items: &[&[u8]], flags: u64, stored: Option<u64>) -> Vec<u8> {
        let body: Vec<u8> = items.concat();
        let mut p = vec![0u8; PS];
        p[..8].copy_from_slice(&ts.to_le_bytes());
        p[8..16].copy_from_slice(&(body.len() as u64 | flags).to_le_bytes());
        p[16..16 + body.len()].copy_from_slice(&body);
        if let Some(n) = stored {
            p[16 + body.len()..24 + body.len()].copy_from_slice(&n.to_le_bytes());
        }
        p
    }

    fn stream(file: &[u8]) -> CpuStream {
        let loc = CpuLoc {
            cpu: 3,
            offset: 0,
            size: file.len() as u64,
            chunked: false,
        };
        let geo = Geometry {
            endian: Endian { big: false },
            page_size: PS,
            header: PageHeader {
                commit_size: 8,
                data_offset: 16,
            },
            codec: None,
        };
        CpuStream::new(file, loc, geo).unwrap()
    }

    #[test]
    fn time_items_padding_long_records_and_lost_events() {
        let extend = [head(TIME_EXTEND, 5), 1u32.to_le_bytes()].concat();
        let small = [head(2, 10).as_slice(), &[1; 8]].concat();
        let discarded = [head(PADDING, 7), 8u32.to_le_bytes(), [0; 4]].concat();
        let long = [head(0, 3).as_slice(), &16u32.to_le_bytes(), &[2; 12]].concat();
        let absolute = [head(TIME_STAMP, 9), 2u32.to_le_bytes()].concat();
        let tiny = [head(1, 0).as_slice(), &[3; 4]].concat();
        let mut file = page(
            1000,
            &[&extend, &small, &discarded, &long, &absolute, &tiny],
            MISSED_EVENTS | MISSED_STORED,
            Some(42),
        );
        file.extend(page(5 << 27, &[&small], MISSED_EVENTS, None));
        let mut s = stream(&file);
        let mut lost = (0, 0);
        let mut got = Vec::new();
        while let Some(r) = s.next(&file, &mut lost).unwrap() {
            let bytes = &s.current_page(&file)[r.start..r.end];
            got.push((r.ts, bytes[0], bytes.len()));
        }
        let t1 = 1000 + (1 << 27 | 5) + 10;
        let t2 = t1 + 7 + 3; // the discarded record's delta counts
        let t3 = 2 << 27 | 9;
        assert_eq!(
            got,
            [(t1, 1, 8), (t2, 2, 12), (t3, 3, 4), ((5 << 27) + 10, 1, 8)]
        );
        assert_eq!(lost, (42, 2));

        // Seeking reads each page's lost events once, and lands on the first
        // record at or after the time.
        let mut lost2 = (0, 0);
        let r = s.seek(&file, t2, &mut lost2).unwrap().unwrap();
        assert_eq!(r.ts, t2);
        assert_eq!(lost2, (0, 0));
        assert_eq!(
            s.seek(&file, t3 + 1, &mut lost2).unwrap().unwrap().ts,
            (5 << 27) + 10
        );
        assert!(s.seek(&file, 1 << 40, &mut lost2).unwrap().is_none());
    }

    #[test]
    fn an_event_past_the_page_end_is_an_error_at_the_page() {
        // type_len 28 announces 112 bytes; the page commits 8.
        let file = page(0, &[&[head(28, 0).as_slice(), &[0; 4]].concat()], 0, None);
        let mut s = stream(&file);
        let e = s.next(&file, &mut (0, 0)).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("CPU 3 page 0, byte 16"), "{}", e.message);
    }
}
