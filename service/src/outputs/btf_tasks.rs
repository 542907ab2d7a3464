//! BTF tasks and runnables (TIME_GRAPH): each task or ISR of a BTF trace in
//! its process state, each interval with its instance, and under it the
//! runnables it ran, running or suspended, each interval with the task
//! instance it ran in.

use sextant_engine::analysis::btf::lanes::TASK_STATES;

use super::btf_lanes::LaneGraph;

pub const BTF_TASKS: LaneGraph = LaneGraph {
    id: "sextant.btf.tasks",
    name: "BTF Tasks and Runnables",
    description: "BTF traces: each task's process state per instance, its runnables nested under it (running, suspended)",
    pick: |l| &l.tasks,
    states: &TASK_STATES,
    colours: &[
        "#a0a0ff", "#118811", "#c86400", "#c8c800", "#40c0c0", "#c080c0", "#b0b0b0",
    ],
    column: "Task / runnable",
    instances: true,
};
