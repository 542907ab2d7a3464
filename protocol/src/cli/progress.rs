//! A progress bar on stderr when it is a terminal; nothing when piped.

use std::io::IsTerminal;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};
use sextant_engine::run::Work;

pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A byte-based bar of `total` bytes, shown only on a terminal.
    pub fn bytes(total: u64, what: &str) -> Progress {
        Progress::shown(
            total,
            what,
            "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})",
        )
    }

    /// A bar in per cent, shown only on a terminal.
    pub fn percent(what: &str) -> Progress {
        Progress::shown(100, what, "{msg} [{bar:30}] {pos}% ({eta})")
    }

    fn shown(total: u64, what: &str, template: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        Progress(Some(bar))
    }

    pub fn set(&self, done: u64) {
        if let Some(b) = &self.0 {
            b.set_position(done);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// Runs `f` with a work context that shows its progress as `what` (a
/// command is stopped by a signal, never cancelled).
pub fn shown<R>(what: &str, f: impl FnOnce(&Work<'_>) -> R) -> R {
    let bar = Progress::percent(what);
    let progress = |p: u8| bar.set(u64::from(p));
    let never = AtomicBool::new(false);
    let r = f(&Work {
        progress: &progress,
        cancel: &never,
    });
    bar.finish();
    r
}
