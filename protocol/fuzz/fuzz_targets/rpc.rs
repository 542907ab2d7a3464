//! A JSON-RPC session from the input: LSP framing, JSON, the message's
//! shape, the life cycle and every method's params, as `sextant serve
//! --stdio` reads them from its client. Any input must end with every
//! request answered or dropped, quickly; never a panic.
//!
//! Once the input is read, the server is told to stop, so that the session
//! finishes the requests it took (as on SIGTERM) instead of dropping them
//! unrun: their params are checked and their service calls made.

#![no_main]

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use libfuzzer_sys::fuzz_target;
use sextant_protocol::rpc::{stdio, Shared};
use sextant_protocol::service::{Config, Service};
use sextant_protocol::sync::Hub;
use tokio::io::{AsyncRead, ReadBuf};

/// An empty directory: the only one traces may be opened from.
fn root() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("sextant-fuzz-rpc-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("creating the root");
        d
    })
}

/// The input, then no end: the hub is closed instead, which stops the
/// session after it answered what it read.
struct ThenStop {
    data: Vec<u8>,
    at: usize,
    hub: Arc<Hub>,
}

impl AsyncRead for ThenStop {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let rest = &self.data[self.at..];
        if rest.is_empty() {
            self.hub.close();
            return Poll::Pending;
        }
        // Small reads, so that frames also arrive in pieces.
        let n = rest.len().min(buf.remaining()).min(997);
        buf.put_slice(&rest[..n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

fuzz_target!(|data: &[u8]| {
    let shared = Arc::new(Shared {
        service: Arc::new(Service::new(Config {
            allowed_roots: vec![root().clone()],
            cache_entries: Some(4),
            ..Config::default()
        })),
        hub: Arc::new(Hub::default()),
    });
    let input = ThenStop {
        data: data.to_vec(),
        at: 0,
        hub: shared.hub.clone(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _ = rt.block_on(stdio::serve(shared, input, tokio::io::sink()));
});
