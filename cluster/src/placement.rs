//! Which worker reads which trace. The engine runs a stage as tasks, one
//! per worker at most; a trace scan asks for a task per trace, and each
//! task's variant of the scan holds every `tasks`-th trace, so that the
//! workers share the traces evenly and none is read twice.

use std::sync::Arc;

use datafusion::error::Result;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_distributed::{
    DesiredTaskCountEvent, DesiredTaskCountEventResponse, DistributedLeafExec,
    ScaleUpLeafNodeEvent, ScaleUpLeafNodeEventResponse,
};
use sextant_sql::scan::TraceScanExec;

/// A task per trace (the engine gives no more than there are workers),
/// and two at least: the engine keeps a stage of one task in the
/// coordinator, where a single trace would then be read.
pub(crate) fn desired(ev: DesiredTaskCountEvent) -> Option<Result<DesiredTaskCountEventResponse>> {
    let scan = ev.plan.downcast_ref::<TraceScanExec>()?;
    Some(Ok(DesiredTaskCountEventResponse::desired(
        scan.traces().len().max(2),
    )))
}

/// The scan as one variant per task, each of its share of the traces.
pub(crate) fn scale_up(ev: ScaleUpLeafNodeEvent) -> Option<Result<ScaleUpLeafNodeEventResponse>> {
    let scan = ev.plan.downcast_ref::<TraceScanExec>()?;
    Some(split(ev.plan, scan, ev.task_count))
}

fn split(
    plan: &Arc<dyn ExecutionPlan>,
    scan: &TraceScanExec,
    tasks: usize,
) -> Result<ScaleUpLeafNodeEventResponse> {
    let shares = shares(scan.traces().len(), tasks);
    // Every variant has as many partitions (the engine's rule); a task
    // with fewer traces has empty ones.
    let width = shares.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let variants = shares
        .iter()
        .map(|share| {
            let traces = share.iter().map(|&i| scan.traces()[i].clone()).collect();
            Ok(Arc::new(scan.with_traces(traces, width)?) as Arc<dyn ExecutionPlan>)
        })
        .collect::<Result<Vec<_>>>()?;
    let leaf = DistributedLeafExec::try_new(plan.clone(), variants)?;
    Ok(ScaleUpLeafNodeEventResponse::new(Arc::new(leaf)))
}

/// Trace `i` of `traces` goes to task `i % tasks`.
fn shares(traces: usize, tasks: usize) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new(); tasks.max(1)];
    let n = all.len();
    for i in 0..traces {
        all[i % n].push(i);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn traces_are_dealt_evenly_and_once() {
        assert_eq!(shares(5, 2), [vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(shares(1, 2), [vec![0], vec![]]);
        assert_eq!(shares(3, 1), [vec![0, 1, 2]]);
    }
}
