//! The outputs every experiment has, one module each, and how they draw.

pub mod btf_events;
pub mod btf_lanes;
pub mod btf_semaphores;
pub mod btf_signals;
pub mod btf_tasks;
pub mod draw;
pub mod event_types;
pub mod events;
pub mod histogram;
pub mod tasks;
pub mod thread_status;
pub mod thread_tree;
