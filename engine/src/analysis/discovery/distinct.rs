//! The few distinct patterns a person wants among the maximal ones.
//!
//! On a periodic thread MANEPI's maximal episodes are mostly one job read
//! differently: from each of its events (rotations of one cyclic pattern:
//! `b c a` is `a b c` read from `b`), and across period boundaries (an
//! occurrence of `a c b` takes `a c` from one period and `b` from the next).
//! A hundred periods of a ten-event job give thousands of them.
//!
//! Rotations are merged first: the group shows its most frequent rotation.
//! Groups are then ranked by coverage, the share of the threads' events
//! their occurrences hold (support × length), and a group is folded into a
//! better-ranked shown one when it can be read in that one's cyclic order
//! within the periods its support leaves room for: reading its events in
//! the cycle's order takes `t` turns of the cycle, so its non-overlapping
//! occurrences consume `t` periods each, and `t × support` may not exceed
//! the cycle's own support (plus `t`, for the periods cut at the ends). An
//! order that recurs more often than that is a distinct pattern.
//!
//! A busy server thread (lttng-consumerd) has no single cycle: its
//! thousands of groups are near-identical, the same events bar one. A group
//! whose event set differs from a better-ranked shown one's by at most one
//! event (one added, removed or replaced, in any order) is collapsed into it
//! (`similar`); this compares with shown patterns only, so that chains of
//! small differences do not merge unrelated patterns.
//!
//! Last, each shown pattern is read as a job when it can be (`face`): a
//! periodic task's job runs from its release (the return from its sleep) to
//! its next sleep, while the most frequent rotation may start anywhere, e.g.
//! at the sleep's entry, so that a model made from it measures the period.
//! The job's reading is a rotation of the pattern or one merged into it; its
//! support is counted anew (`Supports`), as the search may not have
//! reported it: a job's reading misses the job cut at the trace's end, one
//! short of a threshold the other readings meet.

use std::borrow::Cow;
use std::collections::HashMap;

use super::budget::{Budget, Cut};
use super::mine::Supports;
use super::pairs::delimiter;
use super::Pattern;
use crate::kernel::vocabulary::names;

/// One distinct pattern, with what was merged into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Distinct {
    /// The reading shown: a job's, from its release to its next sleep, when
    /// it has one nearly as frequent; else the group's most frequent
    /// rotation (a maximal pattern).
    pub pattern: Pattern,
    /// Share of the threads' events in its occurrences, 0..=1.
    pub coverage: f64,
    /// Other rotations of the same cyclic pattern.
    pub rotations: usize,
    /// Maximal patterns (rotations included) folded in as readings of it
    /// across periods.
    pub variants: usize,
    /// Maximal patterns (rotations and readings included) of nearly the
    /// same events: one added, removed or replaced.
    pub similar: usize,
}

/// Patterns merged between two looks at the clock and reports of progress.
const CHUNK: usize = 1024;

/// A pattern as ids of its event names.
type Ids = Vec<u32>;

/// The rotation of `events` least by id: the same for every rotation of one
/// cyclic pattern.
fn cyclic_key(events: &[u32]) -> Ids {
    (0..events.len().max(1))
        .map(|r| events[r..].iter().chain(&events[..r]).copied().collect())
        .min()
        .unwrap_or_default()
}

/// Turns of `cycle` (read cyclically) it takes to read `p` in order, its
/// first event again after its last: at least 1; `None` when `p` has an
/// event `cycle` lacks. The same for every rotation of `p`.
pub fn turns<T: PartialEq>(p: &[T], cycle: &[T]) -> Option<usize> {
    let at: Vec<usize> = p
        .iter()
        .map(|e| cycle.iter().position(|c| c == e))
        .collect::<Option<_>>()?;
    let descents = at
        .iter()
        .zip(at.iter().cycle().skip(1))
        .filter(|(a, b)| b <= a)
        .count();
    Some(descents.max(1))
}

/// A set of event ids, as bits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Set(Vec<u64>);

impl Set {
    fn of(ids: &[u32], words: usize) -> Set {
        let mut bits = vec![0; words];
        for &i in ids {
            bits[i as usize / 64] |= 1 << (i % 64);
        }
        Set(bits)
    }

    fn within(&self, other: &Set) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    /// The set, and the set without each of its elements: two sets share
    /// one of these when they differ by at most one element added, removed
    /// or replaced.
    fn near_keys(&self, ids: &[u32]) -> Vec<Set> {
        let mut keys = vec![self.clone()];
        for &i in ids {
            let mut k = self.clone();
            k.0[i as usize / 64] &= !(1 << (i % 64));
            keys.push(k);
        }
        keys
    }
}

/// Patterns merged into one: the one they were merged under, the others,
/// how.
struct Group {
    /// Index in the patterns of its most frequent rotation.
    face: usize,
    ids: Ids,
    set: Set,
    coverage: f64,
    /// Every pattern merged in, `face` first.
    members: Vec<usize>,
    rotations: usize,
    variants: usize,
    similar: usize,
}

