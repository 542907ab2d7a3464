//! Speed of `explain` on a large trace. Prints a table; asserts nothing.
//!
//! ```text
//! cargo bench -p sextant-engine --bench explain [-- TRACE [PERCENT]]
//! ```
//!
//! TRACE defaults to `/tmp/sextant-large-ctf` (recorded by
//! `tests/bench/record-large.sh`), else `fixtures/scenario-b/ctf`. Measures:
//!
//! * the whole read (the kernel model only): what any full pass costs;
//! * the execution graph of the whole trace (time, peak heap, size);
//! * critical path + complement (+ relations, facilities) of the busiest
//!   thread over a range of PERCENT (1) % of the trace in its middle,
//!   reading only that range through a seek (100 ms replay before it):
//!   the least time of a few runs, and the peak heap.
//!
//! Peak heap comes from a counting allocator (the memory-mapped trace is not
//! heap).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use sextant_engine::analysis::explain::graph::{Graph, GraphBuilder};
use sextant_engine::analysis::explain::{explain_trace, Explanation, Request};
use sextant_engine::kernel::model::ThreadState;
use sextant_engine::kernel::pass::PassSummary;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::{Pass, Work};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        CURRENT.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const LARGE: &str = "/tmp/sextant-large-ctf";
const REPLAY_NS: i64 = 100_000_000;

/// Runs `f`, returning its result, time and the heap it added at its peak.
fn measured<T>(f: impl FnOnce() -> T) -> (T, Duration, usize) {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    let t = Instant::now();
    let r = f();
    (r, t.elapsed(), PEAK.load(Relaxed) - base)
}

fn model_only(trace: &Path) -> PassSummary {
    Pass::new(&mut [])
        .read(trace, &Work::none())
        .expect("reading")
        .summary
}

fn whole_graph(trace: &Path, start: i64, end: i64) -> Graph {
    let mut b = GraphBuilder::new(start, end);
    Pass::new(&mut [&mut b])
        .read(trace, &Work::none())
        .expect("reading");
    b.into_graph()
}

fn explain(trace: &Path, req: &Request) -> Explanation {
    explain_trace(trace, OpenOptions::default(), req, &Work::none()).expect("reading")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(b: usize) -> f64 {
    b as f64 / (1 << 20) as f64
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-b/ctf");
    let trace = match args.first() {
        Some(t) => Path::new(t).to_path_buf(),
        None if Path::new(LARGE).exists() => Path::new(LARGE).to_path_buf(),
        None => {
            println!(
                "{LARGE} is absent (tests/bench/record-large.sh records it): using {}",
                fixture.display()
            );
            fixture
        }
    };
    let percent: f64 = args
        .get(1)
        .map_or(1.0, |p| p.parse().expect("PERCENT is a number"));
    // Twice: the first read also brings the file into the page cache.
    let _ = model_only(&trace);
    let (summary, t_read, _) = measured(|| model_only(&trace));
    let first = summary.first_ts.expect("events");
    let last = summary.last_ts;
    println!(
        "{}: {} events, {:.3} s of trace",
        trace.display(),
        summary.events,
        (last - first) as f64 / 1e9
    );
    println!("whole read, model only:        {:>9.1} ms", ms(t_read));

    let (graph, t_graph, heap_graph) = measured(|| whole_graph(&trace, first, last));
    println!(
        "whole-trace graph:             {:>9.1} ms, peak heap {:.1} MiB, {} segments + edges, {} threads",
        ms(t_graph),
        mib(heap_graph),
        graph.size(),
        graph.lines.len()
    );

    let span = ((last - first) as f64 * percent / 100.0) as i64;
    let start = first + (last - first) / 2;
    let end = start + span;
    // The thread that ran longest in the range.
    let tid = graph
        .lines
        .iter()
        .filter(|(t, _)| **t > 0)
        .map(|(t, l)| {
            let run: i64 = l
                .segments
                .iter()
                .filter(|s| s.state == ThreadState::Running)
                .map(|s| s.end.min(end) - s.start.max(start))
                .filter(|d| *d > 0)
                .sum();
            (run, *t)
        })
        .max()
        .map_or(0, |(_, t)| t);
    drop(graph);
    let req = Request {
        tid,
        start_tid: None,
        start,
        end,
        replay_ns: REPLAY_NS,
        cpus: None,
        prio: None,
    };
    let mut best = Duration::MAX;
    let mut heap = 0;
    let mut last_e = None;
    for _ in 0..5 {
        let (e, t, h) = measured(|| explain(&trace, &req));
        best = best.min(t);
        heap = heap.max(h);
        last_e = Some(e);
    }
    let e = last_e.expect("ran");
    println!(
        "explain {percent}% ({:.1} ms of trace, thread {tid} {}): {:>7.1} ms (best of 5), peak heap {:.1} MiB, read {} events ({} decoded) of {}, path {} pieces, complement {} intervals",
        span as f64 / 1e6,
        e.graph.comm(tid),
        ms(best),
        mib(heap),
        e.pass.events,
        e.pass.decoded,
        summary.events,
        e.path.len(),
        e.complement.intervals.len(),
    );
    println!("diagnosis: {}", e.diagnosis(tid).text);
}
