//! Recording traces: the kernel through tracefs, and hardware traces
//! (CoreSight STM, MIPI STPv2) decoded from a capture; both written as CTF
//! by `ctf::writer`.

pub mod stm;
pub mod tracefs;
