//! `sextant export`: executions, thread states or events as a table file
//! (Arrow IPC, Parquet, CSV) for pandas, DuckDB and the like; columns in
//! `schemas/exports.md`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use sextant_engine::export::{self, Format, TableFile};
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::Ran;
use sextant_engine::session::executions::Found;
use sextant_engine::session::Session;

use super::analyze::{TargetArgs, Timeline};
use super::placement::StoreArgs;
use super::progress;

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["model", "preset", "events", "states"]))]
pub struct Request {
    /// Trace: CTF directory, ftrace text file, trace-cmd trace.dat or BTF file.
    pub trace: PathBuf,
    #[command(flatten)]
    pub what: TargetArgs,
    #[command(flatten)]
    pub host: super::hosts::HostArg,
    /// Every event: time, name, CPU, thread, payload as JSON.
    #[arg(long)]
    pub events: bool,
    /// Every thread's state intervals.
    #[arg(long)]
    pub states: bool,
    /// arrow (IPC file), parquet or csv; by default from the extension of
    /// --out (.arrow, .parquet, .csv).
    #[arg(long)]
    pub format: Option<Format>,
    /// The file to write (replaced whole once complete).
    #[arg(long, required_unless_present = "dataset", conflicts_with = "dataset")]
    pub out: Option<PathBuf>,
    /// Write the table of every trace below TRACE as a Hive-partitioned
    /// Parquet dataset instead: DIR/TABLE/host=HOST/trace=TRACE/ (DuckDB,
    /// pyarrow, Spark).
    #[arg(long, value_name = "DIR")]
    pub dataset: Option<PathBuf>,
    /// Skip malformed rows of a BTF file (counted in the warnings) instead
    /// of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// With --model or --preset: where the executions are stored.
    #[command(flatten)]
    pub store: StoreArgs,
}

/// One table to one file (`--dataset` goes to `dataset::run` instead).
pub fn run(req: Request) -> anyhow::Result<()> {
    let out = req
        .out
        .as_deref()
        .expect("clap requires --out without --dataset");
    let format = match req.format {
        Some(f) => f,
        None => format_of(out)?,
    };
    let options = OpenOptions {
        lenient: req.lenient,
        host: req.host.pick(&req.trace)?,
        ..OpenOptions::default()
    };
    let (rows, what, warnings) = if req.events {
        let mut file = TableFile::create(out, format, export::events::schema())?;
        let session = Session::open(&req.trace, options, None);
        let ran = progress::shown("exporting", |work| {
            session.events_table(&Default::default(), &mut file, work)
        })?;
        file.finish()?;
        (ran.summary.events, "events", ran.warnings)
    } else if req.states {
        let session = Session::open(&req.trace, options, None);
        let (states, Ran { warnings, .. }) = progress::shown("exporting", |work| {
            session.thread_states(options.host, work)
        })
        .map_err(anyhow::Error::from_boxed)?;
        let mut file = TableFile::create(out, format, export::states::schema())?;
        let rows = export::states::write(&states, &mut file)?;
        file.finish()?;
        (rows, "thread state intervals", warnings)
    } else {
        let asked = req.what.asked()?;
        // Every host of the trace (or the one --host names), as analyze
        // reads them: a host column when there are several.
        let Found {
            executions,
            ran: Ran { warnings, .. },
            hosts,
            ..
        } = super::analyze::find(
            &Session::open(
                &req.trace,
                OpenOptions {
                    lenient: req.lenient,
                    ..OpenOptions::default()
                },
                req.store.places(),
            ),
            &asked,
            &req.host,
            Timeline::Shared,
        )?;
        let rows: Vec<_> = executions.executions.iter().collect();
        let names: Option<Vec<&str>> = (hosts.names.len() > 1).then(|| {
            rows.iter()
                .map(|e| hosts.of(e).unwrap_or_default())
                .collect()
        });
        let batch = export::executions::table(&executions, &rows, names.as_deref())
            .context("building the table")?;
        let mut file = TableFile::create(out, format, batch.schema())?;
        file.write(&batch)?;
        file.finish()?;
        (batch.num_rows() as u64, "executions", warnings)
    };
    for w in &warnings {
        eprintln!("sextant: warning: {w}");
    }
    eprintln!("sextant: {rows} {what} into {}", out.display());
    Ok(())
}

/// The format an output file's extension names.
fn format_of(out: &Path) -> anyhow::Result<Format> {
    match out.extension().and_then(|e| e.to_str()) {
        Some("arrow") => Ok(Format::Arrow),
        Some("parquet") => Ok(Format::Parquet),
        Some("csv") => Ok(Format::Csv),
        _ => bail!(
            "--format arrow|parquet|csv is needed: {} ends in none of .arrow, .parquet, .csv",
            out.display()
        ),
    }
}
