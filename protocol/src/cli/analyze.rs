//! `sextant analyze`: every execution of a model, ranked, with statistics.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Serialize;
use sextant_engine::analysis::executions::{
    Execution, ExecutionAnalysis, Executions, SortKey, Target,
};
use sextant_engine::analysis::model::{parse_model, Preset};
use sextant_engine::analysis::stats::Stats;
use sextant_engine::duration::human;
use sextant_engine::kernel::pass::PassSummary;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::{Pass, Ran};
use sextant_engine::store::results::{self, Key, Source, StoredExecutions};
use sextant_engine::store::{Places, TraceStore};

use super::placement::StoreArgs;
use super::progress;
use super::AnalyzeFormat;

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["model", "preset"]))]
pub struct Request {
    /// Trace: CTF directory, ftrace text file or BTF file.
    pub trace: PathBuf,
    #[command(flatten)]
    pub what: TargetArgs,
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
    /// Neither read the executions from the trace's store nor store them.
    #[arg(long, conflicts_with_all = ["placement", "cache_dir"])]
    pub no_store: bool,
}

/// What to find: a model or a preset with its threads. `explain` takes the
/// same (its `what` group requires `--model` or `--preset`).
#[derive(clap::Args)]
pub struct TargetArgs {
    /// Execution model: a JSON file, or the JSON itself.
    #[arg(long)]
    pub model: Option<String>,
    /// Ready-made model: whole-thread, running, blocking, periodic, task-instance.
    #[arg(long)]
    pub preset: Option<String>,
    /// With --preset: only these threads.
    #[arg(long = "tid")]
    pub tids: Vec<i64>,
    /// With --preset: only threads whose name matches this regex.
    #[arg(long)]
    pub process: Option<String>,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let target = req.what.target()?;
    let format = req.format.unwrap_or(if std::io::stdout().is_terminal() {
        AnalyzeFormat::Table
    } else {
        AnalyzeFormat::Json
    });
    let options = OpenOptions {
        lenient: req.lenient,
        jobs: req.jobs,
    };
    let places = (!req.no_store).then(|| req.store.places());
    let (executions, Ran { summary, warnings }) =
        find(&req.trace, options, target, places.as_ref())?;
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
            req.sort,
            req.top,
        )?,
        AnalyzeFormat::Csv => write_csv(&mut out, &executions, req.sort, req.top)?,
        AnalyzeFormat::Table => write_table(
            &mut out,
            &executions,
            &summary,
            req.sort,
            req.top.or(Some(20)),
        )?,
    }
    out.flush().context("writing to standard output")
}

impl TargetArgs {
    /// The model (file or inline JSON) or preset asked for.
    pub(super) fn target(&self) -> anyhow::Result<Target> {
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
                let text = if m.trim_start().starts_with('{') {
                    m.to_string()
                } else {
                    std::fs::read_to_string(m).with_context(|| format!("reading the model {m}"))?
                };
                let model = parse_model(&text)
                    .map_err(|e| anyhow::anyhow!("invalid execution model: {e}"))?;
                Ok(Target::Model(Box::new(model)))
            }
            (None, Some(p)) => {
                let preset: Preset = p.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
                let f = filter()?;
                Ok(match preset.model(f.clone()) {
                    Some(model) => Target::Model(Box::new(model)),
                    None => Target::States(preset, f),
                })
            }
            _ => bail!("give exactly one of --model FILE|JSON and --preset NAME"),
        }
    }
}

/// The first pass of `analyze` (and of `explain`, `export`): every
/// execution. With `places`, the executions are read from the trace's store
/// when it has them, and stored when it has not (where is said).
pub(super) fn find(
    trace: &Path,
    options: OpenOptions,
    target: Target,
    places: Option<&Places>,
) -> anyhow::Result<(Executions, Ran)> {
    let key = Key::of(&target);
    let pass = || -> anyhow::Result<StoredExecutions> {
        let mut analysis = ExecutionAnalysis::new(target.clone());
        let ran = progress::shown("analyzing", |work| {
            Pass::new(&mut [&mut analysis])
                .options(options)
                .read(trace, work)
        })?;
        Ok(StoredExecutions {
            executions: analysis.into_executions(),
            summary: ran.summary,
            warnings: ran.warnings,
            labels: Vec::new(),
        })
    };
    let found = match places {
        Some(places) => {
            let store = TraceStore::open(places, trace).ok();
            let (found, source, notes) =
                results::load_or_find(store.as_ref(), &key, options.lenient, None, pass)?;
            for n in notes {
                eprintln!("sextant: warning: {n}");
            }
            if let Source::Pass { kept: Some(dir) } = source {
                eprintln!("sextant: executions stored in {}", dir.display());
            }
            found
        }
        None => pass()?,
    };
    let ran = Ran {
        summary: found.summary,
        warnings: found.warnings,
    };
    Ok((found.executions, ran))
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
    struct Doc<'a> {
        model: &'a str,
        executions: Vec<&'a Execution>,
        stats: Option<Stats>,
        incomplete: u64,
        deadline: Option<i64>,
        trace: Trace<'a>,
    }
    let doc = Doc {
        model: &executions.name,
        executions: chosen(executions, sort, top),
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

fn write_csv(
    out: &mut impl Write,
    executions: &Executions,
    sort: SortKey,
    top: Option<usize>,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "index,start,end,duration,running,preempted,blocked,waiting,tid,start_tid,end_tid,start_comm,end_comm,cpus,prio,deadline_miss"
    )?;
    for e in chosen(executions, sort, top) {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            e.index,
            e.start,
            e.end,
            e.duration,
            e.running,
            e.preempted,
            e.blocked,
            e.waiting,
            e.tid,
            e.start_tid,
            e.end_tid,
            csv_field(&e.start_comm),
            csv_field(&e.end_comm),
            e.cpus
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" "),
            e.prio.map(|p| p.to_string()).unwrap_or_default(),
            e.deadline_miss.map(|m| m.to_string()).unwrap_or_default(),
        )?;
    }
    Ok(())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_table(
    out: &mut impl Write,
    executions: &Executions,
    summary: &PassSummary,
    sort: SortKey,
    top: Option<usize>,
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
    writeln!(
        out,
        "\n{:>5} {:>6} {:>14} {:>11} {:>11} {:>11} {:>11} {:>11} {:>8}  {:<16} {:>5} {:>5}",
        "rank",
        "index",
        "start (s)",
        "duration",
        "running",
        "preempted",
        "blocked",
        "waiting",
        "tid",
        "comm",
        "cpus",
        "prio",
    )?;
    for (rank, e) in rows.iter().enumerate() {
        let start = (e.start - origin) as f64 / 1e9;
        writeln!(
            out,
            "{:>5} {:>6} {:>14.6} {:>11} {:>11} {:>11} {:>11} {:>11} {:>8}  {:<16} {:>5} {:>5} {}",
            rank + 1,
            e.index,
            start,
            human(e.duration),
            human(e.running),
            human(e.preempted),
            human(e.blocked),
            human(e.waiting),
            e.tid,
            e.end_comm,
            e.cpus
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
            e.prio.map(|p| p.to_string()).unwrap_or_default(),
            if e.deadline_miss == Some(true) {
                "MISS"
            } else {
                ""
            }
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
