//! `sextant analyze`: every execution of a model, ranked, with statistics.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use serde::Serialize;
use sextant_engine::analysis::executions::{Execution, Executions, SortKey};
use sextant_engine::analysis::model::request::Request as Asked;
use sextant_engine::analysis::model::{parse_model, Preset};
use sextant_engine::analysis::stats::Stats;
use sextant_engine::duration::human;
use sextant_engine::export;
use sextant_engine::kernel::pass::PassSummary;
use sextant_engine::kernel::priority;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::Ran;
use sextant_engine::session::executions::Found;
use sextant_engine::session::hosts::HostsOf;
use sextant_engine::session::Session;

use super::clock::{Clock, ClockArg};
use super::hosts::HostArg;
use super::placement::StoreArgs;
use super::progress;
use super::AnalyzeFormat;

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["model", "preset"]))]
pub struct Request {
    /// Trace: CTF directory, ftrace text file, trace-cmd trace.dat or BTF file.
    pub trace: PathBuf,
    #[command(flatten)]
    pub what: TargetArgs,
    #[command(flatten)]
    pub host: HostArg,
    /// Skip malformed rows of a BTF file (counted in the warnings) instead
    /// of stopping at the first.
    #[arg(long)]
    pub lenient: bool,

    /// Threads reading a CTF trace (default: one per core; one for a trace
    /// of less than 32 MiB of streams); the model and the analyses run on
    /// one, in time order.
    #[arg(long)]
    pub jobs: Option<std::num::NonZeroUsize>,

    /// Order: duration, running, preempted, blocked, waiting, start.
    #[arg(long, default_value = "duration")]
    pub sort: SortKey,
    /// Only the first N (table: 20 by default).
    #[arg(long)]
    pub top: Option<usize>,
    #[arg(long, value_enum)]
    pub format: Option<AnalyzeFormat>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub clock: ClockArg,
}

/// What to find: a model or a preset with its threads. `explain` takes the
/// same (its `what` group requires `--model` or `--preset`).
#[derive(clap::Args)]
pub struct TargetArgs {
    /// Execution model: a JSON file, or the JSON itself. Its times are ns
    /// or a number with a unit: "deadline": "1ms", "250us", "1.5ms", "2s".
    #[arg(long)]
    pub model: Option<String>,
    /// Ready-made model: whole-thread, running, blocking, periodic, task-instance.
    #[arg(long)]
    pub preset: Option<String>,
    /// With --preset: only these threads (a thread the trace does not have
    /// is an error that names those it has).
    #[arg(long = "tid")]
    pub tids: Vec<i64>,
    /// With --preset: only threads whose name matches this regex.
    #[arg(long)]
    pub process: Option<String>,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let asked = req.what.asked()?;
    let format = req.format.unwrap_or(if std::io::stdout().is_terminal() {
        AnalyzeFormat::Table
    } else {
        AnalyzeFormat::Json
    });
    let options = OpenOptions {
        lenient: req.lenient,
        jobs: req.jobs,
        ..OpenOptions::default()
    };
    let Found {
        executions,
        ran: Ran { summary, warnings },
        hosts,
        ..
    } = find(
        &Session::open(&req.trace, options, req.store.places()),
        &asked,
        &req.host,
        Timeline::Shared,
    )?;
    for w in &warnings {
        eprintln!("sextant: warning: {w}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match format {
        AnalyzeFormat::Json => write_json(
            &mut out,
            &executions,
            &summary,
            &warnings,
            &hosts,
            req.sort,
            req.top,
        )?,
        AnalyzeFormat::Csv => write_csv(&mut out, &executions, &hosts, req.sort, req.top)?,
        AnalyzeFormat::Table => {
            req.clock.clock.check(summary.first_ts, &req.trace)?;
            write_table(
                &mut out,
                &executions,
                &hosts,
                &summary,
                req.clock.clock,
                (req.sort, req.top.or(Some(20))),
            )?
        }
    }
    out.flush().context("writing to standard output")
}

impl TargetArgs {
    /// The model (file or inline JSON) or preset asked for.
    pub(super) fn asked(&self) -> anyhow::Result<Asked> {
        let (model, preset, tids, process) = (
            self.model.as_deref(),
            self.preset.as_deref(),
            &self.tids,
            self.process.as_deref(),
        );
        let filter = || super::thread_filter(tids, process);
        match (model, preset) {
            (Some(m), None) => {
                if !tids.is_empty() || process.is_some() {
                    bail!(
                    "--tid and --process go with --preset; a model says its threads in `threads`"
                );
                }
                let (text, source) = if m.trim_start().starts_with('{') {
                    (m.to_string(), "--model")
                } else {
                    let text = std::fs::read_to_string(m)
                        .with_context(|| format!("reading the model {m}"))?;
                    (text, m)
                };
                // "model.json: deadline: expected a duration ...": the file,
                // then the field.
                let model = parse_model(&text).map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
                Ok(Asked::model(model))
            }
            (None, Some(p)) => {
                let preset: Preset = p.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
                Ok(Asked::preset(preset, filter()?, tids.clone()))
            }
            _ => bail!("give exactly one of --model FILE|JSON and --preset NAME"),
        }
    }
}

/// How `analyze`, `explain` and `export` find executions: on the
/// timeline `sextant sync` stored (`analyze`, `export`), or each host in
/// its own clock (`explain`, which reads one execution's host again).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Timeline {
    Shared,
    EachHost,
}

