//! The critical path's complement: while a thread on the path was ready to
//! run but had no CPU (preempted, or woken and waiting), who ran instead, on
//! which CPU, at which priority. Those that ran on the CPU the path thread
//! waited for held it back; one of them of lower priority than the analysed
//! thread (a larger kernel-order number) is a priority inversion. Threads on
//! the other CPUs are listed too (the thread might have been allowed there),
//! but did not hold the path back. Where the tracer lost events on a CPU,
//! who ran there is unknown: runs stop at the window, and the interval
//! lists the window instead (`Held::lost`).

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::graph::Graph;
use super::lost;
use super::path::PathPiece;
use crate::kernel::model::ThreadState;
use crate::kernel::priority::Priority;

/// A thread that ran while the path waited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Runner {
    pub tid: i64,
    pub comm: String,
    /// Kernel-order priority when it started running there.
    pub prio: Option<i32>,
    /// The same, as its user set it ("FIFO/RR 70", "nice 5").
    pub priority: String,
    pub cpu: u32,
    /// Time it ran during the interval (ns).
    pub duration: i64,
    /// It ran on the CPU the path thread waited for (or that CPU is not
    /// known): it held the path back.
    pub held: bool,
    /// It held the path back, and its priority is lower than the analysed
    /// thread's.
    pub inversion: bool,
}

/// One interval of the path without a CPU, and who ran meanwhile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Held {
    pub path_tid: i64,
    pub path_comm: String,
    pub path_prio: Option<i32>,
    pub path_priority: String,
    /// The CPU it waited for (where it last ran), when known.
    pub cpu: Option<u32>,
    pub state: &'static str,
    pub start: i64,
    pub end: i64,
    /// Longest first.
    pub running: Vec<Runner>,
    /// The parts of the interval where the tracer lost events on a CPU it
    /// could use: who ran there is unknown, and `running` counts none of
    /// it. In time order.
    pub lost: Vec<Unknown>,
}

/// A part of a complement interval inside a loss window (`Graph::losses`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unknown {
    /// The window's CPU (`None`: the tracer did not say, every CPU).
    pub cpu: Option<u32>,
    pub start: i64,
    pub end: i64,
    /// Events the tracer said it lost in the window, when it said.
    pub events: Option<u64>,
}

/// One thread's total over the whole path, on the CPUs the path waited for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Culprit {
    pub tid: i64,
    pub comm: String,
    pub prio: Option<i32>,
    pub priority: String,
    pub duration: i64,
    pub inversion: bool,
    /// It interacted with the analysed thread in the range, directly or not
    /// (a waker, a creator, a fellow worker): part of the job's own work
    /// rather than interference. Set from the relations.
    pub related: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Complement {
    /// In path order.
    pub intervals: Vec<Held>,
    /// Every thread that held the path back, longest first.
    pub culprits: Vec<Culprit>,
}

/// A running segment on one CPU.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub start: i64,
    pub end: i64,
    pub tid: i64,
    pub prio: Option<i32>,
    pub cpu: u32,
    /// Its switch-in is not in the trace (`Segment::inferred`).
    pub inferred: bool,
}

/// Who ran on each CPU, in time order (the idle task is not a thread that
/// holds anything back, so it has no runs: a gap is an idle CPU, or a
/// window where the tracer lost events there, `Graph::losses`, and who ran
/// is unknown: the model's states are no evidence inside it).
#[derive(Debug, Clone, Default)]
pub struct CpuRuns {
    per_cpu: HashMap<u32, Vec<Run>>,
}

impl CpuRuns {
    pub fn new(graph: &Graph) -> CpuRuns {
        let mut per_cpu: HashMap<u32, Vec<Run>> = HashMap::default();
        for (&tid, line) in &graph.lines {
            for s in &line.segments {
                let Some(cpu) = s.cpu else { continue };
                if s.state != ThreadState::Running {
                    continue;
                }
                let known = lost::cut(&graph.losses, |l| lost::on(l, &[cpu]), s.start, s.end)
                    .into_iter()
                    .filter(|(_, _, window)| window.is_none());
                per_cpu
                    .entry(cpu)
                    .or_default()
                    .extend(known.map(|(start, end, _)| Run {
                        start,
                        end,
                        tid,
                        prio: s.prio,
                        cpu,
                        inferred: s.inferred,
                    }));
            }
        }
        for runs in per_cpu.values_mut() {
            runs.sort_by_key(|r| r.start);
        }
        CpuRuns { per_cpu }
    }

