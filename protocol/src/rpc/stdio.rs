//! `sextant serve --stdio`: JSON-RPC 2.0 with LSP framing on stdin/stdout,
//! for an IDE plugin that runs sextant as a child process the way an editor
//! runs a language server.
//!
//! tower-lsp-server provides the life cycle (`initialize` → `shutdown` →
//! `exit`, InvalidRequest after shutdown), the method router and
//! `$/cancelRequest`. The I/O loop is ours: our framing survives a
//! malformed frame (tower-lsp-server's ends the session), initialize is
//! answered before the next message is read, the exit code follows LSP
//! (1 when `exit` comes without `shutdown`), and the end of stdin ends the
//! session.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Semaphore};
use tower::{Service as _, ServiceExt as _};
use tower_lsp_server::jsonrpc::{self, ErrorCode, Request, Response};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{
    InitializeParams, InitializeResult, ServerCapabilities, ServerInfo,
};
use tower_lsp_server::{Client, LanguageServer, LspService};

use super::dispatch::{self, Percent};
use super::errors::{self, INVALID_REQUEST, PARSE_ERROR};
use super::frames::{encode, Frame, FrameReader};
use super::{experimental_capabilities, is_ours, progress, Shared};
use crate::endpoints::{Endpoint, ENDPOINTS};
use crate::service::ServiceError;
use crate::sync::{ClientId, Kind, GET_SELECTION, SELECTION_CHANGED, WINDOW_CHANGED};

/// Requests worked on at once; more wait (notifications never do, so a
/// `$/cancelRequest` always gets through).
const CONCURRENT_REQUESTS: usize = 16;
/// How long queued messages may take to reach stdout once the session ends.
const FLUSH: Duration = Duration::from_millis(500);

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The `exit` notification, after a `shutdown` request or not.
    Exit { after_shutdown: bool },
    /// The client closed stdin.
    EndOfInput,
}

impl Ended {
    /// The process's exit code, as LSP says: 1 for `exit` without `shutdown`.
    pub fn exit_code(self) -> i32 {
        match self {
            Ended::Exit {
                after_shutdown: false,
            } => 1,
            _ => 0,
        }
    }
}

enum SelectionNote {}
impl Notification for SelectionNote {
    type Params = Value;
    const METHOD: &'static str = SELECTION_CHANGED;
}

enum WindowNote {}
impl Notification for WindowNote {
    type Params = Value;
    const METHOD: &'static str = WINDOW_CHANGED;
}

struct Backend {
    client: Client,
    shared: Arc<Shared>,
    /// This session as a client of the sync hub.
    me: ClientId,
    initialized: AtomicBool,
}

fn rpc_error(e: &ServiceError) -> jsonrpc::Error {
    let (code, message, data) = errors::parts(e);
    jsonrpc::Error {
        code: ErrorCode::from(code),
        message: message.into(),
        data: Some(data),
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        let roots = params
            .initialization_options
            .as_ref()
            .and_then(|o| o.get("traceRoots"))
            .filter(|r| !r.is_null());
        if let Some(roots) = roots {
            let Some(roots) = roots.as_array() else {
                return Err(jsonrpc::Error::invalid_params(
                    "initializationOptions.traceRoots: expected an array of directories",
                ));
            };
            for r in roots {
                let Some(dir) = r.as_str() else {
                    return Err(jsonrpc::Error::invalid_params(
                        "initializationOptions.traceRoots: expected strings",
                    ));
                };
                let dir = dir.strip_prefix("file://").unwrap_or(dir);
                self.shared
                    .service
                    .allow_root(std::path::Path::new(dir))
                    .map_err(|e| rpc_error(&e))?;
            }
        }
        if let Some(c) = &params.client_info {
            eprintln!(
                "sextant: stdio client {} {}",
                c.name,
                c.version.as_deref().unwrap_or("")
            );
        }
        self.initialized.store(true, Ordering::Relaxed);
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                experimental: Some(experimental_capabilities(&self.shared.service)),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "sextant".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        Ok(())
    }
}

