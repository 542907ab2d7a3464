//! `sextant capture`: record a trace. `tracefs` records the kernel here
//! (root); `stm` decodes a CoreSight STM capture, or records one on a board
//! through sysfs. Both write CTF that every other command reads.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use sextant_engine::capture::stm::{self, device, Input};
use sextant_engine::capture::tracefs::{self, select, Control, Progress};

#[derive(Args)]
pub struct Request {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// Record the kernel through tracefs (root): scheduler, hrtimer and the
    /// facilities' system calls by default, while COMMAND runs (or for
    /// --duration, or until Ctrl-C).
    Tracefs(TracefsArgs),
    /// Decode a CoreSight STM (MIPI STPv2) capture into CTF, or record one
    /// on a board with CoreSight (--device).
    Stm(StmArgs),
}

#[derive(Args)]
struct TracefsArgs {
    /// The CTF trace directory to write (must not exist, or be empty).
    #[arg(long)]
    out: PathBuf,
    /// Comma-separated groups (sched, hrtimer, syscalls) and SYSTEM:EVENT
    /// or SYSTEM:* names.
    #[arg(long, default_value = select::DEFAULT)]
    events: String,
    /// Ring-buffer size per CPU, in KiB.
    #[arg(long, default_value_t = 8192)]
    buffer_kb: u64,
    /// Record for this many seconds (without COMMAND).
    #[arg(long, conflicts_with = "command")]
    duration: Option<f64>,
    /// Where tracefs is mounted. When it is not, it is mounted there (or
    /// debugfs beside it, in `debug`) for the capture and unmounted after.
    #[arg(long, default_value = tracefs::DEFAULT_ROOT)]
    tracefs: PathBuf,
    /// The program to record, and its arguments.
    #[arg(last = true)]
    command: Vec<String>,
}

#[derive(Args)]
struct StmArgs {
    /// The CTF trace directory to write.
    #[arg(long)]
    out: PathBuf,
    /// A capture to decode: what a sink holds (CoreSight formatter frames),
    /// or with --raw a bare STP stream.
    #[arg(long, required_unless_present = "device", conflicts_with = "device")]
    input: Option<PathBuf>,
    /// The input is a bare STP stream, not formatter frames.
    #[arg(long, conflicts_with = "trace_id")]
    raw: bool,
    /// The STM's trace ID among the interleaved sources (e.g. 0x10).
    #[arg(long, value_parser = parse_id)]
    trace_id: Option<u8>,
    /// STM timestamp frequency in Hz, when the stream has no FREQ packet.
    #[arg(long)]
    freq: Option<u64>,
    /// Record live with this STM (e.g. stm0): policy, sink and source set up
    /// through sysfs and configfs, COMMAND run, the sink drained.
    #[arg(long)]
    device: Option<String>,
    /// The sink to record into (default: the first ETF, ETR or ETB).
    #[arg(long, requires = "device")]
    sink: Option<String>,
    /// Stands for `/` in every sysfs, configfs and /dev path (for tests).
    #[arg(long, default_value = "/", requires = "device")]
    sysfs_root: PathBuf,
    /// The STM protocol of the policy (p_sys-t or p_basic).
    #[arg(long, default_value = "p_sys-t", requires = "device")]
    protocol: String,
    /// Masters for the command's writers, FIRST-LAST.
    #[arg(long, value_parser = parse_range, requires = "device")]
    masters: Option<(u32, u32)>,
    /// Channels for the command's writers, FIRST-LAST.
    #[arg(long, value_parser = parse_range, requires = "device")]
    channels: Option<(u32, u32)>,
    /// Also keep what the sink held, undecoded.
    #[arg(long, requires = "device")]
    save_raw: Option<PathBuf>,
    /// The program to record (with --device).
    #[arg(last = true, requires = "device")]
    command: Vec<String>,
}

