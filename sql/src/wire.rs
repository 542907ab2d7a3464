//! A `TraceScanExec` as bytes, for a distributed engine to send to the
//! worker that executes it: which table (with the filters on `events`
//! pushed down, the model of `executions()`, the options of `tasks()`, the
//! model and K of `explain()`),
//! the traces by absolute path (the worker's working folder is not the
//! coordinator's), the projection and limit, and how to read the traces.
//! JSON: a scan is described once per task, never per row.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::physical_plan::ExecutionPlan;
use serde::{Deserialize, Serialize};
use sextant_engine::analysis::tasks::{Deadline, Options};
use sextant_engine::export::events::Only;
use sextant_engine::reader::OpenOptions;
use sextant_engine::store::{Placement, Places};

use crate::executions::asked;
use crate::explain::Explained;
use crate::fleet::Trace;
use crate::partition::Kind;
use crate::scan::TraceScanExec;
use crate::tables::with_place;
use crate::{Log, Reading};

#[derive(Serialize, Deserialize)]
struct Scan {
    table: Table,
    traces: Vec<WireTrace>,
    width: usize,
    projection: Option<Vec<usize>>,
    limit: Option<usize>,
    /// Where executions are stored (`None`: `--no-store`).
    store: Option<Store>,
    /// `OpenOptions` but its host, always one per trace in SQL (each
    /// table reads `HostPick::Sole`).
    lenient: bool,
    jobs: Option<usize>,
}

#[derive(Serialize, Deserialize)]
enum Table {
    Events {
        names: Option<BTreeSet<String>>,
        from: Option<i64>,
        until: Option<i64>,
    },
    ThreadStates,
    /// 'preset:NAME' or the model's JSON.
    Executions(String),
    Tasks {
        min_jobs: usize,
        deadline: WireDeadline,
    },
    /// The model as for `Executions`, and K.
    Explain {
        model: String,
        longest: usize,
    },
}

#[derive(Serialize, Deserialize)]
enum WireDeadline {
    Ratio(f64),
    Time(i64),
}

#[derive(Serialize, Deserialize)]
struct WireTrace {
    path: PathBuf,
    name: String,
    host: String,
}

#[derive(Serialize, Deserialize)]
struct Store {
    cache: PathBuf,
    beside: bool,
}

fn failed(what: &str, e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{what} a trace scan's wire form: {e}"))
}

/// The scan's description.
pub fn encode(scan: &TraceScanExec) -> Result<Vec<u8>> {
    let table = match &scan.kind {
        Kind::Events(only) => Table::Events {
            names: only.names.clone(),
            from: only.from,
            until: only.until,
        },
        Kind::ThreadStates => Table::ThreadStates,
        Kind::Executions(asked) => Table::Executions(asked.text.clone()),
        Kind::Tasks(options) => Table::Tasks {
            min_jobs: options.min_jobs,
            deadline: match options.deadline {
                Deadline::Ratio(r) => WireDeadline::Ratio(r),
                Deadline::Time(t) => WireDeadline::Time(t),
            },
        },
        Kind::Explain(asked) => Table::Explain {
            model: asked.model.text.clone(),
            longest: asked.longest,
        },
    };
    let traces = scan
        .traces
        .iter()
        .map(|t| {
            Ok(WireTrace {
                path: std::path::absolute(&t.path)
                    .map_err(|e| failed("writing", format!("{}: {e}", t.path.display())))?,
                name: t.name.clone(),
                host: t.host.clone(),
            })
        })
        .collect::<Result<_>>()?;
    let reading = &scan.reading;
    let wire = Scan {
        table,
        traces,
        width: scan.properties().partitioning.partition_count(),
        projection: scan.projection.clone(),
        limit: scan.limit,
        store: reading.places.as_ref().map(|p| Store {
            cache: p.cache.clone(),
            beside: p.placement == Placement::Beside,
        }),
        lenient: reading.options.lenient,
        jobs: reading.options.jobs.map(|n| n.get()),
    };
    serde_json::to_vec(&wire).map_err(|e| failed("writing", e))
}

