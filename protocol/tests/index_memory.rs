//! First open's memory: indexing a trace with a store spills its state
//! intervals to the store as the pass goes, so the heap's peak does not grow
//! with their number; without a store (every interval in memory) the same
//! trace's peak is several times higher, which shows what the bound tells
//! apart. Measured by this test binary's allocator: the heap in use, at its
//! highest, above what it was before the open.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sextant_engine::ctf::writer::{
    Clock, CtfWriter, EnvValue, EventClass, FieldType, FieldValue, TraceSpec,
};
use sextant_engine::store::{Placement, Places};
use sextant_protocol::service::index::{index_trace, Live};

struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is the system allocator's, with counting beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = IN_USE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time: the counters are the process's.
static ONE: Mutex<()> = Mutex::new(());

/// Threads switching round robin on one CPU, alternately blocked and
/// preempted: two state intervals per switch.
const THREADS: i64 = 64;
const SWITCHES: u64 = 2_000_000;

fn spec() -> TraceSpec {
    let int = |bits| FieldType::int(bits, true);
    TraceSpec {
        clock: Clock {
            name: "monotonic".into(),
            description: "test clock".into(),
            freq: 1_000_000_000,
            offset_s: 0,
        },
        env: vec![
            ("domain".into(), EnvValue::Text("kernel".into())),
            ("tracer_name".into(), EnvValue::Text("lttng-modules".into())),
        ],
        source_fields: vec!["cpu_id".into()],
        event_context: vec![],
        classes: vec![EventClass {
            name: "sched_switch".into(),
            fields: vec![
                ("prev_comm".into(), FieldType::String),
                ("prev_tid".into(), int(32)),
                ("prev_prio".into(), int(32)),
                ("prev_state".into(), int(64)),
                ("next_comm".into(), FieldType::String),
                ("next_tid".into(), int(32)),
                ("next_prio".into(), int(32)),
            ],
        }],
    }
}

fn write_trace(dir: &Path) {
    let mut w = CtfWriter::create(dir, spec()).unwrap();
    let s = w.add_stream("channel0_0", &[0]).unwrap();
    let comms: Vec<String> = (0..THREADS).map(|t| format!("worker{t}")).collect();
    for i in 0..SWITCHES {
        let prev = (i as i64) % THREADS;
        let next = (prev + 1) % THREADS;
        // 1: sleeping (blocked), 0: runnable (preempted).
        let state = ((i / THREADS as u64) % 2) as i64;
        w.event(
            s,
            0,
            1_000 + i * 100,
            &[],
            &[
                FieldValue::Str(comms[prev as usize].as_bytes()),
                FieldValue::Int(1000 + prev),
                FieldValue::Int(20),
                FieldValue::Int(state),
                FieldValue::Str(comms[next as usize].as_bytes()),
                FieldValue::Int(1000 + next),
                FieldValue::Int(20),
            ],
        )
        .unwrap();
    }
    w.finish().unwrap();
}

/// (intervals indexed, peak heap above the start in bytes) of indexing
/// `trace`, with a store in `cache` or none.
fn index_peak(trace: &Path, cache: Option<&Path>) -> (usize, usize) {
    let places = cache.map(|c| Places::new(Some(c.to_path_buf()), Placement::Cache));
    let base = IN_USE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let index = index_trace(trace, Arc::new(Live::default()), places.as_ref()).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    (index.threads.intervals.len(), peak)
}

#[test]
fn first_open_heap_does_not_grow_with_the_intervals() {
    let _one = ONE.lock().unwrap();
    let root = std::env::temp_dir().join(format!("sextant-index-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let trace = root.join("trace");
    write_trace(&trace);

    let (stored, spilled_peak) = index_peak(&trace, Some(&root.join("cache")));
    let (kept, kept_peak) = index_peak(&trace, None);
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    eprintln!(
        "{stored} intervals: heap peak {:.1} MiB spilled to the store, {:.1} MiB kept in memory",
        mib(spilled_peak),
        mib(kept_peak)
    );
    assert_eq!(stored, kept);
    assert!(
        stored as u64 >= 2 * SWITCHES - 2 * THREADS as u64,
        "{stored} intervals"
    );
    // 24 bytes an interval while the pass runs, 17 in the columns: the
    // in-memory index needs more than 160 MiB here. Spilling keeps at most
    // `analysis::spill::BUDGET` waiting intervals (48 MiB with their
    // vectors' slack) and a level-1 summary of 3 MiB.
    assert!(
        kept_peak > 128 << 20,
        "the intervals kept in memory take {:.1} MiB: the test no longer tells the two apart",
        mib(kept_peak)
    );
    assert!(
        spilled_peak < 64 << 20,
        "first open's heap peaked at {:.1} MiB for {stored} intervals: they are kept in memory",
        mib(spilled_peak)
    );
    std::fs::remove_dir_all(&root).unwrap();
}