fn parse_id(s: &str) -> Result<u8, String> {
    let v = match s.strip_prefix("0x") {
        Some(h) => u8::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("{s:?} is not a trace ID (0x01..0x6f)"))?;
    if v == 0 || v > 0x6f {
        return Err(format!("trace ID {v:#04x} is outside 0x01..0x6f"));
    }
    Ok(v)
}

fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a: u32 = a
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not FIRST-LAST"))?;
    let b: u32 = b
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not FIRST-LAST"))?;
    if a > b {
        return Err(format!("{s:?}: FIRST is after LAST"));
    }
    Ok((a, b))
}

pub fn run(req: Request) -> anyhow::Result<()> {
    match req.what {
        What::Tracefs(a) => run_tracefs(a),
        What::Stm(a) => run_stm(a),
    }
}

/// Ctrl-C (and SIGTERM) set a flag instead of killing us: the capture stops
/// cleanly and keeps what it recorded. A child started afterwards gets the
/// default handlers back when it executes its program.
fn interrupt_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, flag.clone()).context("installing the Ctrl-C handler")?;
    }
    Ok(flag)
}

fn spawn(command: &[String]) -> Result<Child, String> {
    Command::new(&command[0])
        .args(&command[1..])
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command[0]))
}

/// The workload and the reasons to stop, as the capture asks for them.
struct Workload {
    command: Vec<String>,
    child: Option<Child>,
    status: Option<std::process::ExitStatus>,
    until: Option<Instant>,
    duration: Option<Duration>,
    interrupted: Arc<AtomicBool>,
    bar: Option<ProgressBar>,
}

impl Control for Workload {
    fn started(&mut self) -> Result<(), String> {
        if !self.command.is_empty() {
            self.child = Some(spawn(&self.command)?);
        }
        self.until = self.duration.map(|d| Instant::now() + d);
        Ok(())
    }

    fn should_stop(&mut self) -> bool {
        if self.interrupted.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(c) = &mut self.child {
            if let Ok(Some(status)) = c.try_wait() {
                self.status = Some(status);
                return true;
            }
        }
        self.until.is_some_and(|t| Instant::now() >= t)
    }

    fn progress(&mut self, p: &Progress) {
        if let Some(b) = &self.bar {
            b.set_message(format!(
                "capturing: {} events, {:.1} MB, {} lost, {:.1} s",
                p.events,
                p.bytes as f64 / 1e6,
                p.lost,
                p.elapsed.as_secs_f64()
            ));
        }
    }
}

fn progress_line() -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("static template"));
    bar.enable_steady_tick(Duration::from_millis(200));
    bar.set_message("capturing...");
    Some(bar)
}

