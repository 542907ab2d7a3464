//! `ScanCodec`: how the engine sends a `TraceScanExec` to a worker (its
//! wire form, `sextant_sql::wire`) and how the worker makes it again. The
//! engine's own codec carries every other operator.

use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use sextant_sql::scan::TraceScanExec;
use sextant_sql::{wire, Log};

#[derive(Debug, Clone)]
pub(crate) struct ScanCodec {
    /// The process's passes at once, shared by every scan it executes.
    pub(crate) gate: Arc<tokio::sync::Semaphore>,
    /// The coordinator's query log; `None` on a worker, where each scan
    /// has a worker's log of its own, said as it goes and carried back to
    /// the coordinator in the scan's metrics.
    pub(crate) log: Option<Arc<Log>>,
}

impl PhysicalExtensionCodec for ScanCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        _ctx: &TaskContext,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if !inputs.is_empty() {
            return Err(DataFusionError::Internal(format!(
                "a trace scan has no inputs, {} were sent",
                inputs.len()
            )));
        }
        let log = self.log.clone().unwrap_or_else(|| Arc::new(Log::worker()));
        Ok(Arc::new(wire::decode(buf, self.gate.clone(), log)?))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(scan) = node.downcast_ref::<TraceScanExec>() else {
            return Err(DataFusionError::Internal(format!(
                "{} cannot be sent to a worker: only trace scans are sextant's",
                node.name()
            )));
        };
        buf.extend_from_slice(&wire::encode(scan)?);
        Ok(())
    }
}
