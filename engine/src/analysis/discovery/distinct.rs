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

use std::collections::HashMap;

use super::Pattern;

/// One distinct pattern, with what was merged into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Distinct {
    /// The group's most frequent rotation.
    pub pattern: Pattern,
    /// Share of the threads' events in its occurrences, 0..=1.
    pub coverage: f64,
    /// Other rotations of the same cyclic pattern.
    pub rotations: usize,
    /// Maximal patterns (rotations included) folded in as readings of it
    /// across periods.
    pub variants: usize,
}

/// The rotation of `events` that is least by name: the same for every
/// rotation of one cyclic pattern.
fn cyclic_key(events: &[String]) -> Vec<&str> {
    (0..events.len().max(1))
        .map(|r| {
            events[r..]
                .iter()
                .chain(&events[..r])
                .map(String::as_str)
                .collect::<Vec<_>>()
        })
        .min()
        .unwrap_or_default()
}

/// Turns of `cycle` (read cyclically) it takes to read `p` in order, its
/// first event again after its last: at least 1; `None` when `p` has an
/// event `cycle` lacks. The same for every rotation of `p`.
pub fn turns(p: &[String], cycle: &[String]) -> Option<usize> {
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

/// Whether the group of `p` is a reading of the shown `cycle`.
fn folds_into(p: &Pattern, cycle: &Pattern) -> bool {
    turns(&p.events, &cycle.events).is_some_and(|t| {
        let t = t as u64;
        t * u64::from(p.support) <= u64::from(cycle.support) + t
    })
}

/// The distinct patterns among `patterns` (maximal, best first as `mine`
/// ranks them), best coverage first; `events` is the number of events of
/// the threads mined.
pub fn distinct(patterns: &[Pattern], events: usize) -> Vec<Distinct> {
    let mut groups: Vec<Distinct> = Vec::new();
    let mut by_key: HashMap<Vec<&str>, usize> = HashMap::new();
    for p in patterns {
        match by_key.get(&cyclic_key(&p.events)) {
            // Ranked before, so at least as frequent: the group's face.
            Some(&g) => groups[g].rotations += 1,
            None => {
                by_key.insert(cyclic_key(&p.events), groups.len());
                let explained = u64::from(p.support) * p.events.len() as u64;
                groups.push(Distinct {
                    pattern: p.clone(),
                    coverage: explained as f64 / events.max(1) as f64,
                    rotations: 0,
                    variants: 0,
                });
            }
        }
    }
    // Stable: equal coverage keeps `mine`'s order.
    groups.sort_by(|a, b| {
        b.coverage
            .total_cmp(&a.coverage)
            .then(b.pattern.support.cmp(&a.pattern.support))
    });
    let mut shown: Vec<Distinct> = Vec::new();
    for g in groups {
        match shown
            .iter_mut()
            .find(|s| folds_into(&g.pattern, &s.pattern))
        {
            Some(s) => s.variants += 1 + g.rotations,
            None => shown.push(g),
        }
    }
    shown
}
