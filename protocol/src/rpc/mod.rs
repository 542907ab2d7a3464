//! The JSON-RPC transports: stdio with LSP framing (`stdio`, for the Trace
//! Compass plugin) and WebSocket (`ws`), both running the same `session`.
//! It answers every row of the endpoint table (`crate::endpoints`) through
//! `dispatch` and the sync methods through the hub (`crate::sync`); the
//! params are the HTTP body with the route's identifiers, the result is the
//! HTTP response body.

pub mod dispatch;
pub mod errors;
pub mod frames;
mod parent;
pub mod progress;
pub mod session;
pub mod stdio;
pub mod ws;

use std::sync::Arc;

use serde_json::{json, Value};

use crate::endpoints::{by_method, ENDPOINTS};
use crate::service::Service;
use crate::sync::{Hub, GET_SELECTION, SELECTION_CHANGED, WINDOW_CHANGED};

/// The TSP version the methods follow.
pub const PROTOCOL_VERSION: &str = "0.6.0";

/// The output types (`OutputDescriptor.type`) this server produces.
pub const OUTPUT_TYPES: [&str; 5] = ["TIME_GRAPH", "TREE_TIME_XY", "GANTT_CHART", "TABLE", "NONE"];

/// What every transport of one process shares: one service, one sync hub.
pub struct Shared {
    pub service: Arc<Service>,
    pub hub: Arc<Hub>,
}

const SYNC_METHODS: [&str; 3] = [SELECTION_CHANGED, WINDOW_CHANGED, GET_SELECTION];

/// Every method a client may call or send: the endpoint table, then sync.
pub fn method_names() -> Vec<&'static str> {
    ENDPOINTS
        .iter()
        .map(|e| e.method)
        .chain(SYNC_METHODS)
        .collect()
}

/// Whether `method` is one of ours (not LSP's), whose absent params are
/// an empty body.
pub fn is_ours(method: &str) -> bool {
    by_method(method).is_some()
        || SYNC_METHODS.contains(&method)
        || [session::SUBSCRIBE_SYNC, session::UNSUBSCRIBE_SYNC].contains(&method)
}

/// `capabilities.experimental` of the `initialize` result.
pub fn experimental_capabilities(service: &Service) -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "methods": method_names(),
        "outputTypes": OUTPUT_TYPES,
        "configTypes": service.config_types(),
    })
}
