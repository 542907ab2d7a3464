//! Speed of pattern discovery (MANEPI) on one thread's events. Prints a
//! table; asserts nothing.
//!
//! ```text
//! cargo bench -p sextant-engine --bench discover [-- TRACE [EVENTS [THRESHOLD...]]]
//! ```
//!
//! The events are the first EVENTS (45,000) of the busiest thread of TRACE
//! (default: `/tmp/sextant-large-ctf`, recorded by
//! `tests/bench/record-large.sh`); without that trace, a sequence drawn from
//! the event-to-event transitions of `fixtures/scenario-a/ctf`. For each
//! threshold (default 1600, 1200, 800, 500), with episodes starting anywhere
//! and starting with `sched_switch` (as the seed's), each with MANEPI's
//! occurrences and with one occurrence per job (`within_job`, the `jobs`
//! column): the least time of a few
//! runs, the patterns reported, the candidates evaluated, and the peak heap
//! the search allocates (a counting allocator; the input is not counted).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use sextant_engine::analysis::discovery::{mine, Budget, Collector, Params, Sequences, Threshold};
use sextant_engine::analysis::model::ThreadFilter;
use sextant_engine::run::{Pass, Work};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = CURRENT.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        CURRENT.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, size);
        if !q.is_null() {
            if size >= layout.size() {
                grew(size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - size, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const LARGE: &str = "/tmp/sextant-large-ctf";
const EVENTS: usize = 45_000;
const THRESHOLDS: [u32; 4] = [1600, 1200, 800, 500];
/// The start event the seed hard-wired.
const SEED_START: &str = "sched_switch";
/// Beyond this, a search is cut short (and marked partial).
const TIME_LIMIT: Duration = Duration::from_secs(60);

fn read(trace: &Path) -> Sequences {
    let mut collector = Collector::new(ThreadFilter::default(), usize::MAX);
    Pass::new(&mut [&mut collector])
        .read(trace, &Work::none())
        .unwrap_or_else(|e| panic!("reading {}: {e}", trace.display()));
    collector.into_sequences()
}

/// The first `n` events of the busiest thread.
fn busiest(all: Sequences, n: usize) -> (Sequences, String) {
    let (tid, mut seq) = all
        .threads
        .into_iter()
        .max_by_key(|(_, s)| s.len())
        .expect("the trace has events");
    let had = seq.len();
    seq.truncate(n);
    let what = format!("thread {tid}: first {} of its {had} events", seq.len());
    let seqs = Sequences {
        names: all.names,
        threads: vec![(tid, seq)],
        truncated: false,
    };
    (seqs, what)
}

/// `n` events drawn from the transitions between consecutive events of the
/// fixture's threads (a first-order Markov chain), with a fixed seed.
fn synthesized(n: usize) -> (Sequences, String) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-a/ctf");
    let all = read(&fixture);
    let mut next: HashMap<u32, Vec<u32>> = HashMap::new();
    for (_, s) in &all.threads {
        for w in s.windows(2) {
            next.entry(w[0]).or_default().push(w[1]);
        }
    }
    let mut state = 0x5eed_u64;
    let mut draw = |k: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % k
    };
    let mut cur = all.threads[0].1[0];
    let mut seq = Vec::with_capacity(n);
    for _ in 0..n {
        seq.push(cur);
        cur = match next.get(&cur) {
            Some(v) => v[draw(v.len())],
            None => all.threads[0].1[0],
        };
    }
    let seqs = Sequences {
        names: all.names,
        threads: vec![(0, seq)],
        truncated: false,
    };
    (
        seqs,
        format!("{n} events drawn from fixtures/scenario-a's transitions"),
    )
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let trace = args.first().map_or(LARGE, String::as_str);
    let n = args
        .get(1)
        .map_or(EVENTS, |a| a.parse().expect("EVENTS is a number"));
    let thresholds: Vec<u32> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|a| a.parse().expect("THRESHOLD is a number"))
            .collect()
    } else {
        THRESHOLDS.to_vec()
    };
    let (seqs, what) = if Path::new(trace).exists() {
        let t = Instant::now();
        let all = read(Path::new(trace));
        println!(
            "read {trace} ({} events of {} threads) in {:.1} s",
            all.events(),
            all.threads.len(),
            t.elapsed().as_secs_f64()
        );
        busiest(all, n)
    } else {
        println!("{trace} is absent (tests/bench/record-large.sh records it)");
        synthesized(n)
    };
    println!("input: {what}\n");
    println!(
        "{:>9} {:>12} {:>5} {:>10} {:>9} {:>9} {:>11} {:>11} {:>8}  top pattern",
        "threshold",
        "start",
        "jobs",
        "time (ms)",
        "admitted",
        "patterns",
        "evaluated",
        "peak heap",
        "partial"
    );
    for min in thresholds {
        // Any start, and the seed's: episodes starting with sched_switch.
        for start in [None, Some(SEED_START)] {
            for within_job in [false, true] {
                measure(&seqs, min, start, within_job);
            }
        }
    }
}

/// Mines a few times; prints the least time and what was found.
fn measure(seqs: &Sequences, min: u32, start: Option<&str>, within_job: bool) {
    let mut params = Params {
        threshold: Threshold::MinSupport(min),
        start_events: start.into_iter().map(String::from).collect(),
        budget: Budget::unlimited(),
        within_job,
    };
    let mut best = Duration::MAX;
    let mut runs = 0;
    let started = Instant::now();
    let (mined, peak) = loop {
        let base = CURRENT.load(Relaxed);
        PEAK.store(base, Relaxed);
        let t = Instant::now();
        params.budget = Budget::new(Some(TIME_LIMIT));
        let mined = mine(seqs, &params, &|_| {});
        best = best.min(t.elapsed());
        let peak = PEAK.load(Relaxed) - base;
        runs += 1;
        if runs >= 5
            || (runs >= 2 && started.elapsed() > Duration::from_secs(2))
            || mined.cut.is_some()
        {
            break (mined, peak);
        }
    };
    let top = mined
        .patterns
        .first()
        .map(|p| format!("length {}, support {}", p.events.len(), p.support))
        .unwrap_or_default();
    println!(
        "{:>9} {:>12} {:>5} {:>10.2} {:>9} {:>9} {:>11} {:>8.2} MB {:>8}  {top}",
        min,
        start.unwrap_or("any"),
        if within_job { "yes" } else { "no" },
        best.as_secs_f64() * 1e3,
        mined.admitted,
        mined.patterns.len(),
        mined.evaluated,
        peak as f64 / 1e6,
        mined.cut.is_some()
    );
}
