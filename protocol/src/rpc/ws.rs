//! `sextant serve --ws PORT`: the same methods as stdio over WebSocket
//! (jsonrpsee), each row of the endpoint table registered as an async
//! method, plus the sync methods and a subscription to the other clients'
//! sync changes. A closed connection drops its running calls, which stops
//! their work (see `dispatch`).

use std::net::SocketAddr;
use std::sync::Arc;

use jsonrpsee::server::{ConnectionId, Server, ServerConfig, ServerHandle};
use jsonrpsee::types::{ErrorObject, ErrorObjectOwned, Params};
use jsonrpsee::{Extensions, RpcModule, SubscriptionMessage};
use serde_json::{json, Value};

use super::dispatch::{self, Percent};
use super::{errors, Shared};
use crate::endpoints::ENDPOINTS;
use crate::service::ServiceError;
use crate::sync::{ClientId, Kind, GET_SELECTION, SELECTION_CHANGED, WINDOW_CHANGED};

pub const SUBSCRIBE_SYNC: &str = "sextant/subscribeSync";
pub const UNSUBSCRIBE_SYNC: &str = "sextant/unsubscribeSync";
/// The subscription's notifications: `result` is `{method, params}`, the
/// notification stdio would have sent.
pub const SYNC_NOTIFICATION: &str = "sextant/sync";

/// Largest request accepted: the same as an HTTP body.
const MAX_REQUEST: u32 = crate::http::BODY_LIMIT as u32;

fn rpc_error(e: &ServiceError) -> ErrorObjectOwned {
    let (code, message, data) = errors::parts(e);
    ErrorObject::owned(code as i32, message, Some(data))
}

/// The connection as a client of the sync hub.
fn client_of(ext: &Extensions) -> ClientId {
    ClientId {
        transport: "ws",
        n: ext.get::<ConnectionId>().map_or(0, |c| c.0 as u64),
    }
}

/// The params as JSON (absent params are null: an empty body).
fn params_of(p: &Params) -> Value {
    p.as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or(Value::Null)
}

fn module(shared: Arc<Shared>) -> anyhow::Result<RpcModule<Arc<Shared>>> {
    let mut m = RpcModule::new(shared);
    for e in ENDPOINTS {
        m.register_async_method(e.method, move |params, ctx, _| async move {
            let mut p = params_of(&params);
            // Progress is stdio's; the token is not part of the body.
            dispatch::take_token(&mut p);
            dispatch::call(ctx.service.clone(), e, p, Percent::default())
                .await
                .map_err(|x| rpc_error(&x))
        })?;
    }
    for (method, kind) in [
        (SELECTION_CHANGED, Kind::Selection),
        (WINDOW_CHANGED, Kind::Window),
    ] {
        m.register_method(method, move |params, ctx, ext| {
            ctx.hub
                .publish(client_of(ext), kind, &params_of(&params))
                .map(|()| Value::Null)
                .map_err(|x| rpc_error(&x))
        })?;
    }
    m.register_method(GET_SELECTION, |params, ctx, _| {
        ctx.hub
            .current(&params_of(&params))
            .map_err(|x| rpc_error(&x))
    })?;
    m.register_subscription(
        SUBSCRIBE_SYNC,
        SYNC_NOTIFICATION,
        UNSUBSCRIBE_SYNC,
        |_, pending, ctx, ext| async move {
            let mut changes = ctx.hub.subscribe(client_of(&ext));
            let sink = pending.accept().await?;
            loop {
                tokio::select! {
                    c = changes.next() => {
                        let Some(c) = c else { break };
                        let v = json!({"method": c.kind.method(), "params": c.params});
                        let msg = SubscriptionMessage::from(serde_json::value::to_raw_value(&v)?);
                        sink.send(msg).await?;
                    }
                    _ = sink.closed() => break,
                }
            }
            Ok(())
        },
    )?;
    Ok(m)
}

/// Starts serving on `addr`, in the background until the handle is stopped.
pub async fn start(
    shared: Arc<Shared>,
    addr: SocketAddr,
) -> anyhow::Result<(SocketAddr, ServerHandle)> {
    let config = ServerConfig::builder()
        .ws_only()
        .max_request_body_size(MAX_REQUEST)
        .build();
    let server = Server::builder().set_config(config).build(addr).await?;
    let local = server.local_addr()?;
    Ok((local, server.start(module(shared)?)))
}
