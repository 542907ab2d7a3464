//! sextant-service: the transport-free core of the Trace Server Protocol:
//! requests in (path identifiers and JSON bodies), JSON models or
//! `ServiceError`s out. The transports (the protocol crate's `http` and
//! `rpc`) are thin layers over it, through the endpoint table
//! (`endpoints`); this crate depends on none of them, nor on a web or
//! JSON-RPC library, so the compiler keeps transports out.
//!
//! Modules, from the top: `server` (the `Service` and its trace and
//! experiment requests) and `requests` (the requests on outputs) use the
//! `registry`, the one list of outputs and configuration types; each output
//! is a `provider::Output` in `outputs/`, `executions/` or `explain/`; below
//! them, `traces` and `index` (what is open and its index), `configs`
//! (posted configurations), `stored` (posted models' executions kept in
//! the traces' stores), `cache`, `queries` (each request's parameters,
//! typed), `filters` (TSP's search and filter of time-graph states),
//! `params` and `reply`. No module imports one above it.

pub mod cache;
pub mod configs;
pub mod endpoints;
pub mod executions;
pub mod explain;
pub mod filters;
pub use sextant_engine::session::index;
pub mod outputs;
pub mod params;
pub mod provider;
pub mod queries;
pub mod registry;
pub mod reply;
mod requests;
pub mod server;
pub mod stored;
pub mod traces;

pub use params::{ErrorKind, Result, ServiceError};
pub use reply::Reply;
pub use server::{Config, Limits, Service};
pub use sextant_engine::run::Work;
pub use traces::IndexState;
