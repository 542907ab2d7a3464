//! Event types (DATA_TREE): the number of events of each type in the
//! experiment, from the index's counts; in a time range (the viewer's
//! selection, sent with `isFiltered`), counted by reading that range.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::{json, Value};
use sextant_engine::event::{Event, ReadError};
use sextant_engine::kernel::model::KernelModel;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::{Flow, RunError, Tap, Work};
use sextant_engine::session::Session;

use super::draw::headers;
use super::events::read_error;
use crate::params::Result;
use crate::provider::{no_styles, Output, Query};
use crate::queries::Tree;
use crate::reply::{completed, data, Status};

/// The experiment's events per type.
pub const EVENT_TYPES: &str = "sextant.event-types";

pub struct EventTypes;

/// Counts events by name in `[from, to]`, stepping over the rest.
struct ByName {
    from: i64,
    to: i64,
    counts: HashMap<String, u64>,
}

impl Tap for ByName {
    fn event<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        _: &KernelModel,
    ) -> std::result::Result<Flow, ReadError> {
        let ts = ev.ts();
        if ts > self.to {
            return Ok(Flow::Stop);
        }
        if ts >= self.from {
            match self.counts.get_mut(ev.name()) {
                Some(n) => *n += 1,
                None => {
                    self.counts.insert(ev.name().to_string(), 1);
                }
            }
        }
        Ok(Flow::Skip)
    }
}

/// The events of each type of the trace at `path` in `[from, to]`: the
/// reader seeks to `from` when the format allows it.
fn count_in(path: &Path, from: i64, to: i64) -> Result<HashMap<String, u64>> {
    let read = |seek: bool| {
        let mut tap = ByName {
            from,
            to,
            counts: HashMap::new(),
        };
        Session::open(path, OpenOptions::default(), None)
            .read_events(seek.then_some(from), &mut [], &mut tap, &Work::none())
            .map(|_| tap.counts)
    };
    read(true)
        .or_else(|e| match e {
            RunError::CannotSeek(_) => read(false),
            e => Err(e),
        })
        .map_err(|e| read_error(path, e))
}

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
        let (start, end) = Tree::parse(q.body)?.span();
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
                    Status::Running,
                    m,
                ))
            }
        };
        // The index counts the whole trace; a part of it is read.
        let timeline = &q.exp.timeline;
        let whole = indexes.iter().enumerate().all(|(k, ix)| {
            start <= timeline.shared(k, ix.start) && end >= timeline.shared(k, ix.end)
        });
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        if whole {
            for ix in &indexes {
                for (name, n) in &ix.event_types {
                    *counts.entry(name.clone()).or_default() += n;
                }
            }
        } else {
            for (k, t) in q.exp.traces.iter().enumerate() {
                let (from, to) = (timeline.own(k, start), timeline.own(k, end));
                for (name, n) in count_in(&t.path, from, to)? {
                    *counts.entry(name).or_default() += n;
                }
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
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }
}
