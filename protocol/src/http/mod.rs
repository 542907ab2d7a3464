//! The HTTP adapter of the service core: the routes of the endpoint table
//! (`crate::endpoints`) under `/tsp/api`, JSON bodies parsed here (so that a
//! malformed body is a TSP `ErrorResponse`, not axum's plain text), results
//! and errors written as JSON. Beside the TSP routes, `/tsp/api/sync/...`
//! lets REST clients take part in time synchronisation: a server-sent-events
//! stream of the other clients' changes and two routes to publish their own.
//! Every request passes the guard (`guard`) first.

pub mod guard;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, on, post, MethodFilter, MethodRouter};
use axum::{Json, Router};
use futures::Stream;
use serde_json::{json, Value};

use crate::endpoints::{Endpoint, Verb, ENDPOINTS};
use crate::service::params::RETRY_AFTER_SECONDS;
use crate::service::{ErrorKind, Reply, Result, Service, ServiceError, Work};
use crate::sync::{ClientId, Hub, Kind};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 1 << 20;

type S = State<Arc<Service>>;

fn reply(r: Result<Reply>) -> Response {
    match r {
        Ok(Reply::Tree(v)) => (StatusCode::OK, Json(v)).into_response(),
        // Written once, maybe shared with the cache: sent as it is.
        Ok(Reply::Text { json, .. }) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            json.get().to_owned(),
        )
            .into_response(),
        Err(e) => error(&e),
    }
}

