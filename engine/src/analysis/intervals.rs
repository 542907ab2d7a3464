//! A thread's state intervals and its rows: what the index pass records,
//! spills and stores (`states`, `spill`, `thread_table` all read them).

use crate::kernel::model::ThreadState;

/// A thread in one state from `start` to `end` (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: i64,
    pub end: i64,
    pub state: ThreadState,
}

/// One thread's life in the trace (a TID reused after `sched_process_free`
/// gets a new row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRow {
    pub tid: i64,
    pub pid: Option<i64>,
    pub comm: String,
    pub start: i64,
    pub end: i64,
    /// In time order, contiguous except where the state was unknown.
    pub intervals: Vec<Interval>,
}
