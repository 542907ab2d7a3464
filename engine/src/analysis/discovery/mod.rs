//! Pattern discovery: which ordered events make up a thread's job.
//!
//! Frequent serial episodes are mined with MANEPI (Zhu et al., ICDM 2010):
//! episodes grow depth first from the frequent single events, each keeping
//! its minimal occurrences; an episode's support is the size of a largest set
//! of its minimal occurrences that do not overlap, and an episode below the
//! threshold is never grown. The seed's adaptations to traces are options
//! (`Params`): the threshold as a count or as the number of most frequent
//! event types admitted, chosen start events, a time limit (partial results).
//! An episode holds each event type at most once, never orders a call's or a
//! handler's end before its begin in a way one thread's job cannot
//! (`pairs`), and only maximal episodes (no reported episode is a
//! subsequence of another admissible one) are reported.
//!
//! One more adaptation, off by default (`Params::within_job`, the CLI's
//! `--within-job`): one occurrence per job of a periodic task. An occurrence
//! may then not contain a second event of the episode's first type after its
//! start. MANEPI's minimal occurrences of a strict loop `a b c ...` may span
//! several periods (`c ... a ... b` across two), so that nearly every order of
//! the loop's events is frequent: with n events, up to n! maximal episodes.
//! Within one job only the loop's own order (its rotations, without start
//! events) remains. The support stays monotone along the search (an
//! episode's prefix, and the episode without one of its later events, start
//! with the same type), so the search and the maximality test are unchanged.
//!
//! - `collect`: the analysis that records, in the single pass, the canonical
//!   event types of the chosen threads (one sequence per thread);
//! - `mine`: MANEPI over those sequences;
//! - `pairs`: the orders of begin/end events (a call's entry and exit, a
//!   handler's) one thread cannot make in one job, never grown;
//! - `maximal`: keeping the maximal episodes, and ranking them;
//! - `distinct`: the few a person reads: rotations of one cyclic pattern
//!   merged, readings of a pattern across period boundaries folded into
//!   it, near-identical ones collapsed, each shown as a job (from a
//!   release to the next sleep) when it can be, ranked by coverage;
//! - `budget`: the time limit of the whole discovery (reading included),
//!   and what it cut.
//!
//! A pattern converts into a `same_tid` execution model (`Pattern::to_model`).

mod budget;
mod collect;
mod distinct;
mod maximal;
mod mine;
mod pairs;
#[cfg(test)]
mod tests;

pub use budget::{Budget, Cut, Stop};
pub use collect::{Collector, Sequences};
pub use distinct::{distinct, turns, Distinct};
pub use mine::{mine, Mined, Params, Pattern, Supports, Threshold};
pub use pairs::{call_of, delimiter};

use super::model::{EventPattern, ExecutionModel, Mode, ThreadFilter};

impl Pattern {
    /// The pattern as a `same_tid` execution model on `threads`: each
    /// occurrence of the episode on one of those threads is an execution.
    /// A pattern read as a job delimited by a call (`delimiter`: from the
    /// call's return, the release, to its next entry) ends at that entry:
    /// what follows happens inside the call, while the thread sleeps, and
    /// is not the job's.
    pub fn to_model(&self, name: &str, threads: ThreadFilter) -> ExecutionModel {
        let events = match delimiter(&self.events) {
            Some(end) => &self.events[..=end],
            None => &self.events[..],
        };
        ExecutionModel {
            name: name.to_string(),
            description: Some(format!(
                "discovered by sextant discover: {} events, support {}{}",
                self.events.len(),
                self.support,
                if events.len() < self.events.len() {
                    format!(
                        "; the job, from {} to {} (the events after it happen inside the call)",
                        events[0],
                        events[events.len() - 1]
                    )
                } else {
                    String::new()
                }
            )),
            mode: Mode::SameTid {
                threads,
                events: events.iter().map(|e| EventPattern::named(e)).collect(),
                nested: None,
            },
            time_range: None,
            max_executions: None,
            deadline: None,
        }
    }
}
