//! `sextant discover`: frequent event patterns of chosen threads (MANEPI):
//! the distinct ones, ranked by coverage and capped (`--limit`), or every
//! maximal one (`--all`); or one as an execution model for `sextant analyze`.
//! `--time-limit` bounds the whole (reading, mining, merging: `Budget`);
//! each step shows its progress on a terminal.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::ValueEnum;
use serde_json::json;
use sextant_engine::analysis::discovery::{
    self, Budget, Cut, Distinct, Mined, Params, Pattern, Sequences, Threshold,
};
use sextant_engine::analysis::model::ThreadFilter;
use sextant_engine::kernel::vocabulary::canonical_event;
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::Session;

use super::placement::StoreArgs;
use super::progress;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Ranked patterns, one a line (the default on a terminal).
    Table,
    /// `{"patterns":[{"events":[...],"support":K}],"partial":false,...}` (the
    /// default when piped).
    Json,
}

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("threads").required(true).multiple(true).args(["tids", "process"]))]
pub struct Request {
    /// Trace: CTF directory, ftrace text file, trace-cmd trace.dat or BTF file.
    pub trace: PathBuf,
    /// Skip malformed rows of a BTF file (counted in the warnings) instead
    /// of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    #[command(flatten)]
    pub host: super::hosts::HostArg,

