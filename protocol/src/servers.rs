//! Serving: one service and one time-sync hub in a process, behind the
//! transports asked for — HTTP, JSON-RPC on stdio (LSP framing), JSON-RPC
//! over WebSocket — any of them together.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::rpc::Shared;
use crate::service::{Config, Service};
use crate::sync::Hub;

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
    /// Where traces' indexes are stored (`None`: not stored).
    pub store: Option<sextant_engine::store::Places>,
}

pub fn run(req: Settings) -> anyhow::Result<()> {
    let service = Arc::new(Service::new(Config {
        allowed_roots: req.allowed_roots,
        cache_entries: Some(req.cache_entries),
        store: req.store,
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
                let addr = SocketAddr::new(req.bind, port);
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("listening on {addr}"))?;
                let local = listener.local_addr()?;
                eprintln!("sextant: listening on http://{local}/tsp/api");
                Some(tokio::spawn(crate::http::serve(
                    listener,
                    shared.service.clone(),
                    shared.hub.clone(),
                )))
            }
            None => None,
        };
        let _ws = match req.ws {
            Some(port) => {
                let (addr, handle) =
                    crate::rpc::ws::start(shared.clone(), SocketAddr::new(req.bind, port))
                        .await
                        .with_context(|| format!("WebSocket on port {port}"))?;
                eprintln!("sextant: WebSocket JSON-RPC on ws://{addr}");
                Some(handle)
            }
            None => None,
        };
        if req.stdio {
            let ended =
                crate::rpc::stdio::serve(shared.clone(), tokio::io::stdin(), tokio::io::stdout())
                    .await
                    .context("serving stdio")?;
            // The sidecar lives as long as its parent's session: the other
            // transports and any indexing still running end with it.
            shared.hub.close();
            std::process::exit(ended.exit_code());
        }
        match http {
            Some(h) => h.await.context("the HTTP server")?.context("serving HTTP"),
            // Only with --stdio, which ended above.
            None => Ok(()),
        }
    })
}
