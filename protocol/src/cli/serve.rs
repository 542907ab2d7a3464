//! `sextant serve`: the Trace Server Protocol over HTTP, JSON-RPC on stdio
//! (LSP framing) and JSON-RPC over WebSocket, any of them together in one
//! process sharing one service and one time-sync hub.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

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
