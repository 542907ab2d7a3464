//! A worker's warnings and counts, carried to the coordinator as metrics of
//! its trace scans. A distributed engine sends each task's metrics, with
//! their labels, back to the coordinator once the query's answer is out:
//! the one thing of a worker's that comes back besides the rows, and which
//! leaves the rows as they are. Each warning is a count of one, labelled
//! with the trace's path as the worker read it and the warning's text; the
//! coordinator says it again of the trace as the user named it.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::error::Result;
use datafusion::physical_plan::metrics::{Count, Label, Metric, MetricValue};
use datafusion::physical_plan::ExecutionPlan;

use crate::fleet::Trace;
use crate::Log;

const WARNING: &str = "sextant_warning";
const TRACE: &str = "trace";
const TEXT: &str = "warning";
const FROM_STORE: &str = "sextant_executions_from_store";
const BY_PASS: &str = "sextant_executions_by_pass";

fn count(name: &'static str, n: usize, labels: Vec<Label>) -> Arc<Metric> {
    let count = Count::new();
    count.add(n);
    Arc::new(Metric::new_with_labels(
        MetricValue::Count {
            name: Cow::Borrowed(name),
            count,
        },
        None,
        labels,
    ))
}

/// What a worker's log holds, as its scan's metrics.
pub(crate) fn metrics(log: &Log) -> Vec<Arc<Metric>> {
    // A worker's scans warn of their traces only.
    let mut all: Vec<Arc<Metric>> = log
        .said()
        .into_iter()
        .filter_map(|w| {
            let labels = vec![
                Label::new(TRACE, w.trace?.display().to_string()),
                Label::new(TEXT, w.text),
            ];
            Some(count(WARNING, 1, labels))
        })
        .collect();
    let (stored, read) = log.executions();
    if stored + read > 0 {
        all.push(count(FROM_STORE, stored, Vec::new()));
        all.push(count(BY_PASS, read, Vec::new()));
    }
    all
}

/// Says again in `log` what the workers' scans carried in the metrics of
/// `plan`'s operators (a plan the engine has given its workers' metrics),
/// each warning of the trace of `traces` the worker read: with the path
/// the user gave in place of the worker's absolute one, also in the
/// warning's text (the engine's messages name the file they read).
pub(crate) fn said_again(plan: &Arc<dyn ExecutionPlan>, traces: &[Trace], log: &Log) -> Result<()> {
    let read_at: Vec<(String, &Trace)> = traces
        .iter()
        .filter_map(|t| {
            let at = std::path::absolute(&t.path).ok()?;
            Some((at.display().to_string(), t))
        })
        .collect();
    plan.apply(|node| {
        for metric in node.metrics().unwrap_or_default().iter() {
            let MetricValue::Count { name, count } = metric.value() else {
                continue;
            };
            let label = |wanted: &str| {
                metric
                    .labels()
                    .iter()
                    .find(|l| l.name() == wanted)
                    .map(Label::value)
            };
            match name.as_ref() {
                WARNING => {
                    let (Some(at), Some(text)) = (label(TRACE), label(TEXT)) else {
                        continue;
                    };
                    match read_at.iter().find(|(a, _)| a == at) {
                        Some((at, trace)) => {
                            let named = trace.path.display().to_string();
                            log.warn(trace, &text.replace(at.as_str(), &named));
                        }
                        // Not one of the query's traces: said as read.
                        None => log.warn_at(&PathBuf::from(at), text),
                    }
                }
                FROM_STORE => log.counted_many(count.value(), 0),
                BY_PASS => log.counted_many(0, count.value()),
                _ => {}
            }
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::Kind;
    use crate::scan::TraceScanExec;
    use crate::tables::with_place;
    use crate::Reading;
    use sextant_engine::reader::OpenOptions;
    use std::path::Path;

    fn trace(path: &Path) -> Trace {
        Trace {
            path: path.to_path_buf(),
            name: "a.txt".into(),
            host: "h".into(),
        }
    }

    /// A worker's scan, whose log holds what its passes said.
    fn scan(log: Arc<Log>, read: Trace) -> Arc<dyn ExecutionPlan> {
        let gate = Arc::new(tokio::sync::Semaphore::new(1));
        let reading = Reading::new(None, OpenOptions::default(), gate, log);
        let kind = Kind::ThreadStates;
        let table = with_place(&kind.schema());
        let scan = TraceScanExec::try_new(
            kind,
            vec![Arc::new(read)],
            1,
            table,
            None,
            None,
            Arc::new(reading),
        );
        Arc::new(scan.unwrap())
    }

    #[test]
    fn a_workers_lines_and_counts_come_back_as_the_user_named_the_traces() {
        let named = trace(Path::new("fleet/a.txt"));
        let at = std::path::absolute(&named.path).unwrap();
        let worker = Arc::new(Log::worker());
        let read = trace(&at);
        worker.warn(
            &read,
            &format!("no event `x` in {}, which has 4", at.display()),
        );
        worker.warn_at(Path::new("/elsewhere/b.txt"), "kept as read");
        worker.counted(false);
        worker.counted(false);
        worker.counted(true);
        let user = Log::default();
        said_again(&scan(worker, read), std::slice::from_ref(&named), &user).unwrap();
        assert_eq!(
            user.warnings(),
            [
                "/elsewhere/b.txt: kept as read",
                "fleet/a.txt: no event `x` in fleet/a.txt, which has 4"
            ]
        );
        assert_eq!(user.executions(), (1, 2));

        // The coordinator's own scans carry nothing: their log is the user's.
        let coordinator = Arc::new(Log::default());
        coordinator.warn(&named, "said once");
        coordinator.counted(true);
        said_again(
            &scan(coordinator.clone(), named.clone()),
            &[named],
            &coordinator,
        )
        .unwrap();
        assert_eq!(coordinator.warnings(), ["fleet/a.txt: said once"]);
        assert_eq!(coordinator.executions(), (1, 0));
    }
}