/// The distinct patterns among `patterns` (maximal, best first as `mine`
/// ranks them, over the sequences of `supports`), best coverage first.
/// Stops when `budget` is spent (after one chunk of patterns at least, so
/// that something is shown): the patterns not merged by then are left out,
/// and the cut says how many. `progress`: per cent done.
pub fn distinct(
    patterns: &[Pattern],
    supports: &Supports,
    budget: &Budget,
    progress: &dyn Fn(u8),
) -> (Vec<Distinct>, Option<Cut>) {
    let events = supports.events();
    let mut names: HashMap<&str, u32> = HashMap::new();
    let ids: Vec<Ids> = patterns
        .iter()
        .map(|p| {
            p.events
                .iter()
                .map(|e| {
                    let next = names.len() as u32;
                    *names.entry(e.as_str()).or_insert(next)
                })
                .collect()
        })
        .collect();
    let words = names.len().div_ceil(64).max(1);
    let coverage =
        |p: &Pattern| (u64::from(p.support) * p.events.len() as u64) as f64 / events.max(1) as f64;
    // Every chunk: half the progress for grouping rotations, half for the
    // rest; whether the time is up (never before a first chunk is done).
    let tick = |i: usize, done: usize, half: u8| {
        if i == 0 || !i.is_multiple_of(CHUNK) {
            return false;
        }
        progress(half * 50 + (done * 50 / patterns.len().max(1)) as u8);
        budget.spent()
    };
    let mut stopped = false;
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<Ids, usize> = HashMap::new();
    for (i, p) in patterns.iter().enumerate() {
        if tick(i, i, 0) {
            stopped = true;
            break;
        }
        match by_key.get(&cyclic_key(&ids[i])) {
            // Ranked before, so at least as frequent: the group's face.
            Some(&g) => {
                groups[g].rotations += 1;
                groups[g].members.push(i);
            }
            None => {
                by_key.insert(cyclic_key(&ids[i]), groups.len());
                groups.push(Group {
                    face: i,
                    ids: ids[i].clone(),
                    set: Set::of(&ids[i], words),
                    coverage: coverage(p),
                    members: vec![i],
                    rotations: 0,
                    variants: 0,
                    similar: 0,
                });
            }
        }
    }
    // Stable: equal coverage keeps `mine`'s order.
    groups.sort_by(|a, b| {
        b.coverage
            .total_cmp(&a.coverage)
            .then(patterns[b.face].support.cmp(&patterns[a.face].support))
    });
    let mut shown: Vec<Group> = Vec::new();
    let mut near: HashMap<Set, usize> = HashMap::new();
    let mut merged = 0;
    for (i, g) in groups.into_iter().enumerate() {
        if tick(i, merged, 1) {
            stopped = true;
            break;
        }
        merged += g.members.len();
        let folds = |s: &Group| {
            g.set.within(&s.set)
                && turns(&g.ids, &s.ids).is_some_and(|t| {
                    let t = t as u64;
                    t * u64::from(patterns[g.face].support)
                        <= u64::from(patterns[s.face].support) + t
                })
        };
        if let Some(s) = shown.iter_mut().find(|s| folds(s)) {
            s.variants += g.members.len();
            s.members.extend(g.members);
            continue;
        }
        let keys = g.set.near_keys(&g.ids);
        if let Some(&s) = keys.iter().find_map(|k| near.get(k)) {
            shown[s].similar += g.members.len();
            shown[s].members.extend(g.members);
            continue;
        }
        for k in keys {
            near.entry(k).or_insert(shown.len());
        }
        shown.push(g);
    }
    let mut out: Vec<Distinct> = shown
        .into_iter()
        .map(|s| {
            // Out of time, rotations are not counted: the face is a member.
            let counted = (!budget.spent()).then_some(supports);
            let pattern = face(patterns, &s.members, counted);
            Distinct {
                coverage: coverage(&pattern),
                pattern,
                rotations: s.rotations,
                variants: s.variants,
                similar: s.similar,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.coverage
            .total_cmp(&a.coverage)
            .then(b.pattern.support.cmp(&a.pattern.support))
    });
    progress(100);
    let cut = stopped.then_some(Cut::Merging {
        merged,
        of: patterns.len(),
    });
    (out, cut)
}

/// How well `p` reads as a job: 3 from the return of a call in which the
/// thread then arms a timer (a timed sleep: a periodic task's release) to
/// the call's next entry; 2 the same for a call in which it is switched out
/// (blocks); 1 for any call; 0 when it does not run from a call's return to
/// its next entry.
fn job_reading(p: &Pattern) -> u8 {
    let Some(entry) = delimiter(&p.events) else {
        return 0;
    };
    let inside = &p.events[entry + 1..];
    if inside.iter().any(|e| e == names::HRTIMER_START) {
        3
    } else if inside.iter().any(|e| e == names::SCHED_SWITCH) {
        2
    } else {
        1
    }
}

/// Of the patterns merged into one (`members`, the first the group's most
/// frequent rotation), the one shown: the best job reading among them and
/// the first's rotations, if nearly as frequent as the first (a reading
/// that misses more than one job in ten is not the same behaviour), the
/// most frequent, the first among equals; else the first. Rotations are
/// tried only with `supports`, to count them.
fn face(patterns: &[Pattern], members: &[usize], supports: Option<&Supports>) -> Pattern {
    let first = &patterns[members[0]];
    let rotations = (1..first.events.len()).filter_map(|r| {
        let supports = supports?;
        let events: Vec<String> = first.events[r..]
            .iter()
            .chain(&first.events[..r])
            .cloned()
            .collect();
        // Only a job's reading is worth counting.
        delimiter(&events)?;
        let (support, span) = supports.of(&events)?;
        Some(Pattern {
            events,
            support,
            span,
        })
    });
    let candidates = members
        .iter()
        .map(|&i| Cow::Borrowed(&patterns[i]))
        .chain(rotations.map(Cow::Owned));
    let floor = u64::from(first.support) * 9;
    candidates
        .filter(|p| u64::from(p.support) * 10 >= floor)
        .map(|p| (job_reading(&p), p))
        .filter(|(reading, _)| *reading > 0)
        .enumerate()
        .max_by_key(|(i, (reading, p))| (*reading, p.support, usize::MAX - i))
        .map_or_else(|| first.clone(), |(_, (_, p))| p.into_owned())
}
