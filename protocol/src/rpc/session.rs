//! One JSON-RPC session, whatever carries its messages: stdio with LSP
//! framing (`stdio`) or WebSocket (`ws`). Both transports hand this loop a
//! stream of frames and take its answers as JSON text, so that every
//! behaviour — life cycle, notifications, `$/cancelRequest`, `$/progress`,
//! malformed input — is the same on both.
//!
//! tower-lsp-server provides the life cycle (`initialize` → `shutdown` →
//! `exit`, InvalidRequest after shutdown), the method router and
//! `$/cancelRequest`. The loop is ours: a malformed message costs that
//! message only, initialize is answered before the next message is read,
//! requests run concurrently (a bounded number at once) and are dropped —
//! their work cancelled — when the session ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, SinkExt, Stream, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, Notify, Semaphore};
use tokio::task::{AbortHandle, JoinSet};
use tower::{Service as _, ServiceExt as _};
use tower_lsp_server::jsonrpc::{self, ErrorCode, Request, Response};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{
    InitializeParams, InitializeResult, ServerCapabilities, ServerInfo,
};
use tower_lsp_server::{Client, LanguageServer, LspService};

use super::dispatch::{self, Percent};
use super::errors::{self, INVALID_REQUEST, PARSE_ERROR};
use super::frames::Frame;
use super::{experimental_capabilities, is_ours, parent, progress, Shared};
use crate::endpoints::{Endpoint, ENDPOINTS};
use crate::service::ServiceError;
use crate::sync::{ClientId, Kind, GET_SELECTION, SELECTION_CHANGED, WINDOW_CHANGED};

/// Requests worked on at once; more wait (notifications never do, so a
/// `$/cancelRequest` always gets through).
const CONCURRENT_REQUESTS: usize = 16;
/// How long requests in flight may take to finish when the server stops.
pub const DRAIN: Duration = Duration::from_secs(20);

pub const SUBSCRIBE_SYNC: &str = "sextant/subscribeSync";
pub const UNSUBSCRIBE_SYNC: &str = "sextant/unsubscribeSync";
/// The subscription's notifications: `{subscription, result}`, `result`
/// being `{method, params}`, the notification stdio would have sent.
pub const SYNC_NOTIFICATION: &str = "sextant/sync";

/// What carries the session; it decides the few things that differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A child process of its client: sync changes are always sent, the
    /// client's `processId` is watched, `initialize` comes first.
    Stdio,
    /// Sync changes after `sextant/subscribeSync`; `initialize` may be
    /// left out (the session then initializes itself on the first request).
    WebSocket,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::WebSocket => "ws",
        }
    }
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The `exit` notification, after a `shutdown` request or not.
    Exit { after_shutdown: bool },
    /// The client closed its side (stdin, the WebSocket).
    EndOfInput,
    /// The process the client named in `initialize` (`processId`) died.
    ParentGone,
    /// The server is stopping (SIGTERM): requests in flight were finished.
    Stopped,
}

