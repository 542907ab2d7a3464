//! What a query says besides its answer: the traces' warnings (one line
//! per trace and cause) and how many traces' executions came from their
//! store rather than a pass. A worker of a distributed engine has no
//! user to give them to at the end: its log says each line on its standard
//! error as it comes, with each partition it executes, and its scans hand
//! the lines and counts to the coordinator as metrics (`carried`), which
//! says them again in the user's log.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::fleet::Trace;

#[derive(Debug, Default)]
pub struct Log {
    warnings: Mutex<Vec<Warning>>,
    stored: AtomicUsize,
    read: AtomicUsize,
    /// A worker's: every line said at once.
    worker: bool,
}

/// One warning: of a trace, or of the query (`trace` `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Warning {
    pub(crate) trace: Option<PathBuf>,
    pub(crate) text: String,
}

impl Warning {
    fn line(&self) -> String {
        match &self.trace {
            Some(path) => format!("{}: {}", path.display(), self.text),
            None => self.text.clone(),
        }
    }
}

impl Log {
    /// A worker's log.
    pub fn worker() -> Log {
        Log {
            worker: true,
            ..Log::default()
        }
    }

    pub(crate) fn is_worker(&self) -> bool {
        self.worker
    }

    fn all(&self) -> MutexGuard<'_, Vec<Warning>> {
        // A pass that panicked while warning left the list whole.
        self.warnings.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn warn(&self, trace: &Trace, warning: &str) {
        self.warn_at(&trace.path, warning);
    }

    /// A warning of the trace at `path`.
    pub(crate) fn warn_at(&self, path: &Path, warning: &str) {
        self.add(Warning {
            trace: Some(path.to_path_buf()),
            text: warning.to_string(),
        });
    }

    /// A warning of the whole query.
    pub(crate) fn warn_query(&self, warning: String) {
        self.add(Warning {
            trace: None,
            text: warning,
        });
    }

    fn add(&self, warning: Warning) {
        let mut all = self.all();
        // A table read twice in one query warns once.
        if !all.contains(&warning) {
            if self.worker {
                eprintln!("sextant worker: warning: {}", warning.line());
            }
            all.push(warning);
        }
    }

    /// A worker says which partition of which table it is executing, and
    /// of which trace (what shows a query ran on the workers).
    pub(crate) fn executing(&self, table: &str, partition: usize, trace: &Trace) {
        if self.worker {
            eprintln!(
                "sextant worker: executing {table} partition {partition}: trace {} ({})",
                trace.name,
                trace.path.display()
            );
        }
    }

    pub(crate) fn warn_all(&self, trace: &Trace, warnings: &[String]) {
        for w in warnings {
            self.warn(trace, w);
        }
    }

    pub(crate) fn counted(&self, from_store: bool) {
        self.counted_many(usize::from(from_store), usize::from(!from_store));
    }

    /// Traces whose executions came from their store, and traces read.
    pub(crate) fn counted_many(&self, stored: usize, read: usize) {
        self.stored.fetch_add(stored, Ordering::Relaxed);
        self.read.fetch_add(read, Ordering::Relaxed);
    }

    /// Every warning, in the order they came.
    pub(crate) fn said(&self) -> Vec<Warning> {
        self.all().clone()
    }

    /// One line per warning: the query's first, then each trace's by the
    /// trace's path, a trace's own in the order they came. The order in
    /// which the traces' passes end varies from run to run, and on a
    /// cluster the workers' lines come all at once at the end: sorted,
    /// `sextant sql` says the same lines in the same order both ways.
    pub fn warnings(&self) -> Vec<String> {
        let mut all = self.said();
        // Stable: a trace's lines keep their order.
        all.sort_by(|a, b| a.trace.cmp(&b.trace));
        all.iter().map(Warning::line).collect()
    }

    /// Traces whose executions came from their store, and traces read.
    pub fn executions(&self) -> (usize, usize) {
        (
            self.stored.load(Ordering::Relaxed),
            self.read.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_sorted_by_trace_and_said_once() {
        let log = Log::default();
        log.warn_at(Path::new("fleet/b.txt"), "second");
        log.warn_at(Path::new("fleet/a.txt"), "z first");
        log.warn_at(Path::new("fleet/b.txt"), "a third");
        log.warn_at(Path::new("fleet/a.txt"), "z first");
        log.warn_query("the query's".into());
        assert_eq!(
            log.warnings(),
            [
                "the query's",
                "fleet/a.txt: z first",
                "fleet/b.txt: second",
                "fleet/b.txt: a third"
            ]
        );
    }
}
