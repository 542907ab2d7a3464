//! `sextant worker`: a datafusion-distributed worker (Arrow Flight over
//! gRPC) that can make and execute sextant's trace scans.

use std::net::SocketAddr;
use std::sync::Arc;

use datafusion::error::DataFusionError;
use datafusion_distributed::{DistributedExt, Worker, WorkerQueryContext};
use tonic::transport::server::TcpIncoming;
use tonic::transport::Server;
use url::Url;

use crate::codec::ScanCodec;
use crate::ClusterError;

/// Serves on `listen` until the process ends, calling `ready` with the
/// worker's URL once it accepts connections (the port chosen when
/// `listen`'s is 0).
pub fn serve(listen: SocketAddr, ready: impl FnOnce(&Url)) -> Result<(), ClusterError> {
    let io = |what: &str| {
        let what = what.to_string();
        move |error| ClusterError::Io { what, error }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(sextant_sql::cores())
        .enable_all()
        .build()
        .map_err(io("starting the worker's runtime"))?;
    runtime.block_on(async {
        let incoming = TcpIncoming::bind(listen).map_err(io(&format!("listening on {listen}")))?;
        let bound = incoming
            .local_addr()
            .map_err(io(&format!("listening on {listen}")))?;
        let url = Url::parse(&format!("http://{bound}")).expect("a socket address is a URL's host");
        let codec = ScanCodec {
            gate: Arc::new(tokio::sync::Semaphore::new(sextant_sql::cores())),
            log: None,
        };
        let worker = Worker::from_session_builder(move |ctx: WorkerQueryContext| {
            let codec = codec.clone();
            async move {
                Ok::<_, DataFusionError>(ctx.builder.with_distributed_user_codec(codec).build())
            }
        });
        ready(&url);
        Server::builder()
            .add_service(worker.into_worker_server())
            .serve_with_incoming(incoming)
            .await
            .map_err(|e| ClusterError::Io {
                what: format!("serving on {url}"),
                error: std::io::Error::other(e),
            })
    })
}
