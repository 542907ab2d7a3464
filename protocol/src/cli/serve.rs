//! `sextant serve`: the Trace Server Protocol over HTTP, JSON-RPC on stdio
//! (LSP framing) and JSON-RPC over WebSocket, any of them together in one
//! process sharing one service and one time-sync hub.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::http::guard::Guard;
use crate::rpc::session::{Ended, DRAIN};
use crate::rpc::Shared;
use crate::service::{Config, Service};
use crate::sync::Hub;

#[derive(clap::Args)]
pub struct Request {
    /// HTTP port; 0 picks a free one (the address is printed at startup).
    /// HTTP runs on 8080 unless --stdio is given without --port.
    #[arg(long)]
    pub port: Option<u16>,
    /// JSON-RPC with LSP framing on stdin/stdout (logs on stderr); the
    /// process ends with the session.
    #[arg(long)]
    pub stdio: bool,
    /// JSON-RPC over WebSocket on this port (0 picks a free one).
    #[arg(long, value_name = "PORT")]
    pub ws: Option<u16>,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// A directory whose traces clients may open (repeatable); the working
    /// directory always is one.
    #[arg(long = "allow-root", value_name = "DIR")]
    pub allow_roots: Vec<PathBuf>,
    /// Viewport answers (time-graph states, XY) kept in the LRU cache; 0
    /// turns caching off.
    #[arg(long, value_name = "N", default_value_t = crate::service::cache::DEFAULT_ENTRIES)]
    pub cache_entries: usize,
    /// A web origin (`http://localhost:3000`) whose pages may call the HTTP
    /// and WebSocket servers (repeatable). Requests from any other page are
    /// refused; none is allowed by default.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let mut roots = vec![std::env::current_dir().context("finding the working directory")?];
    for r in &req.allow_roots {
        roots.push(
            r.canonicalize()
                .with_context(|| format!("--allow-root {}", r.display()))?,
        );
    }
    let service = Arc::new(Service::new(Config {
        allowed_roots: roots,
        cache_entries: Some(req.cache_entries),
    }));
    let shared = Arc::new(Shared {
        service,
        hub: Arc::new(Hub::default()),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async move {
        let http_port = match (req.port, req.stdio) {
            (Some(p), _) => Some(p),
            (None, false) => Some(8080),
            (None, true) => None,
        };
        let http = match http_port {
            Some(port) => {
                let (listener, guard) = listen(&req, port).await?;
                eprintln!(
                    "sextant: listening on http://{}/tsp/api",
                    listener.local_addr()?
                );
                Some(tokio::spawn(crate::http::serve(
                    listener,
                    shared.service.clone(),
                    shared.hub.clone(),
                    guard,
                    shared.hub.closed(),
                )))
            }
            None => None,
        };
        let ws = match req.ws {
            Some(port) => {
                let (listener, guard) = listen(&req, port)
                    .await
                    .with_context(|| format!("WebSocket on port {port}"))?;
                eprintln!(
                    "sextant: WebSocket JSON-RPC on ws://{}",
                    listener.local_addr()?
                );
                let app = crate::rpc::ws::router(shared.clone(), guard);
                let stop = shared.hub.closed();
                Some(tokio::spawn(async move {
                    axum::serve(listener, app)
                        .with_graceful_shutdown(stop)
                        .await
                }))
            }
            None => None,
        };
        // SIGTERM or Ctrl-C stops every transport: nothing new is taken,
        // what is in flight finishes.
        let hub = shared.hub.clone();
        tokio::spawn(async move {
            signal().await;
            eprintln!("sextant: stopping: finishing the requests in flight");
            hub.close();
        });
        if req.stdio {
            let ended =
                crate::rpc::stdio::serve(shared.clone(), tokio::io::stdin(), tokio::io::stdout())
                    .await
                    .context("serving stdio")?;
            // The sidecar lives as long as its parent's session: the other
            // transports and any indexing still running end with it.
            shared.hub.close();
            if ended == Ended::Stopped {
                finish(http, ws).await;
            }
            std::process::exit(ended.exit_code());
        }
        finish(http, ws).await;
        Ok(())
    })
}

/// Binds `--bind`:`port`; the socket and its guard.
async fn listen(req: &Request, port: u16) -> anyhow::Result<(TcpListener, Guard)> {
    let addr = SocketAddr::new(req.bind, port);
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let local = listener.local_addr()?;
    Ok((
        listener,
        Guard::new(req.bind, local.port(), &req.cors_origins),
    ))
}

/// Waits for the servers to finish their requests in flight, at most
/// `DRAIN` (they stop once the hub is closed).
async fn finish(
    http: Option<JoinHandle<std::io::Result<()>>>,
    ws: Option<JoinHandle<std::io::Result<()>>>,
) {
    let all = async {
        for (what, h) in [("HTTP", http), ("WebSocket", ws)] {
            if let Some(Ok(Err(e))) = match h {
                Some(h) => Some(h.await),
                None => None,
            } {
                eprintln!("sextant: {what} server: {e}");
            }
        }
    };
    if tokio::time::timeout(DRAIN, all).await.is_err() {
        eprintln!("sextant: requests still running after {DRAIN:?}: stopped");
    }
}

async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