fn title(endpoint: &Endpoint) -> &'static str {
    match endpoint.method {
        "tsp/traces/open" => "Indexing the trace",
        "tsp/experiments/create" => "Indexing the experiment",
        _ => "Finding the executions",
    }
}

impl Backend {
    /// One row of the endpoint table. The future owns what it uses, so that
    /// the router can run it after this borrow ends.
    fn endpoint(
        &self,
        endpoint: &'static Endpoint,
        mut params: Value,
    ) -> BoxFuture<'static, jsonrpc::Result<Value>> {
        let service = self.shared.service.clone();
        let client = self.client.clone();
        async move {
            let token = dispatch::take_token(&mut params).filter(|_| dispatch::is_long(endpoint));
            let percent = Percent::default();
            let work = async {
                let r = dispatch::call(service.clone(), endpoint, params, percent.clone()).await?;
                if token.is_some() {
                    dispatch::until_indexed(&service, endpoint, r, &percent).await
                } else {
                    Ok(r)
                }
            };
            let r = match token.clone() {
                Some(t) => {
                    progress::reported(&client, t, title(endpoint), percent.clone(), work).await
                }
                None => work.await,
            };
            r.map_err(|e| rpc_error(&e))
        }
        .boxed()
    }

    fn publish(&self, kind: Kind, params: Value) -> std::future::Ready<()> {
        if let Err(e) = self.shared.hub.publish(self.me, kind, &params) {
            // A notification has no answer: the mistake is logged.
            eprintln!("sextant: {}: {e}", kind.method());
        }
        std::future::ready(())
    }
}

/// A message the loop cannot hand to the router, answered here.
fn error(id: Value, code: i64, message: &str, detail: String) -> Vec<u8> {
    encode(&json!({"jsonrpc": "2.0", "id": id,
        "error": {"code": code, "message": message, "data": detail}}))
}

enum Incoming {
    Request(Request),
    Response(Response),
    /// Not a JSON-RPC message: its id when it has a usable one, and why.
    Invalid(Value, String),
}

fn classify(mut v: Value) -> Incoming {
    let Some(o) = v.as_object_mut() else {
        return Incoming::Invalid(
            Value::Null,
            "a message must be a JSON object (batches are not part of LSP)".into(),
        );
    };
    let id = match o.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if let Some(Value::String(method)) = o.get("method") {
        // Our methods take absent params as an empty body; the router
        // would refuse them.
        if !o.contains_key("params") && is_ours(method) {
            o.insert("params".into(), Value::Null);
        }
        return match serde_json::from_value(v) {
            Ok(r) => Incoming::Request(r),
            Err(e) => Incoming::Invalid(id, format!("not a JSON-RPC 2.0 request: {e}")),
        };
    }
    if o.contains_key("result") || o.contains_key("error") {
        return match serde_json::from_value(v) {
            Ok(r) => Incoming::Response(r),
            Err(e) => Incoming::Invalid(id, format!("not a JSON-RPC 2.0 response: {e}")),
        };
    }
    Incoming::Invalid(id, "neither a request nor a response".into())
}

async fn write_out<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
) -> std::io::Result<()> {
    let mut batch = Vec::new();
    while rx.recv_many(&mut batch, 256).await > 0 {
        for m in batch.drain(..) {
            out.write_all(&m).await?;
        }
        out.flush().await?;
    }
    Ok(())
}