/// The first pass of `analyze` (and of `explain`, `export`): every
/// execution, from the store or a pass (with a progress bar), and what the
/// store had to say printed as warnings.
pub(super) fn find(
    session: &Session,
    asked: &Asked,
    host: &HostArg,
    timeline: Timeline,
) -> anyhow::Result<Found> {
    let found = progress::shown("analyzing", |work| match timeline {
        Timeline::Shared => session.executions(asked, host.named(), work),
        Timeline::EachHost => session.executions_each(asked, host.named(), work),
    })
    .map_err(anyhow::Error::from_boxed)?;
    for n in &found.notes {
        eprintln!("sextant: warning: {n}");
    }
    if let Some(dir) = &found.kept {
        eprintln!("sextant: executions stored in {}", dir.display());
    }
    Ok(found)
}

fn chosen(executions: &Executions, sort: SortKey, top: Option<usize>) -> Vec<&Execution> {
    let mut v = executions.sorted(sort);
    if let Some(n) = top {
        v.truncate(n);
    }
    v
}

fn write_json(
    out: &mut impl Write,
    executions: &Executions,
    summary: &PassSummary,
    warnings: &[String],
    hosts: &HostsOf,
    sort: SortKey,
    top: Option<usize>,
) -> anyhow::Result<()> {
    // Serialized straight from the executions: no intermediate JSON tree.
    #[derive(Serialize)]
    struct Trace<'a> {
        events: u64,
        decoded: u64,
        start: Option<i64>,
        end: i64,
        repairs: u64,
        warnings: &'a [String],
    }
    #[derive(Serialize)]
    struct Row<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        host: Option<&'a str>,
        #[serde(flatten)]
        execution: &'a Execution,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        model: &'a str,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        hosts: &'a [String],
        executions: Vec<Row<'a>>,
        stats: Option<Stats>,
        incomplete: u64,
        deadline: Option<i64>,
        trace: Trace<'a>,
    }
    let doc = Doc {
        model: &executions.name,
        hosts: &hosts.names,
        executions: chosen(executions, sort, top)
            .into_iter()
            .map(|execution| Row {
                host: hosts.of(execution),
                execution,
            })
            .collect(),
        stats: executions.stats(),
        incomplete: executions.incomplete,
        deadline: executions.deadline,
        trace: Trace {
            events: summary.events,
            decoded: summary.decoded,
            start: summary.first_ts,
            end: summary.last_ts,
            repairs: summary.repairs,
            warnings,
        },
    };
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}

/// The executions as `export --format csv` writes them (one writer for
/// both), with a `host` column last when the trace has several hosts.
fn write_csv(
    out: &mut impl Write,
    executions: &Executions,
    hosts: &HostsOf,
    sort: SortKey,
    top: Option<usize>,
) -> anyhow::Result<()> {
    let rows = chosen(executions, sort, top);
    let names: Option<Vec<&str>> = (hosts.names.len() > 1).then(|| {
        rows.iter()
            .map(|e| hosts.of(e).unwrap_or_default())
            .collect()
    });
    let batch = export::executions::table(executions, &rows, names.as_deref())
        .context("building the table")?;
    export::write_csv(out, &batch).context("writing CSV")
}

/// Nested executions listed under each row of the table.
const NESTED_SHOWN: usize = 10;

/// The priority column's header: as users set it, the kernel's number in
/// parentheses (JSON and CSV keep the kernel number alone, as `prio`).
const PRIORITY: &str = "priority (kernel)";

