//! Jobs made of a thread's activations. A job starts at a release and ends
//! when the thread blocks for the last time before the next release, so a
//! job that waits mid-way (a reply, a lock) stays one job. When a thread is
//! mostly woken by timers or BTF activations, only those release jobs and
//! the other wake-ups continue the job in progress; otherwise every wake-up
//! releases one.

use super::collect::{BlockState, Release, ThreadActivity};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    pub release: i64,
    /// The block that completed it.
    pub end: i64,
    /// Running time between release and end (ns).
    pub execution: i64,
    /// It completed by blocking in a sleep call.
    pub in_sleep: bool,
    pub state: Option<BlockState>,
}

impl Job {
    pub fn response(&self) -> i64 {
        self.end - self.release
    }
}

/// The jobs of `t`, and what releases them.
pub fn jobs(t: &ThreadActivity, min_jobs: usize) -> (Vec<Job>, Release) {
    let acts = &t.activations;
    let count = |r: Release| acts.iter().filter(|a| a.by == r).count();
    let anchor = [Release::Activation, Release::Timer].into_iter().find(|r| {
        let n = count(*r);
        n >= min_jobs.max(1) && n * 4 >= acts.len()
    });
    let mut out: Vec<Job> = Vec::new();
    let mut run_start = 0;
    for a in acts {
        let starts = anchor.is_none_or(|r| a.by == r);
        if starts {
            run_start = a.run_at_release;
            out.push(Job {
                release: a.release,
                end: a.end,
                execution: a.run_at_end - a.run_at_release,
                in_sleep: a.in_sleep,
                state: a.state,
            });
        } else if let Some(j) = out.last_mut() {
            j.end = a.end;
            j.execution = a.run_at_end - run_start;
            j.in_sleep = a.in_sleep;
            j.state = a.state;
        }
    }
    (out, anchor.unwrap_or(Release::Wakeup))
}
