//! One call of the endpoint table for a JSON-RPC transport: the service on a
//! blocking thread (sampling states or running a model must not stall the
//! transport's reader), its progress published in a shared per cent, and
//! cancellation by dropping the returned future (a `$/cancelRequest`, a
//! closed connection): the work sees its cancel flag and stops.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::endpoints::Endpoint;
use crate::service::{IndexState, Result, Service, Work};

/// Methods whose long work is indexing, which goes on in the background.
const OPEN_TRACE: &str = "tsp/traces/open";
const CREATE_EXPERIMENT: &str = "tsp/experiments/create";

/// How often a waiting request looks at the indexing.
const POLL: Duration = Duration::from_millis(50);

/// Per cent done of a running call, 0..=100, only ever growing.
pub type Percent = Arc<AtomicU8>;

/// Takes the LSP's `workDoneToken` out of the params: it is not part of the
/// HTTP body the endpoint reads.
pub fn take_token(params: &mut Value) -> Option<Value> {
    params.as_object_mut()?.remove("workDoneToken")
}

/// Whether the method starts work worth reporting progress on.
pub fn is_long(endpoint: &Endpoint) -> bool {
    matches!(
        endpoint.method,
        OPEN_TRACE | CREATE_EXPERIMENT | "tsp/outputs/create"
    )
}

/// Answers `endpoint` with `params` (the HTTP body and the identifiers).
pub async fn call(
    service: Arc<Service>,
    endpoint: &'static Endpoint,
    params: Value,
    percent: Percent,
) -> Result<Value> {
    crate::blocking::run(move |cancel| {
        let progress = move |p: u8| {
            percent.fetch_max(p.min(100), Ordering::Relaxed);
        };
        let work = Work {
            progress: &progress,
            cancel,
        };
        // The transports' frameworks want trees.
        endpoint
            .call_rpc(&service, Some(params), &work)?
            .into_value()
    })
    .await
}

/// For a client that asked for progress on opening a trace or creating an
/// experiment: waits until the indexing `result` started has ended,
/// reporting its per cent, and answers the trace or experiment as it is
/// then. Cancelling the wait leaves the indexing running: the trace is
/// shared with every other client.
pub async fn until_indexed(
    service: &Service,
    endpoint: &Endpoint,
    result: Value,
    percent: &AtomicU8,
) -> Result<Value> {
    let Some(uuid) = result["UUID"].as_str() else {
        return Ok(result);
    };
    loop {
        let traces = match endpoint.method {
            OPEN_TRACE => vec![service.trace_entry(uuid)?],
            CREATE_EXPERIMENT => service.experiment_entry(uuid)?.traces.clone(),
            _ => return Ok(result),
        };
        let running = traces
            .iter()
            .any(|t| matches!(t.state(), IndexState::Running));
        let done: u64 = traces
            .iter()
            .map(|t| match t.state() {
                IndexState::Running => t.live.percent(),
                _ => 100,
            })
            .sum();
        let p = done / traces.len().max(1) as u64;
        percent.fetch_max(p.min(100) as u8, Ordering::Relaxed);
        if !running {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    match endpoint.method {
        OPEN_TRACE => service.trace(uuid),
        _ => service.experiment(uuid),
    }
}
