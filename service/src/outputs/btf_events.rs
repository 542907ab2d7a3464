//! BTF OS events (TIME_GRAPH): each OS event of a BTF trace, set while it is
//! set for some process, and under it each process that waited for it or
//! had it set (from `set_event` until its `clear_event`).

use sextant_engine::analysis::btf::lanes::EVENT_STATES;

use super::btf_lanes::LaneGraph;

pub const BTF_EVENTS: LaneGraph = LaneGraph {
    id: "sextant.btf.os-events",
    name: "BTF OS Events",
    description: "BTF traces: each OS event, set or waited for, per process (set_event, wait_event, clear_event)",
    pick: |l| &l.events,
    states: &EVENT_STATES,
    colours: &["#118811", "#c8c800"],
    column: "OS event / process",
    instances: false,
};