fn write_table(
    out: &mut impl Write,
    executions: &Executions,
    hosts: &HostsOf,
    summary: &PassSummary,
    clock: Clock,
    (sort, top): (SortKey, Option<usize>),
) -> anyhow::Result<()> {
    let origin = summary.first_ts.unwrap_or(0);
    writeln!(
        out,
        "{}: {} executions ({} incomplete) in {} events",
        executions.name,
        executions.executions.len(),
        executions.incomplete,
        summary.events
    )?;
    if let Some(s) = executions.stats() {
        write_stats(out, &s)?;
    }
    let rows = chosen(executions, sort, top);
    if rows.is_empty() {
        return Ok(());
    }
    // A host column when several were read, as wide as their names.
    let width = hosts.names.iter().map(|n| n.chars().count()).max();
    let host = |h: Option<&str>| match width {
        Some(w) if hosts.names.len() > 1 => format!("{:<w$}  ", h.unwrap_or_default()),
        _ => String::new(),
    };
    // Every row shown (nested ones under their parent, which gives their
    // host), so that columns are as wide as their widest cell.
    let shown: Vec<(&Execution, &Execution)> = rows
        .iter()
        .flat_map(|e| {
            std::iter::once(*e)
                .chain(e.nested.iter().take(NESTED_SHOWN))
                .map(move |x| (*e, x))
        })
        .collect();
    let widest = |header: &str, cell: &dyn Fn(&Execution, &Execution) -> String| {
        shown
            .iter()
            .map(|(e, x)| cell(e, x).chars().count())
            .fold(header.chars().count(), usize::max)
    };
    let priority = |x: &Execution| priority::cell(x.prio, x.btf.is_some());
    // Nested executions are on their parent's host: one origin for both.
    let start =
        |e: &Execution, x: &Execution| clock.show(x.start, hosts.origin(e).unwrap_or(origin));
    let start_header = format!("start ({})", clock.unit());
    let cw = widest("cpus", &|_, x| export::executions::cpu_list(&x.cpus));
    let sw = widest(&start_header, &start);
    let pw = widest(PRIORITY, &|_, x| priority(x));
    writeln!(
        out,
        "\n{:>5} {:>6} {:>sw$} {:>11} {:>11} {:>11} {:>11} {:>11} {}{:>8}  {:<16} {:>cw$}  {:<pw$}",
        "rank",
        "index",
        start_header,
        "duration",
        "running",
        "preempted",
        "blocked",
        "waiting",
        host(Some("host")),
        "tid",
        "comm",
        "cpus",
        PRIORITY,
    )?;
    for (rank, e) in rows.iter().enumerate() {
        let row = |out: &mut dyn Write, rank: String, index: String, x: &Execution| {
            writeln!(
                out,
                "{:>5} {:>6} {:>sw$} {:>11} {:>11} {:>11} {:>11} {:>11} {}{:>8}  {:<16} {:>cw$}  {:<pw$} {}",
                rank,
                index,
                start(e, x),
                human(x.duration),
                human(x.running),
                human(x.preempted),
                human(x.blocked),
                human(x.waiting),
                host(hosts.of(e)),
                x.tid,
                x.end_comm,
                export::executions::cpu_list(&x.cpus),
                priority(x),
                if x.deadline_miss == Some(true) {
                    "MISS"
                } else {
                    ""
                }
            )
        };
        row(out, (rank + 1).to_string(), e.index.to_string(), e)?;
        // A nested model's executions under their parent, in start order:
        // the table shows what the JSON holds.
        for (k, n) in e.nested.iter().enumerate().take(NESTED_SHOWN) {
            row(out, String::new(), format!("└{}", k + 1), n)?;
        }
        if e.nested.len() > NESTED_SHOWN {
            writeln!(
                out,
                "{:>12} ({} more nested; --format json for all)",
                "└",
                e.nested.len() - NESTED_SHOWN
            )?;
        }
    }
    if rows.iter().any(|e| !e.nested.is_empty()) {
        writeln!(
            out,
            "(└K: the K-th execution of the nested model inside the row above)"
        )?;
    }
    // A chain's times are one thread's: say which, and where the rest is.
    if rows.iter().any(|e| e.start_tid != e.end_tid) {
        writeln!(
            out,
            "(running, preempted, blocked and waiting are the tid's own, the thread measured; \
             `sextant explain --execution INDEX` gives each thread of the chain its part)"
        )?;
    }
    if rows.len() < executions.executions.len() {
        writeln!(
            out,
            "({} more; --top N or --format json for all)",
            executions.executions.len() - rows.len()
        )?;
    }
    Ok(())
}

fn write_stats(out: &mut impl Write, s: &Stats) -> anyhow::Result<()> {
    writeln!(
        out,
        "duration: min {}  mean {}  p50 {}  p90 {}  p99 {}  max {}  stddev {}",
        human(s.min),
        human(s.mean.round() as i64),
        human(s.p50),
        human(s.p90),
        human(s.p99),
        human(s.max),
        human(s.stddev.round() as i64)
    )?;
    if let Some(m) = s.deadline_misses {
        writeln!(out, "deadline misses: {m} of {}", s.count)?;
    }
    Ok(())
}
