//! Event types (DATA_TREE): the number of events of each type in the
//! experiment, from the index's counts.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::draw::headers;
use crate::service::params::{range_or_all, Result, ServiceError};
use crate::service::provider::{no_styles, Output, Query};
use crate::service::reply::data;

/// The experiment's events per type.
pub const EVENT_TYPES: &str = "sextant.event-types";

pub struct EventTypes;

impl Output for EventTypes {
    fn descriptor(&self) -> Value {
        json!({
            "id": EVENT_TYPES,
            "name": "Event types",
            "description": "Number of events of each type",
            "type": "DATA_TREE",
        })
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn data_tree(&self, q: &Query<'_>) -> Result<Value> {
        let (start, end) = range_or_all(q.body)?;
        let headers = headers(
            [
                ("Event type", "Event name as written in the trace", None),
                ("Count", "Number of events", Some("NUMBER")),
            ]
            .iter(),
        );
        let indexes = match q.exp.indexes()? {
            Ok(ix) => ix,
            Err(m) => {
                return Ok(data(
                    json!({"headers": headers, "entries": []}),
                    "RUNNING",
                    m,
                ))
            }
        };
        // Counts per type are kept for the whole trace only.
        let whole = indexes.iter().all(|ix| start <= ix.start && end >= ix.end);
        if !whole {
            return Err(ServiceError::bad_request(
                "parameters.requested_timerange: event types are counted over the whole experiment only; omit the range or give one that covers it",
            ));
        }
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for ix in &indexes {
            for (name, n) in &ix.event_types {
                *counts.entry(name).or_default() += n;
            }
        }
        let total: u64 = counts.values().sum();
        let mut entries = vec![json!({
            "id": 0, "parentId": -1, "labels": [q.exp.name, total.to_string()], "hasData": true,
        })];
        for (i, (name, n)) in counts.iter().enumerate() {
            entries.push(json!({
                "id": i as i64 + 1, "parentId": 0, "labels": [name, n.to_string()], "hasData": true,
            }));
        }
        Ok(data(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
            "COMPLETED",
            "Completed",
        ))
    }
}
