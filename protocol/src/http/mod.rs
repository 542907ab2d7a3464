//! The HTTP adapter of the service core: axum routes under `/tsp/api`, JSON
//! bodies parsed here (so that a malformed body is a TSP `ErrorResponse`, not
//! axum's plain text), results and errors written as JSON.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde_json::Value;

use crate::service::{ErrorKind, Result, Service, ServiceError};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 1 << 20;

type S = State<Arc<Service>>;

fn reply(r: Result<Value>) -> Response {
    match r {
        Ok(v) => (StatusCode::OK, Json(v)).into_response(),
        Err(e) => error(&e),
    }
}

fn error(e: &ServiceError) -> Response {
    let status =
        StatusCode::from_u16(e.kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(e.to_json())).into_response()
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

/// A POST handler of the service taking the experiment, the output and the
/// body; the work (sampling states, building series) runs on a blocking
/// thread so that a large request never stalls the other connections.
macro_rules! output_post {
    ($method:ident) => {
        |State(s): S, Path((exp, out)): Path<(String, String)>, body: Body| async move {
            let r = match body_json(body) {
                Ok(b) => tokio::task::spawn_blocking(move || s.$method(&exp, &out, &b))
                    .await
                    .unwrap_or_else(|e| {
                        Err(ServiceError::new(
                            ErrorKind::Internal,
                            "Internal error",
                            e.to_string(),
                        ))
                    }),
                Err(e) => Err(e),
            };
            reply(r)
        }
    };
}

pub fn router(service: Arc<Service>) -> Router {
    let api = Router::new()
        .route(
            "/health",
            get(|State(s): S| async move { Json(s.health()) }),
        )
        .route(
            "/identifier",
            get(|State(s): S| async move { Json(s.identifier()) }),
        )
        .route(
            "/traces",
            get(|State(s): S| async move { Json(s.traces()) }).post(
                |State(s): S, body: Body| async move {
                    reply(body_json(body).and_then(|b| s.open_trace(&b)))
                },
            ),
        )
        .route(
            "/traces/{uuid}",
            get(|State(s): S, Path(u): Path<String>| async move { reply(s.trace(&u)) }).delete(
                |State(s): S, Path(u): Path<String>| async move { reply(s.delete_trace(&u)) },
            ),
        )
        .route(
            "/experiments",
            get(|State(s): S| async move { Json(s.experiments()) }).post(
                |State(s): S, body: Body| async move {
                    reply(body_json(body).and_then(|b| s.create_experiment(&b)))
                },
            ),
        )
        .route(
            "/experiments/{uuid}",
            get(|State(s): S, Path(u): Path<String>| async move { reply(s.experiment(&u)) })
                .delete(|State(s): S, Path(u): Path<String>| async move {
                    reply(s.delete_experiment(&u))
                }),
        )
        .route(
            "/experiments/{uuid}/outputs",
            get(|State(s): S, Path(u): Path<String>| async move { reply(s.outputs(&u)) }),
        )
        .route(
            "/experiments/{uuid}/outputs/markerSets",
            get(|State(s): S, Path(u): Path<String>| async move { reply(s.marker_sets(&u)) }),
        )
        .route(
            "/experiments/{uuid}/outputs/{output}",
            get(
                |State(s): S, Path((u, o)): Path<(String, String)>| async move {
                    reply(s.output(&u, &o))
                },
            )
            // Runs the model over the traces: a blocking thread.
            .post(output_post!(create_derived)),
        )
        .route(
            "/experiments/{uuid}/outputs/{output}/{derived}",
            delete(
                |State(s): S, Path((u, o, d)): Path<(String, String, String)>| async move {
                    reply(s.delete_derived(&u, &o, &d))
                },
            ),
        )
        .route(
            "/experiments/{uuid}/outputs/{output}/style",
            post(
                |State(s): S, Path((u, o)): Path<(String, String)>, body: Body| async move {
                    reply(body_json(body).and_then(|_| s.style(&u, &o)))
                },
            ),
        )
        .route(
            "/experiments/{uuid}/outputs/{output}/annotations",
            get(
                |State(s): S, Path((u, o)): Path<(String, String)>| async move {
                    reply(s.annotation_categories(&u, &o))
                },
            )
            .post(
                |State(s): S, Path((u, o)): Path<(String, String)>, body: Body| async move {
                    reply(body_json(body).and_then(|_| s.annotations(&u, &o)))
                },
            ),
        )
        .route(
            "/experiments/{uuid}/outputs/timeGraph/{output}/tree",
            post(output_post!(timegraph_tree)),
        )
        .route(
            "/experiments/{uuid}/outputs/timeGraph/{output}/states",
            post(output_post!(timegraph_states)),
        )
        .route(
            "/experiments/{uuid}/outputs/timeGraph/{output}/arrows",
            post(output_post!(timegraph_arrows)),
        )
        .route(
            "/experiments/{uuid}/outputs/timeGraph/{output}/tooltip",
            post(output_post!(timegraph_tooltip)),
        )
        .route(
            "/experiments/{uuid}/outputs/XY/{output}/tree",
            post(output_post!(xy_tree)),
        )
        .route(
            "/experiments/{uuid}/outputs/XY/{output}/xy",
            post(output_post!(xy)),
        )
        .route(
            "/experiments/{uuid}/outputs/table/{output}/columns",
            post(output_post!(table_columns)),
        )
        .route(
            "/experiments/{uuid}/outputs/table/{output}/lines",
            post(output_post!(table_lines)),
        )
        .route(
            "/experiments/{uuid}/outputs/{output}/configTypes",
            get(
                |State(s): S, Path((u, o)): Path<(String, String)>| async move {
                    reply(s.output_config_types(&u, &o))
                },
            ),
        )
        .route(
            "/experiments/{uuid}/outputs/{output}/configTypes/{id}",
            get(
                |State(s): S, Path((u, o, t)): Path<(String, String, String)>| async move {
                    reply(s.output_config_type(&u, &o, &t))
                },
            ),
        )
        .route(
            "/config/types",
            get(|State(s): S| async move { Json(s.config_types()) }),
        )
        .route(
            "/config/types/{id}",
            get(|State(s): S, Path(id): Path<String>| async move { reply(s.config_type(&id)) }),
        );
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
        .with_state(service)
}

/// Serves until Ctrl-C (or SIGTERM), on an already bound listener.
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: Arc<Service>,
) -> std::io::Result<()> {
    axum::serve(listener, router(service))
        .with_graceful_shutdown(shutdown())
        .await
}

async fn shutdown() {
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
