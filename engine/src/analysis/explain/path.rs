//! The critical path of a thread over a range (Giraldeau & Dagenais's
//! active path, as Trace Compass computes it): walking back from the end,
//! the thread's own time while it runs or waits for a CPU, and while it is
//! blocked, the path of whoever woke it up, over the blocked interval —
//! recursively, since the waker may itself have been blocked. Before a
//! thread born inside the range existed, the path is its creator's. The
//! result covers the range exactly, in time order: `Unknown` only where the
//! trace says nothing.

use serde::Serialize;

use super::graph::{Context, Graph};
use crate::kernel::model::ThreadState;

/// What the thread on the path was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PathState {
    Running,
    Preempted,
    WaitingCpu,
    /// Blocked, and the walk could not follow a thread: woken by an
    /// interrupt or timer, or by nothing seen in the range.
    Blocked {
        woken_by: Option<Context>,
    },
    /// Nothing known (before the thread's first scheduling event, lost
    /// events).
    Unknown,
}

impl PathState {
    pub fn name(&self) -> &'static str {
        match self {
            PathState::Running => "running",
            PathState::Preempted => "preempted",
            PathState::WaitingCpu => "waiting_cpu",
            PathState::Blocked { .. } => "blocked",
            PathState::Unknown => "unknown",
        }
    }

    /// Whether the path was ready to run but had no CPU: what the complement
    /// explains.
    pub fn wants_cpu(&self) -> bool {
        matches!(self, PathState::Preempted | PathState::WaitingCpu)
    }
}

