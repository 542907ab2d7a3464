//! sextant-engine: the kernel model, the pass, the analyses, the store and
//! the front door (`session`), over the readers of `sextant-formats`, whose
//! modules it re-exports so that `sextant_engine::ctf` and the like stay one
//! path for every front end.
//!
//! See ARCHITECTURE.md at the repository root for the layers and invariants.

pub mod analysis;
pub mod duration;
pub mod export;
pub mod jsonl;
pub mod kernel;
pub mod run;
pub mod session;
pub mod store;
pub mod sync;

pub use sextant_formats::{
    btf, capture, ctf, event, ftrace, hosts, mapped, reader, tracedat, value,
};