    /// The CPUs that ran something, in order.
    pub fn cpus(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.per_cpu.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// The runs of `cpu` overlapping [start, end), cut to it.
    pub fn during(&self, cpu: u32, start: i64, end: i64) -> impl Iterator<Item = Run> + '_ {
        let runs = self.per_cpu.get(&cpu).map_or(&[][..], |r| r.as_slice());
        // Runs are disjoint on a CPU: those ending after the start.
        let first = runs.partition_point(|r| r.end <= start);
        runs[first..]
            .iter()
            .take_while(move |r| r.start < end)
            .filter_map(move |r| {
                let (a, b) = (r.start.max(start), r.end.min(end));
                (b > a).then_some(Run {
                    start: a,
                    end: b,
                    ..*r
                })
            })
    }
}

/// The CPUs a thread waiting over [start, end) could have been given: the
/// one it waited on (where it was woken to, or preempted), the one it was
/// given at the end when another, and for an RTOS (BTF) every core it ran
/// on in the range: its tasks wait for whichever core frees first.
pub fn waited_for(graph: &Graph, tid: i64, start: i64, end: i64) -> Vec<u32> {
    let Some(line) = graph.line(tid) else {
        return Vec::new();
    };
    let mut cpus: Vec<u32> = line
        .segment_before(end)
        .filter(|s| s.start < end && s.end > start)
        .and_then(|s| s.cpu)
        .into_iter()
        .collect();
    let given = line
        .segments
        .iter()
        .find(|s| s.start >= end && s.state == ThreadState::Running)
        .filter(|s| s.start == end)
        .and_then(|s| s.cpu);
    cpus.extend(given);
    if graph.rtos {
        cpus.extend(ran_on(line));
    }
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// The CPUs a thread ran on in the range. The trace does not record CPU
/// affinity: these stand for the CPUs it may use.
fn ran_on(line: &super::graph::Line) -> impl Iterator<Item = u32> + '_ {
    line.segments
        .iter()
        .filter(|s| s.state == ThreadState::Running)
        .filter_map(|s| s.cpu)
}

impl CpuRuns {
    /// Who held `cpus` from a thread (`tid`) waiting over [start, end), in
    /// time order and without overlaps: at each instant that any of them
    /// ran a thread, the least urgent of those running (the one the
    /// scheduler would have displaced first); an instant when none ran
    /// anything is in no run.
    pub fn holders(&self, cpus: &[u32], tid: i64, start: i64, end: i64) -> Vec<Run> {
        let runs: Vec<Run> = cpus
            .iter()
            .flat_map(|&c| self.during(c, start, end))
            .filter(|r| r.tid != tid)
            .collect();
        if cpus.len() <= 1 {
            return runs;
        }
        let mut cuts: Vec<i64> = runs.iter().flat_map(|r| [r.start, r.end]).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut out: Vec<Run> = Vec::new();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            // Unknown priorities count as the least urgent.
            let least = runs
                .iter()
                .filter(|r| r.start <= a && r.end >= b)
                .max_by_key(|r| (r.prio.unwrap_or(i32::MAX), -r.tid));
            let Some(r) = least else { continue };
            match out.last_mut() {
                Some(l) if l.end == a && l.tid == r.tid && l.prio == r.prio => l.end = b,
                _ => out.push(Run {
                    start: a,
                    end: b,
                    ..*r
                }),
            }
        }
        out
    }
}

