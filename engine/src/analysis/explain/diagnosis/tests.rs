//! The diagnosis on hand-built graphs: each cause, its words and its cost.

use super::*;
use crate::analysis::explain::complement::{complement, Unknown};
use crate::analysis::explain::graph::{Fork, Line, Segment, TimerFire, Wakeup};
use crate::analysis::explain::path::{critical_path, PathPiece};
use crate::analysis::explain::relations::relations;
use crate::analysis::explain::remote::Arrival;
use crate::event::Loss;
use crate::kernel::model::ThreadState::{self, *};
use crate::kernel::priority::Policy;

fn seg(start: i64, end: i64, state: ThreadState, prio: i32) -> Segment {
    Segment {
        start,
        end,
        state,
        cpu: Some(1),
        prio: Some(prio),
        inferred: false,
    }
}

fn woke(ts: i64, wakee: i64, waker: Context, timer: Option<TimerFire>) -> Wakeup {
    Wakeup {
        ts,
        wakee,
        waker,
        cpu: Some(1),
        since: None,
        timer,
    }
}

fn add(g: &mut Graph, tid: i64, comm: &str, segments: Vec<Segment>, wakeups: Vec<Wakeup>) {
    g.lines.insert(
        tid,
        Line {
            comm: comm.into(),
            segments,
            wakeups,
        },
    );
}

fn fire(expires: i64, fired: i64, armed_at: i64) -> Option<TimerFire> {
    Some(TimerFire {
        hrtimer: 7,
        expires: Some(expires),
        fired,
        armed_at: Some(armed_at),
        armed_by: Some(2),
        cpu: Some(1),
    })
}

fn diagnose_end(g: &Graph, tid: i64, start: i64, end: i64) -> Diagnosis {
    diagnose_with(g, tid, start, end, &[])
}

/// `diagnose_end` with the packets received from other hosts.
fn diagnose_with(g: &Graph, tid: i64, start: i64, end: i64, arrivals: &[Arrival]) -> Diagnosis {
    let path = critical_path(g, tid, start, end);
    let rel = relations(g, tid, &[]);
    diagnose(&Inputs {
        graph: g,
        runs: &CpuRuns::new(g),
        path: &path,
        relations: &rel,
        analysed: tid,
        prio: g.last_prio(tid),
        arrivals,
    })
}

/// The seed's case: the timer thread (FIFO 60) woken on time is kept
/// off its CPU by a rogue FIFO 70 thread, then creates the worker
/// (FIFO 55), which waits a little behind a nice 5 thread.
fn seed_case() -> Graph {
    let mut g = Graph {
        start: 0,
        end: 3100,
        ..Graph::default()
    };
    add(
        &mut g,
        1,
        "rt_worker",
        vec![
            seg(3040, 3045, WaitingCpu, 44),
            seg(3045, 3100, Running, 44),
        ],
        vec![woke(3040, 1, Context::Thread { tid: 2 }, None)],
    );
    add(
        &mut g,
        2,
        "rt_timer",
        vec![
            seg(0, 10, Blocked, 39),
            seg(10, 3010, WaitingCpu, 39),
            seg(3010, 3040, Running, 39),
            seg(3040, 3100, Blocked, 39),
        ],
        vec![woke(10, 2, Context::Timer, fire(10, 10, 0))],
    );
    add(
        &mut g,
        3,
        "rt_rogue",
        vec![seg(5, 3010, Running, 29), seg(3010, 3100, Blocked, 29)],
        vec![],
    );
    add(
        &mut g,
        4,
        "bg_batch",
        vec![
            seg(0, 5, Running, 125),
            seg(5, 3040, Preempted, 125),
            seg(3040, 3045, Running, 125),
            seg(3045, 3100, Preempted, 125),
        ],
        vec![],
    );
    g.creations.insert(
        1,
        Fork {
            ts: 3030,
            parent: 2,
            child: 1,
        },
    );
    g.forks.push(g.creations[&1]);
    g
}

