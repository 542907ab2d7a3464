//! Running analyses over a trace: the one way every command, service request
//! and benchmark reads a trace. A `Pass` opens the trace (any format), reads
//! it once — all of it, or from a time (a seek) up to a time — feeding the
//! kernel model and the analyses (`kernel::pass`), and reports to a `Work`
//! context: progress, and a cancel flag checked every few thousand events.
//!
//! A `Tap` sees every event the reader yields before the model does, for
//! what is per event rather than per analysis: counting and indexing, or
//! collecting table lines. It can also drop events or end the read.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::event::{Event, EventSource, ReadError};
use crate::kernel::model::KernelModel;
use crate::kernel::pass::{Analysis, Interpreter, PassSummary};
use crate::reader::{AnyReader, OpenOptions, WithSource};

/// Events between two looks at the cancel flag and the progress.
const TICK: u64 = 4096;
/// Events between two asks whether every analysis is done.
const DONE_EVERY: u64 = 65536;

/// What long work reports its progress to and is stopped by. The JSON-RPC
/// transports pass their own (work-done progress, `$/cancelRequest`); the
/// command line a progress bar; HTTP, which has neither, `Work::none()`.
pub struct Work<'a> {
    /// Per cent done, 0..=100; called from the thread doing the work.
    pub progress: &'a (dyn Fn(u8) + Sync),
    /// Set when the work is cancelled: it stops at the next check.
    pub cancel: &'a AtomicBool,
}

fn no_progress(_: u8) {}

impl Work<'static> {
    /// Work nobody watches or cancels.
    pub fn none() -> Work<'static> {
        static NEVER: AtomicBool = AtomicBool::new(false);
        Work {
            progress: &no_progress,
            cancel: &NEVER,
        }
    }
}

impl Work<'_> {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Runs `f` as part `i` of `n` equal parts of this work: its per cent
    /// is reported as that share of the whole.
    pub fn part<R>(&self, i: usize, n: usize, f: impl FnOnce(&Work<'_>) -> R) -> R {
        let (i, n) = (i as u64, n.max(1) as u64);
        let progress = |p: u8| (self.progress)(((i * 100 + u64::from(p)) / n).min(100) as u8);
        f(&Work {
            progress: &progress,
            cancel: self.cancel,
        })
    }
}

/// Why a pass did not complete.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The work's cancel flag was set.
    #[error("the work was cancelled")]
    Cancelled,
    /// The reader cannot start at a time (e.g. text read from a pipe).
    #[error(transparent)]
    CannotSeek(ReadError),
    /// Opening or reading the trace failed (the error names the file and
    /// the offset or line).
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// What a completed pass read.
#[derive(Debug, Clone, Default)]
pub struct Ran {
    pub summary: PassSummary,
    /// The reader's warnings (lost events, time going backwards, ...).
    pub warnings: Vec<String>,
}

/// What a tap says of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Hand it on to the model and the analyses.
    Apply,
    /// Step over it: neither the model nor the analyses see it.
    Skip,
    /// End the read before it.
    Stop,
}

/// Sees every event the reader yields, before the model applies it (`model`
/// is its state after the previous events).
pub trait Tap {
    fn event<'s, E: Event<'s>>(&mut self, ev: &E, model: &KernelModel) -> Result<Flow, ReadError>;
}

/// No tap: every event goes to the model.
impl Tap for () {
    fn event<'s, E: Event<'s>>(&mut self, _: &E, _: &KernelModel) -> Result<Flow, ReadError> {
        Ok(Flow::Apply)
    }
}

impl<T: Tap> Tap for &mut T {
    fn event<'s, E: Event<'s>>(&mut self, ev: &E, model: &KernelModel) -> Result<Flow, ReadError> {
        (**self).event(ev, model)
    }
}

