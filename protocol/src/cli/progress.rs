//! A progress bar on stderr when it is a terminal; nothing when piped.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A byte-based bar of `total` bytes, shown only on a terminal.
    pub fn bytes(total: u64, what: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")
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
