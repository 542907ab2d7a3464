//! `sextant serve --ws PORT`: the stdio session (`session`) over WebSocket,
//! one session per connection, each text (or binary) message one JSON-RPC
//! message. The same guard as HTTP (`crate::http::guard`) refuses foreign
//! `Host` and `Origin` headers before the upgrade. A closed connection ends
//! its session, which drops its running requests and so stops their work.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::routing::any;
use axum::Router;
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use super::frames::Frame;
use super::session::{self, Transport};
use super::Shared;
use crate::http::guard::Guard;

/// Largest message accepted: the same as an HTTP body.
const MAX_MESSAGE: usize = crate::http::BODY_LIMIT;

async fn upgrade(State(shared): State<Arc<Shared>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(MAX_MESSAGE)
        .on_upgrade(move |socket| connection(shared, socket))
}

async fn connection(shared: Arc<Shared>, socket: WebSocket) {
    let (mut tx, rx) = socket.split();
    let (out, mut out_rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        while let Some(m) = out_rx.recv().await {
            if tx.send(Message::Text(m.into())).await.is_err() {
                return;
            }
        }
        let _ = tx.close().await;
    });
    // Data messages are frames; pings are answered by axum; a read error
    // ends the connection like a close.
    let frames = rx
        .take_while(|m| std::future::ready(m.is_ok()))
        .filter_map(|m| {
            std::future::ready(match m {
                Ok(Message::Text(t)) => Some(Ok(Frame::Message(t.as_str().as_bytes().to_vec()))),
                Ok(Message::Binary(b)) => Some(Ok(Frame::Message(b.to_vec()))),
                _ => None,
            })
        });
    let ended = session::run(shared, Transport::WebSocket, Box::pin(frames), out).await;
    if let Err(e) = ended {
        eprintln!("sextant: WebSocket session: {e}");
    }
    // The session's sender is gone: the writer sends what is queued, then
    // closes the connection.
    let _ = writer.await;
}

/// The WebSocket server's routes: any path upgrades, behind `guard`.
pub fn router(shared: Arc<Shared>, guard: Guard) -> Router {
    Router::new()
        .route("/", any(upgrade))
        .route("/{*path}", any(upgrade))
        .with_state(shared)
        .layer(axum::middleware::from_fn_with_state(
            guard,
            crate::http::guard::check,
        ))
}