impl Ended {
    /// The process's exit code, as LSP says: 1 for `exit` without
    /// `shutdown`, and for a client that died without either.
    pub fn exit_code(self) -> i32 {
        match self {
            Ended::Exit {
                after_shutdown: false,
            }
            | Ended::ParentGone => 1,
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

enum SyncNote {}
impl Notification for SyncNote {
    type Params = Value;
    const METHOD: &'static str = SYNC_NOTIFICATION;
}

/// The WebSocket's sync subscriptions, ended with the session.
#[derive(Default)]
struct Subscriptions {
    next: AtomicU64,
    relays: Mutex<HashMap<u64, AbortHandle>>,
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        let relays = self.relays.get_mut().unwrap_or_else(|e| e.into_inner());
        relays.values().for_each(AbortHandle::abort);
    }
}

struct Backend {
    client: Client,
    shared: Arc<Shared>,
    transport: Transport,
    /// This session as a client of the sync hub.
    me: ClientId,
    initialized: AtomicBool,
    /// Told when the client's process (`processId`) is gone.
    parent_gone: Arc<Notify>,
    subscriptions: Subscriptions,
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
                "sextant: {} client {} {}",
                self.transport.name(),
                c.name,
                c.version.as_deref().unwrap_or("")
            );
        }
        // A sidecar must not outlive the editor that started it, even when
        // the editor dies without closing its end of the pipes.
        if let (Transport::Stdio, Some(pid)) = (self.transport, params.process_id) {
            tokio::spawn(parent::watch(pid, self.parent_gone.clone()));
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

    fn websocket_only(&self, method: &str) -> jsonrpc::Result<()> {
        match self.transport {
            Transport::WebSocket => Ok(()),
            // stdio gets every change as a notification already.
            Transport::Stdio => Err(jsonrpc::Error {
                code: ErrorCode::MethodNotFound,
                message: format!(
                    "{method} is for WebSocket clients: stdio gets sync changes as notifications"
                )
                .into(),
                data: None,
            }),
        }
    }

    /// `sextant/subscribeSync`: the other clients' changes, from now on, as
    /// `sextant/sync` notifications; answers the subscription's id.
    fn subscribe(&self) -> std::future::Ready<jsonrpc::Result<Value>> {
        let r = self.websocket_only(SUBSCRIBE_SYNC).map(|()| {
            let id = self.subscriptions.next.fetch_add(1, Ordering::Relaxed) + 1;
            let mut changes = self.shared.hub.subscribe(self.me);
            let client = self.client.clone();
            let relay = tokio::spawn(async move {
                while let Some(c) = changes.next().await {
                    let result = json!({"method": c.kind.method(), "params": c.params});
                    client
                        .send_notification::<SyncNote>(
                            json!({"subscription": id, "result": result}),
                        )
                        .await;
                }
            });
            let mut relays = self
                .subscriptions
                .relays
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            relays.insert(id, relay.abort_handle());
            Value::from(id)
        });
        std::future::ready(r)
    }

    /// `sextant/unsubscribeSync [id]`: true if that subscription was running.
    fn unsubscribe(&self, params: Value) -> std::future::Ready<jsonrpc::Result<Value>> {
        let r = self.websocket_only(UNSUBSCRIBE_SYNC).and_then(|()| {
            let id = params
                .as_array()
                .and_then(|a| a.first())
                .or(Some(&params))
                .and_then(Value::as_u64)
                .ok_or_else(|| {
                    jsonrpc::Error::invalid_params("expected [subscription id] or the id")
                })?;
            let mut relays = self
                .subscriptions
                .relays
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let found = relays.remove(&id);
            found.iter().for_each(AbortHandle::abort);
            Ok(Value::Bool(found.is_some()))
        });
        std::future::ready(r)
    }
}

/// A message the loop cannot hand to the router, answered here.
fn error(id: Value, code: i64, message: &str, detail: String) -> String {
    json!({"jsonrpc": "2.0", "id": id,
        "error": {"code": code, "message": message, "data": detail}})
    .to_string()
}

enum Incoming {
    Request(Request),
    Response(Response),
    /// Not a JSON-RPC message: its id when it has a usable one, and why.
    Invalid(Value, String),
}

/// Methods whose params LSP defines as absent: clients differ (nothing,
/// `null`, `{}`), all are accepted.
const NO_PARAMS: [&str; 2] = ["shutdown", "exit"];

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
    if let Some(Value::String(method)) = o.get("method").cloned() {
        // Our methods take absent params as an empty body; the router
        // would refuse them.
        if !o.contains_key("params") && is_ours(&method) {
            o.insert("params".into(), Value::Null);
        }
        if NO_PARAMS.contains(&method.as_str()) && is_empty(o.get("params")) {
            o.remove("params");
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

fn is_empty(params: Option<&Value>) -> bool {
    match params {
        Some(Value::Object(o)) => o.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Null) | None => true,
        Some(_) => false,
    }
}

fn sync_kind(method: &str) -> Option<Kind> {
    match method {
        SELECTION_CHANGED => Some(Kind::Selection),
        WINDOW_CHANGED => Some(Kind::Window),
        _ => None,
    }
}

fn text(resp: &Response) -> String {
    serde_json::to_string(resp).unwrap_or_else(|_| "null".into())
}

/// Runs one session over `input` until `exit`, its end or the client's
/// death; every message to the client goes to `out` as JSON text.
pub async fn run<I>(
    shared: Arc<Shared>,
    transport: Transport,
    mut input: I,
    out: mpsc::UnboundedSender<String>,
) -> std::io::Result<Ended>
where
    I: Stream<Item = std::io::Result<Frame>> + Unpin,
{
    let me = shared.hub.client(transport.name());
    let parent_gone = Arc::new(Notify::new());
    let mut builder = LspService::build(|client| Backend {
        client,
        shared: shared.clone(),
        transport,
        me,
        initialized: AtomicBool::new(false),
        parent_gone: parent_gone.clone(),
        subscriptions: Subscriptions::default(),
    });
    for e in ENDPOINTS {
        builder = builder.custom_method(e.method, move |b: &Backend, p: Value| b.endpoint(e, p));
    }
    let (mut service, socket) = builder
        .custom_method(GET_SELECTION, |b: &Backend, p: Value| {
            std::future::ready(b.shared.hub.current(&p).map_err(|e| rpc_error(&e)))
        })
        .custom_method(SUBSCRIBE_SYNC, |b: &Backend, _: Value| b.subscribe())
        .custom_method(UNSUBSCRIBE_SYNC, |b: &Backend, p: Value| b.unsubscribe(p))
        .finish();
    let client = service.inner().client.clone();
    let (mut to_client, mut client_responses) = socket.split();

    let forward = {
        let out = out.clone();
        tokio::spawn(async move {
            while let Some(req) = to_client.next().await {
                let text = serde_json::to_string(&req).unwrap_or_else(|_| "null".into());
                if out.send(text).is_err() {
                    break;
                }
            }
        })
    };
    let relay = (transport == Transport::Stdio).then(|| {
        let mut changes = shared.hub.subscribe(me);
        tokio::spawn(async move {
            while let Some(c) = changes.next().await {
                match c.kind {
                    Kind::Selection => client.send_notification::<SelectionNote>(c.params).await,
                    Kind::Window => client.send_notification::<WindowNote>(c.params).await,
                }
            }
        })
    });

    let limit = Arc::new(Semaphore::new(CONCURRENT_REQUESTS));
    // Requests running; dropped (their work cancelled) with the session.
    let mut running = JoinSet::new();
    let mut first_request = true;
    let mut shut_down = false;
    let stopping = shared.hub.closed();
    tokio::pin!(stopping);
    let ended = loop {
        let frame = tokio::select! {
            f = input.next() => f,
            () = parent_gone.notified() => break Ended::ParentGone,
            () = &mut stopping => break Ended::Stopped,
        };
        let bytes = match frame.transpose()? {
            None => break Ended::EndOfInput,
            Some(Frame::Message(b)) => b,
            Some(Frame::Malformed(why)) => {
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
        // Sync changes are taken here, in the order they came (a change
        // then a `sextant/getSelection` sees it); sent as a request (as
        // WebSocket clients long had to), one is answered null.
        if let Some(kind) = sync_kind(&method) {
            let params = req.params().cloned().unwrap_or(Value::Null);
            let r = shared.hub.publish(me, kind, &params);
            match (req.id(), r) {
                (Some(id), Ok(())) => {
                    let _ = out.send(text(&Response::from_ok(id.clone(), Value::Null)));
                }
                (Some(id), Err(e)) => {
                    let _ = out.send(text(&Response::from_error(id.clone(), rpc_error(&e))));
                }
                (None, Ok(())) => {}
                // A notification has no answer: the mistake is logged.
                (None, Err(e)) => eprintln!("sextant: {method}: {e}"),
            }
            continue;
        }
        if std::mem::take(&mut first_request)
            && transport == Transport::WebSocket
            && method != "initialize"
        {
            // A WebSocket client may skip the LSP life cycle.
            let init = Request::build("initialize")
                .params(json!({"capabilities": {}}))
                .id(0)
                .finish();
            if service.ready().await.is_ok() {
                let _ = service.call(init).await;
            }
        }
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
                let _ = out.send(text(&resp));
            }
            if method == "exit" {
                break Ended::Exit {
                    after_shutdown: shut_down,
                };
            }
            continue;
        }
        // Any other notification (`$/cancelRequest`, `initialized`) also
        // takes effect before the next message is read: a request sent
        // after it sees its effect. Ours finish at once.
        if !is_request {
            let _ = fut.await;
            continue;
        }
        let out = out.clone();
        let limit = limit.clone();
        running.spawn(async move {
            let _permit = limit.acquire_owned().await.ok();
            if let Ok(Some(resp)) = fut.await {
                let _ = out.send(text(&resp));
            }
        });
        // Forget the finished ones: the set holds what still runs.
        while running.try_join_next().is_some() {}
    };
    if ended == Ended::Stopped {
        // Nothing more is read; what was asked is answered.
        let drained = async { while running.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(DRAIN, drained).await;
    }
    if let Some(r) = relay {
        r.abort();
    }
    forward.abort();
    running.abort_all();
    Ok(ended)
}
