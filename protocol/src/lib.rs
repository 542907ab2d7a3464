//! sextant's protocol side: the command line, the TSP service core and its
//! transports (HTTP, JSON-RPC on stdio and WebSocket). A library as well as
//! the `sextant` binary, so that the fuzz targets (`protocol/fuzz`) reach
//! the framing, the JSON-RPC session and the request bodies.

pub mod blocking;
pub mod cli;
pub mod endpoints;
pub mod http;
pub mod rpc;
pub mod servers;
pub mod service;
pub mod sync;