/// The scan `bytes` describe, reading its traces with `gate`'s passes at
/// once and saying what it does in `log`.
pub fn decode(
    bytes: &[u8],
    gate: Arc<tokio::sync::Semaphore>,
    log: Arc<Log>,
) -> Result<TraceScanExec> {
    let wire: Scan = serde_json::from_slice(bytes).map_err(|e| failed("reading", e))?;
    let kind = match wire.table {
        Table::Events { names, from, until } => Kind::Events(Arc::new(Only { names, from, until })),
        Table::ThreadStates => Kind::ThreadStates,
        Table::Executions(text) => Kind::Executions(Arc::new(
            asked(&text).map_err(|e| failed("reading", format!("executions('{text}'): {e}")))?,
        )),
        Table::Tasks { min_jobs, deadline } => {
            let deadline = match deadline {
                WireDeadline::Ratio(r) => Deadline::Ratio(r),
                WireDeadline::Time(t) => Deadline::Time(t),
            };
            Kind::Tasks(Options::new(min_jobs, deadline).map_err(|e| failed("reading", e))?)
        }
        Table::Explain { model, longest } => Kind::Explain(Arc::new(Explained {
            model: asked(&model)
                .map_err(|e| failed("reading", format!("explain('{model}'): {e}")))?,
            longest,
        })),
    };
    let places = wire.store.map(|s| Places {
        cache: s.cache,
        placement: if s.beside {
            Placement::Beside
        } else {
            Placement::Cache
        },
    });
    let options = OpenOptions {
        lenient: wire.lenient,
        jobs: wire.jobs.and_then(std::num::NonZeroUsize::new),
        ..OpenOptions::default()
    };
    let reading = Reading::new(places, options, gate, log);
    let traces = wire
        .traces
        .into_iter()
        .map(|t| {
            Arc::new(Trace {
                path: t.path,
                name: t.name,
                host: t.host,
            })
        })
        .collect();
    let table = with_place(&kind.schema());
    TraceScanExec::try_new(
        kind,
        traces,
        wire.width,
        table,
        wire.projection,
        wire.limit,
        Arc::new(reading),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::Semaphore;

    fn scan(kind: Kind, places: Option<Places>) -> TraceScanExec {
        let reading = Reading::new(
            places,
            OpenOptions {
                lenient: true,
                ..OpenOptions::default()
            },
            Arc::new(Semaphore::new(1)),
            Arc::new(Log::default()),
        );
        let trace = Arc::new(Trace {
            path: "relative/x.txt".into(),
            name: "x.txt".into(),
            host: "h".into(),
        });
        let table = with_place(&kind.schema());
        TraceScanExec::try_new(
            kind,
            vec![trace],
            3,
            table,
            Some(vec![0, 3]),
            Some(7),
            Arc::new(reading),
        )
        .unwrap()
    }

    fn again(scan: &TraceScanExec) -> TraceScanExec {
        let bytes = encode(scan).unwrap();
        decode(
            &bytes,
            Arc::new(Semaphore::new(1)),
            Arc::new(Log::default()),
        )
        .unwrap()
    }

    #[test]
    fn a_scan_comes_back_as_it_was_sent() {
        let places = Places {
            cache: "/cache".into(),
            placement: Placement::Beside,
        };
        let only = Only {
            names: Some(BTreeSet::from(["sched_switch".to_string()])),
            from: Some(5),
            until: None,
        };
        let sent = scan(Kind::Events(Arc::new(only.clone())), Some(places.clone()));
        let back = again(&sent);
        assert!(matches!(&back.kind, Kind::Events(o) if **o == only));
        // Absolute: a worker's working folder is not the coordinator's.
        assert_eq!(
            back.traces()[0].path,
            std::path::absolute("relative/x.txt").unwrap()
        );
        assert_eq!(back.traces()[0].name, "x.txt");
        assert_eq!(
            (back.projection.clone(), back.limit),
            (Some(vec![0, 3]), Some(7))
        );
        assert_eq!(back.properties().partitioning.partition_count(), 3);
        assert_eq!(back.schema(), sent.schema());
        assert_eq!(back.reading.places, Some(places));
        assert!(back.reading.options.lenient);

        let tasks = Options::new(5, Deadline::Time(2_000_000)).unwrap();
        let back = again(&scan(Kind::Tasks(tasks), None));
        assert!(matches!(back.kind, Kind::Tasks(o) if o == tasks));
        assert_eq!(back.reading.places, None);

        let preset = asked("preset:running").unwrap();
        let back = again(&scan(Kind::Executions(Arc::new(preset)), None));
        assert!(matches!(&back.kind, Kind::Executions(a) if a.name == "running"));

        let explain = Explained {
            model: asked("preset:running").unwrap(),
            longest: 3,
        };
        let back = again(&scan(Kind::Explain(Arc::new(explain)), None));
        assert!(matches!(&back.kind,
            Kind::Explain(e) if e.model.name == "running" && e.longest == 3));
    }
}