#[test]
fn the_rogue_is_named_first_with_user_priorities() {
    let g = seed_case();
    let d = diagnose_end(&g, 1, 0, 3100);
    assert_eq!(
        d.text,
        "rt_rogue (FIFO/RR 70) kept rt_timer (FIFO/RR 60) waiting for a CPU for 3.000 us"
    );
    assert!(!d.inversion);
    let got: Vec<(&str, i64, bool)> = d
        .causes
        .iter()
        .map(|c| (c.text.as_str(), c.cost, c.interference))
        .collect();
    assert_eq!(
        got,
        vec![
            (d.text.as_str(), 3000, true),
            ("rt_worker ran 55 ns", 55, false),
            ("rt_timer ran 30 ns creating rt_worker", 30, false),
            ("rt_timer waited 10 ns for its timer", 10, false),
            (
                "rt_worker (FIFO/RR 55) waited 5 ns for CPU 1 to switch to it from bg_batch (nice 5): wake-up latency",
                5,
                false
            ),
        ]
    );
    // Every nanosecond of the range is given to one cause.
    assert_eq!(d.causes.iter().map(|c| c.cost).sum::<i64>(), 3100);
    // A policy set in the trace is named.
    let mut g = g;
    g.policies.insert(3, Policy::Fifo);
    assert!(diagnose_end(&g, 1, 0, 3100)
        .text
        .starts_with("rt_rogue (SCHED_FIFO 70) kept"));
}

#[test]
fn an_undisturbed_execution_blames_nobody() {
    // The same without the rogue: the timer thread runs when woken.
    let mut g = seed_case();
    g.lines.remove(&3);
    let l = g.lines.get_mut(&2).unwrap();
    l.segments[1] = seg(10, 20, WaitingCpu, 39);
    l.segments[2] = seg(20, 3040, Running, 39);
    let bg = g.lines.get_mut(&4).unwrap();
    bg.segments = vec![seg(0, 20, Running, 125), seg(20, 3100, Preempted, 125)];
    let d = diagnose_end(&g, 1, 0, 3100);
    assert!(
        d.text
            .starts_with("rt_worker: nothing held it back; rt_timer ran"),
        "{}",
        d.text
    );
    // bg_batch was still on rt_timer's CPU 10 ns: the switch's latency.
    let bg = d
        .causes
        .iter()
        .find(|c| matches!(c.cause, Cause::Latency { .. }))
        .unwrap();
    assert_eq!(
        (bg.text.as_str(), bg.cost, bg.interference),
        (
            "rt_timer (FIFO/RR 60) waited 10 ns for CPU 1 to switch to it from bg_batch (nice 5): wake-up latency",
            10,
            false
        )
    );
    // 220 us is no switch: the trace shows bg_batch keeping the CPU from a
    // higher priority, which the scheduler does not allow (a
    // non-preemptible section, or a change the trace does not show): an
    // anomaly, and interference.
    const US: i64 = 1000;
    let mut g = Graph {
        start: 0,
        end: 300 * US,
        ..Graph::default()
    };
    add(
        &mut g,
        2,
        "rt_timer",
        vec![
            seg(0, 10, Blocked, 39),
            seg(10, 220 * US + 10, WaitingCpu, 39),
            seg(220 * US + 10, 300 * US, Running, 39),
        ],
        vec![woke(10, 2, Context::Timer, fire(10, 10, 0))],
    );
    add(
        &mut g,
        4,
        "bg_batch",
        vec![seg(0, 220 * US + 10, Running, 125)],
        vec![],
    );
    let d = diagnose_end(&g, 2, 0, 300 * US);
    assert_eq!(
        d.text,
        "bg_batch (nice 5) stayed on CPU 1 for 220.000 us while rt_timer (FIFO/RR 60), of higher priority, was ready for it: an anomaly the scheduler does not allow (a non-preemptible section, or a priority change the trace does not show)"
    );
    assert!(d.contradictions.is_empty(), "{:?}", d.contradictions);
}

