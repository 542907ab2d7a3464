//! `sextant export --dataset DIR`: one table of every trace below the
//! argument as a Hive-partitioned Parquet dataset (`sextant_sql::dataset`).

use std::path::Path;

use super::export::Request;

#[cfg(feature = "sql")]
pub fn run(dir: &Path, req: &Request) -> anyhow::Result<()> {
    use std::sync::Arc;

    use anyhow::bail;
    use sextant_engine::reader::OpenOptions;
    use sextant_sql::dataset::{self, Table};
    use sextant_sql::{Log, Query};

    if req
        .format
        .is_some_and(|f| f != sextant_engine::export::Format::Parquet)
    {
        bail!("a dataset is Parquet: leave --format out");
    }
    if req.host.host.is_some() {
        bail!("a dataset holds every host (its host= folders): leave --host out");
    }
    let preset;
    let (table, what) = if req.events {
        (Table::Events, "events")
    } else if req.states {
        (Table::ThreadStates, "thread state intervals")
    } else if let Some(model) = &req.what.model {
        (Table::Executions(model), "executions")
    } else if let Some(name) = &req.what.preset {
        if !req.what.tids.is_empty() || req.what.process.is_some() {
            bail!("--tid and --process do not go with --dataset: a dataset holds every thread");
        }
        preset = format!("preset:{name}");
        (Table::Executions(&preset), "executions")
    } else {
        unreachable!("clap requires one of --events, --states, --model, --preset")
    };
    let log = Arc::new(Log::default());
    let query = Query {
        sql: String::new(),
        traces: vec![req.trace.clone()],
        places: req.store.places(),
        options: OpenOptions {
            lenient: req.lenient,
            ..OpenOptions::default()
        },
    };
    let written = dataset::write(dir, table, query, log.clone());
    for w in log.warnings() {
        eprintln!("sextant: warning: {w}");
    }
    let rows = written?;
    eprintln!("sextant: {rows} {what} into {}", dir.display());
    Ok(())
}

#[cfg(not(feature = "sql"))]
pub fn run(_dir: &Path, _req: &Request) -> anyhow::Result<()> {
    anyhow::bail!("--dataset needs a sextant built with its `sql` feature")
}