    /// The thread to mine (repeatable: each thread is its own sequence).
    #[arg(long = "tid")]
    pub tids: Vec<i64>,
    /// Every thread whose name matches this regex, each its own sequence.
    #[arg(long)]
    pub process: Option<String>,
    /// Minimum support: non-overlapping minimal occurrences of a pattern.
    #[arg(long, conflicts_with = "top_elements")]
    pub min_support: Option<u32>,
    /// Admit the N most frequent event types; the minimum support is the
    /// N-th's count [default: 10, without --min-support].
    #[arg(long)]
    pub top_elements: Option<usize>,
    /// Patterns start with this event (repeatable; any event by default).
    #[arg(long = "start-event", value_name = "NAME")]
    pub start_events: Vec<String>,
    /// One occurrence per job: an occurrence may not contain a second event of
    /// the pattern's first type, so that it lies within one job of a periodic
    /// task (off by default: MANEPI's minimal occurrences, which may span
    /// several periods, so that the orders of a loop's events other than its
    /// own are frequent too). Fewer, tighter patterns, found much faster;
    /// best with --start-event naming the event that begins a job.
    #[arg(long)]
    pub within_job: bool,
    /// Events of the chosen threads recorded at most (4 bytes each).
    #[arg(long, default_value_t = 1_000_000)]
    pub max_events: usize,
    /// Answer within MS milliseconds: reading, mining and merging stop when
    /// the time is up and what was done is shown, marked partial with what
    /// was cut.
    #[arg(long, value_name = "MS")]
    pub time_limit: Option<u64>,
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Distinct patterns shown at most; how many more there are is said.
    #[arg(long, default_value_t = DEFAULT_LIMIT, conflicts_with = "all")]
    pub limit: usize,
    /// Every maximal pattern, rotations and readings across periods
    /// included, without a cap (for scripts).
    #[arg(long)]
    pub all: bool,
    /// Print the best pattern (or --rank K) as an execution model (JSON).
    #[arg(long)]
    pub emit_model: bool,
    /// With --emit-model: the pattern of this rank, from 1 (among every
    /// maximal pattern with --all).
    #[arg(long, default_value_t = 1, requires = "emit_model")]
    pub rank: usize,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Admitted event types when no threshold is given.
const DEFAULT_TOP_ELEMENTS: usize = 10;
/// Distinct patterns shown without `--limit`.
const DEFAULT_LIMIT: usize = 10;

pub fn run(req: Request) -> anyhow::Result<()> {
    // From the start: the limit bounds the whole command.
    let budget = Budget::new(req.time_limit.map(Duration::from_millis));
    let filter = filter(&req)?;
    let params = Params {
        threshold: match (req.min_support, req.top_elements) {
            (Some(k), _) => Threshold::MinSupport(k),
            (None, n) => Threshold::TopElements(n.unwrap_or(DEFAULT_TOP_ELEMENTS)),
        },
        start_events: req
            .start_events
            .iter()
            .map(|s| canonical_event(s).into_owned())
            .collect(),
        budget,
        within_job: req.within_job,
    };
    let (seqs, warnings, read_cut) = collect(&req, &filter, &budget)?;
    for w in &warnings {
        eprintln!("sextant: warning: {w}");
    }
    if seqs.truncated {
        eprintln!(
            "sextant: warning: only the first {} events of the chosen threads were considered (--max-events)",
            seqs.events()
        );
    }
    if seqs.threads.is_empty() {
        if let Some(cut) = read_cut {
            bail!(
                "no event of the chosen threads in what the time limit left to read of {} ({cut})",
                req.trace.display()
            );
        }
        bail!("no event of the chosen threads in {}", req.trace.display());
    }
    let mined = progress::shown("mining", |work| {
        discovery::mine(&seqs, &params, work.progress)
    });
    let (shown, merge_cut) = if req.all {
        (Shown::All(&mined.patterns), None)
    } else {
        let (d, cut) = progress::shown("merging", |work| {
            let supports = discovery::Supports::new(&seqs, params.within_job);
            discovery::distinct(&mined.patterns, &supports, &budget, work.progress)
        });
        (Shown::Distinct(d), cut)
    };
    let cuts: Vec<Cut> = [read_cut, mined.cut, merge_cut]
        .into_iter()
        .flatten()
        .collect();
    for cut in &cuts {
        eprintln!("sextant: warning: time limit reached (partial answer): {cut}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if req.emit_model {
        write_model(&mut out, &mined, &shown, req.rank, filter)?;
    } else {
        let format = req.format.unwrap_or(if std::io::stdout().is_terminal() {
            Format::Table
        } else {
            Format::Json
        });
        let limit = if req.all { usize::MAX } else { req.limit };
        match format {
            Format::Json => write_json(&mut out, &mined, &shown, limit, &seqs, &cuts)?,
            Format::Table => write_table(&mut out, &mined, &shown, limit, &seqs, &cuts)?,
        }
    }
    out.flush().context("writing to standard output")
}

/// The chosen threads' event sequences (`Session::sequences`), with what
/// the store had to say printed.
fn collect(
    req: &Request,
    filter: &ThreadFilter,
    budget: &Budget,
) -> anyhow::Result<(Sequences, Vec<String>, Option<Cut>)> {
    let session = Session::open(
        &req.trace,
        OpenOptions {
            lenient: req.lenient,
            ..OpenOptions::default()
        },
        req.store.places(),
    );
    let host = req.host.pick(&req.trace)?;
    let collected = progress::shown("reading", |work| {
        session.sequences(filter, req.max_events, host, budget, work)
    })
    .map_err(anyhow::Error::from_boxed)?;
    for n in &collected.notes {
        eprintln!("sextant: warning: {n}");
    }
    if let Some(dir) = &collected.kept {
        eprintln!("sextant: the threads' events stored in {}", dir.display());
    }
    Ok((collected.sequences, collected.warnings, collected.cut))
}

/// What is listed: the distinct patterns, or every maximal one (`--all`).
enum Shown<'a> {
    Distinct(Vec<Distinct>),
    All(&'a [Pattern]),
}

impl Shown<'_> {
    fn len(&self) -> usize {
        match self {
            Shown::Distinct(d) => d.len(),
            Shown::All(p) => p.len(),
        }
    }

    fn pattern(&self, i: usize) -> Option<&Pattern> {
        match self {
            Shown::Distinct(d) => d.get(i).map(|d| &d.pattern),
            Shown::All(p) => p.get(i),
        }
    }

    /// The `i`-th as JSON: events and support, and for a distinct pattern
    /// its coverage and what was merged into it.
    fn json(&self, i: usize) -> serde_json::Value {
        match self {
            Shown::Distinct(d) => {
                let d = &d[i];
                json!({"events": d.pattern.events, "support": d.pattern.support,
                       "coverage": d.coverage, "rotations": d.rotations, "variants": d.variants,
                       "similar": d.similar})
            }
            Shown::All(p) => json!({"events": p[i].events, "support": p[i].support}),
        }
    }
}

fn filter(req: &Request) -> anyhow::Result<ThreadFilter> {
    super::thread_filter(&req.tids, req.process.as_deref())
}

fn write_model(
    out: &mut impl Write,
    mined: &Mined,
    shown: &Shown,
    rank: usize,
    threads: ThreadFilter,
) -> anyhow::Result<()> {
    let Some(p) = rank.checked_sub(1).and_then(|i| shown.pattern(i)) else {
        bail!(
            "no pattern of rank {rank}: {} found at support {} or more",
            shown.len(),
            mined.min_support
        );
    };
    let model = p.to_model(&format!("discovered pattern {rank}"), threads);
    serde_json::to_writer_pretty(&mut *out, &model.to_json())?;
    writeln!(out)?;
    Ok(())
}

fn write_json(
    out: &mut impl Write,
    mined: &Mined,
    shown: &Shown,
    limit: usize,
    seqs: &Sequences,
    cuts: &[Cut],
) -> anyhow::Result<()> {
    let n = shown.len().min(limit);
    let patterns: Vec<_> = (0..n).map(|i| shown.json(i)).collect();
    let doc = json!({
        "patterns": patterns,
        "more": shown.len() - n,
        "maximal": mined.patterns.len(),
        "partial": !cuts.is_empty(),
        "cut": cuts.iter().map(Cut::to_string).collect::<Vec<_>>(),
        "min_support": mined.min_support,
        "events": seqs.events(),
        "threads": seqs.threads.iter().map(|(tid, _)| tid).collect::<Vec<_>>(),
    });
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}

fn write_table(
    out: &mut impl Write,
    mined: &Mined,
    shown: &Shown,
    limit: usize,
    seqs: &Sequences,
    cuts: &[Cut],
) -> anyhow::Result<()> {
    let what = match shown {
        Shown::Distinct(_) => format!(
            "{} distinct patterns ({} maximal: rotations, readings across periods and near-identical ones merged)",
            shown.len(),
            mined.patterns.len()
        ),
        Shown::All(_) => format!("{} patterns", shown.len()),
    };
    writeln!(
        out,
        "{what}{} at support >= {} ({} event types admitted) in {} events of {} thread(s)",
        if cuts.is_empty() {
            ""
        } else {
            " (partial: time limit)"
        },
        mined.min_support,
        mined.admitted,
        seqs.events(),
        seqs.threads.len()
    )?;
    for cut in cuts {
        writeln!(out, "  cut: {cut}")?;
    }
    if shown.len() == 0 {
        return Ok(());
    }
    match shown {
        Shown::Distinct(_) => writeln!(
            out,
            "\n{:>5} {:>8} {:>6} {:>8} {:>7}  events",
            "rank", "coverage", "support", "length", "merged"
        )?,
        Shown::All(_) => writeln!(
            out,
            "\n{:>5} {:>7} {:>6}  events",
            "rank", "support", "length"
        )?,
    }
    for i in 0..shown.len().min(limit) {
        match shown {
            Shown::Distinct(d) => {
                let d = &d[i];
                writeln!(
                    out,
                    "{:>5} {:>7.1}% {:>6} {:>8} {:>7}  {}",
                    i + 1,
                    d.coverage * 100.0,
                    d.pattern.support,
                    d.pattern.events.len(),
                    d.rotations + d.variants + d.similar,
                    d.pattern.events.join(" > ")
                )?
            }
            Shown::All(p) => writeln!(
                out,
                "{:>5} {:>7} {:>6}  {}",
                i + 1,
                p[i].support,
                p[i].events.len(),
                p[i].events.join(" > ")
            )?,
        }
    }
    if shown.len() > limit {
        writeln!(
            out,
            "({} more: --limit N to see them, --all for every maximal pattern)",
            shown.len() - limit
        )?;
    }
    writeln!(
        out,
        "\n--emit-model [--rank K] prints a pattern as a model for `sextant analyze --model`"
    )?;
    Ok(())
}
