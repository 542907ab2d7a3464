//! MANEPI against the seed's example and against a brute-force enumerator.

use std::collections::BTreeMap;

use super::*;
use crate::analysis::model::parse_model;

fn sequences(names: &[&str], threads: Vec<Vec<u32>>) -> Sequences {
    Sequences {
        names: names.iter().map(|n| n.to_string()).collect(),
        threads: threads
            .into_iter()
            .enumerate()
            .map(|(i, s)| (i as i64 + 1, s))
            .collect(),
        truncated: false,
    }
}

fn params(threshold: Threshold) -> Params {
    Params {
        threshold,
        start_events: Vec::new(),
        budget: Budget::unlimited(),
        within_job: false,
    }
}

/// `mine`, its progress unwatched.
fn mine(seqs: &Sequences, params: &Params) -> Mined {
    super::mine(seqs, params, &|_| {})
}

fn found(m: &Mined) -> Vec<(Vec<&str>, u32)> {
    m.patterns
        .iter()
        .map(|p| (p.events.iter().map(String::as_str).collect(), p.support))
        .collect()
}

const SS: &str = "sched_switch";
const KCA: &str = "kmem_cache_alloc";
const HS: &str = "hrtimer_start";
const MPA: &str = "mm_page_alloc";

/// sched_switch ×6, kmem_cache_alloc ×2, hrtimer_start ×2, mm_page_alloc ×1:
/// K S H S S H S K S S M.
fn seed_example() -> Sequences {
    let (s, k, h, m) = (0, 1, 2, 3);
    sequences(
        &[SS, KCA, HS, MPA],
        vec![vec![k, s, h, s, s, h, s, k, s, s, m]],
    )
}

#[test]
fn seed_example_threshold_two() {
    let seqs = seed_example();
    let m = mine(&seqs, &params(Threshold::MinSupport(2)));
    assert_eq!(m.min_support, 2);
    // sched_switch, kmem_cache_alloc and hrtimer_start; not mm_page_alloc.
    assert_eq!(m.admitted, 3);
    // <sched_switch, kmem_cache_alloc> occurs once (only the last S before
    // the second K is minimal; the first K has no S before it).
    assert_eq!(brute_support(&seqs.threads, &[0, 1]), 1);
    assert_eq!(
        found(&m),
        vec![(vec![SS, HS], 2), (vec![HS, SS], 2), (vec![KCA, SS], 2),]
    );
    // Two candidates per single event, and none beyond: growing
    // <sched_switch, kmem_cache_alloc> would have tried
    // <sched_switch, kmem_cache_alloc, hrtimer_start>.
    assert_eq!(m.evaluated, 6);
    assert!(m.cut.is_none());
}

#[test]
fn top_elements_sets_the_threshold_to_the_nth_count() {
    let seqs = seed_example();
    let m = mine(&seqs, &params(Threshold::TopElements(3)));
    assert_eq!((m.min_support, m.admitted), (2, 3));
    let m = mine(&seqs, &params(Threshold::TopElements(1)));
    assert_eq!((m.min_support, m.admitted), (6, 1));
    assert_eq!(found(&m), vec![(vec![SS], 6)]);
    // More than there are: every type.
    let m = mine(&seqs, &params(Threshold::TopElements(10)));
    assert_eq!((m.min_support, m.admitted), (1, 4));
}

#[test]
fn start_events_and_time_limit() {
    let seqs = seed_example();
    let mut p = params(Threshold::MinSupport(2));
    p.start_events = vec![KCA.to_string()];
    assert_eq!(found(&mine(&seqs, &p)), vec![(vec![KCA, SS], 2)]);
    p.start_events = vec![MPA.to_string(), "no_such_event".to_string()];
    assert!(mine(&seqs, &p).patterns.is_empty());
    p.start_events.clear();
    p.budget = Budget::new(Some(std::time::Duration::ZERO));
    let m = mine(&seqs, &p);
    assert!(m.cut == Some(Cut::Mining) && m.patterns.is_empty());
}

#[test]
fn occurrences_do_not_cross_threads() {
    let seqs = sequences(&["a", "b"], vec![vec![0, 0], vec![1, 1], vec![0, 1]]);
    let m = mine(&seqs, &params(Threshold::MinSupport(1)));
    // Across the boundaries, <a, b> would count twice and <b, a> once.
    assert_eq!(found(&m), vec![(vec!["a", "b"], 1)]);
}

