//! `sextant serve`: the Trace Server Protocol over HTTP, JSON-RPC on stdio
//! (LSP framing) and JSON-RPC over WebSocket, any of them together in one
//! process sharing one service and one time-sync hub.

use std::net::IpAddr;
use std::path::PathBuf;

use anyhow::Context;

use super::placement::StoreArgs;
use crate::servers::{self, Limits, Settings};

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
    #[arg(long, value_name = "N", default_value_t = servers::DEFAULT_CACHE_ENTRIES)]
    pub cache_entries: usize,
    /// A web origin (`http://localhost:3000`) whose pages may call the HTTP
    /// and WebSocket servers (repeatable). Requests from any other page are
    /// refused; none is allowed by default.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
    /// Traces open at once; past it, opening one answers 503 (Retry-After).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_traces)]
    pub max_traces: usize,
    /// Traces indexed at once (a core each); past it, opening one answers
    /// 503 (Retry-After) until one is done.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_indexing)]
    pub max_indexing: usize,
    /// Where each trace's index and posted models' executions are stored.
    #[command(flatten)]
    pub store: StoreArgs,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let mut roots = vec![std::env::current_dir().context("finding the working directory")?];
    for r in &req.allow_roots {
        roots.push(
            r.canonicalize()
                .with_context(|| format!("--allow-root {}", r.display()))?,
        );
    }
    let store = req.store.places();
    servers::run(Settings {
        port: req.port,
        stdio: req.stdio,
        ws: req.ws,
        bind: req.bind,
        allowed_roots: roots,
        cache_entries: req.cache_entries,
        cors_origins: req.cors_origins,
        limits: Limits {
            max_traces: req.max_traces,
            max_indexing: req.max_indexing,
        },
        store,
    })
}
