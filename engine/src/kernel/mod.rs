//! The kernel model and the single pass that builds it: the canonical
//! vocabulary (`vocabulary`), payloads under canonical names (`fields`), the
//! per-CPU / per-thread state machine (`model`) and the pass (`pass`).

pub mod checkpoint;
pub mod fields;
pub mod model;
pub mod pass;
pub mod priority;
pub mod vocabulary;
