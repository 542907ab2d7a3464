//! `sextant explain`: why one execution was late. A first pass finds the
//! executions (as `analyze`); a second reads only the chosen execution's
//! range (after a seek, with a short replay before it) and prints its
//! critical path, the path's complement with the priority inversions, the
//! related threads, the kernel facilities and a one-line diagnosis.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::ValueEnum;
use sextant_engine::analysis::executions::Execution;
use sextant_engine::analysis::explain::complement::Held;
use sextant_engine::analysis::explain::path::{Link, PathState};
use sextant_engine::analysis::explain::relations::How;
use sextant_engine::analysis::explain::shares;
use sextant_engine::analysis::explain::{self, pick, Explanation, Which};
use sextant_engine::analysis::facilities::mq::MqState;
use sextant_engine::duration::human;
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::executions::Found;
use sextant_engine::session::explain::{report, Around};
use sextant_engine::session::Session;

use super::analyze::{self, Timeline};
use super::clock::ClockArg;
use super::placement::StoreArgs;
use super::progress;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExplainFormat {
    /// For people (the default on a terminal).
    Text,
    /// One JSON document (the default when piped).
    Json,
}

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["model", "preset"]))]
#[command(group = clap::ArgGroup::new("which").required(true).args(["execution", "longest"]))]
pub struct Request {
    /// Trace: CTF directory, ftrace text file, trace-cmd trace.dat or BTF file.
    pub trace: PathBuf,
    /// Skip malformed rows of a BTF file (counted in the warnings) instead
    /// of stopping at the first.
    #[arg(long)]
    pub lenient: bool,

    #[command(flatten)]
    pub what: analyze::TargetArgs,
    #[command(flatten)]
    pub host: super::hosts::HostArg,
    /// The execution to explain: its index (as `analyze` lists them).
    #[arg(long)]
    pub execution: Option<usize>,
    /// Explain the longest execution.
    #[arg(long)]
    pub longest: bool,
    /// Complement: only the threads that ran on these CPUs (e.g. 0,2); a
    /// CPU with no event around the execution is an error that names those
    /// with one.
    #[arg(long, value_delimiter = ',')]
    pub cpus: Vec<u32>,
    /// Read this many milliseconds before the execution, so each thread's
    /// state (and each futex's, queue's and timer's) is known at its start.
    #[arg(long, default_value_t = 100.0)]
    pub replay_ms: f64,
    #[arg(long, value_enum)]
    pub format: Option<ExplainFormat>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub clock: ClockArg,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    if !(req.replay_ms.is_finite() && req.replay_ms >= 0.0) {
        bail!("--replay-ms must be a number of milliseconds, 0 or more");
    }
    let asked = req.what.asked()?;
    let options = OpenOptions {
        lenient: req.lenient,
        ..OpenOptions::default()
    };
    let session = Session::open(&req.trace, options, req.store.places());
    let Found {
        executions,
        ran,
        facts,
        hosts,
        picks,
        ..
    } = analyze::find(&session, &asked, &req.host, Timeline::EachHost)?;

    let around = Around {
        cpus: (!req.cpus.is_empty()).then(|| req.cpus.clone()),
        replay_ns: (req.replay_ms * 1e6) as i64,
    };
    around
        .check_cpus("--cpus", facts.as_ref(), &req.trace)
        .map_err(anyhow::Error::msg)?;
    let warnings = ran.warnings;
    for w in &warnings {
        eprintln!("sextant: warning: {w}");
    }
    let which = match req.execution {
        Some(k) => Which::Index(k),
        None => Which::Rank(0),
    };
    let execution = pick(&executions, which).map_err(anyhow::Error::msg)?;
    // The second pass reads the execution's own host alone.
    let host = hosts.of(execution);

    let explanation = progress::shown("explaining", |work| {
        session.explain(
            execution,
            picks[hosts.part(execution).unwrap_or(0)],
            &around,
            work,
        )
    })
    .map_err(anyhow::Error::from_boxed)
    .with_context(|| req.trace.display().to_string())?;
    for note in &explanation.notes {
        eprintln!("sextant: warning: {note}");
    }
    // Times said to people: from the execution's host's first event.
    let origin = hosts
        .origin(execution)
        .or(ran.summary.first_ts)
        .unwrap_or(0);
    let clock = req.clock.clock;
    clock.check(Some(origin), &req.trace)?;
    let time = |ts: i64| clock.phrase(ts, origin);
    if let Some(w) = around.idle_cpus("--cpus", &explanation, &time) {
        eprintln!("sextant: warning: {w}");
    }
    let format = req.format.unwrap_or(if std::io::stdout().is_terminal() {
        ExplainFormat::Text
    } else {
        ExplainFormat::Json
    });
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match format {
        ExplainFormat::Json => write_json(&mut out, execution, host, &explanation)?,
        ExplainFormat::Text => write_text(
            &mut out,
            &executions.name,
            execution,
            host,
            &explanation,
            &time,
        )?,
    }
    out.flush().context("writing to standard output")
}

