//! Where the commands that store keep what they compute for a trace:
//! `--store cache|beside` and `--cache-dir`, the same on each of them.

use std::path::PathBuf;

use clap::ValueEnum;
use sextant_engine::store::{Placement, Places};

/// `--store`'s values.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum Where {
    /// NAME-HASH.sextant/ in the cache directory.
    #[default]
    Cache,
    /// NAME.sextant/ beside the trace (in the cache when the trace's
    /// folder is read-only).
    Beside,
}

#[derive(clap::Args)]
pub struct StoreArgs {
    /// Where to keep what sextant computes for the trace (its index, a
    /// model's executions, discover's event sequences), which the next run
    /// reads instead of the trace: in the cache directory (the default), so
    /// that a shared trace archive is left as it is, or beside the trace.
    /// Both places are read, the chosen one first: a NAME.sextant/ that
    /// earlier versions wrote beside the trace is still used, and
    /// `sextant store rm TRACE` removes it.
    #[arg(long = "store", value_enum, value_name = "WHERE", default_value_t)]
    pub placement: Where,
    /// The cache directory (default: $XDG_CACHE_HOME/sextant, else
    /// ~/.cache/sextant).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read what an earlier run stored for the trace nor store
    /// anything: the trace is read, every time (a model's executions,
    /// discover's event sequences, the server's indexes).
    #[arg(long, conflicts_with_all = ["placement", "cache_dir"])]
    pub no_store: bool,
}

impl StoreArgs {
    /// Where to store, `None` with `--no-store`: the one reading of these
    /// options every command makes.
    pub fn places(&self) -> Option<Places> {
        if self.no_store {
            return None;
        }
        let placement = match self.placement {
            Where::Cache => Placement::Cache,
            Where::Beside => Placement::Beside,
        };
        Some(Places::new(self.cache_dir.clone(), placement))
    }
}