/// One read of a trace feeding a fresh kernel model and `analyses`.
pub struct Pass<'p, 'a, T = ()> {
    analyses: &'p mut [&'a mut dyn Analysis],
    tap: T,
    from: Option<i64>,
    until: i64,
    options: OpenOptions,
}

impl<'p, 'a> Pass<'p, 'a, ()> {
    /// The whole trace, for `analyses` (none: the model alone).
    pub fn new(analyses: &'p mut [&'a mut dyn Analysis]) -> Self {
        Pass {
            analyses,
            tap: (),
            from: None,
            until: i64::MAX,
            options: OpenOptions::default(),
        }
    }
}

impl<'p, 'a, T: Tap> Pass<'p, 'a, T> {
    /// Every event read goes through `tap` first.
    pub fn tap<U: Tap>(self, tap: U) -> Pass<'p, 'a, U> {
        Pass {
            analyses: self.analyses,
            tap,
            from: self.from,
            until: self.until,
            options: self.options,
        }
    }

    /// Starts at the first event at or after `ts` (the reader seeks there,
    /// without reading what lies before).
    pub fn from(mut self, ts: i64) -> Self {
        self.from = Some(ts);
        self
    }

    /// Ends after the events at `ts`: the first event after it is not
    /// applied, and the analyses finish at `ts`.
    pub fn until(mut self, ts: i64) -> Self {
        self.until = ts;
        self
    }

    /// How `read` opens the trace (e.g. lenient: malformed BTF rows
    /// skipped and counted in the warnings).
    pub fn options(mut self, options: OpenOptions) -> Self {
        self.options = options;
        self
    }

    /// Opens the trace at `path` (CTF directory, ftrace text or BTF) and
    /// reads it.
    pub fn read(self, path: &Path, work: &Work<'_>) -> Result<Ran, RunError> {
        AnyReader::open_with(path, self.options)?.with(OnSource { pass: self, work })
    }

    /// Reads from `source`, wherever it stands.
    pub fn read_source<S: EventSource>(
        mut self,
        source: &mut S,
        work: &Work<'_>,
    ) -> Result<Ran, RunError> {
        if let Some(ts) = self.from {
            source.seek(ts).map_err(RunError::CannotSeek)?;
        }
        let summary = self.drive(source, work)?;
        Ok(Ran {
            summary,
            warnings: source.warnings(),
        })
    }

    fn drive<S: EventSource>(
        &mut self,
        source: &mut S,
        work: &Work<'_>,
    ) -> Result<PassSummary, RunError> {
        let mut model = KernelModel::default();
        let mut interpreter = Interpreter::default();
        let mut summary = PassSummary::default();
        let mut passed_until = false;
        let mut reported = None;
        let mut losses = Vec::new();
        while source.advance()? {
            source.take_losses(&mut losses);
            if !losses.is_empty() {
                summary.losses.extend_from_slice(&losses);
                for loss in losses.drain(..) {
                    for a in self.analyses.iter_mut() {
                        a.on_loss(&loss);
                    }
                }
            }
            let ev = source.event().expect("advance returned true");
            match self.tap.event(&ev, &model)? {
                Flow::Apply => {}
                Flow::Skip => continue,
                Flow::Stop => {
                    summary.stopped_early = true;
                    break;
                }
            }
            let ts = ev.ts();
            if ts > self.until {
                summary.stopped_early = true;
                passed_until = true;
                break;
            }
            summary.events += 1;
            summary.first_ts.get_or_insert(ts);
            summary.last_ts = ts;
            if summary.events % TICK == 0 {
                if work.cancelled() {
                    return Err(RunError::Cancelled);
                }
                let (done, total) = source.progress();
                let percent = (done.min(total) * 100).checked_div(total).unwrap_or(0) as u8;
                if reported != Some(percent) {
                    reported = Some(percent);
                    (work.progress)(percent);
                }
                if summary.events % DONE_EVERY == 0
                    && !self.analyses.is_empty()
                    && self.analyses.iter().all(|a| a.done())
                {
                    summary.stopped_early = true;
                    break;
                }
            }
            if interpreter.apply(&ev, ts, &mut model, self.analyses)? {
                summary.decoded += 1;
            }
        }
        let end = if passed_until {
            self.until
        } else {
            summary.last_ts
        };
        source.take_losses(&mut losses);
        summary.losses.extend_from_slice(&losses);
        for loss in &losses {
            for a in self.analyses.iter_mut() {
                a.on_loss(loss);
            }
        }
        for a in self.analyses.iter_mut() {
            a.finish(&model, end);
        }
        summary.repairs = model.repairs;
        Ok(summary)
    }
}

