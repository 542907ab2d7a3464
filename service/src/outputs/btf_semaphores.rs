//! BTF semaphores (TIME_GRAPH): each semaphore of a BTF trace in its state
//! (free, used, full, overfull), and under it each process that used it:
//! requesting it, waiting for it, or assigned it (holding it).

use sextant_engine::analysis::btf::lanes::SEMAPHORE_STATES;

use super::btf_lanes::LaneGraph;

pub const BTF_SEMAPHORES: LaneGraph = LaneGraph {
    id: "sextant.btf.semaphores",
    name: "BTF Semaphores",
    description: "BTF traces: each semaphore's state (free, used, full, overfull), and per process its requests, waits and assignments",
    pick: |l| &l.semaphores,
    states: &SEMAPHORE_STATES,
    colours: &[
        "#118811", "#88c040", "#c86400", "#c00000", "#a0a0ff", "#c8c800", "#4060c0",
    ],
    column: "Semaphore / process",
    instances: false,
};