fn error(e: &ServiceError) -> Response {
    let status =
        StatusCode::from_u16(e.kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut resp = (status, Json(e.to_json())).into_response();
    if e.kind == ErrorKind::Unavailable {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    resp
}

/// The body as JSON (an empty body is `{}`).
fn body_json(body: std::result::Result<Bytes, BytesRejection>) -> Result<Value> {
    let bytes = body.map_err(|r| {
        let kind = if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ErrorKind::PayloadTooLarge
        } else {
            ErrorKind::BadRequest
        };
        ServiceError::new(
            kind,
            "Bad request body",
            format!("{} (the limit is {BODY_LIMIT} bytes)", r.body_text()),
        )
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ServiceError::bad_request(format!("the body is not valid JSON: {e}")))
}

type Body = std::result::Result<Bytes, BytesRejection>;

/// Answers one endpoint of the table. The work (sampling states, running a
/// model over the traces) runs on a blocking thread so that a large request
/// never stalls the other connections; a client that disconnects drops this
/// future (hyper ends the connection on the read side's end), which cancels
/// the work.
async fn answer(
    service: Arc<Service>,
    endpoint: &'static Endpoint,
    ids: HashMap<String, String>,
    body: Body,
) -> Response {
    // GET and DELETE carry no body: whatever came is ignored.
    let body = match endpoint.verb {
        Verb::Post => body_json(body),
        Verb::Get | Verb::Delete => Ok(Value::Object(Default::default())),
    };
    let r = match body {
        Ok(b) => {
            crate::blocking::run(move |cancel| {
                let work = Work {
                    progress: &|_| {},
                    cancel,
                };
                endpoint.call(&service, |name| ids.get(name).cloned(), &b, &work)
            })
            .await
        }
        Err(e) => Err(e),
    };
    reply(r)
}

fn method_router(endpoint: &'static Endpoint) -> MethodRouter<Arc<Service>> {
    let filter = match endpoint.verb {
        Verb::Get => MethodFilter::GET,
        Verb::Post => MethodFilter::POST,
        Verb::Delete => MethodFilter::DELETE,
    };
    if endpoint.ids().next().is_none() {
        on(filter, move |State(s): S, body: Body| {
            answer(s, endpoint, HashMap::new(), body)
        })
    } else {
        on(
            filter,
            move |State(s): S, Path(ids): Path<HashMap<String, String>>, body: Body| {
                answer(s, endpoint, ids, body)
            },
        )
    }
}

/// `GET /sync/events`: server-sent events, first `sextant/connected` with
/// this stream's `clientId` (pass it as `?clientId=` when publishing, so
/// that the change does not come back here), then every other client's
/// `sextant/selectionChanged` and `sextant/windowChanged` (data: the params).
async fn sync_events(
    State(hub): State<Arc<Hub>>,
) -> Sse<impl Stream<Item = std::result::Result<Event, Infallible>>> {
    let me = hub.client("sse");
    let changes = hub.subscribe(me);
    let hello = Event::default()
        .event("sextant/connected")
        .data(json!({"clientId": me.n}).to_string());
    let rest = futures::stream::unfold(changes, |mut changes| async move {
        let c = changes.next().await?;
        let e = Event::default()
            .event(c.kind.method())
            .data(c.params.to_string());
        Some((Ok(e), changes))
    });
    let stream = futures::StreamExt::chain(futures::stream::once(async { Ok(hello) }), rest);
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// `POST /sync/selection` and `/sync/window` with `{experimentUUID, start,
/// end, source}`: answers the experiment's current selection and window.
async fn sync_publish(
    hub: Arc<Hub>,
    kind: Kind,
    query: HashMap<String, String>,
    body: Body,
) -> Response {
    let from = match query.get("clientId").map(|n| n.parse::<u64>()) {
        Some(Ok(n)) => ClientId {
            transport: "sse",
            n,
        },
        Some(Err(_)) => {
            return error(&ServiceError::bad_request(
                "clientId: expected the number the event stream gave",
            ))
        }
        None => hub.client("http"),
    };
    let r = body_json(body).and_then(|b| {
        hub.publish(from, kind, &b)?;
        hub.current(&b)
    });
    reply(r.map(Reply::from))
}

fn sync_router(hub: Arc<Hub>) -> Router {
    type Q = Query<HashMap<String, String>>;
    Router::new()
        .route("/sync/events", get(sync_events))
        .route(
            "/sync/selection",
            post(|State(h): State<Arc<Hub>>, Query(q): Q, b: Body| {
                sync_publish(h, Kind::Selection, q, b)
            }),
        )
        .route(
            "/sync/window",
            post(|State(h): State<Arc<Hub>>, Query(q): Q, b: Body| {
                sync_publish(h, Kind::Window, q, b)
            }),
        )
        .with_state(hub)
}

pub fn router(service: Arc<Service>, hub: Arc<Hub>) -> Router {
    // One method router per route, every verb of the table merged into it.
    let mut routes: BTreeMap<&str, MethodRouter<Arc<Service>>> = BTreeMap::new();
    for endpoint in ENDPOINTS {
        let m = method_router(endpoint);
        let merged = match routes.remove(endpoint.route) {
            Some(existing) => existing.merge(m),
            None => m,
        };
        routes.insert(endpoint.route, merged);
    }
    let api = routes
        .into_iter()
        .fold(Router::new(), |r, (route, m)| r.route(route, m))
        .with_state(service)
        .merge(sync_router(hub));
    Router::new()
        .nest("/tsp/api", api)
        .method_not_allowed_fallback(|| async {
            error(&ServiceError::new(
                ErrorKind::MethodNotAllowed,
                "Method not allowed",
                "this endpoint does not take this HTTP method",
            ))
        })
        .fallback(|| async {
            error(&ServiceError::new(
                ErrorKind::NotFound,
                "Not found",
                "no such endpoint (the API is under /tsp/api)",
            ))
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// Serves on an already bound listener until `stop` resolves; requests in
/// flight then finish (graceful shutdown).
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: Arc<Service>,
    hub: Arc<Hub>,
    guard: guard::Guard,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let closing = hub.clone();
    let app = router(service, hub).layer(axum::middleware::from_fn_with_state(guard, guard::check));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            stop.await;
            // Event streams end, or the graceful shutdown would wait for them.
            closing.close();
        })
        .await
}
