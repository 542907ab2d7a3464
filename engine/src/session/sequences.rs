//! The chosen threads' event sequences, what discovery mines: from the
//! trace's store when it keeps them for these threads, cap and options,
//! else read in one pass and kept there (store problems are notes, never
//! failures). What `sextant discover` asks.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};

use super::{Error, Session};
use crate::analysis::discovery::{Budget, Collector, Cut, Sequences};
use crate::analysis::model::ThreadFilter;
use crate::hosts::HostPick;
use crate::reader::OpenOptions;
use crate::run::{Pass, Work};
use crate::store::sequences::{self, Key};

/// The sequences, and how they were had.
#[derive(Debug)]
pub struct Collected {
    pub sequences: Sequences,
    /// The pass's warnings (kept with the sequences).
    pub warnings: Vec<String>,
    /// Where the time limit stopped the reading (such sequences are not
    /// kept).
    pub cut: Option<Cut>,
    /// What the store could not do.
    pub notes: Vec<String>,
    /// Where a pass kept them, when it did.
    pub kept: Option<PathBuf>,
}

impl Session {
    /// The sequences of `threads` on host `pick`, at most `max_events`
    /// each, reading no longer than `budget` allows.
    pub fn sequences(
        &self,
        threads: &ThreadFilter,
        max_events: usize,
        pick: HostPick,
        budget: &Budget,
        work: &Work<'_>,
    ) -> Result<Collected, Error> {
        let key = Key::new(threads, max_events, self.options.lenient);
        // The store is kept per trace folder: one host of several is not.
        let store = self.store().filter(|_| pick == HostPick::Sole);
        let mut notes = Vec::new();
        if let Some(store) = &store {
            match sequences::load(store, &key) {
                Ok(Some((sequences, warnings))) => {
                    return Ok(Collected {
                        sequences,
                        warnings,
                        cut: None,
                        notes,
                        kept: None,
                    })
                }
                Ok(None) => {}
                Err(e) => notes.push(format!("stored sequences not used: {e}")),
            }
        }
        let mut collector = Collector::new(threads.clone(), max_events);
        let mut stop = budget.tap();
        // How far the reading went, for a cut's message.
        let reached = AtomicU8::new(0);
        let progress = |p: u8| {
            reached.store(p, Ordering::Relaxed);
            (work.progress)(p)
        };
        let warnings = Pass::new(&mut [&mut collector])
            .options(OpenOptions {
                host: pick,
                ..self.options
            })
            .tap(&mut stop)
            .read(
                &self.trace,
                &Work {
                    progress: &progress,
                    cancel: work.cancel,
                },
            )?
            .warnings;
        let sequences = collector.into_sequences();
        if stop.stopped() {
            let percent = reached.load(Ordering::Relaxed);
            return Ok(Collected {
                sequences,
                warnings,
                cut: Some(Cut::Reading { percent }),
                notes,
                kept: None,
            });
        }
        let mut kept = None;
        if let Some(store) = &store {
            match sequences::save(store, &key, &sequences, &warnings) {
                Ok(dir) => kept = Some(dir),
                Err(e) => notes.push(format!("the sequences could not be stored: {e}")),
            }
        }
        Ok(Collected {
            sequences,
            warnings,
            cut: None,
            notes,
            kept,
        })
    }
}
