//! `sextant serve`: the Trace Server Protocol over HTTP.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::service::{Config, Service};

#[derive(clap::Args)]
pub struct Request {
    /// TCP port; 0 picks a free one (the address is printed at startup).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async move {
        let addr = SocketAddr::new(req.bind, req.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("listening on {addr}"))?;
        let local = listener.local_addr()?;
        eprintln!("sextant: listening on http://{local}/tsp/api");
        crate::http::serve(listener, service)
            .await
            .context("serving HTTP")
    })
}