#[test]
fn a_late_timer_is_a_cause_of_its_own() {
    // The timer thread's timer, armed at 0 for 100 us, fires at 2500 us
    // while CPU 1 runs the rogue.
    const US: i64 = 1000;
    let mut g = Graph {
        start: 0,
        end: 2600 * US,
        ..Graph::default()
    };
    add(
        &mut g,
        2,
        "rt_timer",
        vec![
            seg(0, 2500 * US, Blocked, 39),
            seg(2500 * US, 2600 * US, Running, 39),
        ],
        vec![woke(
            2500 * US,
            2,
            Context::Timer,
            fire(100 * US, 2500 * US, 0),
        )],
    );
    add(
        &mut g,
        3,
        "rt_rogue",
        vec![seg(0, 2500 * US, Running, 29)],
        vec![],
    );
    let d = diagnose_end(&g, 2, 0, 2600 * US);
    assert_eq!(
        d.text,
        "rt_timer's timer fired 2.400 ms late: CPU 1 ran rt_rogue (FIFO/RR 70) (2.400 ms on the path)"
    );
    assert_eq!(d.causes[0].cost, 2400 * US);
    assert_eq!(d.causes[2].text, "rt_timer waited 100.000 us for its timer");
    // Armed after its expiry: the lateness was the thread's own.
    let l = g.lines.get_mut(&2).unwrap();
    l.wakeups[0].timer = fire(100 * US, 2500 * US, 2400 * US);
    l.segments = vec![
        seg(0, 2400 * US, Running, 39),
        seg(2400 * US, 2500 * US, Blocked, 39),
        seg(2500 * US, 2600 * US, Running, 39),
    ];
    let d = diagnose_end(&g, 2, 0, 2600 * US);
    let late = d
        .causes
        .iter()
        .find(|c| matches!(c.cause, Cause::LateTimer { .. }))
        .unwrap();
    assert!(late.text.contains("armed after its expiry") && !late.interference);
    assert_eq!(late.cost, 100 * US);
    // 15 us late is on time.
    let l = g.lines.get_mut(&2).unwrap();
    l.wakeups[0].timer = fire(2485 * US, 2500 * US, 0);
    let d = diagnose_end(&g, 2, 0, 2600 * US);
    assert!(d
        .causes
        .iter()
        .all(|c| !matches!(c.cause, Cause::LateTimer { .. })));
}

