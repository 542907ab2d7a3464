//! What a trace's stores hold, removing it, and removing what can no
//! longer be used: what `sextant store ls|rm|gc` asks.

use std::path::PathBuf;

use super::Session;
pub use crate::store::UnitInfo;
use crate::store::{collect_cache_garbage, Places, TraceStore};

impl Session {
    /// The trace's store, opened to be looked at: an error when stores are
    /// off or the trace cannot be identified.
    fn managed(&self) -> std::io::Result<TraceStore> {
        let places = self.places.as_ref().ok_or_else(|| {
            std::io::Error::other("stores are off (--no-store): nothing to list or remove")
        })?;
        TraceStore::open(places, &self.trace)
    }

    /// Every unit stored for the trace: where, its size, usable or why not.
    pub fn stored_units(&self) -> std::io::Result<Vec<UnitInfo>> {
        Ok(self.managed()?.units())
    }

    /// Removes the trace's stores; the folders removed.
    pub fn remove_stored(&self) -> std::io::Result<Vec<PathBuf>> {
        self.managed()?.remove()
    }

    /// Removes the trace's units made for another version of it or of
    /// sextant, or damaged; the folders removed.
    pub fn collect_garbage(&self) -> std::io::Result<Vec<PathBuf>> {
        self.managed()?.collect_garbage()
    }
}

/// Removes what no trace can use any more in the cache directory: units
/// made for another version, damaged ones, and the stores of traces that
/// are gone; the folders removed.
pub fn collect_garbage(places: &Places) -> std::io::Result<Vec<PathBuf>> {
    collect_cache_garbage(places)
}
