//! The trace index as stored (the unit `index/`): each thread life with its
//! state intervals, events per type, the read checkpoints, the histogram of
//! events over time and the trace's statistics — what a server needs to
//! answer its thread status, histogram, event types and events table without
//! a pass over the trace.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};

use super::checkpoints;
use super::unit::{Found, Table};
use super::{TraceStore, Unusable};
use crate::analysis::thread_table::{IntervalColumns, Level, Life, ThreadTable, COUNTED};
use crate::export::ExportError;
pub use crate::kernel::checkpoint::Checkpoint;
use crate::mapped::Mapped;

/// The unit's directory name in a trace's store.
pub const UNIT: &str = "index";

/// The mapped scratch files (`scratch.rs`) an index's interval columns are, whose pages
/// the store's writer gives back as it copies them (`IndexTables::save_shedding`).
#[derive(Debug, Default)]
pub struct Mappings(pub(crate) Vec<Arc<Mapped>>);

/// The histogram's buckets: `counts[k]` events in
/// `[origin + k * width, origin + (k + 1) * width)`, the last ending after
/// `last`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buckets {
    pub origin: Option<i64>,
    pub last: i64,
    pub width: i64,
    #[serde(skip)]
    pub counts: Vec<u64>,
}

/// What a pass over the whole trace said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statistics {
    pub events: u64,
    pub start: i64,
    pub end: i64,
    /// The reader's warnings.
    pub warnings: Vec<String>,
}

/// The index of one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexTables {
    pub statistics: Statistics,
    /// By TID, then start.
    pub threads: ThreadTable,
    /// (event name as written in the trace, count), by name.
    pub event_types: Vec<(String, u64)>,
    /// Checkpoint `k` is at event number `k * every`.
    pub checkpoints: Vec<Checkpoint>,
    pub histogram: Buckets,
}

#[derive(Serialize, Deserialize)]
struct Details {
    statistics: Statistics,
    histogram: Buckets,
}

fn threads_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("tid", DataType::Int64, false),
        Field::new("pid", DataType::Int64, true),
        Field::new("comm", DataType::Utf8, false),
        Field::new("start", DataType::Int64, false),
        Field::new("end", DataType::Int64, false),
        Field::new("intervals", DataType::UInt64, false),
    ]))
}

fn intervals_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("start", DataType::Int64, false),
        Field::new("end", DataType::Int64, false),
        Field::new("state", DataType::UInt8, false),
    ]))
}

/// A summary level's entries (`thread_table::Level`), one batch per level.
fn levels_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("start", DataType::Int64, false),
        Field::new("end", DataType::Int64, false),
        Field::new("running", DataType::Int64, false),
        Field::new("preempted", DataType::Int64, false),
        Field::new("blocked", DataType::Int64, false),
        Field::new("waiting_cpu", DataType::Int64, false),
    ]))
}

fn event_types_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("count", DataType::UInt64, false),
    ]))
}

fn histogram_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "count",
        DataType::UInt64,
        false,
    )]))
}

impl IndexTables {
    /// Writes the index into the trace's store; returns its directory.
    pub fn save(&self, store: &TraceStore) -> Result<PathBuf, ExportError> {
        self.save_shedding(store, Mappings::default())
    }

    /// As `save`, for an index whose interval columns are the mapped files
    /// `maps` (`scratch::spilled_table`): their pages are given back as
    /// they are written, so that writing does not make them resident.
    pub fn save_shedding(
        &self,
        store: &TraceStore,
        maps: Mappings,
    ) -> Result<PathBuf, ExportError> {
        let tables = vec![
            Table {
                name: "threads.arrow",
                schema: threads_schema(),
                batches: vec![self.threads_batch()?],
                maps: Vec::new(),
            },
            Table {
                name: "intervals.arrow",
                schema: intervals_schema(),
                batches: vec![self.intervals_batch()?],
                maps: maps.0,
            },
            Table {
                name: "levels.arrow",
                schema: levels_schema(),
                batches: self.levels_batches()?,
                maps: Vec::new(),
            },
            Table {
                name: "event_types.arrow",
                schema: event_types_schema(),
                batches: vec![self.event_types_batch()?],
                maps: Vec::new(),
            },
            Table {
                name: checkpoints::FILE,
                schema: checkpoints::schema(),
                batches: vec![checkpoints::batch(&self.checkpoints)?],
                maps: Vec::new(),
            },
            Table {
                name: "histogram.arrow",
                schema: histogram_schema(),
                batches: vec![batch(
                    histogram_schema(),
                    vec![Arc::new(
                        self.histogram
                            .counts
                            .iter()
                            .copied()
                            .collect::<arrow_array::UInt64Array>(),
                    )],
                )?],
                maps: Vec::new(),
            },
        ];
        let details = Details {
            statistics: self.statistics.clone(),
            histogram: self.histogram.clone(),
        };
        store.write(
            UNIT,
            tables,
            serde_json::to_value(details).expect("details are JSON"),
        )
    }

    /// The stored index of the trace: `Ok(None)` when there is none, `Err`
    /// when there is one that must not be used.
    pub fn load(store: &TraceStore) -> Result<Option<IndexTables>, Unusable> {
        let Some(mut found) = store.find(UNIT)? else {
            return Ok(None);
        };
        let details: Details = serde_json::from_value(found.details.clone())
            .map_err(|e| found.corrupt("manifest.json", e.to_string()))?;
        let mut histogram = details.histogram;
        histogram.counts = read_histogram(&mut found)?;
        Ok(Some(IndexTables {
            statistics: details.statistics,
            threads: read_threads(&mut found)?,
            event_types: read_event_types(&mut found)?,
            checkpoints: checkpoints::read(&mut found)?,
            histogram,
        }))
    }

