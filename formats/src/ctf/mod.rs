//! Common Trace Format reader (LTTng, perf `data convert --to-ctf`, any
//! CTF 1.8 or CTF 2 producer), written from the specifications.
//!
//! metadata (TSDL text, or CTF 2's JSON fragments through `json_metadata`)
//! → `layout` (decodable types, references resolved) →
//! `stream` (packets and events of one file) → `merge` (all streams of all
//! traces in time order).

mod ahead;
#[cfg(any(test, feature = "test-support"))]
pub mod crosscheck;
pub mod decode;
mod error;
mod flat;
mod frame;
mod header;
pub mod json_metadata;
pub mod layout;
mod merge;
pub mod metadata;
mod pages;
mod parallel;
mod stream;
#[cfg(any(test, feature = "test-support"))]
pub mod synth;
mod trace;
pub mod types;
pub mod writer;

pub use error::CtfError;
pub use merge::{CtfReader, Warnings};
pub use stream::{Damage, EventRef, PacketInfo, StreamFile};
pub use trace::{find_traces, open_traces, origin_of, CtfTrace};