/// Why the path is on a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "link", rename_all = "snake_case")]
pub enum Link {
    /// The thread the walk started from (the execution's end).
    Own,
    /// It woke `wakee` up, which was blocked meanwhile.
    Woke { wakee: i64 },
    /// It created `child`, which did not exist yet.
    Created { child: i64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathPiece {
    pub tid: i64,
    pub state: PathState,
    pub start: i64,
    pub end: i64,
    pub link: Link,
}

/// A part of the range still to walk: `tid`'s path over [lo, hi], walked
/// from `hi` down.
struct Frame {
    tid: i64,
    lo: i64,
    hi: i64,
    link: Link,
}

/// The critical path of `tid` over [start, end] in `graph`.
pub fn critical_path(graph: &Graph, tid: i64, start: i64, end: i64) -> Vec<PathPiece> {
    let mut reversed: Vec<PathPiece> = Vec::new();
    let mut emit = |f: &Frame, state: PathState, start: i64| {
        if f.hi <= start {
            return;
        }
        match reversed.last_mut() {
            Some(p)
                if p.tid == f.tid && p.state == state && p.link == f.link && p.start == f.hi =>
            {
                p.start = start
            }
            _ => reversed.push(PathPiece {
                tid: f.tid,
                state,
                start,
                end: f.hi,
                link: f.link,
            }),
        }
    };
    // Frames followed so far, by (thread, time): data where two threads woke
    // each other at one instant must not loop.
    let mut followed = rustc_hash::FxHashSet::default();
    let mut stack = vec![Frame {
        tid,
        lo: start,
        hi: end.max(start),
        link: Link::Own,
    }];
    while let Some(mut f) = stack.pop() {
        if f.hi <= f.lo {
            continue;
        }
        let line = graph.line(f.tid);
        let seg = line.and_then(|l| l.segment_before(f.hi));
        let known = seg.filter(|s| s.state != ThreadState::Unknown);
        if known.is_none() {
            // Before its first known state, a thread just created did not
            // run yet: its creator was working towards it.
            let unborn = graph
                .creations
                .get(&f.tid)
                .filter(|c| c.ts <= f.hi)
                .filter(|_| line.is_none_or(|l| first_known(l).is_none_or(|k| f.hi <= k)));
            if let Some(c) = unborn {
                if followed.insert((c.parent, f.hi)) {
                    stack.push(Frame {
                        tid: c.parent,
                        lo: f.lo,
                        hi: f.hi,
                        link: Link::Created { child: f.tid },
                    });
                    continue;
                }
            }
        }
        let Some(seg) = seg else {
            // Nothing known at `hi`: unknown back to the previous segment.
            let back = line
                .and_then(|l| l.last_ending_by(f.hi))
                .map_or(f.lo, |s| s.end.max(f.lo));
            emit(&f, PathState::Unknown, back);
            f.hi = back;
            stack.push(f);
            continue;
        };
        let from = seg.start.max(f.lo);
        let state = match seg.state {
            ThreadState::Running => PathState::Running,
            ThreadState::Preempted => PathState::Preempted,
            ThreadState::WaitingCpu => PathState::WaitingCpu,
            ThreadState::Unknown => PathState::Unknown,
            ThreadState::Blocked => {
                // Only a blocked interval that ends at `hi` ends with its
                // wake-up; one cut by `hi` was still blocked then.
                let wakeup = line
                    .filter(|_| seg.end == f.hi)
                    .and_then(|l| l.wakeup_in(seg.start, seg.end));
                match wakeup.map(|w| w.waker) {
                    Some(Context::Thread { tid: waker })
                        if waker != f.tid && followed.insert((waker, f.hi)) =>
                    {
                        let (lo, hi, wakee) = (from, f.hi, f.tid);
                        f.hi = from;
                        stack.push(f);
                        stack.push(Frame {
                            tid: waker,
                            lo,
                            hi,
                            link: Link::Woke { wakee },
                        });
                        continue;
                    }
                    woken_by => PathState::Blocked { woken_by },
                }
            }
        };
        emit(&f, state, from);
        f.hi = from;
        stack.push(f);
    }
    reversed.reverse();
    reversed
}

/// When a line's first state other than `Unknown` begins.
fn first_known(line: &super::graph::Line) -> Option<i64> {
    line.segments
        .iter()
        .find(|s| s.state != ThreadState::Unknown)
        .map(|s| s.start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::explain::graph::{Line, Segment, Wakeup};

    fn seg(start: i64, end: i64, state: ThreadState) -> Segment {
        Segment {
            start,
            end,
            state,
            cpu: Some(0),
            prio: None,
            inferred: false,
        }
    }

    fn woke(ts: i64, wakee: i64, waker: Context) -> Wakeup {
        Wakeup {
            ts,
            wakee,
            waker,
            cpu: Some(0),
            since: None,
            timer: None,
        }
    }

    fn graph(lines: Vec<(i64, Vec<Segment>, Vec<Wakeup>)>) -> Graph {
        let mut g = Graph {
            start: 0,
            end: 100,
            ..Graph::default()
        };
        for (tid, segments, wakeups) in lines {
            g.lines.insert(
                tid,
                Line {
                    comm: format!("t{tid}"),
                    segments,
                    wakeups,
                },
            );
        }
        g
    }

    fn summary(p: &[PathPiece]) -> Vec<(i64, &'static str, i64, i64)> {
        p.iter()
            .map(|x| (x.tid, x.state.name(), x.start, x.end))
            .collect()
    }

    use ThreadState::*;

    #[test]
    fn blocked_interval_is_the_wakers_path() {
        // 1 runs, blocks at 20, woken by 2 at 60, waits for CPU, runs.
        // 2 is blocked until 30 (woken by a timer), runs, preempted 40..50.
        let g = graph(vec![
            (
                1,
                vec![
                    seg(0, 20, Running),
                    seg(20, 60, Blocked),
                    seg(60, 65, WaitingCpu),
                    seg(65, 100, Running),
                ],
                vec![woke(60, 1, Context::Thread { tid: 2 })],
            ),
            (
                2,
                vec![
                    seg(0, 30, Blocked),
                    seg(30, 40, Running),
                    seg(40, 50, Preempted),
                    seg(50, 100, Running),
                ],
                vec![woke(30, 2, Context::Timer)],
            ),
        ]);
        let p = critical_path(&g, 1, 0, 100);
        assert_eq!(
            summary(&p),
            vec![
                (1, "running", 0, 20),
                (2, "blocked", 20, 30),
                (2, "running", 30, 40),
                (2, "preempted", 40, 50),
                (2, "running", 50, 60),
                (1, "waiting_cpu", 60, 65),
                (1, "running", 65, 100),
            ]
        );
        assert_eq!(
            p[1].state,
            PathState::Blocked {
                woken_by: Some(Context::Timer)
            }
        );
    }

    #[test]
    fn chains_of_wakers_and_exact_cover() {
        // 1 woken by 2 at 80; 2 blocked 10..70 woken by 3 at 70; 3 runs.
        let g = graph(vec![
            (
                1,
                vec![
                    seg(0, 5, Running),
                    seg(5, 80, Blocked),
                    seg(80, 100, Running),
                ],
                vec![woke(80, 1, Context::Thread { tid: 2 })],
            ),
            (
                2,
                vec![
                    seg(0, 10, Running),
                    seg(10, 70, Blocked),
                    seg(70, 100, Running),
                ],
                vec![woke(70, 2, Context::Thread { tid: 3 })],
            ),
            (3, vec![seg(0, 100, Running)], vec![]),
        ]);
        let p = critical_path(&g, 1, 2, 90);
        assert_eq!(
            summary(&p),
            vec![
                (1, "running", 2, 5),
                (2, "running", 5, 10),
                (3, "running", 10, 70),
                (2, "running", 70, 80),
                (1, "running", 80, 90),
            ]
        );
        for w in p.windows(2) {
            assert_eq!(w[0].end, w[1].start, "pieces are contiguous");
        }
    }

    #[test]
    fn unknown_gaps_cut_blocks_and_mutual_wakers() {
        // 1 is unknown before 30 (first seen there); blocked at the end of
        // the range (cut: not followed); 2 and 3 wake each other at 50.
        let g = graph(vec![
            (
                1,
                vec![
                    seg(30, 40, Running),
                    seg(40, 50, Blocked),
                    seg(50, 60, Running),
                    seg(60, 200, Blocked),
                ],
                vec![
                    woke(50, 1, Context::Thread { tid: 2 }),
                    woke(200, 1, Context::Thread { tid: 3 }),
                ],
            ),
            (
                2,
                vec![seg(0, 50, Blocked)],
                vec![woke(50, 2, Context::Thread { tid: 3 })],
            ),
            (
                3,
                vec![seg(0, 50, Blocked)],
                vec![woke(50, 3, Context::Thread { tid: 2 })],
            ),
        ]);
        let p = critical_path(&g, 1, 0, 100);
        let s = summary(&p);
        assert_eq!(s.first(), Some(&(1, "unknown", 0, 30)));
        assert_eq!(s.last(), Some(&(1, "blocked", 60, 100)));
        assert_eq!(
            p.last().map(|x| x.state),
            Some(PathState::Blocked { woken_by: None })
        );
        let covered: i64 = p.iter().map(|x| x.end - x.start).sum();
        assert_eq!(covered, 100);
        for w in p.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
    }

    #[test]
    fn a_thread_born_in_the_range_continues_on_its_creator() {
        // 2 (the timer thread) waits for its timer until 30, runs, creates
        // 1 at 38; 1 waits for the CPU from 40, runs from 45. Before 40, 1
        // did not run: the path is 2's, and 2's wait is its timer's.
        let mut g = graph(vec![
            (
                1,
                vec![seg(40, 45, WaitingCpu), seg(45, 100, Running)],
                vec![woke(40, 1, Context::Thread { tid: 2 })],
            ),
            (
                2,
                vec![
                    seg(0, 30, Blocked),
                    seg(30, 50, Running),
                    seg(50, 100, Blocked),
                ],
                vec![woke(30, 2, Context::Timer)],
            ),
        ]);
        g.creations.insert(
            1,
            crate::analysis::explain::graph::Fork {
                ts: 38,
                parent: 2,
                child: 1,
            },
        );
        let p = critical_path(&g, 1, 0, 100);
        assert_eq!(
            summary(&p),
            vec![
                (2, "blocked", 0, 30),
                (2, "running", 30, 40),
                (1, "waiting_cpu", 40, 45),
                (1, "running", 45, 100),
            ]
        );
        assert_eq!(p[1].link, Link::Created { child: 1 });
        assert_eq!(p[3].link, Link::Own);
        // Without the creation, the time before 40 is unknown.
        g.creations.clear();
        let p = critical_path(&g, 1, 0, 100);
        assert_eq!(summary(&p)[0], (1, "unknown", 0, 40));
    }
}
