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
//! The first `e` after a position is read from a table (each admitted type's
//! next position after every position, when at most `NEXT_TABLE_MAX`
//! entries), else searched among `e`'s positions; the occurrences and the
//! greedy count are computed in one branch-light pass into per-depth buffers.
//!
//! Growth of `γ·x` only tries the `e` for which `γ·e` is frequent: `γ·e` is a
//! subsequence of `γ·x·e`, so it is at least as frequent; and only those
//! that keep the episode admissible (`pairs`: no exit before its entry).

use super::budget::{Budget, Cut};
use super::collect::Sequences;
use super::maximal::{Ends, Tree};
use super::pairs::{Context, Pairs};

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
    /// The search stops when it is spent, keeping what it found (`cut`):
    /// maximal among the episodes found, which a complete search might
    /// show to be part of longer ones.
    pub budget: Budget,
    /// One occurrence per job (an adaptation, off by default): an occurrence
    /// may not contain a second event of the episode's first type after its
    /// start, so that it lies within one job of a periodic task. MANEPI's
    /// minimal occurrences of a strict loop may span several periods, which
    /// makes every permutation of the loop's events frequent.
    pub within_job: bool,
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
    /// What the time limit cut short (the search, or the maximality test).
    pub cut: Option<Cut>,
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
    /// When small enough (`NEXT_TABLE_MAX`): for each admitted type (dense
    /// id), row of `len` entries, the first position of that type after
    /// each position, in the same sequence (`NONE` if none).
    next: Option<Vec<u32>>,
    /// Positions in all.
    len: usize,
}

/// No such position.
const NONE: u32 = u32::MAX;

/// Entries of the next-occurrence table at most (four bytes each): beyond,
/// the positions are searched instead.
const NEXT_TABLE_MAX: usize = 1 << 24;

impl Index {
    /// The row of type `d` in the next-occurrence table.
    fn row(&self, d: u32) -> Option<Row<'_>> {
        let table = self.next.as_ref()?;
        let from = d as usize * self.len;
        Some(Row(&table[from..from + self.len]))
    }

    /// The positions of type `d`, to search.
    fn scan(&self, d: u32) -> Scan<'_> {
        Scan {
            pos: &self.pos[d as usize],
            bounds: &self.bounds,
            j: 0,
            seq: 0,
        }
    }
}

/// The first position of one type after a position, asked for ascending
/// positions: `NONE` when there is none in that position's sequence.
trait Next {
    fn after(&mut self, t: u32) -> u32;
}

/// A row of the next-occurrence table.
struct Row<'a>(&'a [u32]);

impl Next for Row<'_> {
    #[inline(always)]
    fn after(&mut self, t: u32) -> u32 {
        self.0[t as usize]
    }
}

/// The positions of one type, searched from the last answer on.
struct Scan<'a> {
    pos: &'a [u32],
    bounds: &'a [u32],
    /// Every position before `pos[j]` is at or before the last asked.
    j: usize,
    /// The sequence of the last asked.
    seq: usize,
}

impl Next for Scan<'_> {
    #[inline(always)]
    fn after(&mut self, t: u32) -> u32 {
        if self.j < self.pos.len() && self.pos[self.j] <= t {
            self.j = first_after(self.pos, self.j, t);
        }
        let Some(&q) = self.pos.get(self.j) else {
            return NONE;
        };
        while self.bounds[self.seq] <= t {
            self.seq += 1;
        }
        if q < self.bounds[self.seq] {
            q
        } else {
            NONE
        }
    }
}

/// MANEPI over `seqs`; `progress` is told the per cent of the search done
/// (of the start events grown).
pub fn mine(seqs: &Sequences, params: &Params, progress: &dyn Fn(u8)) -> Mined {
    mine_with(seqs, params, NEXT_TABLE_MAX, progress)
}

