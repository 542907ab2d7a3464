//! A task's jobs as Tracealyzer plots its instances: one figure per job,
//! placed at the job's release, so that a late job or a release that came
//! early stands out against its neighbours. What the TSP instance series
//! draw; the figures are the jobs' own, nothing is re-estimated here.

use super::Job;

/// What an instance series measures, each in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Release to completion (`Job::response`).
    Response,
    /// Time running between release and completion.
    Execution,
    /// Periodicity from release: this release since the one before.
    Periodicity,
    /// Separation: this release since the previous job completed (the idle
    /// time between two jobs; below zero when the job was released before
    /// the previous one completed).
    Separation,
}

impl Measure {
    pub const ALL: [Measure; 4] = [
        Measure::Response,
        Measure::Execution,
        Measure::Periodicity,
        Measure::Separation,
    ];
}

/// `(release, figure)` for each job `m` has a figure for, in release order:
/// every job for response and execution times, every job but the first for
/// periodicity and separation (they need the job before).
pub fn series(jobs: &[Job], m: Measure) -> Vec<(i64, i64)> {
    match m {
        Measure::Response => jobs.iter().map(|j| (j.release, j.response())).collect(),
        Measure::Execution => jobs.iter().map(|j| (j.release, j.execution)).collect(),
        Measure::Periodicity => jobs
            .windows(2)
            .map(|w| (w[1].release, w[1].release - w[0].release))
            .collect(),
        Measure::Separation => jobs
            .windows(2)
            .map(|w| (w[1].release, w[1].release - w[0].end))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(release: i64, end: i64, execution: i64) -> Job {
        Job {
            release,
            end,
            execution,
            in_sleep: true,
            state: None,
        }
    }

    #[test]
    fn each_measure_from_the_jobs() {
        let jobs = [job(100, 130, 20), job(200, 260, 50), job(290, 400, 90)];
        let at = |m| series(&jobs, m);
        assert_eq!(at(Measure::Response), [(100, 30), (200, 60), (290, 110)]);
        assert_eq!(at(Measure::Execution), [(100, 20), (200, 50), (290, 90)]);
        assert_eq!(at(Measure::Periodicity), [(200, 100), (290, 90)]);
        // 200 - 130, 290 - 260.
        assert_eq!(at(Measure::Separation), [(200, 70), (290, 30)]);
        assert!(series(&jobs[..1], Measure::Periodicity).is_empty());
        assert!(series(&[], Measure::Response).is_empty());
    }
}
