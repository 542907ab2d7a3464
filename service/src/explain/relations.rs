//! The related threads (DATA_TREE): the analysed thread, then the threads
//! that woke or forked it (direct) or are connected to it through others
//! (indirect), with their interactions in the range.

use std::sync::Arc;

use serde_json::{json, Value};

use super::explained::Explained;
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::Tree;
use crate::reply::completed;

pub const PREFIX: &str = "sextant.explain.relations";

pub struct Relations(pub Arc<Explained>);

impl Output for Relations {
    fn descriptor(&self) -> Value {
        self.0.descriptor(
            PREFIX,
            "Related threads",
            "Threads that woke or forked the analysed one (direct) or are connected to it through others (indirect)",
            "DATA_TREE",
        )
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn data_tree(&self, q: &Query<'_>) -> Result<Value> {
        Tree::parse(q.body)?;
        let headers = json!([
            {"name": "Thread", "tooltip": "Thread name"},
            {"name": "TID", "tooltip": "Thread id", "dataType": "NUMBER"},
            {"name": "Relation", "tooltip": "analysed; direct: woke, was woken by or forked it; indirect: through others"},
            {"name": "Interactions", "tooltip": "Wake-ups and forks in the range: with the analysed thread (direct), with any thread (the others)", "dataType": "NUMBER"},
        ]);
        let entries: Vec<Value> = self
            .0
            .relations
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "id": i as i64,
                    "parentId": if i == 0 { -1 } else { 0 },
                    "labels": [r.comm, r.tid.to_string(), r.relation, r.interactions.to_string()],
                    "hasData": true,
                })
            })
            .collect();
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }
}
