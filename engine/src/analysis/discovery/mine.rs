//! MANEPI over the threads' sequences.
//!
//! Positions are indices into the concatenation of the sequences; an
//! occurrence is the (first, last) position of an episode's events and never
//! crosses from one sequence to the next. The minimal occurrences of `α·e`
//! come from those of `α` (ascending): each `[s, t]` extends to the first `e`
//! after `t` in the same sequence, and of several extensions ending on the
//! same `e` only the last (the latest start) is minimal. Minimal occurrences
//! ascend by start and by end alike, so the greedy choice of the earliest end
//! gives the largest set of non-overlapping ones: the support.
//!
//! Growth of `γ·x` only tries the `e` for which `γ·e` is frequent: `γ·e` is a
//! subsequence of `γ·x·e`, so it is at least as frequent.

use std::time::{Duration, Instant};

use super::collect::Sequences;
use super::maximal::{Ends, Tree};

/// How frequent an episode must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    /// At least this support (0 counts as 1).
    MinSupport(u32),
    /// Admit the N most frequent event types: the threshold is the N-th's
    /// count, so types tied with it are admitted too.
    TopElements(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub threshold: Threshold,
    /// Canonical names: every episode starts with one of them (with any
    /// event when empty).
    pub start_events: Vec<String>,
    /// The search stops after this long, keeping what it found (`partial`):
    /// maximal among the episodes found, which a complete search might
    /// show to be part of longer ones.
    pub time_limit: Option<Duration>,
}

/// A maximal frequent episode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Canonical event names, in order, each at most once.
    pub events: Vec<String>,
    /// Largest number of non-overlapping minimal occurrences.
    pub support: u32,
    /// Events spanned by those occurrences, first to last inclusive, summed:
    /// among equally frequent and long patterns the tightest ranks first.
    pub span: u64,
}

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mined {
    /// Best first: support, then length, then (smaller) span.
    pub patterns: Vec<Pattern>,
    /// The threshold applied.
    pub min_support: u32,
    /// Event types frequent enough to be part of an episode.
    pub admitted: usize,
    /// The time limit stopped the search.
    pub partial: bool,
    /// Candidate episodes whose support was computed.
    pub evaluated: u64,
}

type Occ = (u32, u32);

/// The sequences as positions of each admitted event type.
struct Index {
    /// Exclusive end of each sequence in the concatenation.
    bounds: Vec<u32>,
    /// Positions of each admitted type (dense id), ascending.
    pos: Vec<Vec<u32>>,
    /// Dense id to type id in `Sequences`.
    type_of: Vec<u32>,
}

pub fn mine(seqs: &Sequences, params: &Params) -> Mined {
    let started = Instant::now();
    let mut counts = vec![0u32; seqs.names.len()];
    for (_, s) in &seqs.threads {
        for &t in s {
            counts[t as usize] += 1;
        }
    }
    let min = resolve(params.threshold, &counts);
    let index = build_index(seqs, &counts, min);
    let roots: Vec<u32> = if params.start_events.is_empty() {
        (0..index.type_of.len() as u32).collect()
    } else {
        (0..index.type_of.len() as u32)
            .filter(|&d| {
                let name = &seqs.names[index.type_of[d as usize] as usize];
                params.start_events.iter().any(|s| s == name)
            })
            .collect()
    };
    let mut search = Search {
        index: &index,
        min,
        deadline: params.time_limit.map(|l| started + l),
        levels: Vec::new(),
        tree: Tree::new(),
        ends: Ends::default(),
        episode: Vec::new(),
        evaluated: 0,
        stopped: false,
    };
    let all: Vec<u32> = (0..index.type_of.len() as u32).collect();
    let first = search.tree.add_children(0, roots.iter().copied());
    for (node, &r) in (first..).zip(&roots) {
        let mo: Vec<Occ> = index.pos[r as usize].iter().map(|&p| (p, p)).collect();
        let n = mo.len() as u32;
        search.episode.push(r);
        search.grow(node, 0, &mo, n, u64::from(n), &all);
        search.episode.pop();
        if search.stopped {
            break;
        }
    }
    let patterns = search
        .ends
        .maximal_ranked(&search.tree)
        .into_iter()
        .map(|i| {
            let (episode, support, span) = search.ends.get(i);
            Pattern {
                events: episode
                    .iter()
                    .map(|&d| seqs.names[index.type_of[d as usize] as usize].clone())
                    .collect(),
                support,
                span,
            }
        })
        .collect();
    Mined {
        patterns,
        min_support: min,
        admitted: index.type_of.len(),
        partial: search.stopped,
        evaluated: search.evaluated,
    }
}

/// The minimum support a threshold means, given each type's count.
fn resolve(threshold: Threshold, counts: &[u32]) -> u32 {
    match threshold {
        Threshold::MinSupport(k) => k.max(1),
        Threshold::TopElements(n) => {
            let mut c: Vec<u32> = counts.iter().copied().filter(|&c| c > 0).collect();
            c.sort_unstable_by(|a, b| b.cmp(a));
            let n = n.clamp(1, c.len().max(1));
            c.get(n - 1).copied().unwrap_or(1)
        }
    }
}

