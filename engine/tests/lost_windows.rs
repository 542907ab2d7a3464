//! Where the tracer lost events, as the readers hand it to the pass
//! (`EventSource::take_losses`, `PassSummary::losses`).
//!
//! hello-lost (../shared, LTTng-UST 2.3): Trace Compass's
//! `CtfTmfLostEventsTest` reads 562 "Lost event" records totalling 967,700
//! events (`CtfTestTrace.HELLO_LOST`: "1 000 000 events, with 967 700 lost
//! events"), each between two packets of the stream that lost them. The
//! windows must be those, and no event of the trace may lie strictly inside
//! one (the events around a loss are the packets' own).

use std::path::PathBuf;

use sextant_engine::event::{Event, EventSource, Loss};
use sextant_engine::reader::{AnyReader, OpenOptions, WithSource};
use sextant_engine::run::{Pass, Work};

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared")
        .join(rel);
    p.exists().then_some(p)
}

/// Every event's (CPU, time), and the loss windows, read straight from the
/// reader.
struct Collect;

impl WithSource for Collect {
    type Output = (Vec<(Option<u32>, i64)>, Vec<Loss>);

    fn run<S: EventSource>(self, mut source: S) -> Self::Output {
        let mut events = Vec::new();
        let mut losses = Vec::new();
        while source.advance().unwrap() {
            let (cpu, ts) = {
                let ev = source.event().unwrap();
                (ev.cpu(), ev.ts())
            };
            events.push((cpu, ts));
            source.take_losses(&mut losses);
        }
        source.take_losses(&mut losses);
        (events, losses)
    }
}

#[test]
fn hello_lost_has_trace_compass_lost_event_records() {
    let Some(trace) = shared("traces/ctf/hello-lost") else {
        println!("skipped: ../shared/traces/ctf/hello-lost is absent");
        return;
    };
    let (events, losses) = AnyReader::open_with(&trace, OpenOptions::default())
        .unwrap()
        .with(Collect);
    assert_eq!(events.len(), 32_300, "event records (Trace Compass)");
    assert_eq!(losses.len(), 562, "lost-event records (Trace Compass)");
    let total: u64 = losses.iter().map(|l| l.events.unwrap()).sum();
    assert_eq!(total, 967_700);
    for l in &losses {
        assert!(l.from <= l.to, "{l:?}");
        // The only stream with events (`channel1_2`) says `cpu_id = 2`
        // (babeltrace2 prints it with every event).
        assert_eq!(l.cpu, Some(2), "{l:?}");
        let inside = events
            .iter()
            .filter(|(c, t)| *c == l.cpu && l.from < *t && *t < l.to)
            .count();
        assert_eq!(inside, 0, "{inside} events read inside the loss {l:?}");
    }
    // The pass hands the analyses the same windows.
    let ran = Pass::new(&mut []).read(&trace, &Work::none()).unwrap();
    assert_eq!(ran.summary.losses, losses);
}

/// ftrace text: `CPU:1 [LOST 100 EVENTS]` (as the kernel prints it) is a
/// window on CPU 1 from its last event before the marker to its first
/// after, whatever other CPUs printed between.
#[test]
fn ftrace_marker_is_a_window_on_its_cpu() {
    let dir = std::env::temp_dir().join(format!("sextant-lost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.txt");
    let line = |cpu: u32, ts: &str| {
        format!("          a-10    [{cpu:03}] d..2.  {ts}: sched_waking: comm=b pid=11 prio=120 target_cpu=000\n")
    };
    let text = [
        line(1, "10.000100"),
        line(0, "10.000200"),
        "CPU:1 [LOST 100 EVENTS]\n".to_string(),
        line(0, "10.000300"),
        line(1, "10.000400"),
        "CPU:0 [LOST EVENTS]\n".to_string(),
        line(1, "10.000500"),
    ]
    .concat();
    std::fs::write(&trace, text).unwrap();
    let ran = Pass::new(&mut []).read(&trace, &Work::none()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        ran.summary.losses,
        [
            Loss {
                cpu: Some(1),
                from: 10_000_100_000,
                to: 10_000_400_000,
                events: Some(100),
            },
            // CPU 0 prints nothing after its marker: lost to the end.
            Loss {
                cpu: Some(0),
                from: 10_000_300_000,
                to: 10_000_500_000,
                events: None,
            },
        ]
    );
}
