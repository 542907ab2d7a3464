//! sextant's protocol side: the command line and the transports of the TSP
//! service (HTTP, JSON-RPC on stdio and WebSocket) over `sextant-service`,
//! re-exported here as `service` and `endpoints`. A library as well as
//! the `sextant` binary, so that the fuzz targets (`protocol/fuzz`) reach
//! the framing, the JSON-RPC session and the request bodies.

pub mod blocking;
pub mod cli;
pub mod http;
pub mod rpc;
pub mod servers;
pub mod sync;

pub use sextant_service::{self as service, endpoints};
