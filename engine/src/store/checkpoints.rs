//! A trace's read checkpoints as stored: a table of the index unit, and a
//! unit of their own (`checkpoints/`) written by a read of the events table
//! from the trace's start, so that a later read that asks only for events
//! from some time on seeks there instead of reading everything before.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt64Type};
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::unit::{Found, Table};
use super::{TraceStore, Unusable};
use crate::export::ExportError;
use crate::kernel::checkpoint::Checkpoint;

/// The unit of the checkpoints the events table recorded.
const UNIT: &str = "checkpoints";
/// The table's file, in that unit and in the index's.
pub(crate) const FILE: &str = "checkpoints.arrow";

pub(crate) fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("ts", DataType::Int64, false),
        Field::new("skip", DataType::UInt64, false),
        Field::new(
            "cpus",
            DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
            false,
        ),
    ]))
}

pub(crate) fn batch(checkpoints: &[Checkpoint]) -> Result<RecordBatch, ExportError> {
    let (mut ts, mut skip) = (Int64Builder::new(), UInt64Builder::new());
    let item = Arc::new(Field::new("item", DataType::Int64, true));
    let mut cpus = ListBuilder::new(Int64Builder::new()).with_field(item);
    for c in checkpoints {
        ts.append_value(c.ts);
        skip.append_value(c.skip);
        cpus.append_value(c.cpus.iter().copied());
    }
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(ts.finish()),
            Arc::new(skip.finish()),
            Arc::new(cpus.finish()),
        ],
    )
    .map_err(ExportError::Batch)
}

pub(crate) fn read(found: &mut Found) -> Result<Vec<Checkpoint>, Unusable> {
    let mut out = Vec::new();
    for b in found.table_of(FILE, schema())? {
        let ts = b.column(0).as_primitive::<Int64Type>();
        let skip = b.column(1).as_primitive::<UInt64Type>();
        let cpus = b.column(2).as_list::<i32>();
        for i in 0..b.num_rows() {
            let list = cpus.value(i);
            let list = list.as_primitive::<Int64Type>();
            out.push(Checkpoint {
                ts: ts.value(i),
                skip: skip.value(i),
                cpus: list.iter().collect(),
            });
        }
    }
    Ok(out)
}

/// Writes the checkpoints of a read from the trace's start; returns the
/// unit's directory.
pub fn save(checkpoints: &[Checkpoint], store: &TraceStore) -> Result<PathBuf, ExportError> {
    let table = Table {
        name: FILE,
        schema: schema(),
        batches: vec![batch(checkpoints)?],
        maps: Vec::new(),
    };
    store.write(UNIT, vec![table], serde_json::Value::Null)
}

/// The trace's stored checkpoints, its index's or the events table's
/// (the longer list: either may be of a read that stopped early);
/// `Ok(None)` when neither is stored.
pub fn load(store: &TraceStore) -> Result<Option<Vec<Checkpoint>>, Unusable> {
    let mut best: Option<Vec<Checkpoint>> = None;
    for unit in [super::index::UNIT, UNIT] {
        if let Some(mut found) = store.find(unit)? {
            let list = read(&mut found)?;
            if best.as_ref().is_none_or(|b| b.len() < list.len()) {
                best = Some(list);
            }
        }
    }
    Ok(best)
}