/// The complement of `path` in `graph`. `reference_prio` is the analysed
/// thread's priority; `cpus` limits the CPUs looked at (all when `None`).
pub fn complement(
    graph: &Graph,
    runs: &CpuRuns,
    path: &[PathPiece],
    analysed: i64,
    reference_prio: Option<i32>,
    cpus: Option<&[u32]>,
) -> Complement {
    let cpu_ids: Vec<u32> = runs
        .cpus()
        .into_iter()
        .filter(|c| cpus.is_none_or(|l| l.contains(c)))
        .collect();
    let inversion = |tid: i64, prio: Option<i32>| {
        tid != analysed
            && matches!((prio, reference_prio), (Some(p), Some(r)) if Priority(r).is_higher_than(Priority(p)))
    };
    let mut out = Complement::default();
    let mut totals: HashMap<i64, Culprit> = HashMap::default();
    for piece in path.iter().filter(|p| p.state.wants_cpu()) {
        let seg = graph
            .line(piece.tid)
            .and_then(|l| l.segment_before(piece.end));
        let waited = waited_for(graph, piece.tid, piece.start, piece.end);
        // Only the CPUs it could use are listed: those it waited for and
        // those it ran on.
        let mut usable = waited.clone();
        usable.extend(graph.line(piece.tid).into_iter().flat_map(ran_on));
        let mut running: Vec<Runner> = Vec::new();
        for &cpu in cpu_ids.iter().filter(|c| usable.contains(c)) {
            for r in runs.during(cpu, piece.start, piece.end) {
                if r.tid == piece.tid {
                    continue;
                }
                let d = r.end - r.start;
                match running
                    .iter_mut()
                    .find(|x| x.tid == r.tid && x.cpu == cpu && x.prio == r.prio)
                {
                    Some(x) => x.duration += d,
                    None => {
                        let held = waited.is_empty() || waited.contains(&cpu);
                        running.push(Runner {
                            tid: r.tid,
                            comm: graph.comm(r.tid).to_string(),
                            prio: r.prio,
                            priority: graph.priority(r.tid, r.prio),
                            cpu,
                            duration: d,
                            held,
                            inversion: held && inversion(r.tid, r.prio),
                        })
                    }
                }
            }
        }
        running.sort_by(|a, b| b.duration.cmp(&a.duration).then(a.tid.cmp(&b.tid)));
        let listed: Vec<u32> = usable
            .iter()
            .copied()
            .filter(|c| cpus.is_none_or(|l| l.contains(c)))
            .collect();
        let lost = unknown(graph, &listed, piece.start, piece.end);
        for r in running.iter().filter(|r| r.held) {
            let c = totals.entry(r.tid).or_insert_with(|| Culprit {
                tid: r.tid,
                comm: r.comm.clone(),
                prio: r.prio,
                priority: r.priority.clone(),
                duration: 0,
                inversion: false,
                related: false,
            });
            c.duration += r.duration;
            c.inversion |= r.inversion;
            if r.inversion {
                c.prio = r.prio;
                c.priority.clone_from(&r.priority);
            }
        }
        let path_prio = seg.and_then(|s| s.prio);
        out.intervals.push(Held {
            path_tid: piece.tid,
            path_comm: graph.comm(piece.tid).to_string(),
            path_prio,
            path_priority: graph.priority(piece.tid, path_prio),
            cpu: seg.and_then(|s| s.cpu),
            state: piece.state.name(),
            start: piece.start,
            end: piece.end,
            running,
            lost,
        });
    }
    out.culprits = totals.into_values().collect();
    out.culprits
        .sort_by(|a, b| b.duration.cmp(&a.duration).then(a.tid.cmp(&b.tid)));
    out
}

