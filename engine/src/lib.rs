//! sextant-engine: trace readers, the kernel model and the analyses.
//!
//! See ARCHITECTURE.md at the repository root for the layers and invariants.

pub mod analysis;
pub mod btf;
pub mod capture;
pub mod ctf;
pub mod duration;
pub mod event;
pub mod export;
pub mod ftrace;
pub mod hosts;
pub mod jsonl;
pub mod kernel;
pub mod mapped;
pub mod reader;
pub mod run;
pub mod session;
pub mod store;
pub mod sync;
pub mod tracedat;
pub mod value;
