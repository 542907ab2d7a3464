//! Command-line surface (the contract is README.md's command table and the
//! schemas of the JSON outputs): one module per subcommand.

mod analyze;
mod capture;
mod clock;
mod convert;
mod dataset;
mod discover;
mod dump;
mod explain;
mod export;
mod hosts;
mod placement;
mod progress;
mod serve;
mod shell;
#[cfg(feature = "sql")]
mod sql;
mod store;
mod sync;
mod tasks;
#[cfg(feature = "cluster")]
mod worker;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use sextant_engine::analysis::model::ThreadFilter;
use sextant_engine::hosts::HostPick;
use sextant_engine::reader::{AnyReader, OpenOptions};

#[derive(Parser)]
#[command(
    name = "sextant",
    version,
    about = "Finds the late jobs of real-time tasks in kernel traces and explains them"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every event of a trace, in time order.
    Dump {
        /// CTF trace directory (or a directory holding several traces),
        /// ftrace text file, trace-cmd trace.dat or BTF file.
        trace: PathBuf,
        #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
        format: DumpFormat,
        /// Do not decode payloads: names, times and CPUs only.
        #[arg(long)]
        no_payload: bool,
        /// Skip malformed rows of a BTF file (counted in the warnings)
        /// instead of stopping at the first.
        #[arg(long)]
        lenient: bool,
        /// Threads reading a CTF trace (default: one per core; one for a
        /// trace of less than 32 MiB of streams).
        #[arg(long)]
        jobs: Option<NonZeroUsize>,
        /// The text format's times (`[+S.NNNNNNNNN]` from the first
        /// event, `[S.NNNNNNNNN]` on the trace's clock, or a UTC date).
        #[command(flatten)]
        clock: clock::ClockArg,
    },
    /// Find every execution of a model (or preset) and measure it.
    Analyze(analyze::Request),
    /// Why an execution was late: critical path, who ran instead (priority
    /// inversions), related threads, kernel facilities.
    Explain(explain::Request),
    /// Suggest execution models: frequent event patterns of threads (MANEPI).
    Discover(discover::Request),
    /// Write executions, thread states or events as a table file (Arrow,
    /// Parquet, CSV).
    Export(export::Request),
    /// Serve traces over the Trace Server Protocol (HTTP, under /tsp/api).
    Serve(serve::Request),
    /// What sextant stored for a trace (index, executions): ls, rm, gc.
    Store(store::Request),
    /// The real-time tasks of a trace, found by themselves: periods,
    /// response times, deadline misses, and a model of each task's jobs.
    Tasks(tasks::Request),
    /// Record a trace: the kernel through tracefs, or a CoreSight STM capture.
    Capture(capture::Request),
    /// Write CTF 1.8 traces as CTF 2 (metadata translated, streams copied).
    Convert(convert::Request),
    /// A SQL query over many traces: events, thread_states, threads,
    /// executions('MODEL.json' | 'preset:NAME') and tasks(), each with host
    /// and trace.
    #[cfg(feature = "sql")]
    Sql(sql::Request),
    /// A worker of a distributed SQL engine (datafusion-distributed, Arrow
    /// Flight): prints its URL, to give `sextant sql --cluster`.
    #[cfg(feature = "cluster")]
    Worker(worker::Request),
    /// Put several hosts' traces on one timeline from the TCP packets they
    /// exchanged: each host pair's clock correction and its quality, kept
    /// for `analyze`.
    Sync(sync::Request),
    /// Print a completion script for a shell (bash, zsh, fish).
    Completions {
        #[arg(value_enum)]
        shell: shell::CompletionShell,
    },
    /// Print the man page (roff), generated from this command's definition.
    Man,
}

pub use shell::{command, parse};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AnalyzeFormat {
    /// A ranked table with the statistics (the default on a terminal).
    Table,
    /// `{"executions":[...],"stats":{...},...}` (the default when piped).
    Json,
    /// One line per execution.
    Csv,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum DumpFormat {
    /// One JSON object per line: {"ts","name","cpu","fields"}.
    Jsonl,
    /// One readable line per event.
    Text,
    /// Decode everything, print only a summary (for benchmarks).
    None,
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Dump {
            trace,
            format,
            no_payload,
            lenient,
            jobs,
            clock,
        } => dump::run(
            &trace,
            format,
            no_payload,
            clock.clock,
            OpenOptions {
                lenient,
                jobs,
                // A listing of events builds no model from them: every
                // host's events on one timeline, as babeltrace2 shows them.
                host: HostPick::All,
            },
        ),
        Command::Analyze(req) => analyze::run(req),
        Command::Discover(req) => discover::run(req),
        Command::Explain(req) => explain::run(req),
        Command::Export(req) => match &req.dataset {
            Some(dir) => dataset::run(dir, &req),
            None => export::run(req),
        },
        Command::Serve(req) => serve::run(req),
        Command::Capture(req) => capture::run(req),
        Command::Convert(req) => convert::run(req),
        Command::Store(req) => store::run(req),
        #[cfg(feature = "sql")]
        Command::Sql(req) => sql::run(req),
        #[cfg(feature = "cluster")]
        Command::Worker(req) => worker::run(req),
        Command::Sync(req) => sync::run(req),
        Command::Tasks(req) => tasks::run(req),
        Command::Completions { shell } => {
            shell::completions(shell, &mut std::io::stdout().lock());
            Ok(())
        }
        Command::Man => Ok(shell::man(&mut std::io::stdout().lock())?),
    }
}

/// The threads chosen by `--tid` (any of them) and `--process` (a regex on the
/// thread's name at the time), as analyses take them.
fn thread_filter(tids: &[i64], process: Option<&str>) -> anyhow::Result<ThreadFilter> {
    let process = process
        .map(regex::Regex::new)
        .transpose()
        .context("--process is not a valid regular expression")?;
    Ok(ThreadFilter {
        tids: (!tids.is_empty()).then(|| tids.iter().copied().collect()),
        process,
    })
}

/// Opens a trace for a command.
fn open_trace(trace: &Path, options: OpenOptions) -> anyhow::Result<AnyReader> {
    Ok(AnyReader::open_with(trace, options)?)
}