/// `mine`, with a next-occurrence table of at most `table_max` entries.
pub(super) fn mine_with(
    seqs: &Sequences,
    params: &Params,
    table_max: usize,
    progress: &dyn Fn(u8),
) -> Mined {
    let mut counts = vec![0u32; seqs.names.len()];
    for (_, s) in &seqs.threads {
        for &t in s {
            counts[t as usize] += 1;
        }
    }
    let min = resolve(params.threshold, &counts);
    let index = build_index(seqs, &counts, min, table_max);
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
    let pairs = Pairs::new(
        index
            .type_of
            .iter()
            .map(|&t| seqs.names[t as usize].as_str()),
    );
    let mut search = Search {
        index: &index,
        pairs: &pairs,
        min,
        within_job: params.within_job,
        budget: params.budget,
        levels: Vec::new(),
        tree: Tree::new(),
        ends: Ends::default(),
        episode: Vec::new(),
        evaluated: 0,
        stopped: false,
    };
    let all: Vec<u32> = (0..index.type_of.len() as u32).collect();
    let first = search.tree.add_children(0, roots.iter().copied());
    for (i, (node, &r)) in (first..).zip(&roots).enumerate() {
        progress((i * 100 / roots.len()) as u8);
        let mo: Vec<Occ> = index.pos[r as usize].iter().map(|&p| (p, p)).collect();
        let n = mo.len() as u32;
        search.episode.push(r);
        search.grow(node, 0, &mo, n, u64::from(n), &all);
        search.episode.pop();
        if search.stopped {
            break;
        }
    }
    let (maximal, checked) = search.ends.maximal_ranked(&search.tree, &params.budget);
    let cut = if search.stopped {
        Some(Cut::Mining)
    } else if checked < search.ends.len() {
        Some(Cut::Maximality {
            checked,
            of: search.ends.len(),
        })
    } else {
        None
    };
    let patterns = maximal
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
        cut,
        evaluated: search.evaluated,
    }
}

/// The support of any episode over the sequences, frequent or not: for
/// `distinct`, which shows a job's reading of a pattern (a rotation of it)
/// that the search may not have reported (e.g. one period short of the
/// threshold: the job cut at the trace's end).
pub struct Supports {
    index: Index,
    /// Canonical name to dense id.
    ids: std::collections::HashMap<String, u32>,
    within_job: bool,
    events: usize,
}

impl Supports {
    /// Over `seqs`, counting occurrences as `mine` does with `within_job`.
    pub fn new(seqs: &Sequences, within_job: bool) -> Supports {
        let mut counts = vec![0u32; seqs.names.len()];
        for (_, s) in &seqs.threads {
            for &t in s {
                counts[t as usize] += 1;
            }
        }
        // Positions only: one episode at a time does not pay for a table.
        let index = build_index(seqs, &counts, 1, 0);
        let ids = index
            .type_of
            .iter()
            .enumerate()
            .map(|(d, &t)| (seqs.names[t as usize].clone(), d as u32))
            .collect();
        Supports {
            index,
            ids,
            within_job,
            events: seqs.events(),
        }
    }