#[test]
fn inversion_through_a_waited_on_thread() {
    // rt_high (FIFO 80) blocked until rt_low (FIFO 10) wakes it; rt_low
    // was preempted by rt_med (FIFO 50): lower than rt_high.
    const US: i64 = 1000;
    let mut g = Graph {
        start: 0,
        end: 1000 * US,
        ..Graph::default()
    };
    add(
        &mut g,
        1,
        "rt_high",
        vec![
            seg(0, 900 * US, Blocked, 19),
            seg(900 * US, 1000 * US, Running, 19),
        ],
        vec![woke(900 * US, 1, Context::Thread { tid: 2 }, None)],
    );
    add(
        &mut g,
        2,
        "rt_low",
        vec![
            seg(0, 100 * US, Running, 89),
            seg(100 * US, 800 * US, Preempted, 89),
            seg(800 * US, 1000 * US, Running, 89),
        ],
        vec![],
    );
    add(
        &mut g,
        3,
        "rt_med",
        vec![seg(100 * US, 800 * US, Running, 49)],
        vec![],
    );
    let d = diagnose_end(&g, 1, 0, 1000 * US);
    assert!(d.inversion);
    assert_eq!(
        d.text,
        "rt_med (FIFO/RR 50) preempted rt_low (FIFO/RR 10) for 700.000 us while rt_high (FIFO/RR 80) waited on it: priority inversion (FIFO/RR 50 is lower than FIFO/RR 80)"
    );
    assert!(
        d.causes
            .iter()
            .any(|c| c.text == "rt_low ran 200.000 us while rt_high waited for it"),
        "{:#?}",
        d.causes
    );
    assert!(d.contradictions.is_empty(), "{:?}", d.contradictions);

    // Two threads in turn (rt_med1 then rt_med2): the diagnosis is their sum.
    g.lines.get_mut(&3).unwrap().segments = vec![seg(100 * US, 400 * US, Running, 49)];
    add(
        &mut g,
        4,
        "rt_med2",
        vec![seg(400 * US, 800 * US, Running, 49)],
        vec![],
    );
    g.lines.get_mut(&3).unwrap().comm = "rt_med1".into();
    let d = diagnose_end(&g, 1, 0, 1000 * US);
    assert!(d.inversion);
    assert_eq!(
        d.text,
        "rt_med2 (FIFO/RR 50) for 400.000 us and rt_med1 (FIFO/RR 50) for 300.000 us preempted rt_low (FIFO/RR 10), 700.000 us in all, while rt_high (FIFO/RR 80) waited on it: priority inversion (each is lower than FIFO/RR 80)"
    );

    // 6 us of it is no inversion worth the name: a preemption.
    let mut short = g.clone();
    short.lines.remove(&4);
    short.lines.get_mut(&3).unwrap().segments = vec![seg(100 * US, 106 * US, Running, 49)];
    short.lines.get_mut(&2).unwrap().segments = vec![
        seg(0, 100 * US, Running, 89),
        seg(100 * US, 106 * US, Preempted, 89),
        seg(106 * US, 1000 * US, Running, 89),
    ];
    let d = diagnose_end(&short, 1, 0, 1000 * US);
    assert!(!d.inversion);
    assert!(d
        .causes
        .iter()
        .all(|c| !matches!(c.cause, Cause::Inversion { .. })));
    assert!(d
        .causes
        .iter()
        .any(|c| c.text == "rt_med1 (FIFO/RR 50) preempted rt_low (FIFO/RR 10) for 6.000 us"));
}

#[test]
fn pieces_merge_by_name_with_counts() {
    // Three workers of one name, each kept waiting 10 us behind bg_batch
    // on CPU 1, then run: one line, not three.
    const US: i64 = 1000;
    let mut g = Graph {
        start: 0,
        end: 100 * US,
        ..Graph::default()
    };
    let mut bg = Vec::new();
    for k in 0..3i64 {
        let t0 = k * 30 * US;
        add(
            &mut g,
            10 + k,
            "rt_worker",
            vec![
                seg(t0, t0 + (10 + k) * US, WaitingCpu, 44),
                seg(t0 + (10 + k) * US, t0 + 30 * US, Running, 44),
            ],
            vec![],
        );
        bg.push(seg(t0, t0 + (10 + k) * US, Running, 125));
    }
    add(&mut g, 4, "bg_batch", bg, vec![]);
    let path: Vec<PathPiece> = (0..3i64)
        .flat_map(|k| {
            let t0 = k * 30 * US;
            let mid = t0 + (10 + k) * US;
            [
                PathPiece {
                    tid: 10 + k,
                    state: crate::analysis::explain::path::PathState::WaitingCpu,
                    start: t0,
                    end: mid,
                    link: crate::analysis::explain::path::Link::Own,
                },
                PathPiece {
                    tid: 10 + k,
                    state: crate::analysis::explain::path::PathState::Running,
                    start: mid,
                    end: t0 + 30 * US,
                    link: crate::analysis::explain::path::Link::Own,
                },
            ]
        })
        .collect();
    let rel = relations(&g, 12, &[]);
    let d = diagnose(&Inputs {
        graph: &g,
        runs: &CpuRuns::new(&g),
        path: &path,
        relations: &rel,
        analysed: 12,
        prio: Some(44),
        arrivals: &[],
    });
    let latency: Vec<&Ranked> = d
        .causes
        .iter()
        .filter(|c| matches!(c.cause, Cause::Latency { .. }))
        .collect();
    assert_eq!(latency.len(), 1, "{:#?}", d.causes);
    let l = latency[0];
    assert_eq!((l.cost, l.count, l.longest), (33 * US, 3, 12 * US));
    assert_eq!(l.threads, Threads { by: 1, of: 3 });
    assert_eq!(
        l.text,
        "rt_worker (3 threads, FIFO/RR 55) waited 33.000 us for CPU 1 to switch to it from bg_batch (nice 5): wake-up latency (3 times, longest 12.000 us)"
    );
    assert!(d.contradictions.is_empty(), "{:?}", d.contradictions);
}

