//! `sextant sql --cluster`: the query planned by the embedded DataFusion
//! and made distributed by datafusion-distributed's planner, which sends
//! its stages to the workers; the coordinator runs the stage above them
//! and hands the answer to the sink as `sextant sql` does embedded, then
//! says in the query's log what the workers' scans said (`reports`).

use std::sync::Arc;

use datafusion::execution::session_state::SessionStateBuilder;
use datafusion_distributed::{DistributedExt, SessionStateBuilderExt};
use sextant_sql::output::Sink;
use sextant_sql::{Log, Query, SqlError};
use url::Url;

use crate::channels::{self, Workers};
use crate::codec::ScanCodec;
use crate::{placement, reports, ClusterError};

/// Runs the query on the workers at `urls`.
pub fn run(
    query: Query,
    sink: &mut dyn Sink,
    log: Arc<Log>,
    urls: Vec<Url>,
) -> Result<(), ClusterError> {
    channels::reach(&urls)?;
    let codec = ScanCodec {
        gate: Arc::new(tokio::sync::Semaphore::new(sextant_sql::cores())),
        log: Some(log.clone()),
    };
    let session = move |config| {
        Ok(SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .with_distributed_worker_resolver(Workers(urls))
            .with_distributed_user_codec(codec)
            .with_distributed_desired_task_count_handler(placement::desired)
            .with_distributed_scale_up_leaf_node_handler(placement::scale_up)
            // What the workers' scans said comes back in their metrics:
            // the engine's default, set so that no other default loses it.
            .with_distributed_metrics_collection(true)
            .map_err(SqlError::Query)?
            .with_distributed_planner()
            .build())
    };
    sextant_sql::run_in(query, sink, log, session, reports::with_workers_metrics)?;
    Ok(())
}
