//! What the workers report once a query's answer is out: each task's
//! metrics, which the engine sends to the coordinator when the query ends
//! and which carry what the workers' trace scans said (warnings, counts:
//! `sextant_sql`'s `carried`).

use std::sync::Arc;
use std::time::Duration;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_distributed::{
    rewrite_distributed_plan_with_metrics, DistributedExec, DistributedMetricsFormat,
};

/// How long the workers' metrics may take to come once the answer is out.
/// By then every worker has sent them (the answer's stream ends only when
/// every worker's channel has), so this bounds only their hop inside this
/// process, and a task that never ran, whose metrics never come (the
/// engine would wait for them forever).
const WAIT: Duration = Duration::from_secs(10);

/// The executed `plan`'s distributed part with every task's metrics on the
/// operators it ran, each labelled with its task; `plan` itself when
/// nothing of it ran on workers.
pub(crate) async fn with_workers_metrics(
    plan: Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>, String> {
    let Some(distributed) = distributed(&plan) else {
        return Ok(plan);
    };
    let rewritten =
        rewrite_distributed_plan_with_metrics(distributed, DistributedMetricsFormat::PerTask);
    match tokio::time::timeout(WAIT, rewritten).await {
        Ok(Ok(plan)) => Ok(plan),
        Ok(Err(e)) => Err(format!("the workers' metrics: {e}")),
        Err(_) => Err(format!(
            "not every worker's metrics came within {} s",
            WAIT.as_secs()
        )),
    }
}

/// The plan's `DistributedExec`: its root, or below an `EXPLAIN ANALYZE`'s.
fn distributed(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    let mut found = None;
    // The closure never fails.
    let _ = plan.apply(|node| {
        if node.is::<DistributedExec>() {
            found = Some(node.clone());
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    });
    found
}