    /// Events of the sequences, over all threads.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Support and span of `events` (`None` when one never occurs).
    pub fn of(&self, events: &[String]) -> Option<(u32, u64)> {
        let ids: Vec<u32> = events
            .iter()
            .map(|e| self.ids.get(e).copied())
            .collect::<Option<_>>()?;
        let (&a, rest) = ids.split_first()?;
        let mut mo: Vec<Occ> = self.index.pos[a as usize].iter().map(|&p| (p, p)).collect();
        let mut found = (mo.len() as u32, mo.len() as u64);
        let mut next = Vec::new();
        for &e in rest {
            next.clear();
            let first = self.within_job.then(|| self.index.scan(a));
            found = extend(&mo, self.index.scan(e), first, 0, &mut next)?;
            std::mem::swap(&mut mo, &mut next);
        }
        Some(found)
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
fn build_index(seqs: &Sequences, counts: &[u32], min: u32, table_max: usize) -> Index {
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
    let len = p as usize;
    let next = (type_of.len() * len <= table_max).then(|| {
        let mut table = vec![NONE; type_of.len() * len];
        let mut from = 0;
        for (&to, (_, s)) in bounds.iter().zip(&seqs.threads) {
            // Filled backwards: the nearest later position of each type.
            let mut cur = vec![NONE; type_of.len()];
            for (i, &t) in s.iter().enumerate().rev() {
                let p = from + i;
                for (d, &c) in cur.iter().enumerate() {
                    table[d * len + p] = c;
                }
                if let Some(c) = cur.get_mut(dense[t as usize] as usize) {
                    *c = p as u32;
                }
            }
            from = to as usize;
        }
        table
    });
    Index {
        bounds,
        pos,
        type_of,
        next,
        len,
    }
}

/// The depth-first search, with its reused buffers.
struct Search<'a> {
    index: &'a Index,
    pairs: &'a Pairs,
    min: u32,
    within_job: bool,
    budget: Budget,
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
        if self.budget.spent() {
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
            let admissible: Context = self.pairs.context(&self.episode);
            for &e in cands.iter().filter(|&&e| e != last && admissible.admits(e)) {
                self.evaluated += 1;
                let from = buf.len();
                let (index, min) = (self.index, self.min);
                let a = self.episode[0];
                let found = match (index.row(e), self.within_job) {
                    (Some(next), false) => extend(mo, next, None::<Row>, min, &mut buf),
                    (Some(next), true) => extend(mo, next, index.row(a), min, &mut buf),
                    (None, false) => extend(mo, index.scan(e), None::<Scan>, min, &mut buf),
                    (None, true) => extend(mo, index.scan(e), Some(index.scan(a)), min, &mut buf),
                };
                if let Some((support, span)) = found {
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
/// (`mo`) and the first `e` after each position (`next`), and returns their
/// support and span; `None` (and nothing appended) when the support cannot
/// reach `min`. With `first` (the first of `α`'s first type after each
/// position: `within_job`), an occurrence reaching that is left out: `mo`
/// holds only those that do not, and an occurrence of `α·e` left out by
/// then, or closed by the same `e` as a later start left out by then (the
/// later start is of `α`'s first type), is left out too.
// Not inlined: on its own, the loop keeps its state in registers.
#[inline(never)]
fn extend<N: Next, F: Next>(
    mo: &[Occ],
    mut next: N,
    mut first: Option<F>,
    min: u32,
    out: &mut Vec<Occ>,
) -> Option<(u32, u64)> {
    let from = out.len();
    // Room for every occurrence, written whether kept or not (`k` counts
    // those kept): fewer branches to mispredict.
    out.resize(from + mo.len() + 1, (0, 0));
    let buf = &mut out[from..];
    let mut k = 0;
    let mut greedy = Greedy::default();
    // The last occurrence (`end == NONE`: none yet): a later start may still
    // replace its own.
    let (mut start, mut end) = (0, NONE);
    for (c, chunk) in mo.chunks(64).enumerate() {
        // One more at most for each occurrence left, and the pending one.
        if greedy.support + 1 + ((mo.len() - c * 64) as u32) < min {
            break;
        }
        for &(s, t) in chunk {
            let q = next.after(t);
            if q == NONE {
                continue;
            }
            if let Some(f) = first.as_mut() {
                if f.after(s) <= q {
                    continue;
                }
            }
            // The same `e` closing a later start: that one is the minimal.
            let kept = q != end && end != NONE;
            buf[k] = (start, end);
            k += usize::from(kept);
            greedy.add_if(kept, start, end);
            (start, end) = (s, q);
        }
    }
    if end != NONE {
        buf[k] = (start, end);
        k += 1;
        greedy.add_if(true, start, end);
    }
    if greedy.support < min {
        out.truncate(from);
        return None;
    }
    out.truncate(from + k);
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
    /// Offers `[s, t]` when `offered`, without branches.
    #[inline(always)]
    fn add_if(&mut self, offered: bool, s: u32, t: u32) {
        let take = offered & (s >= self.next);
        self.support += u32::from(take);
        self.span += u64::from(take) * u64::from(t.wrapping_sub(s).wrapping_add(1));
        self.next = if take { t.wrapping_add(1) } else { self.next };
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
