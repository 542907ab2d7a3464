//! Analyses of BTF traces that have no kernel counterpart: the lanes of the
//! BTF outputs (tasks, runnables, semaphores, OS events, signals) and the
//! `task-instance` preset's instances. The BTF reader (`crate::btf`) only
//! reads; what is computed from its rows lives here.

pub mod instances;
pub mod lanes;

#[cfg(test)]
mod tests;
