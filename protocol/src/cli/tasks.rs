//! `sextant tasks`: the real-time tasks of a trace, found by themselves:
//! periodic and sporadic threads (BTF tasks and ISRs), their periods,
//! response times and deadline misses, and a model of each task's jobs.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{json, Value};
use sextant_engine::analysis::tasks::{self, Deadline, Options, Task};
use sextant_engine::duration::human;
use sextant_engine::export::executions::cpu_list;
use sextant_engine::kernel::priority::cell;
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::Session;

use super::hosts::HostArg;
use super::progress;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum TasksFormat {
    /// One row per task (the default on a terminal).
    Table,
    /// `{"tasks": [...]}` (schemas/tasks.schema.json; the default when piped).
    Json,
}

#[derive(clap::Args)]
pub struct Request {
    /// Trace: CTF directory, ftrace text file, trace-cmd trace.dat or BTF file.
    pub trace: PathBuf,
    #[arg(long, value_enum)]
    pub format: Option<TasksFormat>,
    /// A thread with fewer jobs is not classified.
    #[arg(long, default_value_t = 10)]
    pub min_jobs: usize,
    /// Each job's deadline: a share of the period (0.8; default 1, the
    /// implicit deadline) or a time ("2ms").
    #[arg(long)]
    pub deadline: Option<String>,
    /// Write each task's execution model to DIR/<comm>-<tid>.json.
    #[arg(long)]
    pub emit_models: Option<PathBuf>,
    #[command(flatten)]
    pub host: HostArg,
    /// Skip malformed rows of a BTF file instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// Threads reading a CTF trace (default: one per core).
    #[arg(long)]
    pub jobs: Option<std::num::NonZeroUsize>,
}

fn deadline(arg: Option<&str>) -> anyhow::Result<Deadline> {
    match arg {
        None => Ok(Deadline::Ratio(1.0)),
        Some(a) => a
            .parse()
            .map_err(|e| anyhow::anyhow!("--deadline {a}: {e}")),
    }
}

fn file_name(t: &Task) -> String {
    let comm: String = t
        .comm
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{comm}-{}.json", t.tid)
}

fn emit(dir: &Path, found: &[(Option<String>, Task)]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (host, t) in found {
        let name = match host {
            Some(h) => format!("{h}-{}", file_name(t)),
            None => file_name(t),
        };
        let path = dir.join(name);
        let text = serde_json::to_string_pretty(&t.model)? + "\n";
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    eprintln!(
        "sextant: {} models written in {}",
        found.len(),
        dir.display()
    );
    Ok(())
}

fn write_table(out: &mut impl Write, found: &[(Option<String>, Task)]) -> anyhow::Result<()> {
    if found.is_empty() {
        writeln!(out, "no periodic or sporadic task found")?;
        return Ok(());
    }
    let hosts = found.iter().any(|(h, _)| h.is_some());
    let comm_w = found
        .iter()
        .map(|(_, t)| t.comm.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    if hosts {
        write!(out, "{:<12}  ", "HOST")?;
    }
    writeln!(
        out,
        "{:<comm_w$}  {:>7}  {:<9}  {:>11}  {:>10}  {:>5}  {:>6}  {:>11}  {:>11}  {:>11}  {:>6}  {:<17}  CPUS",
        "TASK", "TID", "KIND", "PERIOD", "JITTER", "CONF", "JOBS", "RESP p50", "RESP p99", "RESP max", "MISSES", "PRIORITY (KERNEL)"
    )?;
    for (host, t) in found {
        if hosts {
            write!(out, "{:<12}  ", host.as_deref().unwrap_or(""))?;
        }
        let period = match (t.period, t.min_interarrival) {
            (Some(p), _) => human(p),
            (None, Some(m)) => format!("≥ {}", human(m)),
            _ => "-".into(),
        };
        writeln!(
            out,
            "{:<comm_w$}  {:>7}  {:<9}  {:>11}  {:>10}  {:>5.2}  {:>6}  {:>11}  {:>11}  {:>11}  {:>6}  {:<17}  {}",
            t.comm,
            t.tid,
            tasks::row::kind(t.kind),
            period,
            t.jitter.map_or("-".into(), human),
            t.confidence,
            t.jobs.len(),
            human(t.response.p50),
            human(t.response.p99),
            human(t.response.max),
            t.misses,
            cell(t.prio, t.btf),
            cpu_list(&t.cpus)
        )?;
        if t.phases.len() > 1 {
            for p in &t.phases {
                writeln!(
                    out,
                    "{:<comm_w$}    phase: {} jobs, period {}, jitter {}",
                    "",
                    p.jobs,
                    human(p.period),
                    human(p.jitter)
                )?;
            }
        }
    }
    Ok(())
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let options = Options::new(req.min_jobs, deadline(req.deadline.as_deref())?)
        .map_err(|e| anyhow::anyhow!("--min-jobs {}: {e}", req.min_jobs))?;
    let format = req.format.unwrap_or(if std::io::stdout().is_terminal() {
        TasksFormat::Table
    } else {
        TasksFormat::Json
    });
    let session = Session::open(
        &req.trace,
        OpenOptions {
            lenient: req.lenient,
            jobs: req.jobs,
            ..OpenOptions::default()
        },
        None,
    );
    let (found, warnings) = progress::shown("finding tasks", |work| {
        session.tasks(req.host.named(), &options, work)
    })
    .map_err(anyhow::Error::from_boxed)
    .with_context(|| format!("reading {}", req.trace.display()))?;
    for w in &warnings {
        eprintln!("sextant: warning: {w}");
    }
    if let Some(dir) = &req.emit_models {
        emit(dir, &found)?;
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match format {
        TasksFormat::Json => {
            let tasks: Vec<Value> = found
                .iter()
                .map(|(h, t)| tasks::row(h.as_deref(), t))
                .collect();
            let doc = json!({ "tasks": tasks, "warnings": warnings });
            serde_json::to_writer(&mut out, &doc)?;
            writeln!(out)?;
        }
        TasksFormat::Table => write_table(&mut out, &found)?,
    }
    out.flush().context("writing to standard output")
}
