//! The outputs every experiment has, one module each, and how they draw.

pub mod draw;
pub mod event_types;
pub mod events;
pub mod histogram;
pub mod thread_status;