#[test]
fn the_audit_catches_a_stale_priority_and_a_false_idle_cpu() {
    // The worker waits at FIFO 70 (its creator's) but is given the CPU at
    // FIFO 60: the wait must be said at 60.
    let mut g = Graph {
        start: 0,
        end: 100,
        ..Graph::default()
    };
    add(
        &mut g,
        1,
        "rt_worker",
        vec![seg(0, 50, WaitingCpu, 29), seg(50, 100, Running, 39)],
        vec![],
    );
    add(&mut g, 2, "rt_hog", vec![seg(0, 50, Running, 34)], vec![]);
    let claims = vec![Claim {
        start: 0,
        end: 50,
        of: (1, Some(29)),
        cpus: vec![1],
        what: Said::Held {
            by: (2, Some(34)),
            order: Some(Ordering::Less),
        },
    }];
    let wrong = audit::audit(&g, &claims);
    assert!(
        wrong
            .iter()
            .any(|w| w.contains("given the CPU at Some(39)")),
        "{wrong:?}"
    );
    // "No thread ran" over a time rt_hog ran, and where an event is in a
    // thread's context, while rt_other waited.
    add(
        &mut g,
        3,
        "rt_other",
        vec![seg(0, 100, WaitingCpu, 39)],
        vec![],
    );
    g.evidence.push(crate::analysis::explain::graph::Attested {
        ts: 60,
        cpu: 1,
        tid: 7,
    });
    let claims = vec![
        Claim {
            start: 0,
            end: 50,
            of: (3, Some(39)),
            cpus: vec![1],
            what: Said::NoThread,
        },
        Claim {
            start: 55,
            end: 70,
            of: (3, Some(39)),
            cpus: vec![1],
            what: Said::NoThread,
        },
    ];
    let wrong = audit::audit(&g, &claims);
    assert!(
        wrong.iter().any(|w| w.contains("thread 2 ran there")),
        "{wrong:?}"
    );
    assert!(
        wrong.iter().any(|w| w.contains("in thread 7's context")),
        "{wrong:?}"
    );
}

#[test]
fn a_loss_window_states_no_holder_inside_it() {
    // The tracer lost 42 events on CPU 1 over [1000, 2000), while the
    // rogue held it from rt_timer: who ran there is unknown, in the
    // causes and in who ran alike; a window on CPU 0, which the path never
    // used, changes nothing.
    let mut g = seed_case();
    g.losses = vec![
        Loss {
            cpu: Some(1),
            from: 1000,
            to: 2000,
            events: Some(42),
        },
        Loss {
            cpu: Some(0),
            from: 0,
            to: 3100,
            events: Some(9),
        },
    ];
    let d = diagnose_end(&g, 1, 0, 3100);
    let cost = |kind: fn(&Cause) -> bool| -> i64 {
        d.causes
            .iter()
            .filter(|c| kind(&c.cause))
            .map(|c| c.cost)
            .sum()
    };
    assert_eq!(cost(|c| matches!(c, Cause::Lost { .. })), 1000);
    assert_eq!(
        cost(|c| matches!(c, Cause::Preemption { by, .. } if by.tid == 3)),
        2000
    );
    assert!(d.contradictions.is_empty(), "{:?}", d.contradictions);
    let runs = CpuRuns::new(&g);
    let path = critical_path(&g, 1, 0, 3100);
    let c = complement(&g, &runs, &path, 1, Some(44), None);
    let held = c
        .intervals
        .iter()
        .find(|h| h.path_tid == 2)
        .expect("rt_timer waited");
    let ran: Vec<(i64, i64)> = held.running.iter().map(|r| (r.tid, r.duration)).collect();
    assert_eq!(ran, [(3, 2000)]);
    assert_eq!(
        held.lost,
        [Unknown {
            cpu: Some(1),
            start: 1000,
            end: 2000,
            events: Some(42),
        }]
    );
    let rogue = c.culprits.iter().find(|x| x.tid == 3).map(|x| x.duration);
    assert_eq!(rogue, Some(2000));
}

