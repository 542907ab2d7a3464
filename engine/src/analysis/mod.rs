//! Analyses that run in the single pass over a trace.

pub mod btf;
pub mod discovery;
pub mod execution;
pub mod executions;
pub mod explain;
pub mod facilities;
pub mod intervals;
pub mod model;
pub mod spill;
pub mod states;
pub mod stats;
pub mod tasks;
pub mod thread_table;
mod underway;
