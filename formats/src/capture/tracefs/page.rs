//! One page of a per-CPU ring buffer as `trace_pipe_raw` hands it out: a page
//! header (base timestamp, committed length with the missed-events flags) and
//! records, each a 32-bit word (5-bit type/length, 27-bit time delta) and
//! its data (`events/header_event`).

use super::format::PageLayout;

/// Events were lost before this page.
const MISSED_EVENTS: u32 = 1 << 31;
/// ...and their count follows the page's data.
const MISSED_STORED: u32 = 1 << 30;
/// The committed length (the flags live above it).
const COMMIT_MASK: u32 = (1 << 27) - 1;

const TYPE_PADDING: u32 = 29;
const TYPE_TIME_EXTEND: u32 = 30;
const TYPE_TIME_STAMP: u32 = 31;
const TS_SHIFT: u32 = 27;
/// An absolute time stamp keeps 59 bits; the 5 above come from the time so far.
const TS_MSB: u64 = 0xf8 << 56;

/// Events lost before a page, as the page says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missed {
    None,
    /// Lost, but the kernel had no room to say how many.
    Unknown,
    Count(u64),
}

/// One event record: its time and its data (the trace entry: `common_type`
/// first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'p> {
    pub ts: u64,
    pub data: &'p [u8],
}

/// A page that does not decode: the offset in the page and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageError {
    pub offset: usize,
    pub message: String,
}

