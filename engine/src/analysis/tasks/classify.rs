//! A thread's jobs classified: periodic (a regression fit covers most
//! releases with a small spread), sporadic (inter-arrivals bounded below,
//! the shortest not far under the typical one), or aperiodic (not
//! reported). Response times, execution times and deadline misses.

use serde::Serialize;

use super::collect::{Release, ThreadActivity};
use super::jobs::{jobs, Job};
use super::period::{phases, Phase};
use super::{model, Deadline, Options};
use crate::analysis::stats;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Periodic,
    Sporadic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub p50: i64,
    pub p99: i64,
    pub max: i64,
}

/// A stretch of a periodic task's jobs with one period.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskPhase {
    /// First and last release in it (ns).
    pub start: i64,
    pub end: i64,
    pub period: i64,
    pub jitter: i64,
    pub jobs: usize,
    /// Periods in it with no release.
    pub missed: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub tid: i64,
    pub comm: String,
    pub kind: TaskKind,
    /// The period of the longest phase (periodic), ns.
    pub period: Option<i64>,
    pub jitter: Option<i64>,
    /// Sporadic: the shortest time between two releases.
    pub min_interarrival: Option<i64>,
    /// 0..1: the share of releases the fit covers, lowered by its spread.
    pub confidence: f64,
    pub phases: Vec<TaskPhase>,
    pub jobs: Vec<Job>,
    pub released_by: Release,
    /// Each job's deadline (ns after its release), misses counted against it.
    pub deadlines: Vec<i64>,
    pub misses: u64,
    pub response: Percentiles,
    pub execution: Percentiles,
    /// Kernel-order priority.
    pub prio: Option<i32>,
    pub cpus: Vec<u32>,
    pub btf: bool,
    /// An execution model finding the same jobs (JSON, as `analyze` takes it).
    pub model: serde_json::Value,
}

/// A fit this tight is a period: 10 % release jitter, uniform, is a
/// spread of 3 % of the period; random arrivals are far above it.
const MAX_SPREAD: f64 = 0.06;
/// Share of releases the periodic phases must hold.
const MIN_COVERAGE: f64 = 0.7;
/// Sporadic: the shortest inter-arrival is at least this share of the median.
const SPORADIC_FLOOR: f64 = 0.4;

fn percentiles(v: &[i64]) -> Percentiles {
    stats::compute(v, None).map_or(
        Percentiles {
            p50: 0,
            p99: 0,
            max: 0,
        },
        |s| Percentiles {
            p50: s.p50,
            p99: s.p99,
            max: s.max,
        },
    )
}

fn deadline_of(options: &Options, base: i64) -> i64 {
    match options.deadline {
        Deadline::Ratio(r) => ((base as f64) * r).round() as i64,
        Deadline::Time(t) => t,
    }
}

/// The periodic phases of `jobs`, or none.
fn periodic_phases(jobs: &[Job], min_jobs: usize) -> Vec<Phase> {
    let releases: Vec<i64> = jobs.iter().map(|j| j.release).collect();
    let good: Vec<Phase> = phases(&releases, min_jobs)
        .into_iter()
        .filter(|p| p.period > 0.0 && p.spread <= MAX_SPREAD * p.period)
        .collect();
    let covered: usize = good.iter().map(|p| p.fitted).sum();
    if (covered as f64) < MIN_COVERAGE * jobs.len() as f64 {
        return Vec::new();
    }
    good
}

pub fn classify(t: &ThreadActivity, options: &Options) -> Option<Task> {
    let min_jobs = options.min_jobs.max(2);
    let (jobs, released_by) = jobs(t, min_jobs);
    if jobs.len() < min_jobs {
        return None;
    }
    let good = periodic_phases(&jobs, min_jobs);
    let (kind, period, jitter, min_interarrival, confidence, deadlines);
    if let Some(main) = good.iter().max_by_key(|p| p.fitted) {
        kind = TaskKind::Periodic;
        period = Some(main.period.round() as i64);
        jitter = Some(main.jitter);
        min_interarrival = None;
        let covered: usize = good.iter().map(|p| p.fitted).sum();
        let tight = (1.0 - main.spread / (2.0 * MAX_SPREAD * main.period)).clamp(0.0, 1.0);
        confidence = covered as f64 / jobs.len() as f64 * tight;
        // A job outside every phase is measured against the main period.
        deadlines = (0..jobs.len())
            .map(|i| {
                let p = good
                    .iter()
                    .find(|p| (p.first..p.end).contains(&i))
                    .unwrap_or(main);
                deadline_of(options, p.period.round() as i64)
            })
            .collect::<Vec<_>>();
    } else {
        let mut gaps: Vec<i64> = jobs
            .windows(2)
            .map(|w| w[1].release - w[0].release)
            .collect();
        gaps.sort_unstable();
        let (least, median) = (gaps[0], gaps[gaps.len() / 2]);
        if least <= 0 || (least as f64) < SPORADIC_FLOOR * median as f64 {
            return None;
        }
        kind = TaskKind::Sporadic;
        period = None;
        jitter = None;
        min_interarrival = Some(least);
        confidence = least as f64 / median as f64;
        deadlines = vec![deadline_of(options, least); jobs.len()];
    }
    let responses: Vec<i64> = jobs.iter().map(Job::response).collect();
    let executions: Vec<i64> = jobs.iter().map(|j| j.execution).collect();
    let misses = responses
        .iter()
        .zip(&deadlines)
        .filter(|(r, d)| r > d)
        .count() as u64;
    let phases = good
        .iter()
        .map(|p| TaskPhase {
            start: jobs[p.first].release,
            end: jobs[p.end - 1].release,
            period: p.period.round() as i64,
            jitter: p.jitter,
            jobs: p.end - p.first,
            missed: p.missed,
        })
        .collect();
    let cpus = (0..64).filter(|c| t.cpus & (1u64 << c) != 0).collect();
    let model = model::for_task(t, &jobs, released_by, deadlines[0]);
    Some(Task {
        tid: t.tid,
        comm: t.comm.clone(),
        kind,
        period,
        jitter,
        min_interarrival,
        confidence: (confidence * 1000.0).round() / 1000.0,
        phases,
        jobs,
        released_by,
        deadlines,
        misses,
        response: percentiles(&responses),
        execution: percentiles(&executions),
        prio: t.prio,
        cpus,
        btf: t.btf,
        model,
    })
}
