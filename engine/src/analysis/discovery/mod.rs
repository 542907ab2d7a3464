//! Pattern discovery: which ordered events make up a thread's job.
//!
//! Frequent serial episodes are mined with MANEPI (Zhu et al., ICDM 2010):
//! episodes grow depth first from the frequent single events, each keeping
//! its minimal occurrences; an episode's support is the size of a largest set
//! of its minimal occurrences that do not overlap, and an episode below the
//! threshold is never grown. The seed's adaptations to traces are options
//! (`Params`): the threshold as a count or as the number of most frequent
//! event types admitted, chosen start events, a time limit (partial results).
//! An episode holds each event type at most once, and only maximal episodes
//! (no reported episode is a subsequence of another) are reported.
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
//! - `maximal`: keeping the maximal episodes, and ranking them;
//! - `distinct`: the few a person reads: rotations of one cyclic pattern
//!   merged, readings of a pattern across period boundaries folded into
//!   it, ranked by coverage.
//!
//! A pattern converts into a `same_tid` execution model (`Pattern::to_model`).

mod collect;
mod distinct;
mod maximal;
mod mine;
#[cfg(test)]
mod tests;

pub use collect::{Collector, Sequences};
pub use distinct::{distinct, turns, Distinct};
pub use mine::{mine, Mined, Params, Pattern, Threshold};

use super::model::{EventPattern, ExecutionModel, Mode, ThreadFilter};

impl Pattern {
    /// The pattern as a `same_tid` execution model on `threads`: each
    /// occurrence of the episode on one of those threads is an execution.
    pub fn to_model(&self, name: &str, threads: ThreadFilter) -> ExecutionModel {
        ExecutionModel {
            name: name.to_string(),
            description: Some(format!(
                "discovered by sextant discover: {} events, support {}",
                self.events.len(),
                self.support
            )),
            mode: Mode::SameTid {
                threads,
                events: self.events.iter().map(|e| EventPattern::named(e)).collect(),
                nested: None,
            },
            time_range: None,
            max_executions: None,
            deadline: None,
        }
    }
}