    fn threads_batch(&self) -> Result<RecordBatch, ExportError> {
        let (mut tid, mut pid, mut comm) = (
            Int64Builder::new(),
            Int64Builder::new(),
            StringBuilder::new(),
        );
        let (mut start, mut end, mut n) = (
            Int64Builder::new(),
            Int64Builder::new(),
            UInt64Builder::new(),
        );
        for r in &self.threads.lives {
            tid.append_value(r.tid);
            pid.append_option(r.pid);
            comm.append_value(&r.comm);
            start.append_value(r.start);
            end.append_value(r.end);
            n.append_value(r.span.len() as u64);
        }
        batch(
            threads_schema(),
            vec![
                Arc::new(tid.finish()),
                Arc::new(pid.finish()),
                Arc::new(comm.finish()),
                Arc::new(start.finish()),
                Arc::new(end.finish()),
                Arc::new(n.finish()),
            ],
        )
    }

    /// Every interval in one batch, so that a reader maps each column as
    /// one slice (lives are ranges of rows).
    fn intervals_batch(&self) -> Result<RecordBatch, ExportError> {
        let c = &self.threads.intervals;
        batch(
            intervals_schema(),
            vec![
                Arc::new(c.start.clone()),
                Arc::new(c.end.clone()),
                Arc::new(c.state.clone()),
            ],
        )
    }

    fn levels_batches(&self) -> Result<Vec<RecordBatch>, ExportError> {
        self.threads
            .levels
            .iter()
            .map(|l| {
                let mut columns: Vec<ArrayRef> =
                    vec![Arc::new(l.start.clone()), Arc::new(l.end.clone())];
                columns.extend(l.time.iter().map(|t| Arc::new(t.clone()) as ArrayRef));
                batch(levels_schema(), columns)
            })
            .collect()
    }

    fn event_types_batch(&self) -> Result<RecordBatch, ExportError> {
        let names: arrow_array::StringArray = self
            .event_types
            .iter()
            .map(|(n, _)| Some(n.as_str()))
            .collect();
        let counts: arrow_array::UInt64Array =
            self.event_types.iter().map(|&(_, c)| Some(c)).collect();
        batch(
            event_types_schema(),
            vec![Arc::new(names), Arc::new(counts)],
        )
    }
}

fn batch(schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch, ExportError> {
    RecordBatch::try_new(schema, columns).map_err(ExportError::Batch)
}

/// The lives and their intervals; the intervals' columns stay the mapped
/// file's pages.
fn read_threads(found: &mut Found) -> Result<ThreadTable, Unusable> {
    let mut lives = Vec::new();
    let mut next = 0usize;
    for b in found.table_of("threads.arrow", threads_schema())? {
        let tid = b.column(0).as_primitive::<Int64Type>();
        let pid = b.column(1).as_primitive::<Int64Type>();
        let comm = b.column(2).as_string::<i32>();
        let start = b.column(3).as_primitive::<Int64Type>();
        let end = b.column(4).as_primitive::<Int64Type>();
        let n = b.column(5).as_primitive::<UInt64Type>();
        for i in 0..b.num_rows() {
            let first = next;
            next = usize::try_from(n.value(i))
                .ok()
                .and_then(|n| first.checked_add(n))
                .ok_or_else(|| found.corrupt("threads.arrow", "an interval count overflows"))?;
            lives.push(Life {
                tid: tid.value(i),
                pid: (!pid.is_null(i)).then(|| pid.value(i)),
                comm: comm.value(i).to_string(),
                start: start.value(i),
                end: end.value(i),
                span: first..next,
            });
        }
    }
    let batches = found.table_of("intervals.arrow", intervals_schema())?;
    let [b] = &batches[..] else {
        return Err(found.corrupt(
            "intervals.arrow",
            format!("{} batches, one was written", batches.len()),
        ));
    };
    if b.num_rows() != next {
        return Err(found.corrupt(
            "intervals.arrow",
            format!("{} intervals, the threads have {next}", b.num_rows()),
        ));
    }
    // State codes are not scanned here (that would bring every page in):
    // the checksum says the file is as written, and `States::get` reads a
    // code no state has as unknown rather than failing.
    let intervals = IntervalColumns {
        start: b.column(0).as_primitive::<Int64Type>().clone(),
        end: b.column(1).as_primitive::<Int64Type>().clone(),
        state: b.column(2).as_primitive::<UInt8Type>().clone(),
    };
    let levels = found
        .table_of("levels.arrow", levels_schema())?
        .iter()
        .map(|b| {
            let column = |i: usize| b.column(i).as_primitive::<Int64Type>().clone();
            Level {
                start: column(0),
                end: column(1),
                time: std::array::from_fn::<_, COUNTED, _>(|k| column(2 + k)),
            }
        })
        .collect();
    ThreadTable::new(lives, intervals, levels).map_err(|e| found.corrupt("levels.arrow", e))
}

fn read_event_types(found: &mut Found) -> Result<Vec<(String, u64)>, Unusable> {
    let mut out = Vec::new();
    for b in found.table_of("event_types.arrow", event_types_schema())? {
        let name = b.column(0).as_string::<i32>();
        let count = b.column(1).as_primitive::<UInt64Type>();
        out.extend((0..b.num_rows()).map(|i| (name.value(i).to_string(), count.value(i))));
    }
    Ok(out)
}

fn read_histogram(found: &mut Found) -> Result<Vec<u64>, Unusable> {
    let mut out = Vec::new();
    for b in found.table_of("histogram.arrow", histogram_schema())? {
        out.extend(b.column(0).as_primitive::<UInt64Type>().values().iter());
    }
    Ok(out)
}
