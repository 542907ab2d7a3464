//! What a query says besides its answer: the traces' warnings (one line
//! per trace and cause) and how many traces' executions came from their
//! store rather than a pass. A worker of a distributed engine has no
//! user to give them to at the end: its log says each line on its standard
//! error as it comes, with each partition it executes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::fleet::Trace;

#[derive(Debug, Default)]
pub struct Log {
    warnings: Mutex<Vec<String>>,
    stored: AtomicUsize,
    read: AtomicUsize,
    /// A worker's: every line said at once.
    worker: bool,
}

impl Log {
    /// A worker's log.
    pub fn worker() -> Log {
        Log {
            worker: true,
            ..Log::default()
        }
    }

    pub(crate) fn warn(&self, trace: &Trace, warning: &str) {
        let line = format!("{}: {warning}", trace.path.display());
        let mut all = self.warnings.lock().expect("not poisoned");
        // A table read twice in one query warns once.
        if !all.contains(&line) {
            if self.worker {
                eprintln!("sextant worker: warning: {line}");
            }
            all.push(line);
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
        let n = if from_store { &self.stored } else { &self.read };
        n.fetch_add(1, Ordering::Relaxed);
    }

    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().expect("not poisoned").clone()
    }

    /// Traces whose executions came from their store, and traces read.
    pub fn executions(&self) -> (usize, usize) {
        (
            self.stored.load(Ordering::Relaxed),
            self.read.load(Ordering::Relaxed),
        )
    }
}
