//! The episodes the search ends on, kept flat; of those, the maximal ones
//! (no subsequence of another), ranked.
//!
//! Every frequent episode is a prefix of one the search ends on (one without
//! a frequent extension), so comparing those among themselves is enough.

use std::cmp::Ordering;

/// Episodes of dense type ids, with their support and span.
#[derive(Debug, Default)]
pub(super) struct Episodes {
    elems: Vec<u32>,
    items: Vec<Item>,
}

#[derive(Debug)]
struct Item {
    from: usize,
    to: usize,
    support: u32,
    span: u64,
}

impl Episodes {
    pub fn push(&mut self, episode: &[u32], support: u32, span: u64) {
        let from = self.elems.len();
        self.elems.extend_from_slice(episode);
        self.items.push(Item {
            from,
            to: self.elems.len(),
            support,
            span,
        });
    }

    /// Episode, support and span of the `i`-th.
    pub fn get(&self, i: usize) -> (&[u32], u32, u64) {
        let it = &self.items[i];
        (&self.elems[it.from..it.to], it.support, it.span)
    }

    fn episode(&self, i: usize) -> &[u32] {
        self.get(i).0
    }

    /// Indices of the episodes that are no subsequence of another, best
    /// first: higher support, then longer, then smaller span, then by ids.
    pub fn maximal_ranked(&self) -> Vec<usize> {
        let mut by_len: Vec<usize> = (0..self.items.len()).collect();
        by_len.sort_by_key(|&i| std::cmp::Reverse(self.episode(i).len()));
        // A subsequence of a dropped episode is one of a kept one too.
        let mut kept: Vec<(usize, u128)> = Vec::new();
        for i in by_len {
            let ep = self.episode(i);
            let m = mask(ep);
            let contained = kept
                .iter()
                .any(|&(k, km)| m & !km == 0 && is_subsequence(ep, self.episode(k)));
            if !contained {
                kept.push((i, m));
            }
        }
        let mut out: Vec<usize> = kept.into_iter().map(|(i, _)| i).collect();
        out.sort_by(|&a, &b| self.rank(a, b));
        out
    }

    fn rank(&self, a: usize, b: usize) -> Ordering {
        let (ea, sa, pa) = self.get(a);
        let (eb, sb, pb) = self.get(b);
        sb.cmp(&sa)
            .then(eb.len().cmp(&ea.len()))
            .then(pa.cmp(&pb))
            .then_with(|| ea.cmp(eb))
    }
}

/// The types of an episode as bits (id modulo 128): a subsequence's bits are
/// a subset of the sequence's.
fn mask(ep: &[u32]) -> u128 {
    ep.iter().fold(0, |m, &e| m | 1 << (e % 128))
}

/// Whether `a` is a proper subsequence of `b`.
fn is_subsequence(a: &[u32], b: &[u32]) -> bool {
    if a.len() >= b.len() {
        return false;
    }
    let mut rest = b.iter();
    a.iter().all(|x| rest.any(|y| y == x))
}
