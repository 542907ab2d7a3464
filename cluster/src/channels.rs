//! The workers the engine may place tasks on: the `--cluster` URLs, each
//! checked to answer before a query is planned, so that one that cannot be
//! reached is named rather than found mid-query.

use std::net::TcpStream;
use std::time::Duration;

use datafusion::error::DataFusionError;
use datafusion_distributed::WorkerResolver;
use url::Url;

use crate::ClusterError;

/// How long a worker has to accept a connection.
const CONNECT: Duration = Duration::from_secs(5);

pub(crate) struct Workers(pub(crate) Vec<Url>);

impl WorkerResolver for Workers {
    /// A lone worker is offered twice: the engine runs no more tasks than
    /// it has URLs, and keeps a stage of one task in the coordinator, so
    /// with one URL the traces would be read here rather than there. Two
    /// tasks on the same worker read their shares side by side.
    fn get_urls(&self) -> Result<Vec<Url>, DataFusionError> {
        Ok(match self.0.as_slice() {
            [one] => vec![one.clone(), one.clone()],
            all => all.to_vec(),
        })
    }
}

/// Every worker accepts a connection.
pub(crate) fn reach(urls: &[Url]) -> Result<(), ClusterError> {
    for url in urls {
        let unreachable = |message: String| ClusterError::Unreachable {
            url: url.to_string(),
            message,
        };
        let addrs = url
            .socket_addrs(|| None)
            .map_err(|e| unreachable(e.to_string()))?;
        let mut last = None;
        let connected = addrs
            .iter()
            .any(|a| match TcpStream::connect_timeout(a, CONNECT) {
                Ok(_) => true,
                Err(e) => {
                    last = Some(e);
                    false
                }
            });
        if !connected {
            let message = last.map_or("no address".to_string(), |e| e.to_string());
            return Err(unreachable(message));
        }
    }
    Ok(())
}
