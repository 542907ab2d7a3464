//! What a fleet table's scan is in a plan: `TraceScanExec`, one partition
//! per trace, each computed by `partition` when it is executed. Its
//! description (`wire`) is all a process needs to execute it, so that a
//! distributed engine can send it to a worker that reads the traces from
//! the same paths; the worker executes its own share of the traces
//! (`with_traces`).

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::Result;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, Partitioning, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::limit::LimitStream;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::stream::{EmptyRecordBatchStream, RecordBatchStreamAdapter};
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::StreamExt;

use crate::carried;
use crate::fleet::Trace;
use crate::partition::{Kind, TracePartition};
use crate::Reading;

/// A table's rows of some traces.
#[derive(Debug, Clone)]
pub struct TraceScanExec {
    pub(crate) kind: Kind,
    /// Partition `i` is trace `i`'s rows; partitions past the last trace
    /// are empty (`width`).
    pub(crate) traces: Vec<Arc<Trace>>,
    /// The table's columns, `host` and `trace` first.
    pub(crate) table: SchemaRef,
    pub(crate) projection: Option<Vec<usize>>,
    /// Rows each partition gives at most (a `LIMIT` pushed down).
    pub(crate) limit: Option<usize>,
    pub(crate) reading: Arc<Reading>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl TraceScanExec {
    pub(crate) fn try_new(
        kind: Kind,
        traces: Vec<Arc<Trace>>,
        width: usize,
        table: SchemaRef,
        projection: Option<Vec<usize>>,
        limit: Option<usize>,
        reading: Arc<Reading>,
    ) -> Result<TraceScanExec> {
        let schema = match &projection {
            Some(p) => Arc::new(table.project(p)?),
            None => table.clone(),
        };
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(width.max(traces.len())),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(TraceScanExec {
            kind,
            traces,
            table,
            projection,
            limit,
            reading,
            properties: Arc::new(properties),
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// The traces, in partition order.
    pub fn traces(&self) -> &[Arc<Trace>] {
        &self.traces
    }

    /// The same scan of other traces, in `width` partitions at least: one
    /// task's share of a distributed scan (every task's has as many
    /// partitions).
    pub fn with_traces(&self, traces: Vec<Arc<Trace>>, width: usize) -> Result<TraceScanExec> {
        TraceScanExec::try_new(
            self.kind.clone(),
            traces,
            width,
            self.table.clone(),
            self.projection.clone(),
            self.limit,
            self.reading.clone(),
        )
    }
}

impl DisplayAs for TraceScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "TraceScanExec: {} of {} traces in {} partitions",
            self.kind.table(),
            self.traces.len(),
            self.properties.partitioning.partition_count()
        )
    }
}

impl ExecutionPlan for TraceScanExec {
    fn name(&self) -> &str {
        "TraceScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let schema = self.schema();
        let Some(trace) = self.traces.get(partition) else {
            return Ok(Box::pin(EmptyRecordBatchStream::new(schema)));
        };
        self.reading
            .log
            .executing(self.kind.table(), partition, trace);
        let rows = TracePartition::new(
            self.kind.clone(),
            trace.clone(),
            self.reading.clone(),
            self.table.clone(),
        )
        .execute(ctx);
        let stream: SendableRecordBatchStream = match self.projection.clone() {
            Some(p) => Box::pin(RecordBatchStreamAdapter::new(
                schema,
                rows.map(move |b| b.and_then(|b| Ok(b.project(&p)?))),
            )),
            None => rows,
        };
        Ok(match self.limit {
            Some(n) => Box::pin(LimitStream::new(
                stream,
                0,
                Some(n),
                BaselineMetrics::new(&self.metrics, partition),
            )),
            None => stream,
        })
    }

    /// On a worker, with what its passes said (`carried`): the metrics are
    /// what the engine sends back to the coordinator.
    fn metrics(&self) -> Option<MetricsSet> {
        let mut all = self.metrics.clone_inner();
        if self.reading.log.is_worker() {
            for m in carried::metrics(&self.reading.log) {
                all.push(m);
            }
        }
        Some(all)
    }
}