#[test]
fn a_pattern_is_an_execution_model() {
    let p = Pattern {
        events: vec![
            "syscall_exit_clock_nanosleep".into(),
            "syscall_entry_clock_nanosleep".into(),
        ],
        support: 99,
        span: 990,
    };
    let threads = ThreadFilter {
        tids: None,
        process: Some(regex::Regex::new("^rt_high$").unwrap()),
    };
    let model = p.to_model("discovered", threads);
    let text = serde_json::to_string(&model.to_json()).unwrap();
    assert_eq!(parse_model(&text).unwrap(), model);
    assert!(text.contains(r#""mode":"same_tid""#), "{text}");
    assert!(text.contains(r#""process":"^rt_high$""#), "{text}");
}

// ---------------------------------------------------------------------------
// Brute force

/// Whether `ep` is a subsequence of `window`.
fn contains(window: &[u32], ep: &[u32]) -> bool {
    let mut rest = window.iter();
    ep.iter().all(|x| rest.any(|y| y == x))
}

/// The largest number of non-overlapping minimal occurrences, summed over the
/// threads: every minimal window by definition, then interval scheduling by
/// dynamic programming (not the greedy choice the miner uses).
fn brute_support(threads: &[(i64, Vec<u32>)], ep: &[u32]) -> u32 {
    brute_support_jobs(threads, ep, false)
}

/// `brute_support`, and with `within_job` only the minimal windows without a
/// second `ep[0]` after their start.
fn brute_support_jobs(threads: &[(i64, Vec<u32>)], ep: &[u32], within_job: bool) -> u32 {
    let mut total = 0;
    for (_, seq) in threads {
        let n = seq.len();
        // best[i]: most disjoint minimal windows within seq[..i].
        let mut best = vec![0u32; n + 1];
        for t in 0..n {
            best[t + 1] = best[t];
            for s in 0..=t {
                let w = &seq[s..=t];
                let minimal =
                    contains(w, ep) && !contains(&w[1..], ep) && !contains(&w[..w.len() - 1], ep);
                if minimal && !(within_job && w[1..].contains(&ep[0])) {
                    best[t + 1] = best[t + 1].max(best[s] + 1);
                }
            }
        }
        total += best[n];
    }
    total
}

/// Every episode of distinct types over `types` types.
fn all_episodes(types: u32) -> Vec<Vec<u32>> {
    fn rec(types: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        for t in 0..types {
            if !cur.contains(&t) {
                cur.push(t);
                out.push(cur.clone());
                rec(types, cur, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    rec(types, &mut Vec::new(), &mut out);
    out
}

fn proper_subsequence(a: &[u32], b: &[u32]) -> bool {
    a.len() < b.len() && contains(b, a)
}

/// The maximal frequent episodes starting with one of `starts` (any when
/// empty), with their supports.
fn brute_maximal(
    seqs: &Sequences,
    min: u32,
    starts: &[u32],
    within_job: bool,
) -> BTreeMap<Vec<u32>, u32> {
    let types = seqs.names.len() as u32;
    let frequent: Vec<(Vec<u32>, u32)> = all_episodes(types)
        .into_iter()
        .filter(|ep| starts.is_empty() || starts.contains(&ep[0]))
        .filter(|ep| {
            let names: Vec<&str> = ep
                .iter()
                .map(|&t| seqs.names[t as usize].as_str())
                .collect();
            brute_admissible(&names)
        })
        .map(|ep| {
            let s = brute_support_jobs(&seqs.threads, &ep, within_job);
            (ep, s)
        })
        .filter(|(_, s)| *s >= min)
        .collect();
    frequent
        .iter()
        .filter(|(a, _)| !frequent.iter().any(|(b, _)| proper_subsequence(a, b)))
        .cloned()
        .collect()
}

/// Whether one thread can make `p` within one job (`pairs`' rules, read
/// directly from their statement): a call left and entered again (exit
/// before entry) has no other call's event outside that gap; a call entered
/// and left has none inside; no handler ends before it begins.
fn brute_admissible(p: &[&str]) -> bool {
    let call = |e: &str| {
        e.strip_prefix("syscall_entry_")
            .map(|c| (c.to_string(), true))
            .or_else(|| {
                e.strip_prefix("syscall_exit_")
                    .map(|c| (c.to_string(), false))
            })
    };
    let other_call_in = |c: &str, r: std::ops::Range<usize>| {
        p[r].iter().any(|e| call(e).is_some_and(|(d, _)| d != c))
    };
    (0..p.len()).all(|i| {
        (i + 1..p.len()).all(|j| match (call(p[i]), call(p[j])) {
            (Some((a, false)), Some((b, true))) if a == b => {
                !other_call_in(&a, 0..i) && !other_call_in(&a, j + 1..p.len())
            }
            (Some((a, true)), Some((b, false))) if a == b => !other_call_in(&a, i + 1..j),
            _ => {
                !(p[i].ends_with("_exit")
                    && p[j].ends_with("_entry")
                    && p[i].trim_end_matches("_exit") == p[j].trim_end_matches("_entry"))
            }
        })
    })
}

/// A small linear congruential generator (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}

const LETTERS: [&str; 5] = ["a", "b", "c", "d", "e"];

/// Calls and a handler, whose orders `pairs` restricts.
const PAIRED: [&str; 6] = [
    "syscall_exit_read",
    "syscall_entry_poll",
    "syscall_exit_poll",
    "syscall_entry_read",
    "irq_handler_exit",
    "irq_handler_entry",
];

#[test]
fn agrees_with_brute_force_on_random_sequences() {
    agrees_with_brute_force(false, &LETTERS);
}

#[test]
fn within_job_agrees_with_brute_force_on_random_sequences() {
    agrees_with_brute_force(true, &LETTERS);
}

/// No pattern orders a call's exit before its entry unless that call
/// delimits the job, nor a handler's exit before its entry: on random
/// sequences of calls, the maximal patterns among those admissible.
#[test]
fn call_orders_agree_with_brute_force_on_random_sequences() {
    agrees_with_brute_force(false, &PAIRED);
    agrees_with_brute_force(true, &PAIRED);
}

#[test]
fn within_job_keeps_a_loop_in_its_order() {
    // a b c, four times: without the option <a, c, b> and <b, a, c> are
    // frequent too, their occurrences spanning two periods; with it, only
    // the rotations of a b c, each within one period.
    let seqs = sequences(&["a", "b", "c"], vec![[0, 1, 2].repeat(4)]);
    let mut p = params(Threshold::MinSupport(2));
    let m = mine(&seqs, &p);
    assert_eq!(
        found(&m)[3..],
        [(vec!["a", "c", "b"], 2), (vec!["b", "a", "c"], 2)]
    );
    p.within_job = true;
    let m = mine(&seqs, &p);
    assert_eq!(
        found(&m),
        vec![
            (vec!["a", "b", "c"], 4),
            (vec!["b", "c", "a"], 3),
            (vec!["c", "a", "b"], 3),
        ]
    );
}

fn agrees_with_brute_force(within_job: bool, names: &[&str]) {
    let mut rng = Lcg(0x5eed);
    for case in 0..600 {
        let types = 1 + rng.below(names.len() as u32);
        let threads = (0..1 + rng.below(3))
            .map(|_| (0..rng.below(15)).map(|_| rng.below(types)).collect())
            .collect();
        let seqs = sequences(&names[..types as usize], threads);
        let min = 1 + rng.below(3);
        let starts: Vec<u32> = (0..types).filter(|_| rng.below(3) == 0).collect();
        let mut p = params(Threshold::MinSupport(min));
        p.within_job = within_job;
        p.start_events = starts
            .iter()
            .map(|&s| names[s as usize].to_string())
            .collect();
        let m = mine(&seqs, &p);
        let got: BTreeMap<Vec<u32>, u32> = m
            .patterns
            .iter()
            .map(|p| {
                (
                    p.events.iter().map(|e| seqs.id_of(e).unwrap()).collect(),
                    p.support,
                )
            })
            .collect();
        // Searching positions instead of the next-occurrence table.
        assert_eq!(
            mine::mine_with(&seqs, &p, 0, &|_| {}),
            m,
            "case {case}: without the table"
        );
        let want = brute_maximal(&seqs, min, &starts, within_job);
        assert_eq!(
            got, want,
            "case {case}: sequences {:?}, min support {min}, start {starts:?}",
            seqs.threads
        );
        for p in &m.patterns {
            let names: Vec<&str> = p.events.iter().map(String::as_str).collect();
            assert!(brute_admissible(&names), "case {case}: {names:?}");
        }
        assert_eq!(
            got.len(),
            m.patterns.len(),
            "case {case}: a pattern reported twice"
        );
        // Best first: support, then length.
        let keys: Vec<_> = m
            .patterns
            .iter()
            .map(|p| (p.support, p.events.len()))
            .collect();
        assert!(
            keys.windows(2).all(|w| w[0] >= w[1]),
            "case {case}: ranking {keys:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Distinct patterns

/// Whether `b` is `a` read from another of its events.
fn is_rotation(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && (0..a.len().max(1)).any(|r| a[r..].iter().chain(&a[..r]).eq(b.iter()))
}

/// The turns of `cycle` it takes to read `p` and come back to its first
/// event, by trying ever more copies of the cycle.
fn brute_turns(p: &[String], cycle: &[String]) -> Option<usize> {
    if p.iter().any(|e| !cycle.contains(e)) {
        return None;
    }
    let mut again: Vec<&String> = p.iter().collect();
    again.push(&p[0]);
    (1..=p.len() + 1).find(|&k| {
        let copies: Vec<&String> = cycle.iter().cycle().take(cycle.len() * (k + 1)).collect();
        let mut rest = copies.iter();
        again.iter().all(|x| rest.any(|y| y == x))
    })
}

/// `distinct` over `seqs` (mined with `within_job`), without a time limit.
fn distinct(patterns: &[Pattern], seqs: &Sequences, within_job: bool) -> Vec<Distinct> {
    let supports = Supports::new(seqs, within_job);
    let (d, cut) = super::distinct(patterns, &supports, &Budget::unlimited(), &|_| {});
    assert_eq!(cut, None);
    d
}

/// Whether the event sets of `p` and `s` differ by one event at most
/// (added, removed or replaced).
fn near(p: &Pattern, s: &Pattern) -> bool {
    let only = |a: &Pattern, b: &Pattern| a.events.iter().filter(|e| !b.events.contains(e)).count();
    only(p, s) <= 1 && only(s, p) <= 1
}

fn folds(p: &Pattern, s: &Pattern) -> bool {
    brute_turns(&p.events, &s.events)
        .is_some_and(|t| t as u64 * u64::from(p.support) <= u64::from(s.support) + t as u64)
}

#[test]
fn distinct_patterns_account_for_every_maximal_one() {
    let names = ["a", "b", "c", "d", "e"];
    let mut rng = Lcg(0xd15c);
    for case in 0..400 {
        let types = 1 + rng.below(5);
        // Loops of a job read with noise: what rotations come from.
        let job: Vec<u32> = (0..types).collect();
        let threads = (0..1 + rng.below(2))
            .map(|_| {
                (0..rng.below(40))
                    .map(|i| match rng.below(5) {
                        0 => rng.below(types),
                        _ => job[i as usize % job.len()],
                    })
                    .collect()
            })
            .collect();
        let seqs = sequences(&names[..types as usize], threads);
        let mut p = params(Threshold::MinSupport(1 + rng.below(3)));
        p.within_job = rng.below(2) == 0;
        let m = mine(&seqs, &p);
        let events = seqs.events();
        let d = distinct(&m.patterns, &seqs, p.within_job);
        let what = format!("case {case}: {:?}", seqs.threads);
        // Each maximal pattern is shown or merged into exactly one.
        let merged: usize = d
            .iter()
            .map(|x| 1 + x.rotations + x.variants + x.similar)
            .sum();
        assert_eq!(merged, m.patterns.len(), "{what}");
        for (i, x) in d.iter().enumerate() {
            assert!(
                m.patterns.contains(&x.pattern),
                "{what}: {x:?} is not maximal"
            );
            // Its rotation of highest support.
            let best = m
                .patterns
                .iter()
                .filter(|q| is_rotation(&q.events, &x.pattern.events))
                .map(|q| q.support)
                .max();
            assert_eq!(best, Some(x.pattern.support), "{what}");
            let explained = x.pattern.support as usize * x.pattern.events.len();
            assert!((x.coverage - explained as f64 / events as f64).abs() < 1e-9);
            for earlier in &d[..i] {
                assert!(
                    earlier.coverage >= x.coverage,
                    "{what}: not ranked by coverage"
                );
                assert!(
                    !is_rotation(&earlier.pattern.events, &x.pattern.events),
                    "{what}"
                );
                assert!(
                    !folds(&x.pattern, &earlier.pattern),
                    "{what}: {x:?} folds into {earlier:?}"
                );
                assert!(
                    !near(&x.pattern, &earlier.pattern),
                    "{what}: {x:?} is nearly {earlier:?}"
                );
            }
        }
        // Every maximal pattern not shown is a rotation of a shown one, a
        // reading of one across periods, or of nearly the same events.
        for q in &m.patterns {
            assert!(
                d.iter().any(|x| is_rotation(&x.pattern.events, &q.events)
                    || folds(q, &x.pattern)
                    || near(q, &x.pattern)),
                "{what}: {q:?} is neither shown nor merged"
            );
            for x in &d {
                assert_eq!(
                    turns(&q.events, &x.pattern.events),
                    brute_turns(&q.events, &x.pattern.events),
                    "{what}: turns of {q:?} in {x:?}"
                );
            }
        }
    }
}

#[test]
fn a_loop_read_every_way_is_one_pattern() {
    // a b c d, twenty times: MANEPI finds its rotations and the orders
    // read across two periods; one pattern is shown, all merged into it.
    let seqs = sequences(&["a", "b", "c", "d"], vec![[0, 1, 2, 3].repeat(20)]);
    let m = mine(&seqs, &params(Threshold::MinSupport(5)));
    assert!(m.patterns.len() > 4, "{:?}", found(&m));
    let d = distinct(&m.patterns, &seqs, false);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].pattern.events, ["a", "b", "c", "d"]);
    assert_eq!((d[0].pattern.support, d[0].rotations), (20, 3));
    assert_eq!(d[0].variants, m.patterns.len() - 4);
    assert_eq!(d[0].coverage, 1.0);
}

#[test]
fn a_periodic_job_is_shown_from_its_release_to_its_sleep() {
    // A sleep, then twenty periods: the return from the sleep, a write, the
    // sleep again (a timer armed, the thread switched out); the trace ends
    // in the last job. Every rotation but the job's own meets a threshold
    // of 20: the job's, from the release, misses the job cut at the end.
    let names = [
        "syscall_entry_clock_nanosleep",
        "hrtimer_start",
        "sched_switch",
        "syscall_exit_clock_nanosleep",
        "syscall_entry_write",
        "syscall_exit_write",
    ];
    let mut seq = vec![0, 1, 2];
    for _ in 0..20 {
        seq.extend([3, 4, 5, 0, 1, 2]);
    }
    seq.truncate(seq.len() - 3);
    let seqs = sequences(&names, vec![seq]);
    let m = mine(&seqs, &params(Threshold::MinSupport(20)));
    assert!(m.patterns.iter().all(|p| p.events[0] != names[3]));
    let d = distinct(&m.patterns, &seqs, false);
    assert_eq!(d.len(), 1, "{d:?}");
    let job = &d[0].pattern;
    assert_eq!(job.events, [3, 4, 5, 0, 1, 2].map(|i| names[i]));
    assert_eq!(job.support, 19);
    // As a model: from the release to the sleep's entry.
    let threads = ThreadFilter {
        tids: None,
        process: None,
    };
    let model = job.to_model("job", threads);
    let text = serde_json::to_string(&model.to_json()).unwrap();
    let at = |name: &str| text.find(&format!(r#""name":"{name}""#));
    assert!(at(names[3]) < at(names[0]), "{text}");
    assert_eq!(at(names[1]), None, "{text}");
    assert_eq!(at(names[2]), None, "{text}");
}

#[test]
fn merging_stops_when_the_time_is_up() {
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let seqs = sequences(&names, vec![(0..7).collect()]);
    // 3,000 orders of seven events (none a rotation of another's group
    // alone): more than one chunk of work.
    let mut patterns = Vec::new();
    let mut order: Vec<usize> = (0..7).collect();
    while patterns.len() < 3000 {
        patterns.push(Pattern {
            events: order.iter().map(|&i| names[i].to_string()).collect(),
            support: 1,
            span: 7,
        });
        // The next permutation, lexicographically.
        let i = (0..6).rev().find(|&i| order[i] < order[i + 1]).unwrap();
        let j = (i + 1..7).rev().find(|&j| order[j] > order[i]).unwrap();
        order.swap(i, j);
        order[i + 1..].reverse();
    }
    let supports = Supports::new(&seqs, false);
    let spent = Budget::new(Some(std::time::Duration::ZERO));
    let (d, cut) = super::distinct(&patterns, &supports, &spent, &|_| {});
    let Some(Cut::Merging { merged, of }) = cut else {
        panic!("{cut:?}");
    };
    assert_eq!(of, 3000);
    assert!(merged > 0 && merged < 3000, "{merged}");
    let shown: usize = d
        .iter()
        .map(|x| 1 + x.rotations + x.variants + x.similar)
        .sum();
    assert_eq!(shown, merged);
}