/// Admitted types (count at least `min`) get dense ids, most frequent first
/// (then by name), and their positions.
fn build_index(seqs: &Sequences, counts: &[u32], min: u32) -> Index {
    let mut type_of: Vec<u32> = (0..counts.len() as u32)
        .filter(|&t| counts[t as usize] >= min)
        .collect();
    type_of.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        counts[b]
            .cmp(&counts[a])
            .then_with(|| seqs.names[a].cmp(&seqs.names[b]))
    });
    let mut dense = vec![u32::MAX; counts.len()];
    for (d, &t) in type_of.iter().enumerate() {
        dense[t as usize] = d as u32;
    }
    let mut pos: Vec<Vec<u32>> = type_of
        .iter()
        .map(|&t| Vec::with_capacity(counts[t as usize] as usize))
        .collect();
    let mut bounds = Vec::with_capacity(seqs.threads.len());
    let mut p = 0u32;
    for (_, s) in &seqs.threads {
        for &t in s {
            if let Some(v) = pos.get_mut(dense[t as usize] as usize) {
                v.push(p);
            }
            p += 1;
        }
        bounds.push(p);
    }
    Index {
        bounds,
        pos,
        type_of,
    }
}

/// The depth-first search, with its reused buffers.
struct Search<'a> {
    index: &'a Index,
    min: u32,
    deadline: Option<Instant>,
    /// Minimal occurrences of the frequent children, one buffer per depth.
    levels: Vec<Vec<Occ>>,
    /// Every frequent episode found.
    tree: Tree,
    /// Those without a frequent extension at their end.
    ends: Ends,
    /// The episode being grown (dense ids).
    episode: Vec<u32>,
    evaluated: u64,
    stopped: bool,
}

/// A frequent extension: its last type, where its occurrences are in the
/// level's buffer, support and span.
struct Child {
    last: u32,
    from: usize,
    to: usize,
    support: u32,
    span: u64,
}

impl Search<'_> {
    /// Grows `self.episode` (frequent, node `node` of the tree, with minimal
    /// occurrences `mo`) by each type of `cands` not already its last.
    fn grow(
        &mut self,
        node: u32,
        depth: usize,
        mo: &[Occ],
        support: u32,
        span: u64,
        cands: &[u32],
    ) {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = true;
            return;
        }
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, Vec::new);
        }
        let mut buf = std::mem::take(&mut self.levels[depth]);
        buf.clear();
        let last = *self.episode.last().expect("episodes are never empty");
        let mut children = Vec::new();
        // A child has at most as many minimal occurrences as its parent.
        if mo.len() >= self.min as usize {
            for &e in cands.iter().filter(|&&e| e != last) {
                self.evaluated += 1;
                let from = buf.len();
                let pos = &self.index.pos[e as usize];
                if let Some((support, span)) =
                    extend(mo, pos, &self.index.bounds, self.min, &mut buf)
                {
                    children.push(Child {
                        last: e,
                        from,
                        to: buf.len(),
                        support,
                        span,
                    });
                }
            }
        }
        if children.is_empty() {
            self.ends.push(&self.episode, support, span);
        } else {
            let next: Vec<u32> = children.iter().map(|c| c.last).collect();
            let first = self.tree.add_children(node, next.iter().copied());
            for (child, c) in (first..).zip(&children) {
                self.episode.push(c.last);
                self.grow(
                    child,
                    depth + 1,
                    &buf[c.from..c.to],
                    c.support,
                    c.span,
                    &next,
                );
                self.episode.pop();
                if self.stopped {
                    break;
                }
            }
        }
        self.levels[depth] = buf;
    }
}

/// Appends to `out` the minimal occurrences of `α·e`, from those of `α`
/// (`mo`) and the positions of `e`, and returns their support and span;
/// `None` (and nothing appended) when the support cannot reach `min`.
fn extend(
    mo: &[Occ],
    pos: &[u32],
    bounds: &[u32],
    min: u32,
    out: &mut Vec<Occ>,
) -> Option<(u32, u64)> {
    let from = out.len();
    let mut greedy = Greedy::default();
    // The last occurrence (`end == NONE`: none yet): a later start may still
    // replace its own.
    const NONE: u32 = u32::MAX;
    let (mut start, mut end) = (0, NONE);
    let mut j = 0;
    let mut seq = 0;
    let mut bound = bounds[0];
    for (i, &(s, t)) in mo.iter().enumerate() {
        // One more at most for each occurrence left, and the pending one.
        if i % 64 == 0 && greedy.support + 1 + ((mo.len() - i) as u32) < min {
            break;
        }
        if pos[j] <= t {
            j = first_after(pos, j, t);
            if j == pos.len() {
                break;
            }
        }
        let q = pos[j];
        while bound <= s {
            seq += 1;
            bound = bounds[seq];
        }
        if q >= bound {
            continue;
        }
        // The same `e` closing a later start: that one is the minimal.
        if q != end && end != NONE {
            greedy.add(start, end);
            out.push((start, end));
        }
        (start, end) = (s, q);
    }
    if end != NONE {
        greedy.add(start, end);
        out.push((start, end));
    }
    if greedy.support < min {
        out.truncate(from);
        return None;
    }
    Some((greedy.support, greedy.span))
}

/// The greedy choice of non-overlapping occurrences, fed by ascending end.
#[derive(Default)]
struct Greedy {
    support: u32,
    span: u64,
    /// End of the last chosen, plus one (0: none yet).
    next: u32,
}

impl Greedy {
    fn add(&mut self, s: u32, t: u32) {
        if s >= self.next {
            self.support += 1;
            self.span += u64::from(t - s + 1);
            self.next = t + 1;
        }
    }
}

/// The first index from `j` on whose position is after `t` (`pos` ascending,
/// every index before `j` at or before `t`): galloping, as the answer is
/// usually close.
fn first_after(pos: &[u32], mut j: usize, t: u32) -> usize {
    let mut hi = j;
    let mut step = 1;
    while hi < pos.len() && pos[hi] <= t {
        j = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(pos.len());
    j + pos[j..hi].partition_point(|&p| p <= t)
}
