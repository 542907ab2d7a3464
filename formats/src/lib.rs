//! sextant-formats: every trace format sextant reads (CTF 1.8 and 2, ftrace
//! text, trace-cmd's trace.dat, BTF), the CTF writer and capture, each an
//! `event::EventSource`.
//!
//! Below the engine: nothing here knows the kernel model, a pass, an
//! analysis or the store, and the crate graph holds it (this crate depends
//! on no crate of the workspace). See ARCHITECTURE.md.

pub mod btf;
pub mod capture;
pub mod ctf;
pub mod event;
pub mod ftrace;
pub mod hosts;
pub mod mapped;
pub mod reader;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
pub mod tracedat;
pub mod value;
