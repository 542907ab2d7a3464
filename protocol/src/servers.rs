//! Serving: one service and one time-sync hub in a process, behind the
//! transports asked for — HTTP, JSON-RPC on stdio (LSP framing), JSON-RPC
//! over WebSocket — any of them together.

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

/// The server's budgets, as the command line sets them.
pub use crate::service::Limits;

/// Viewport answers the cache keeps unless told otherwise.
pub const DEFAULT_CACHE_ENTRIES: usize = crate::service::cache::DEFAULT_ENTRIES;

/// What to serve, and where.
pub struct Settings {
    /// HTTP port (0: any free one); HTTP runs on 8080 unless `stdio` is set
    /// without a port.
    pub port: Option<u16>,
    pub stdio: bool,
    /// WebSocket port.
    pub ws: Option<u16>,
    pub bind: IpAddr,
    /// Traces may be opened only under these directories (canonical).
    pub allowed_roots: Vec<PathBuf>,
    /// Viewport answers kept in the cache (0: no cache).
    pub cache_entries: usize,
    /// Web origins whose pages may call the HTTP and WebSocket servers.
    pub cors_origins: Vec<String>,
    pub limits: Limits,
    /// Where traces' indexes are stored (`None`: not stored).
    pub store: Option<sextant_engine::store::Places>,
}

pub fn run(req: Settings) -> anyhow::Result<()> {
    let service = Arc::new(Service::new(Config {
        allowed_roots: req.allowed_roots.clone(),
        cache_entries: Some(req.cache_entries),
        limits: req.limits,
        store: req.store.clone(),
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
        // After the addresses, which clients read first.
        match &req.store {
            Some(places) => eprintln!("sextant: {places}"),
            None => eprintln!("sextant: nothing stored (--no-store)"),
        }
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
                finish(&shared.hub, http, ws).await;
            }
            std::process::exit(ended.exit_code());
        }
        finish(&shared.hub, http, ws).await;
        Ok(())
    })
}

/// Binds `bind`:`port`; the socket and its guard.
async fn listen(req: &Settings, port: u16) -> anyhow::Result<(TcpListener, Guard)> {
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

/// Waits until the servers end by themselves (an error) or the hub is
/// closed (a signal, the end of the stdio session); then gives them at most
/// `DRAIN` to finish their requests in flight. The drain is counted from the
/// stop, never from the start: a server runs for as long as nobody stops it.
async fn finish(
    hub: &Hub,
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
    tokio::pin!(all);
    tokio::select! {
        () = &mut all => return,
        () = hub.closed() => {}
    }
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