/// sshd, blocked, is woken by the net rx softirq on CPU 0 at 1000, which
/// opened at 900. A packet from VM3 received there at 950 caused it; one
/// received on another CPU, or before the softirq opened, did not.
fn woken_by_the_network() -> Graph {
    let mut g = Graph {
        start: 0,
        end: 2000,
        ..Graph::default()
    };
    let rx = Wakeup {
        ts: 1000,
        wakee: 5,
        waker: Context::Softirq { vec: 3 },
        cpu: Some(0),
        since: Some(900),
        timer: None,
    };
    let segments = vec![seg(0, 1000, Blocked, 120), seg(1000, 2000, Running, 120)];
    add(&mut g, 5, "sshd", segments, vec![rx]);
    g
}

fn arrival(cpu: u32, received: i64) -> Arrival {
    Arrival {
        cpu,
        received,
        from: "VM3".into(),
        sent_by: None,
        sent_by_comm: None,
        sent: 1_361_214_092_782_000_123,
        transit: 85_000,
    }
}

#[test]
fn a_wakeup_after_a_matched_packet_names_its_host() {
    let g = woken_by_the_network();
    let d = diagnose_with(&g, 5, 0, 2000, &[arrival(0, 950)]);
    let packet = d
        .causes
        .iter()
        .find(|c| matches!(c.cause, Cause::Packet { .. }))
        .expect("a packet cause");
    assert_eq!(
        (packet.text.as_str(), packet.cost),
        (
            "sshd waited 1.000 us, woken by a packet from host VM3 (sent at \
             1361214092.782000123 s on the shared timeline, 85.000 us before it arrived; \
             softirq 3 woke it)",
            1000
        )
    );
    assert!(d.contradictions.is_empty(), "{:?}", d.contradictions);
    // An emission whose sender the trace tells: the sender is said too,
    // by name where that host's model knows it.
    let sent_by = Arrival {
        sent_by: Some(4047),
        ..arrival(0, 950)
    };
    let d = diagnose_with(&g, 5, 0, 2000, std::slice::from_ref(&sent_by));
    assert!(
        d.text
            .contains("a packet from host VM3 (sent by thread 4047 at 1361214092.782000123 s"),
        "{}",
        d.text
    );
    let named = Arrival {
        sent_by_comm: Some("scp".into()),
        ..sent_by
    };
    let d = diagnose_with(&g, 5, 0, 2000, &[named]);
    assert!(
        d.text
            .contains("a packet from host VM3 (sent by scp 4047 at 1361214092.782000123 s"),
        "{}",
        d.text
    );
}

#[test]
fn a_wakeup_without_a_matched_packet_names_no_host() {
    let g = woken_by_the_network();
    // On another CPU, before the softirq opened, after the wake-up: none
    // is its cause.
    for arrivals in [
        vec![],
        vec![arrival(1, 950)],
        vec![arrival(0, 850)],
        vec![arrival(0, 1001)],
    ] {
        let d = diagnose_with(&g, 5, 0, 2000, &arrivals);
        let texts: Vec<&str> = d.causes.iter().map(|c| c.text.as_str()).collect();
        assert!(
            texts.contains(&"sshd waited 1.000 us for softirq 3"),
            "{arrivals:?}: {texts:?}"
        );
        assert!(
            texts.iter().all(|t| !t.contains("host")),
            "{arrivals:?}: {texts:?}"
        );
    }
}
