//! Discovery's pass kept (the unit `discovery-HASH`): the event sequences of
//! the chosen threads (`discovery::Sequences`) and the pass's warnings,
//! keyed by the thread filter, the event cap and the reading options. Mining
//! them again (other support, start events, time limit) then costs no pass
//! over the trace: a person trying thresholds one after another reads the
//! trace once.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt32Type};
use arrow_array::{Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};

use super::identity::Fnv;
use super::unit::Table;
use super::{TraceStore, Unusable};
use crate::analysis::discovery::Sequences;
use crate::analysis::model::ThreadFilter;
use crate::export::ExportError;

pub const PREFIX: &str = "discovery-";
const NAMES: &str = "names.arrow";
const EVENTS: &str = "events.arrow";

/// What the sequences were collected with: the unit's key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    pub tids: Option<Vec<i64>>,
    pub process: Option<String>,
    pub max_events: usize,
    pub lenient: bool,
}

impl Key {
    pub fn new(filter: &ThreadFilter, max_events: usize, lenient: bool) -> Key {
        Key {
            tids: filter.tids.as_ref().map(|t| t.iter().copied().collect()),
            process: filter.process.as_ref().map(|r| r.as_str().to_string()),
            max_events,
            lenient,
        }
    }

    fn unit(&self) -> String {
        let mut h = Fnv::default();
        h.add(
            serde_json::to_string(self)
                .expect("a key is JSON")
                .as_bytes(),
        );
        format!("{PREFIX}{:016x}", h.0)
    }

    /// How `sextant store ls` names the unit.
    fn name(&self) -> String {
        let threads = match (&self.tids, &self.process) {
            (Some(t), Some(p)) => format!("threads {t:?} and /{p}/"),
            (Some(t), None) => format!("threads {t:?}"),
            (None, Some(p)) => format!("threads /{p}/"),
            (None, None) => "every thread".to_string(),
        };
        format!("discovery sequences of {threads}")
    }
}

#[derive(Serialize, Deserialize)]
struct Details {
    name: String,
    key: Key,
    truncated: bool,
    warnings: Vec<String>,
}

fn names_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("name", DataType::Utf8, false)]))
}

fn events_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("tid", DataType::Int64, false),
        Field::new("event", DataType::UInt32, false),
    ]))
}

/// Stores `seqs` and the pass's `warnings` under `key`.
pub fn save(
    store: &TraceStore,
    key: &Key,
    seqs: &Sequences,
    warnings: &[String],
) -> Result<PathBuf, ExportError> {
    let names: StringArray = seqs.names.iter().map(Some).collect();
    let tids: Int64Array = seqs
        .threads
        .iter()
        .flat_map(|(tid, s)| std::iter::repeat_n(*tid, s.len()))
        .collect();
    let events: UInt32Array = seqs.threads.iter().flat_map(|(_, s)| s).copied().collect();
    let batch = |schema: SchemaRef, columns| {
        RecordBatch::try_new(schema, columns).map_err(ExportError::Batch)
    };
    let tables = vec![
        Table {
            name: NAMES,
            schema: names_schema(),
            batches: vec![batch(names_schema(), vec![Arc::new(names)])?],
            maps: Vec::new(),
        },
        Table {
            name: EVENTS,
            schema: events_schema(),
            batches: vec![batch(
                events_schema(),
                vec![Arc::new(tids), Arc::new(events)],
            )?],
            maps: Vec::new(),
        },
    ];
    let details = Details {
        name: key.name(),
        key: key.clone(),
        truncated: seqs.truncated,
        warnings: warnings.to_vec(),
    };
    store.write(
        &key.unit(),
        tables,
        serde_json::to_value(details).expect("details are JSON"),
    )
}

/// The sequences stored under `key` and their pass's warnings: `Ok(None)`
/// when none are.
pub fn load(store: &TraceStore, key: &Key) -> Result<Option<(Sequences, Vec<String>)>, Unusable> {
    let Some(mut found) = store.find(&key.unit())? else {
        return Ok(None);
    };
    let details: Details = serde_json::from_value(found.details.clone())
        .map_err(|e| found.corrupt("manifest.json", e.to_string()))?;
    if details.key != *key {
        // Another key with the same hash.
        return Ok(None);
    }
    let mut names = Vec::new();
    for b in found.table_of(NAMES, names_schema())? {
        let n = b.column(0).as_string::<i32>();
        names.extend(n.iter().map(|s| s.unwrap_or_default().to_string()));
    }
    let mut threads: Vec<(i64, Vec<u32>)> = Vec::new();
    for b in found.table_of(EVENTS, events_schema())? {
        let tid = b.column(0).as_primitive::<Int64Type>();
        let event = b.column(1).as_primitive::<UInt32Type>();
        for (t, e) in tid.values().iter().zip(event.values()) {
            if *e as usize >= names.len() {
                return Err(found.corrupt(EVENTS, format!("event type {e} has no name")));
            }
            match threads.last_mut() {
                Some((last, s)) if last == t => s.push(*e),
                _ => threads.push((*t, vec![*e])),
            }
        }
    }
    let seqs = Sequences {
        names,
        threads,
        truncated: details.truncated,
    };
    Ok(Some((seqs, details.warnings)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Placement, Places};

    #[test]
    fn sequences_read_back_as_written_and_only_for_their_key() {
        let dir = std::env::temp_dir().join(format!("sextant-seqs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("t.txt");
        std::fs::write(&trace, "a trace\n").unwrap();
        let store = TraceStore::open(
            &Places::new(Some(dir.join("cache")), Placement::default()),
            &trace,
        )
        .unwrap();
        let filter = ThreadFilter {
            tids: Some([3, 7].into_iter().collect()),
            process: None,
        };
        let key = Key::new(&filter, 1000, false);
        let seqs = Sequences {
            names: vec!["read".into(), "write".into()],
            threads: vec![(3, vec![0, 1, 0]), (7, vec![1])],
            truncated: true,
        };
        assert!(load(&store, &key).unwrap().is_none());
        save(&store, &key, &seqs, &["w".to_string()]).unwrap();
        let (back, warnings) = load(&store, &key).unwrap().unwrap();
        assert_eq!(back, seqs);
        assert_eq!(warnings, ["w"]);
        let other = Key::new(&filter, 999, false);
        assert!(load(&store, &other).unwrap().is_none());
        let names: Vec<_> = store
            .units()
            .into_iter()
            .filter_map(|u| u.state.ok().flatten())
            .collect();
        assert_eq!(names, ["discovery sequences of threads [3, 7]"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
