//! `sextant capture tracefs`: records the kernel through a tracefs instance
//! of our own, reading each CPU's ring buffer in its binary form
//! (`per_cpu/cpuN/trace_pipe_raw`, pages decoded with `events/header_page`,
//! `header_event` and each event's `format`), and writes CTF as LTTng would
//! name things, so that every analysis reads it like any LTTng kernel trace.

pub mod convert;
pub mod format;
pub mod mount;
pub mod page;
pub mod select;
mod session;

use std::collections::HashMap;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::ctf::writer::{
    Clock, CtfWriter, EnvValue, FieldType, FieldValue, StreamId, TraceSpec, WriteError,
};

use convert::Conversion;
use page::Missed;
use select::Wanted;
use session::Instance;

pub const DEFAULT_ROOT: &str = "/sys/kernel/tracing";

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("{}: {message}", path.display())]
    Tracefs { path: PathBuf, message: String },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{message}")]
    Workload { message: String },
}

impl CaptureError {
    fn tracefs(path: &Path, message: impl Into<String>) -> CaptureError {
        CaptureError::Tracefs {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
    fn io(path: &Path, e: std::io::Error) -> CaptureError {
        CaptureError::tracefs(path, e.to_string())
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Where tracefs is mounted, or is to be (`mount::find`).
    pub root: PathBuf,
    pub events: Vec<Wanted>,
    /// Ring-buffer size per CPU.
    pub buffer_kb: u64,
    pub out: PathBuf,
}

/// What the caller decides while the capture runs.
pub trait Control {
    /// Tracing is on: start the workload, if any.
    fn started(&mut self) -> Result<(), String>;
    /// Asked a few times a second: end the capture now?
    fn should_stop(&mut self) -> bool;
    fn progress(&mut self, p: &Progress);
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    pub events: u64,
    pub bytes: u64,
    pub lost: u64,
    pub elapsed: Duration,
}

#[derive(Debug, Clone, Default)]
pub struct CpuReport {
    pub cpu: u32,
    pub events: u64,
    pub lost: u64,
}

/// What a capture recorded.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub events: u64,
    /// Events the kernel dropped or overwrote before we read them.
    pub lost: u64,
    pub bytes: u64,
    pub cpus: Vec<CpuReport>,
    /// The trace clock the timestamps are in (`mono` = CLOCK_MONOTONIC).
    pub clock: String,
    /// Group members this kernel does not have (e.g. `hrtimer_init` ≥ 6.13).
    pub absent: Vec<String>,
    /// Events enabled, as `system:event`.
    pub enabled: Vec<String>,
    /// Records of no enabled event (none expected), and pages that did not
    /// decode (with the first reason), skipped.
    pub skipped_records: u64,
    pub bad_pages: u64,
    pub first_bad_page: Option<String>,
    /// Records whose time was before their CPU's previous one, kept at it.
    pub clamped: u64,
    pub duration: Duration,
}

/// One CPU's ring buffer being drained into its stream.
struct CpuPipe {
    cpu: u32,
    path: PathBuf,
    file: File,
    stream: StreamId,
    last_ts: u64,
    events: u64,
    lost: u64,
}

/// Records the events of `opts` until `control` says stop, then writes the
/// CTF trace. The tracefs instance is gone when this returns, whatever it
/// returns, and so is a tracefs mounted for it.
pub fn capture(opts: &Options, control: &mut dyn Control) -> Result<Report, CaptureError> {
    // Declared before the instance: unmounted after it is removed.
    let tracefs = mount::find(&opts.root, &mount::System)?;
    let instance = Instance::create(tracefs.root())?;
    let mut report = Report::default();
    instance.write("tracing_on", "0")?;
    // CLOCK_MONOTONIC: comparable with what programs measure themselves.
    report.clock = match instance.write("trace_clock", "mono") {
        Ok(()) => "mono".into(),
        Err(_) => current_clock(&instance.read("trace_clock")?),
    };
    instance.write("buffer_size_kb", &opts.buffer_kb.max(4).to_string())?;
    let conversions = enable(&instance, &opts.events, &mut report)?;
    let layout = format::parse_header_page(&instance.read("events/header_page")?)
        .map_err(|e| CaptureError::tracefs(&instance.path("events/header_page"), e.to_string()))?;

    let mut writer = CtfWriter::create(&opts.out, spec(&report.clock, &conversions))?;
    let by_id: HashMap<u16, (usize, &Conversion)> = conversions
        .iter()
        .enumerate()
        .map(|(i, (id, c))| (*id, (i, c)))
        .collect();
    // Declared after the instance: dropped (closed) before it is removed.
    let mut pipes = open_pipes(&instance, &mut writer)?;

    let start = Instant::now();
    instance.write("tracing_on", "1")?;
    control
        .started()
        .map_err(|message| CaptureError::Workload { message })?;
    let mut page = vec![0u8; layout.page_size()];
    let mut last_progress = Instant::now();
    let decode = |pipe: &mut CpuPipe,
                  page: &[u8],
                  writer: &mut CtfWriter,
                  report: &mut Report|
     -> Result<(), CaptureError> {
        let mut err = None;
        // Values borrow the page: one vector per page.
        let mut values = Vec::new();
        let missed = page::decode(&layout, page, |rec| {
            if err.is_some() {
                return;
            }
            let id = rec.data.get(..2).map(|b| u16::from_ne_bytes([b[0], b[1]]));
            let Some(&(class, conv)) = id.and_then(|id| by_id.get(&id)) else {
                report.skipped_records += 1;
                return;
            };
            if conv.values(rec.data, &mut values).is_none() {
                report.skipped_records += 1;
                return;
            }
            let mut ts = rec.ts;
            if ts < pipe.last_ts {
                report.clamped += 1;
                ts = pipe.last_ts;
            }
            let tid = [FieldValue::Int(conv.thread(rec.data).unwrap_or(-1))];
            match writer.event(pipe.stream, class, ts, &tid, &values) {
                Ok(()) => {
                    pipe.last_ts = ts;
                    pipe.events += 1;
                }
                Err(e) => err = Some(e),
            }
        });
        if let Some(e) = err {
            return Err(e.into());
        }
        match missed {
            Ok(Missed::None) => {}
            Ok(Missed::Count(n)) => lose(pipe, writer, n)?,
            // The kernel had no room for the count: at least one; the
            // per-CPU statistics at the end give the rest.
            Ok(Missed::Unknown) => lose(pipe, writer, 1)?,
            Err(e) => {
                report.bad_pages += 1;
                report.first_bad_page.get_or_insert_with(|| {
                    format!(
                        "{}: page at byte {} of a page: {}",
                        pipe.path.display(),
                        e.offset,
                        e.message
                    )
                });
            }
        }
        Ok(())
    };

    let mut stopping = false;
    loop {
        if !stopping && control.should_stop() {
            // Stop recording, then take what is left in the buffers.
            instance.write("tracing_on", "0")?;
            stopping = true;
        }
        let mut busy = false;
        for pipe in &mut pipes {
            // A bounded number of pages per CPU per round keeps the CPUs fair.
            for _ in 0..64 {
                if !read_page(pipe, &mut page)? {
                    break;
                }
                busy = true;
                decode(pipe, &page, &mut writer, &mut report)?;
            }
        }
        if last_progress.elapsed() >= Duration::from_millis(200) {
            last_progress = Instant::now();
            control.progress(&Progress {
                events: writer.events(),
                bytes: writer.bytes(),
                lost: pipes.iter().map(|p| p.lost).sum(),
                elapsed: start.elapsed(),
            });
        }
        if stopping && !busy {
            break;
        }
        if !busy {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    report.duration = start.elapsed();
    // What the kernel counted beyond what the pages said.
    for pipe in &mut pipes {
        let stats = instance
            .read(&format!("per_cpu/cpu{}/stats", pipe.cpu))
            .unwrap_or_default();
        let counted = stat(&stats, "overrun")
            + stat(&stats, "commit overrun")
            + stat(&stats, "dropped events");
        if counted > pipe.lost {
            lose(pipe, &mut writer, counted - pipe.lost)?;
        }
    }
    report.cpus = pipes
        .iter()
        .map(|p| CpuReport {
            cpu: p.cpu,
            events: p.events,
            lost: p.lost,
        })
        .collect();
    drop(pipes);
    drop(instance);
    drop(tracefs);
    let summary = writer.finish()?;
    report.events = summary.events;
    report.lost = summary.discarded;
    report.bytes = summary.bytes;
    Ok(report)
}

fn lose(pipe: &mut CpuPipe, writer: &mut CtfWriter, n: u64) -> Result<(), CaptureError> {
    pipe.lost += n;
    writer.discarded(pipe.stream, n)?;
    Ok(())
}

/// Reads one page; false when the buffer has nothing more for now.
fn read_page(pipe: &mut CpuPipe, page: &mut [u8]) -> Result<bool, CaptureError> {
    match pipe.file.read(page) {
        Ok(0) => Ok(false),
        Ok(n) => {
            // A short read leaves the end of the page as zeros: no records.
            page[n..].fill(0);
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
            Ok(false)
        }
        Err(e) => Err(CaptureError::io(&pipe.path, e)),
    }
}

/// `[local] global mono` → `local`.
fn current_clock(list: &str) -> String {
    list.split_whitespace()
        .find_map(|c| c.strip_prefix('[').and_then(|c| c.strip_suffix(']')))
        .unwrap_or("local")
        .to_string()
}

/// `overrun: 12` in a per-CPU `stats` file.
fn stat(stats: &str, key: &str) -> u64 {
    stats
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0)
}

/// Enables the wanted events, reading each one's format. Returns (tracefs
/// id, conversion) per enabled event.
fn enable(
    instance: &Instance,
    wanted: &[Wanted],
    report: &mut Report,
) -> Result<Vec<(u16, Conversion)>, CaptureError> {
    let mut out: Vec<(u16, Conversion)> = Vec::new();
    for w in wanted {
        let names: Vec<String> = if w.event == "*" {
            let dir = instance.path(&format!("events/{}", w.system));
            let entries = std::fs::read_dir(&dir).map_err(|e| CaptureError::io(&dir, e))?;
            let mut v: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join("format").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        } else {
            vec![w.event.clone()]
        };
        for name in names {
            let rel = format!("events/{}/{name}", w.system);
            let fpath = instance.path(&format!("{rel}/format"));
            let text = match session::read_control(&fpath) {
                Ok(t) => t,
                Err(e) if e.kind() == ErrorKind::NotFound && !w.required => {
                    report.absent.push(format!("{}:{name}", w.system));
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return Err(CaptureError::tracefs(
                        &fpath,
                        format!("no event {}:{name} on this kernel", w.system),
                    ))
                }
                Err(e) => return Err(CaptureError::io(&fpath, e)),
            };
            let f = format::parse_event(&w.system, &text)
                .map_err(|e| CaptureError::tracefs(&fpath, e.to_string()))?;
            if out.iter().any(|(id, _)| *id == f.id) {
                continue;
            }
            let mut conv = Conversion::new(&f);
            // Two systems may use one event name: keep classes apart.
            if out.iter().any(|(_, c)| c.class.name == conv.class.name) {
                conv.class.name = format!("{}_{}", f.system, conv.class.name);
            }
            instance.write(&format!("{rel}/enable"), "1")?;
            report.enabled.push(format!("{}:{name}", w.system));
            out.push((f.id, conv));
        }
    }
    if out.is_empty() {
        return Err(CaptureError::tracefs(
            &instance.path("events"),
            "none of the requested events exists on this kernel",
        ));
    }
    Ok(out)
}

fn spec(clock: &str, conversions: &[(u16, Conversion)]) -> TraceSpec {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    TraceSpec {
        clock: Clock {
            name: if clock == "mono" {
                "monotonic".into()
            } else {
                format!(
                    "tracefs_{}",
                    clock.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                )
            },
            description: format!("tracefs trace_clock {clock}"),
            freq: 1_000_000_000,
            offset_s: 0,
        },
        env: vec![
            ("domain".into(), EnvValue::Text("kernel".into())),
            (
                "tracer_name".into(),
                EnvValue::Text("sextant-capture-tracefs".into()),
            ),
            ("trace_clock".into(), EnvValue::Text(clock.into())),
            ("sysname".into(), EnvValue::Text("Linux".into())),
            (
                "kernel_release".into(),
                EnvValue::Text(release.trim().into()),
            ),
            ("hostname".into(), EnvValue::Text(host.trim().into())),
        ],
        source_fields: vec!["cpu_id".into()],
        // As LTTng's `add-context -t tid`: the thread each event ran in.
        event_context: vec![("tid".into(), FieldType::int(32, true))],
        classes: conversions.iter().map(|(_, c)| c.class.clone()).collect(),
    }
}

/// Opens every CPU's `trace_pipe_raw`, non-blocking, each with its stream.
fn open_pipes(instance: &Instance, writer: &mut CtfWriter) -> Result<Vec<CpuPipe>, CaptureError> {
    let dir = instance.path("per_cpu");
    let mut cpus: Vec<u32> = std::fs::read_dir(&dir)
        .map_err(|e| CaptureError::io(&dir, e))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("cpu")?.parse().ok())
        .collect();
    cpus.sort_unstable();
    let mut pipes = Vec::new();
    for cpu in cpus {
        let path = dir.join(format!("cpu{cpu}/trace_pipe_raw"));
        let file = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
        {
            Ok(f) => f,
            // An offline CPU has a directory but no buffer.
            Err(e) if e.raw_os_error() == Some(libc::ENODEV) => continue,
            Err(e) => return Err(CaptureError::io(&path, e)),
        };
        let stream = writer.add_stream(&format!("cpu{cpu}"), &[u64::from(cpu)])?;
        pipes.push(CpuPipe {
            cpu,
            path,
            file,
            stream,
            last_ts: 0,
            events: 0,
            lost: 0,
        });
    }
    if pipes.is_empty() {
        return Err(CaptureError::tracefs(&dir, "no CPU buffer to read"));
    }
    Ok(pipes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_and_clock() {
        let s = "entries: 0\noverrun: 12\ncommit overrun: 1\nbytes: 0\ndropped events: 3\n";
        assert_eq!(stat(s, "overrun"), 12);
        assert_eq!(stat(s, "commit overrun"), 1);
        assert_eq!(stat(s, "dropped events"), 3);
        assert_eq!(stat(s, "read events"), 0);
        assert_eq!(current_clock("[local] global mono\n"), "local");
        assert_eq!(current_clock("local global [mono]"), "mono");
    }
}