struct OnSource<'p, 'a, 'w, T> {
    pass: Pass<'p, 'a, T>,
    work: &'w Work<'w>,
}

impl<T: Tap> WithSource for OnSource<'_, '_, '_, T> {
    type Output = Result<Ran, RunError>;

    fn run<S: EventSource>(self, mut source: S) -> Self::Output {
        self.pass.read_source(&mut source, self.work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn fixture(rel: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(rel)
    }

    /// Counts what it sees; skips the first `skip` events, stops after `stop`.
    struct Count {
        seen: u64,
        skip: u64,
        stop: u64,
    }

    impl Tap for Count {
        fn event<'s, E: Event<'s>>(&mut self, _: &E, _: &KernelModel) -> Result<Flow, ReadError> {
            self.seen += 1;
            Ok(if self.seen > self.stop {
                Flow::Stop
            } else if self.seen <= self.skip {
                Flow::Skip
            } else {
                Flow::Apply
            })
        }
    }

    #[test]
    fn taps_skip_and_stop() {
        let trace = fixture("scenario-b/ctf");
        let all = Pass::new(&mut []).read(&trace, &Work::none()).unwrap();
        assert!(all.summary.events > 10_000);
        assert!(!all.summary.stopped_early);
        let mut count = Count {
            seen: 0,
            skip: 100,
            stop: 5000,
        };
        let some = Pass::new(&mut [])
            .tap(&mut count)
            .read(&trace, &Work::none())
            .unwrap();
        assert_eq!(some.summary.events, 4900);
        assert!(some.summary.stopped_early);
        assert_eq!(count.seen, 5001);
    }

    #[test]
    fn ranges_cancellation_and_progress() {
        let trace = fixture("scenario-b/ctf");
        let all = Pass::new(&mut []).read(&trace, &Work::none()).unwrap();
        let (first, last) = (all.summary.first_ts.unwrap(), all.summary.last_ts);
        let mid = first + (last - first) / 2;
        let tail = Pass::new(&mut [])
            .from(mid + 1)
            .read(&trace, &Work::none())
            .unwrap();
        assert!(tail.summary.first_ts.unwrap() > mid);
        assert_eq!(tail.summary.last_ts, last);
        let head = Pass::new(&mut [])
            .until(mid)
            .read(&trace, &Work::none())
            .unwrap();
        assert!(head.summary.last_ts <= mid && head.summary.stopped_early);
        assert_eq!(
            head.summary.events + tail.summary.events,
            all.summary.events
        );

        let seen = Mutex::new(Vec::new());
        let progress = |p: u8| seen.lock().unwrap().push(p);
        let cancel = AtomicBool::new(false);
        let work = Work {
            progress: &progress,
            cancel: &cancel,
        };
        work.part(1, 2, |w| Pass::new(&mut []).read(&trace, w))
            .unwrap();
        let seen = seen.lock().unwrap().clone();
        assert!(!seen.is_empty());
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        assert!(seen.iter().all(|p| (50..=100).contains(p)), "{seen:?}");

        cancel.store(true, Ordering::Relaxed);
        let err = Pass::new(&mut []).read(&trace, &work).unwrap_err();
        assert!(matches!(err, RunError::Cancelled), "{err}");
    }
}
