//! `sextant sql`: a SQL query over many traces (`sextant_sql`), its answer
//! as a table, CSV, JSON or Parquet.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context};
use sextant_engine::export::Format;
use sextant_engine::reader::OpenOptions;
use sextant_sql::output::{self, Sink};
use sextant_sql::{Log, Query};

use super::placement::StoreArgs;

#[derive(clap::Args)]
pub struct Request {
    /// The query. Tables: events, thread_states, threads,
    /// executions('MODEL.json' | 'preset:NAME') and tasks([MIN_JOBS [,
    /// DEADLINE]]) (sextant tasks' --min-jobs and --deadline: tasks(20,
    /// 0.8), tasks(10, '2ms')), each with host and trace columns.
    pub query: String,
    /// Traces, or folders: every trace below a folder (its `trace` column
    /// is its path relative to the folder).
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// table (the default on a terminal), csv (the default when piped),
    /// json (one array of row objects) or parquet (needs --out).
    #[arg(long, value_enum)]
    pub format: Option<SqlFormat>,
    /// Write the answer to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Skip malformed rows of a BTF file (counted in the warnings) instead
    /// of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// Where each trace's executions are stored (a second identical query
    /// reads them instead of the trace).
    #[command(flatten)]
    pub store: StoreArgs,
    /// Run the query on these workers of a distributed engine (URLs as
    /// `sextant worker` prints them, http://HOST:PORT, comma-separated)
    /// instead of in this process; every worker reads the traces it is
    /// given from their paths, so they must see the same files.
    #[cfg(feature = "cluster")]
    #[arg(long, value_name = "URL[,URL...]")]
    pub cluster: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum SqlFormat {
    Table,
    Csv,
    Json,
    Parquet,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let format = req
        .format
        .unwrap_or(if req.out.is_none() && std::io::stdout().is_terminal() {
            SqlFormat::Table
        } else {
            SqlFormat::Csv
        });
    let out: Box<dyn Write> = match &req.out {
        Some(path) if format != SqlFormat::Parquet => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        Some(_) => Box::new(std::io::sink()),
        None if format == SqlFormat::Parquet => {
            bail!("--format parquet writes a file: give it with --out FILE")
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut sink: Box<dyn Sink> = match (format, &req.out) {
        (SqlFormat::Table, _) => Box::new(output::Table::new(out)),
        (SqlFormat::Csv, _) => Box::new(output::Csv::new(out)),
        (SqlFormat::Json, _) => Box::new(output::Json::new(out)),
        (SqlFormat::Parquet, Some(path)) => Box::new(output::File::new(path, Format::Parquet)),
        (SqlFormat::Parquet, None) => unreachable!("refused above"),
    };
    let log = Arc::new(Log::default());
    let query = Query {
        sql: req.query.clone(),
        traces: req.traces.clone(),
        places: req.store.places(),
        options: OpenOptions {
            lenient: req.lenient,
            ..OpenOptions::default()
        },
    };
    let done = execute(query, sink.as_mut(), log.clone(), &req);
    for w in log.warnings() {
        eprintln!("sextant: warning: {w}");
    }
    let (stored, read) = log.executions();
    if stored + read > 0 {
        eprintln!("sextant: executions of {read} traces found by a pass, of {stored} read from their store");
    }
    done
}

/// In this process, or on the workers `--cluster` names.
fn execute(
    query: Query,
    sink: &mut dyn Sink,
    log: Arc<Log>,
    #[cfg_attr(not(feature = "cluster"), allow(unused_variables))] req: &Request,
) -> anyhow::Result<()> {
    #[cfg(feature = "cluster")]
    if let Some(list) = &req.cluster {
        let urls = sextant_cluster::urls::parse(list)?;
        return Ok(sextant_cluster::run(query, sink, log, urls)?);
    }
    Ok(sextant_sql::run(query, sink, log)?)
}
