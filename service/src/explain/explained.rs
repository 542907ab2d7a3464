//! What an explanation's outputs draw, built once when it is posted.

use serde_json::Value;
use sextant_engine::analysis::explain::Diagnosis;

use super::build::{Relation, TimeGraph};
use crate::provider::Derived;

/// The configuration type, and the output that creates the derived ones.
pub const EXPLAIN: &str = "sextant.explain";
pub const PARENT: &str = EXPLAIN;

/// One explanation: what its outputs draw.
pub struct Explained {
    pub configuration: Value,
    /// The analysed range.
    pub start: i64,
    pub end: i64,
    pub diagnosis: Diagnosis,
    pub path: TimeGraph,
    pub complement: TimeGraph,
    pub facilities: TimeGraph,
    pub relations: Vec<Relation>,
}

impl Explained {
    pub fn descriptor(&self, prefix: &str, title: &str, description: &str, kind: &str) -> Value {
        Derived {
            parent: PARENT,
            configuration: &self.configuration,
        }
        .descriptor(prefix, title, description, kind)
    }
}