fn write_json(
    out: &mut impl Write,
    execution: &Execution,
    host: Option<&str>,
    e: &Explanation,
) -> anyhow::Result<()> {
    let diagnosis = e.diagnosis(execution.end_tid);
    warn_contradictions(&diagnosis);
    serde_json::to_writer(&mut *out, &report(execution, host, e, diagnosis))?;
    writeln!(out)?;
    Ok(())
}

fn write_text(
    out: &mut impl Write,
    model: &str,
    execution: &Execution,
    host: Option<&str>,
    e: &Explanation,
    time: &dyn Fn(i64) -> String,
) -> anyhow::Result<()> {
    let g = &e.graph;
    let who = |tid: i64| match g.comm(tid) {
        "" => format!("thread {tid}"),
        comm => format!("{comm} ({tid})"),
    };
    let prio = |tid: i64, p: Option<i32>| match p {
        Some(k) => format!("{} [kernel prio {k}]", g.priority(tid, p)),
        None => "priority ?".to_string(),
    };
    let at = |t: i64| format!("{:+.3} ms", (t - execution.start) as f64 / 1e6);
    let tid = execution.end_tid;
    let span = if execution.start_tid == tid {
        format!("on {}", who(tid))
    } else {
        format!("from {} to {}", who(execution.start_tid), who(tid))
    };
    let span = match host {
        Some(h) => format!("{span} on host {h}"),
        None => span,
    };
    writeln!(
        out,
        "{model}: execution {} {span}, {}, {} (starts at {})",
        execution.index,
        prio(tid, e.prio),
        human(execution.duration),
        time(execution.start)
    )?;
    writeln!(out, "\ncritical path (walked back from the end):")?;
    for p in &e.path {
        let why = match (p.state, p.link) {
            (
                PathState::Blocked {
                    woken_by: Some(c), ..
                },
                _,
            ) => format!(" (woken by {})", g.describe(c)),
            (_, Link::Woke { wakee }) => format!(" (woke {} up)", who(wakee)),
            (_, Link::Created { child }) => format!(" (then created {})", who(child)),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {:>12} {:>10}  {:<24} {}{why}",
            at(p.start),
            human(p.end - p.start),
            who(p.tid),
            state_words(p.state.name(), g.rtos)
        )?;
    }
    if e.path.iter().any(|p| p.state == PathState::Unknown) {
        writeln!(
            out,
            "  (unknown: the trace has no event saying what that thread did then)"
        )?;
    }
    // A chain of threads (a timer thread, the worker it created): each
    // one's part, since analyze's columns measure one of them.
    let shares = shares::by_thread(&e.path, g);
    if shares.len() > 1 {
        writeln!(out, "\ntime by thread (the parts add up to the duration):")?;
        let width = shares
            .iter()
            .map(|s| who(s.tid).chars().count())
            .max()
            .unwrap_or(0);
        for s in &shares {
            let states = [
                ("running", s.running),
                ("preempted", s.preempted),
                (state_words("waiting_cpu", g.rtos), s.waiting),
                ("blocked", s.blocked),
                ("unknown", s.unknown),
            ];
            let states: Vec<String> = states
                .iter()
                .filter(|(_, d)| *d > 0)
                .map(|(name, d)| format!("{name} {}", human(*d)))
                .collect();
            writeln!(
                out,
                "  {:<width$}  {:>10}: {}",
                who(s.tid),
                human(s.total),
                states.join(", ")
            )?;
        }
    }
    if let Some(tie) = &e.tie {
        writeln!(
            out,
            "\nhow {} leads to {}:",
            who(execution.start_tid),
            who(tid)
        )?;
        for edge in tie {
            let how = match edge.how {
                How::Created => "created",
                How::Woke => "woke up",
            };
            writeln!(
                out,
                "  {:>12}  {} {how} {}",
                at(edge.ts),
                who(edge.from),
                who(edge.to)
            )?;
        }
    }
    writeln!(out, "\nwho ran while the path waited for a CPU:")?;
    let listed = |h: &&Held| !h.running.is_empty() || !h.lost.is_empty();
    if !e.complement.intervals.iter().any(|h| listed(&h)) {
        writeln!(out, "  nobody: the path never waited for a CPU")?;
    }
    for h in e.complement.intervals.iter().filter(listed) {
        writeln!(
            out,
            "  {} {} {} .. {} ({}), {}:",
            who(h.path_tid),
            state_words(h.state, g.rtos),
            at(h.start),
            at(h.end),
            human(h.end - h.start),
            prio(h.path_tid, h.path_prio)
        )?;
        for r in &h.running {
            writeln!(
                out,
                "      {:<24} {:<32}  cpu {:>2}  {:>10}{}",
                who(r.tid),
                prio(r.tid, r.prio),
                r.cpu,
                human(r.duration),
                if r.inversion {
                    "  PRIORITY INVERSION"
                } else {
                    ""
                }
            )?;
        }
        // Inside a loss window the trace does not show who ran.
        for u in &h.lost {
            let lost = match u.events {
                Some(n) => format!("unknown (the trace lost {n} events here)"),
                None => "unknown (the trace lost events here)".to_string(),
            };
            writeln!(
                out,
                "      {lost:<57}  cpu {:>2}  {:>10}  {} .. {}",
                u.cpu.map_or("?".to_string(), |c| c.to_string()),
                human(u.end - u.start),
                at(u.start),
                at(u.end)
            )?;
        }
    }
    let names = |tids: &[i64]| {
        if tids.is_empty() {
            "none".to_string()
        } else {
            tids.iter().map(|t| who(*t)).collect::<Vec<_>>().join(", ")
        }
    };
    writeln!(out, "\nrelated threads:")?;
    writeln!(out, "  direct: {}", names(&e.relations.direct))?;
    writeln!(out, "  indirect: {}", names(&e.relations.indirect))?;
    let f = &e.facilities;
    writeln!(out, "\nkernel facilities in the range:")?;
    writeln!(out, "  hrtimer intervals: {}", f.hrtimers.len())?;
    writeln!(
        out,
        "  futex waits: {} (most waiters at once: {}), wakes: {}",
        f.futex_waits.len(),
        f.futex_waits
            .iter()
            .map(|w| w.waiters.len())
            .max()
            .unwrap_or(0),
        f.futex_wakes.len()
    )?;
    for m in &f.mq {
        writeln!(
            out,
            "  mq {} {} {} .. {}: senders {}, receivers {}",
            m.queue.mqdes,
            mq_words(m.state),
            at(m.start),
            at(m.end),
            names(&m.senders),
            names(&m.receivers)
        )?;
    }
    let diagnosis = e.diagnosis(tid);
    warn_contradictions(&diagnosis);
    writeln!(out, "\ncauses, by the time they cost on the critical path:")?;
    for c in &diagnosis.causes {
        writeln!(
            out,
            "  {:>10}  {:<13} {}",
            human(c.cost),
            if c.interference {
                "interference"
            } else {
                "the job's own"
            },
            c.text
        )?;
    }
    writeln!(out, "\ndiagnosis: {}", diagnosis.text)?;
    Ok(())
}

/// A path state in the text's words (the JSON keeps `waiting_cpu`).
fn state_words(state: &str, rtos: bool) -> &str {
    match (state, rtos) {
        ("waiting_cpu", false) => "waiting for a CPU",
        ("waiting_cpu", true) => "waiting for a core",
        _ => state,
    }
}

/// A message queue's state in words (the JSON keeps Trace Compass's
/// `QUEUE_EMPTY_WHILE_RECEIVERS` spellings).
fn mq_words(state: MqState) -> &'static str {
    match state {
        MqState::SendersWaiting => "senders waiting",
        MqState::QueueFullWhileSenders => "full, senders blocked",
        MqState::QueueEmptyWhileReceivers => "empty, receivers blocked",
        MqState::ReceiversWaiting => "receivers waiting",
    }
}

/// Claims the trace's states contradict (`diagnosis::audit`): a bug of
/// sextant, said rather than hidden.
fn warn_contradictions(d: &explain::Diagnosis) {
    for c in &d.contradictions {
        eprintln!("sextant: warning: this explanation contradicts the trace (a bug; please report it): {c}");
    }
}
