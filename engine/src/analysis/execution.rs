//! One execution as found: its span, how its time was spent, on which
//! thread and CPUs, and what is nested in it. Its own module so that the
//! matchers (`executions`, `btf::instances`) share it without importing
//! each other.

use serde::Serialize;

/// One execution found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Execution {
    /// Position in start order, from 0: a stable name for the execution.
    pub index: usize,
    pub start: i64,
    pub end: i64,
    pub duration: i64,
    pub running: i64,
    pub preempted: i64,
    pub blocked: i64,
    /// Waiting for a CPU after a wakeup.
    pub waiting: i64,
    pub start_tid: i64,
    pub end_tid: i64,
    pub start_comm: String,
    pub end_comm: String,
    /// The thread the times are measured on.
    pub tid: i64,
    /// CPUs the measured thread ran on during the execution.
    pub cpus: Vec<u32>,
    /// Kernel-order priority (smaller is higher) of the measured thread: the
    /// last known during the execution (a new thread first shows its
    /// creator's priority, then its own once it runs).
    pub prio: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_miss: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nested: Vec<Execution>,
    /// A BTF task or runnable instance: its process-state times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btf: Option<InstanceTimes>,
}

/// Time (ns) in each BTF process state, and where the instance ran.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct InstanceTimes {
    /// The task, ISR or runnable, as the trace names it.
    pub entity: String,
    /// Its instance number (the trace's instance counter).
    pub instance: i64,
    pub active: i64,
    pub ready: i64,
    pub running: i64,
    pub polling: i64,
    pub waiting: i64,
    pub parking: i64,
    /// Times it resumed on another core than the one it left.
    pub migrations: u32,
}

/// A CPU's bit in an execution's CPU set (CPUs past 63 are not tracked).
pub(crate) fn cpu_bit(cpu: u32) -> u64 {
    if cpu < 64 {
        1 << cpu
    } else {
        0
    }
}
