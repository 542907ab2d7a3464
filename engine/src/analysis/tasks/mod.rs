//! Real-time tasks found by themselves: every thread's jobs (release → the
//! block that completes them) collected in the pass (`collect.rs`), jobs
//! made of activations (`jobs.rs`), periods inferred by regression
//! (`period.rs`), and each thread classified periodic, sporadic or left out
//! as aperiodic, with response times and deadline misses (`classify.rs`),
//! and an execution model `analyze` accepts that finds the same jobs
//! (`model.rs`); each task as a row of `sextant tasks --format json`, and
//! the words of its columns (`row.rs`); its jobs as instance series, one
//! figure per job (`instances.rs`).

mod classify;
mod collect;
pub mod instances;
mod jobs;
mod model;
pub mod period;
pub mod row;

pub use classify::{classify, Percentiles, Task, TaskKind, TaskPhase};
pub use collect::{Activation, BlockState, Release, TaskCollector, ThreadActivity};
pub use jobs::Job;
pub use row::row;

/// The deadline each job is measured against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Deadline {
    /// A share of the period (1.0: the implicit deadline), or of the
    /// minimum inter-arrival for a sporadic task.
    Ratio(f64),
    /// The same time (ns) for every task.
    Time(i64),
}

impl std::str::FromStr for Deadline {
    type Err = String;
    /// A bare number is a ratio (`0.8`), one with a unit a time (`2ms`),
    /// as `sextant tasks --deadline` and SQL's `tasks()` take it.
    fn from_str(s: &str) -> Result<Deadline, String> {
        let s = s.trim();
        if let Ok(r) = s.parse::<f64>() {
            return match r > 0.0 && r.is_finite() {
                true => Ok(Deadline::Ratio(r)),
                false => Err("a ratio of the period must be a positive number".to_string()),
            };
        }
        match crate::duration::parse(s) {
            Ok(ns) if ns > 0 => Ok(Deadline::Time(ns)),
            _ => Err(
                "expected a ratio of the period (0.8) or a time (\"2ms\", \"500us\")".to_string(),
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Fewer jobs than this and a thread is not classified.
    pub min_jobs: usize,
    pub deadline: Deadline,
}

impl Options {
    /// Options every front end accepts: a period needs two jobs at least.
    pub fn new(min_jobs: usize, deadline: Deadline) -> Result<Options, String> {
        match min_jobs {
            0 | 1 => Err("at least 2 jobs are needed to see a period".to_string()),
            _ => Ok(Options { min_jobs, deadline }),
        }
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            min_jobs: 10,
            deadline: Deadline::Ratio(1.0),
        }
    }
}

/// The tasks among the threads a pass collected, periodic ones first, then
/// by TID.
pub fn tasks(collector: TaskCollector, options: &Options) -> Vec<Task> {
    let mut out: Vec<Task> = collector
        .into_threads()
        .iter()
        .filter_map(|t| classify(t, options))
        .collect();
    out.sort_by_key(|t| (t.kind != TaskKind::Periodic, t.tid));
    out
}