fn run_tracefs(a: TracefsArgs) -> anyhow::Result<()> {
    let events = select::parse(&a.events).map_err(anyhow::Error::msg)?;
    let duration = match a.duration {
        Some(d) if !(d > 0.0 && d.is_finite()) => {
            bail!("--duration must be a positive number of seconds")
        }
        d => d.map(Duration::from_secs_f64),
    };
    let interrupted = interrupt_flag()?;
    let mut w = Workload {
        command: a.command,
        child: None,
        status: None,
        until: None,
        duration,
        interrupted: interrupted.clone(),
        bar: progress_line(),
    };
    if w.command.is_empty() && duration.is_none() {
        eprintln!("sextant: recording until Ctrl-C");
    }
    let opts = tracefs::Options {
        root: a.tracefs,
        events,
        buffer_kb: a.buffer_kb,
        out: a.out.clone(),
    };
    let result = tracefs::capture(&opts, &mut w);
    if let Some(b) = &w.bar {
        b.finish_and_clear();
    }
    // Interrupted before the command ended: it was told too (same terminal),
    // or is stopped here.
    if let Some(mut c) = w.child.take() {
        if w.status.is_none() {
            if interrupted.load(Ordering::Relaxed) {
                let _ = c.kill();
            }
            w.status = c.wait().ok();
        }
    }
    let r = result.with_context(|| format!("capture into {}", a.out.display()))?;
    eprintln!(
        "sextant: {} events ({:.1} MB) in {:.2} s, clock {}, into {}; lost (discarded): {}",
        r.events,
        r.bytes as f64 / 1e6,
        r.duration.as_secs_f64(),
        r.clock,
        a.out.display(),
        r.lost
    );
    for c in &r.cpus {
        eprintln!("  cpu{}: {} events, {} lost", c.cpu, c.events, c.lost);
    }
    if !r.absent.is_empty() {
        eprintln!("  not on this kernel (skipped): {}", r.absent.join(", "));
    }
    if r.lost > 0 {
        eprintln!(
            "sextant: warning: the kernel lost {} events (buffer full); a larger --buffer-kb may help",
            r.lost
        );
    }
    if r.skipped_records > 0 || r.bad_pages > 0 || r.clamped > 0 {
        eprintln!(
            "sextant: warning: {} records skipped, {} pages unreadable{}, {} timestamps held back",
            r.skipped_records,
            r.bad_pages,
            r.first_bad_page
                .map(|p| format!(" (first: {p})"))
                .unwrap_or_default(),
            r.clamped
        );
    }
    if interrupted.load(Ordering::Relaxed) {
        eprintln!("sextant: interrupted; what was recorded is kept");
    }
    if let Some(s) = w.status.filter(|s| !s.success()) {
        eprintln!("sextant: warning: the command exited with {s}");
    }
    Ok(())
}

fn run_stm(a: StmArgs) -> anyhow::Result<()> {
    let (bytes, input) = match (&a.input, &a.device) {
        (Some(path), _) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            let input = if a.raw {
                Input::Raw
            } else {
                Input::Formatted {
                    trace_id: a.trace_id,
                }
            };
            (bytes, input)
        }
        (None, Some(dev)) => {
            let interrupted = interrupt_flag()?;
            let node = a
                .command
                .first()
                .and_then(|c| std::path::Path::new(c).file_name())
                .map(|n| n.to_string_lossy().chars().take(15).collect());
            let opts = device::DeviceOptions {
                root: a.sysfs_root.clone(),
                stm: dev.clone(),
                sink: a.sink.clone(),
                protocol: a.protocol.clone(),
                node,
                masters: a.masters,
                channels: a.channels,
            };
            let command = a.command.clone();
            let rec = device::record(&opts, || {
                if command.is_empty() {
                    eprintln!("sextant: recording until Ctrl-C");
                    while !interrupted.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    return Ok(());
                }
                let status = spawn(&command)?.wait().map_err(|e| e.to_string())?;
                if !status.success() {
                    eprintln!("sextant: warning: the command exited with {status}");
                }
                Ok(())
            })?;
            if let Some(p) = &a.save_raw {
                std::fs::write(p, &rec.bytes)
                    .with_context(|| format!("writing {}", p.display()))?;
            }
            eprintln!(
                "sextant: {} bytes from {} (STM trace ID {})",
                rec.bytes.len(),
                rec.sink,
                rec.trace_id
                    .map_or("unknown".into(), |i| format!("{i:#04x}"))
            );
            let trace_id = a.trace_id.or(rec.trace_id);
            (rec.bytes, Input::Formatted { trace_id })
        }
        (None, None) => bail!("give --input FILE or --device STM"),
    };
    let r = stm::decode_to_ctf(&bytes, input, a.freq, &a.out)
        .with_context(|| format!("decoding into {}", a.out.display()))?;
    for w in &r.warnings {
        eprintln!("sextant: warning: {w}");
    }
    eprintln!(
        "sextant: {} packets: {} data, {} flags, {} triggers, {} errors, {} SyS-T messages; {} events on {} masters into {} (clock {} Hz, from {})",
        r.packets,
        r.data,
        r.flags,
        r.triggers,
        r.errors,
        r.syst,
        r.events,
        r.masters.len(),
        a.out.display(),
        r.freq,
        r.freq_source
    );
    Ok(())
}