/// Runs one session over `input`/`output` until `exit` or the end of input.
pub async fn serve<R, W>(shared: Arc<Shared>, input: R, output: W) -> std::io::Result<Ended>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let me = shared.hub.client("stdio");
    let mut builder = LspService::build(|client| Backend {
        client,
        shared: shared.clone(),
        me,
        initialized: AtomicBool::new(false),
    });
    for e in ENDPOINTS {
        builder = builder.custom_method(e.method, move |b: &Backend, p: Value| b.endpoint(e, p));
    }
    let (mut service, socket) = builder
        .custom_method(SELECTION_CHANGED, |b: &Backend, p: Value| {
            b.publish(Kind::Selection, p)
        })
        .custom_method(WINDOW_CHANGED, |b: &Backend, p: Value| {
            b.publish(Kind::Window, p)
        })
        .custom_method(GET_SELECTION, |b: &Backend, p: Value| {
            std::future::ready(b.shared.hub.current(&p).map_err(|e| rpc_error(&e)))
        })
        .finish();
    let client = service.inner().client.clone();
    let (mut to_client, mut client_responses) = socket.split();

    let (out, out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(write_out(output, out_rx));
    let forward = {
        let out = out.clone();
        tokio::spawn(async move {
            while let Some(req) = to_client.next().await {
                let v = serde_json::to_value(&req).unwrap_or(Value::Null);
                if out.send(encode(&v)).is_err() {
                    break;
                }
            }
        })
    };
    let relay = {
        let mut changes = shared.hub.subscribe(me);
        tokio::spawn(async move {
            while let Some(c) = changes.next().await {
                match c.kind {
                    Kind::Selection => client.send_notification::<SelectionNote>(c.params).await,
                    Kind::Window => client.send_notification::<WindowNote>(c.params).await,
                }
            }
        })
    };

    let limit = Arc::new(Semaphore::new(CONCURRENT_REQUESTS));
    let mut reader = FrameReader::new(input);
    let mut shut_down = false;
    let ended = loop {
        let Some(frame) = reader.next().await? else {
            break Ended::EndOfInput;
        };
        let bytes = match frame {
            Frame::Message(b) => b,
            Frame::Malformed(why) => {
                let _ = out.send(error(Value::Null, PARSE_ERROR, "Parse error", why));
                continue;
            }
        };
        let value: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                let why = format!("the message is not JSON: {e}");
                let _ = out.send(error(Value::Null, PARSE_ERROR, "Parse error", why));
                continue;
            }
        };
        let req = match classify(value) {
            Incoming::Request(r) => r,
            Incoming::Response(r) => {
                let _ = client_responses.send(r).await;
                continue;
            }
            Incoming::Invalid(id, why) => {
                let _ = out.send(error(id, INVALID_REQUEST, "Invalid request", why));
                continue;
            }
        };
        let method = req.method().to_string();
        let is_request = req.id().is_some();
        if service.ready().await.is_err() {
            break Ended::Exit {
                after_shutdown: shut_down,
            };
        }
        if method == "shutdown" && service.inner().initialized.load(Ordering::Relaxed) {
            shut_down = true;
        }
        let fut = service.call(req);
        // `initialize` is answered before anything else is read (the
        // router refuses to take requests while it runs); `exit` ends here.
        if method == "initialize" || method == "exit" {
            if let Ok(Some(resp)) = fut.await {
                let _ = out.send(encode(&serde_json::to_value(&resp).unwrap_or(Value::Null)));
            }
            if method == "exit" {
                break Ended::Exit {
                    after_shutdown: shut_down,
                };
            }
            continue;
        }
        // A notification (time sync, `$/cancelRequest`) takes effect before
        // the next message is read: a request sent after it sees its effect,
        // as the client expects of one ordered stream. Ours finish at once.
        if !is_request {
            let _ = fut.await;
            continue;
        }
        let out = out.clone();
        let limit = limit.clone();
        tokio::spawn(async move {
            let _permit = limit.acquire_owned().await.ok();
            if let Ok(Some(resp)) = fut.await {
                let _ = out.send(encode(&serde_json::to_value(&resp).unwrap_or(Value::Null)));
            }
        });
    };
    relay.abort();
    forward.abort();
    drop(out);
    // Answers already computed still go out; work still running is dropped
    // with the process.
    let _ = tokio::time::timeout(FLUSH, writer).await;
    Ok(ended)
}