/// Decodes `page`, calling `each` for every record in order; returns what
/// the page says about lost events. Everything read is checked against the
/// page's committed length.
pub fn decode<'p>(
    layout: &PageLayout,
    page: &'p [u8],
    mut each: impl FnMut(Record<'p>),
) -> Result<Missed, PageError> {
    let bad = |offset: usize, message: String| PageError { offset, message };
    if page.len() < layout.data_offset {
        return Err(bad(
            0,
            format!("page of {} bytes has no header", page.len()),
        ));
    }
    let mut ts = u64_at(page, 0);
    // Only the low 32 bits hold the length and the flags, whatever the word size.
    let commit_word = u32_at(page, layout.commit_offset);
    let len = (commit_word & COMMIT_MASK) as usize;
    let data = &page[layout.data_offset..];
    if len > data.len() {
        return Err(bad(
            layout.commit_offset,
            format!(
                "committed length {len} beyond the page's {} data bytes",
                data.len()
            ),
        ));
    }
    let missed = if commit_word & MISSED_EVENTS == 0 {
        Missed::None
    } else if commit_word & MISSED_STORED != 0 && len + layout.commit_size <= data.len() {
        Missed::Count(if layout.commit_size == 8 {
            u64_at(data, len)
        } else {
            u64::from(u32_at(data, len))
        })
    } else {
        Missed::Unknown
    };
    let mut pos = 0usize;
    while pos + 4 <= len {
        let at = layout.data_offset + pos;
        let word = u32_at(data, pos);
        let type_len = word & 0x1f;
        let delta = u64::from(word >> 5);
        let array0 = || {
            (pos + 8 <= len)
                .then(|| u32_at(data, pos + 4))
                .ok_or_else(|| bad(at, format!("record of type {type_len} cut by the page end")))
        };
        match type_len {
            TYPE_PADDING => {
                if delta == 0 {
                    // The rest of the page is unused.
                    break;
                }
                // A discarded event: skipped, its time not counted.
                pos += 4 + array0()? as usize;
            }
            TYPE_TIME_EXTEND => {
                ts = ts.wrapping_add((u64::from(array0()?) << TS_SHIFT) + delta);
                pos += 8;
            }
            TYPE_TIME_STAMP => {
                let mut abs = (u64::from(array0()?) << TS_SHIFT) + delta;
                if ts & TS_MSB != 0 {
                    abs |= ts & TS_MSB;
                    if abs < ts {
                        abs = abs.wrapping_add(1 << 59);
                    }
                }
                ts = abs;
                pos += 8;
            }
            _ => {
                // Up to 28 words: the length is in the type; 0: in the next
                // word, which counts itself.
                let (start, n) = if type_len == 0 {
                    let n = array0()? as usize;
                    if n < 4 {
                        return Err(bad(at, format!("record length {n}")));
                    }
                    (pos + 8, n - 4)
                } else {
                    (pos + 4, type_len as usize * 4)
                };
                if start + n > len {
                    return Err(bad(
                        at,
                        format!("record length {n} beyond the committed data"),
                    ));
                }
                ts = ts.wrapping_add(delta);
                each(Record {
                    ts,
                    data: &data[start..start + n],
                });
                pos = start + n;
            }
        }
    }
    Ok(missed)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: PageLayout = PageLayout {
        commit_offset: 8,
        commit_size: 8,
        data_offset: 16,
        data_size: 4080,
    };

    /// Builds a page the way the kernel lays one out.
    struct PageBuilder {
        data: Vec<u8>,
    }

    impl PageBuilder {
        fn word(&mut self, type_len: u32, delta: u32) {
            self.data
                .extend_from_slice(&(type_len | (delta << 5)).to_ne_bytes());
        }
        fn small(&mut self, delta: u32, payload: &[u8]) {
            assert_eq!(payload.len() % 4, 0);
            self.word(payload.len() as u32 / 4, delta);
            self.data.extend_from_slice(payload);
        }
        fn large(&mut self, delta: u32, payload: &[u8]) {
            self.word(0, delta);
            self.data
                .extend_from_slice(&(payload.len() as u32 + 4).to_ne_bytes());
            self.data.extend_from_slice(payload);
        }
        fn extend(&mut self, delta: u64) {
            self.word(TYPE_TIME_EXTEND, (delta & ((1 << 27) - 1)) as u32);
            self.data
                .extend_from_slice(&((delta >> 27) as u32).to_ne_bytes());
        }
        fn page(&self, ts: u64, flags: u32, missed: Option<u64>) -> Vec<u8> {
            let mut p = ts.to_ne_bytes().to_vec();
            p.extend_from_slice(&(u64::from(flags) | self.data.len() as u64).to_ne_bytes());
            p.extend_from_slice(&self.data);
            if let Some(m) = missed {
                p.extend_from_slice(&m.to_ne_bytes());
            }
            p.resize(4096, 0);
            p
        }
    }

    /// (time, data) of every record, and what the page says of losses.
    type Decoded = (Vec<(u64, Vec<u8>)>, Result<Missed, PageError>);

    fn records(page: &[u8]) -> Decoded {
        let mut out = Vec::new();
        let r = decode(&LAYOUT, page, |rec| out.push((rec.ts, rec.data.to_vec())));
        (out, r)
    }

    #[test]
    fn records_with_deltas_extends_and_padding() {
        let mut b = PageBuilder { data: Vec::new() };
        b.small(5, &[1, 2, 3, 4]);
        b.extend(1 << 30);
        b.large(7, &[9; 120]);
        // A discarded event: skipped without moving time.
        b.word(TYPE_PADDING, 3);
        // The length after the first word: its own 4 bytes and 8 of data.
        b.data.extend_from_slice(&12u32.to_ne_bytes());
        b.data.extend_from_slice(&[0; 8]);
        b.small(1, &[5; 8]);
        let (recs, missed) = records(&b.page(1000, 0, None));
        assert_eq!(missed, Ok(Missed::None));
        let ts: Vec<u64> = recs.iter().map(|r| r.0).collect();
        assert_eq!(ts, vec![1005, 1005 + (1 << 30) + 7, 1005 + (1 << 30) + 8]);
        assert_eq!(recs[1].1.len(), 120);
        assert_eq!(recs[2].1, vec![5; 8]);
    }

    #[test]
    fn absolute_stamps_and_missed_counts() {
        let mut b = PageBuilder { data: Vec::new() };
        let abs: u64 = 123_456_789_012;
        b.word(TYPE_TIME_STAMP, (abs & ((1 << 27) - 1)) as u32);
        b.data
            .extend_from_slice(&((abs >> 27) as u32).to_ne_bytes());
        b.small(0, &[0; 4]);
        let (recs, missed) = records(&b.page(5, MISSED_EVENTS | MISSED_STORED, Some(42)));
        assert_eq!(missed, Ok(Missed::Count(42)));
        assert_eq!(recs[0].0, abs);
        let (_, missed) = records(&b.page(5, MISSED_EVENTS, None));
        assert_eq!(missed, Ok(Missed::Unknown));
    }

    #[test]
    fn corrupt_pages_are_errors() {
        // Committed length beyond the page.
        let mut p = vec![0u8; 4096];
        p[8..16].copy_from_slice(&5000u64.to_ne_bytes());
        assert!(records(&p).1.is_err());
        // A record whose length runs past the committed data.
        let mut b = PageBuilder { data: Vec::new() };
        b.word(0, 0);
        b.data.extend_from_slice(&1000u32.to_ne_bytes());
        assert!(records(&b.page(0, 0, None)).1.unwrap_err().offset == 16);
        // Too short to have a header.
        assert!(decode(&LAYOUT, &[0; 8], |_| {}).is_err());
    }
}
