//! CoreSight formatter frames, as an ETB/ETF/ETR sink stores trace: 16-byte
//! frames interleaving several sources, each named by a 7-bit trace ID.
//! Even bytes 0–14 are either data (bits 7:1, bit 0 in the auxiliary byte
//! 15) or, with bit 0 set, an ID change (bits 7:1); the auxiliary bit of an
//! ID change says whether the next byte still belongs to the previous ID.
//! Odd bytes are always data. A frame-aligned run of FSYNC words
//! (0x7fffffff) marks a discontinuity (the sink wrapped): each source's
//! stream restarts there.

use std::collections::BTreeMap;

const FRAME: usize = 16;
const FSYNC: [u8; 4] = [0xff, 0xff, 0xff, 0x7f];
/// ID 0 carries no trace; 0x70 and above are reserved.
const MAX_ID: u8 = 0x6f;

/// One source's bytes, cut at discontinuities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceBytes {
    pub bytes: Vec<u8>,
    /// Indices into `bytes` where the source's stream restarts after a gap.
    pub gaps: Vec<usize>,
    /// (index into `bytes`, file offset of the frame it came from), one per
    /// frame: to name where an error is.
    pub frames: Vec<(usize, u64)>,
}

impl SourceBytes {
    /// File offset of the frame holding byte `i` of this source.
    pub fn file_offset(&self, i: usize) -> u64 {
        let k = self.frames.partition_point(|&(at, _)| at <= i);
        k.checked_sub(1).map_or(0, |k| self.frames[k].1)
    }

    /// The stream as runs between gaps: (start index, bytes).
    pub fn runs(&self) -> Vec<(usize, &[u8])> {
        let mut cuts = vec![0];
        cuts.extend(
            self.gaps
                .iter()
                .copied()
                .filter(|&g| g > 0 && g < self.bytes.len()),
        );
        cuts.push(self.bytes.len());
        cuts.dedup();
        cuts.windows(2)
            .map(|w| (w[0], &self.bytes[w[0]..w[1]]))
            .collect()
    }
}

/// Every source of a formatted capture, by trace ID, and warnings.
#[derive(Debug, Default)]
pub struct Demuxed {
    pub sources: BTreeMap<u8, SourceBytes>,
    pub warnings: Vec<String>,
}

pub fn demux(data: &[u8]) -> Demuxed {
    let mut out = Demuxed::default();
    let mut id: Option<u8> = None;
    let mut pos = 0usize;
    while pos < data.len() {
        // FSYNC words at a frame boundary: a barrier, the data before it and
        // after it are not contiguous.
        let mut synced = 0usize;
        while data.get(pos..pos + 4) == Some(&FSYNC[..]) {
            pos += 4;
            synced += 1;
        }
        if synced > 0 {
            if !synced.is_multiple_of(4) {
                out.warnings.push(format!(
                    "byte {}: {synced} FSYNC words, not a whole frame; frame boundaries may be lost",
                    pos - 4 * synced
                ));
            }
            id = None;
            for s in out.sources.values_mut() {
                if !s.bytes.is_empty() && s.gaps.last() != Some(&s.bytes.len()) {
                    s.gaps.push(s.bytes.len());
                }
            }
            continue;
        }
        let Some(frame) = data.get(pos..pos + FRAME) else {
            out.warnings.push(format!(
                "byte {pos}: the capture ends inside a frame ({} of 16 bytes); ignored",
                data.len() - pos
            ));
            break;
        };
        let frame_at = pos as u64;
        let aux = frame[15];
        let push = |id: Option<u8>, b: u8, out: &mut Demuxed| {
            let Some(id) = id.filter(|&i| i != 0 && i <= MAX_ID) else {
                return;
            };
            let s = out.sources.entry(id).or_default();
            if s.frames.last().is_none_or(|&(_, off)| off != frame_at) {
                s.frames.push((s.bytes.len(), frame_at));
            }
            s.bytes.push(b);
        };
        for k in 0..8 {
            let even = frame[2 * k];
            let flag = (aux >> k) & 1 == 1;
            let next = (k < 7).then(|| frame[2 * k + 1]);
            if even & 1 == 1 {
                let new = even >> 1;
                match next {
                    // The byte after the ID change belongs to the old ID.
                    Some(b) if flag && Some(new) != id => {
                        push(id, b, &mut out);
                        id = Some(new);
                    }
                    Some(b) => {
                        id = Some(new);
                        push(id, b, &mut out);
                    }
                    None => id = Some(new),
                }
            } else {
                push(id, even | u8::from(flag), &mut out);
                if let Some(b) = next {
                    push(id, b, &mut out);
                }
            }
        }
        pos += FRAME;
    }
    out
}