/// The parts of [start, end) in the loss windows of `cpus` (or of no
/// known CPU), in time order.
fn unknown(graph: &Graph, cpus: &[u32], start: i64, end: i64) -> Vec<Unknown> {
    let mut parts: Vec<Unknown> = graph
        .losses
        .iter()
        .filter(|l| lost::on(l, cpus))
        .filter_map(|l| {
            let (a, b) = (l.from.max(start), l.to.min(end));
            (b > a).then_some(Unknown {
                cpu: l.cpu,
                start: a,
                end: b,
                events: l.events,
            })
        })
        .collect();
    parts.sort_by_key(|u| (u.start, u.cpu));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::explain::graph::{Line, Segment};
    use crate::analysis::explain::path::{Link, PathState};
    use ThreadState::*;

    fn seg(start: i64, end: i64, state: ThreadState, cpu: u32, prio: i32) -> Segment {
        Segment {
            start,
            end,
            state,
            cpu: Some(cpu),
            prio: Some(prio),
            inferred: false,
        }
    }

    #[test]
    fn runners_priorities_and_inversions() {
        // Path: 2 (prio 89) preempted 10..40 on CPU 0: 3 (prio 49) runs
        // 10..30, 1 (the analysed thread, prio 19) 30..35, 4 (prio 9) 35..40;
        // 5 (prio 120) runs on CPU 1 throughout: 2 waits for CPU 0, the
        // only one it ran on.
        let mut g = Graph {
            start: 0,
            end: 50,
            ..Graph::default()
        };
        let mut add = |tid: i64, segments: Vec<Segment>| {
            g.lines.insert(
                tid,
                Line {
                    comm: format!("t{tid}"),
                    segments,
                    wakeups: vec![],
                },
            );
        };
        add(
            1,
            vec![
                seg(0, 30, Blocked, 0, 19),
                seg(30, 35, Running, 0, 19),
                seg(35, 50, Blocked, 0, 19),
            ],
        );
        add(
            2,
            vec![
                seg(0, 10, Running, 0, 89),
                seg(10, 40, Preempted, 0, 89),
                seg(40, 50, Running, 0, 89),
            ],
        );
        add(3, vec![seg(10, 30, Running, 0, 49)]);
        add(4, vec![seg(35, 40, Running, 0, 9)]);
        add(5, vec![seg(0, 50, Running, 1, 120)]);
        let path = vec![
            PathPiece {
                tid: 2,
                state: PathState::Running,
                start: 0,
                end: 10,
                link: Link::Own,
            },
            PathPiece {
                tid: 2,
                state: PathState::Preempted,
                start: 10,
                end: 40,
                link: Link::Own,
            },
            PathPiece {
                tid: 2,
                state: PathState::Running,
                start: 40,
                end: 50,
                link: Link::Own,
            },
        ];
        let runs = CpuRuns::new(&g);
        let c = complement(&g, &runs, &path, 1, Some(19), None);
        assert_eq!(c.intervals.len(), 1);
        let got: Vec<(i64, u32, i64, bool)> = c.intervals[0]
            .running
            .iter()
            .map(|r| (r.tid, r.cpu, r.duration, r.inversion))
            .collect();
        assert_eq!(
            got,
            vec![(3, 0, 20, true), (1, 0, 5, false), (4, 0, 5, false)]
        );
        assert_eq!(c.intervals[0].path_prio, Some(89));
        assert_eq!(c.intervals[0].path_priority, "FIFO/RR 10");
        assert_eq!(c.intervals[0].running[0].priority, "FIFO/RR 50");
        assert!(c.culprits.iter().all(|x| x.tid != 5));
        // Had 2 run on CPU 1 too (before 5 did), 5 would be listed there,
        // holding nothing back: 2 waited for CPU 0.
        g.lines.get_mut(&2).unwrap().segments[0].cpu = Some(1);
        g.lines.get_mut(&5).unwrap().segments[0].start = 10;
        let c1 = complement(&g, &CpuRuns::new(&g), &path, 1, Some(19), None);
        let five = c1.intervals[0].running.iter().find(|r| r.tid == 5);
        assert!(five.is_some_and(|r| !r.held && r.cpu == 1));
        assert!(c1.culprits.iter().all(|x| x.tid != 5));
        // Only CPU 0.
        let c0 = complement(&g, &runs, &path, 1, Some(19), Some(&[0]));
        assert_eq!(
            c0.culprits.first().map(|x| (x.tid, x.prio)),
            Some((3, Some(49)))
        );
        assert!(c0.culprits.iter().all(|x| x.tid != 5));
    }
}
