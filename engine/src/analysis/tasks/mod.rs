//! Real-time tasks found by themselves: every thread's jobs (release → the
//! block that completes them) collected in the pass (`collect.rs`), jobs
//! made of activations (`jobs.rs`), periods inferred by regression
//! (`period.rs`), and each thread classified periodic, sporadic or left out
//! as aperiodic, with response times and deadline misses (`classify.rs`),
//! and an execution model `analyze` accepts that finds the same jobs
//! (`model.rs`); each task as a row of `sextant tasks --format json`
//! (`row.rs`).

mod classify;
mod collect;
mod jobs;
mod model;
pub mod period;
mod row;

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

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Fewer jobs than this and a thread is not classified.
    pub min_jobs: usize,
    pub deadline: Deadline,
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
