//! What the service keeps in the traces' stores beyond their index: the
//! executions of the execution models clients post, read back instead of a
//! pass when a model is posted again, and offered again, with the name the
//! client gave, to a server started later on the same traces
//! (`sextant_engine::session::executions`). Counted, so that a client (and a
//! test) can see whether an answer cost a pass.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::executions::Source;
use sextant_engine::session::Session;
use sextant_engine::store::Places;

/// The stores the service uses, and what they saved.
pub struct Results {
    /// `None`: nothing is read from or written to stores (`--no-store`).
    places: Option<Places>,
    passes: AtomicU64,
    from_store: AtomicU64,
}

impl Results {
    pub fn new(places: Option<Places>) -> Results {
        Results {
            places,
            passes: AtomicU64::new(0),
            from_store: AtomicU64::new(0),
        }
    }

    /// The trace at `path`, with the stores when they are on.
    pub fn session(&self, path: &Path) -> Session {
        Session::open(path, OpenOptions::default(), self.places.clone())
    }

    /// One trace's executions were found by `source`.
    pub fn count(&self, source: Source) {
        let counter = match source {
            Source::Pass { .. } => &self.passes,
            Source::Store => &self.from_store,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// For `GET /identifier`: whether stores are used, and how many traces'
    /// executions took a pass or were read from a store.
    pub fn stats(&self) -> Value {
        json!({
            "enabled": self.places.is_some(),
            "executionPasses": self.passes.load(Ordering::Relaxed),
            "executionsFromStore": self.from_store.load(Ordering::Relaxed),
        })
    }
}
