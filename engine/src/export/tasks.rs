//! The tasks table: one row per real-time task found by itself, the keys
//! of `sextant tasks --format json`'s rows (`analysis::tasks::row`) as
//! columns, in the same words: what SQL's `tasks()` and Python's
//! `Session.tasks()` hand over. Nested keys stay nested (`phases` a list of
//! structs, `response` and `execution` structs); `model` is its JSON text.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, UInt32Builder};
use arrow_array::{
    ArrayRef, Float64Array, Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};

use crate::analysis::tasks::{row, Percentiles, Task, TaskPhase};

/// A phase's columns, in `TaskPhase`'s order.
fn phase_fields() -> Fields {
    ["start", "end", "period", "jitter", "jobs", "missed"]
        .into_iter()
        .map(|name| Field::new(name, DataType::Int64, false))
        .collect()
}

fn percentile_fields() -> Fields {
    ["p50", "p99", "max"]
        .into_iter()
        .map(|name| Field::new(name, DataType::Int64, false))
        .collect()
}

fn phase_item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(phase_fields()), false))
}

fn cpu_item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::UInt32, false))
}

/// The tasks table's columns; nullable where the JSON row may say null.
pub fn schema() -> SchemaRef {
    let int = |name: &str, null| Field::new(name, DataType::Int64, null);
    let text = |name: &str, null| Field::new(name, DataType::Utf8, null);
    let percentiles = |name: &str| Field::new(name, DataType::Struct(percentile_fields()), false);
    let fields = vec![
        text("host", true),
        int("tid", false),
        text("comm", false),
        text("kind", false),
        int("period", true),
        int("jitter", true),
        int("min_interarrival", true),
        Field::new("confidence", DataType::Float64, false),
        Field::new("phases", DataType::List(phase_item()), false),
        int("jobs", false),
        text("released_by", false),
        int("first_release", true),
        int("deadline", true),
        int("misses", false),
        percentiles("response"),
        percentiles("execution"),
        text("policy", false),
        text("priority", false),
        Field::new("kernel_prio", DataType::Int32, true),
        Field::new("cpus", DataType::List(cpu_item()), false),
        text("model", false),
    ];
    Arc::new(Schema::new_with_metadata(fields, super::metadata("tasks")))
}

/// The tasks, each with its host's name when the trace has several, as one
/// batch of `schema`'s columns in their order.
pub fn table(tasks: &[(Option<String>, Task)]) -> Result<RecordBatch, ArrowError> {
    let all: Vec<&Task> = tasks.iter().map(|(_, t)| t).collect();
    let int = |f: fn(&Task) -> Option<i64>| -> ArrayRef {
        Arc::new(all.iter().map(|t| f(t)).collect::<Int64Array>())
    };
    let text = |f: fn(&Task) -> String| -> ArrayRef {
        Arc::new(all.iter().map(|t| Some(f(t))).collect::<StringArray>())
    };
    let mut cpus = ListBuilder::new(UInt32Builder::new()).with_field(cpu_item());
    for t in &all {
        cpus.values().append_slice(&t.cpus);
        cpus.append(true);
    }
    let columns = vec![
        Arc::new(StringArray::from_iter(
            tasks.iter().map(|(h, _)| h.as_deref()),
        )) as ArrayRef,
        int(|t| Some(t.tid)),
        text(|t| t.comm.clone()),
        text(|t| row::kind(t.kind).to_string()),
        int(|t| t.period),
        int(|t| t.jitter),
        int(|t| t.min_interarrival),
        Arc::new(
            all.iter()
                .map(|t| Some(t.confidence))
                .collect::<Float64Array>(),
        ),
        phases(&all)?,
        int(|t| Some(t.jobs.len() as i64)),
        text(|t| row::released_by(t.released_by).to_string()),
        int(|t| t.jobs.first().map(|j| j.release)),
        int(|t| t.deadlines.first().copied()),
        int(|t| Some(t.misses as i64)),
        percentiles(all.iter().map(|t| &t.response))?,
        percentiles(all.iter().map(|t| &t.execution))?,
        text(|t| row::policy(t).to_string()),
        text(row::priority),
        Arc::new(all.iter().map(|t| t.prio).collect::<Int32Array>()),
        Arc::new(cpus.finish()),
        text(|t| t.model.to_string()),
    ];
    RecordBatch::try_new(schema(), columns)
}

/// Every task's phases: one list each, of structs.
fn phases(all: &[&Task]) -> Result<ArrayRef, ArrowError> {
    let flat: Vec<&TaskPhase> = all.iter().flat_map(|t| &t.phases).collect();
    let column = |f: fn(&TaskPhase) -> i64| -> ArrayRef {
        Arc::new(flat.iter().map(|p| f(p)).collect::<Int64Array>())
    };
    let values = StructArray::try_new(
        phase_fields(),
        vec![
            column(|p| p.start),
            column(|p| p.end),
            column(|p| p.period),
            column(|p| p.jitter),
            column(|p| p.jobs as i64),
            column(|p| p.missed as i64),
        ],
        None,
    )?;
    let offsets = OffsetBuffer::from_lengths(all.iter().map(|t| t.phases.len()));
    Ok(Arc::new(ListArray::try_new(
        phase_item(),
        offsets,
        Arc::new(values),
        None,
    )?))
}

fn percentiles<'a>(of: impl Iterator<Item = &'a Percentiles>) -> Result<ArrayRef, ArrowError> {
    let of: Vec<&Percentiles> = of.collect();
    let column = |f: fn(&Percentiles) -> i64| -> ArrayRef {
        Arc::new(of.iter().map(|p| f(p)).collect::<Int64Array>())
    };
    let columns = vec![column(|p| p.p50), column(|p| p.p99), column(|p| p.max)];
    Ok(Arc::new(StructArray::try_new(
        percentile_fields(),
        columns,
        None,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tasks::{Job, Release, TaskKind};
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::Array;

    fn task(tid: i64, phases: usize) -> Task {
        let phase = TaskPhase {
            start: 100,
            end: 900,
            period: 100,
            jitter: 3,
            jobs: 9,
            missed: 0,
        };
        let ms = Percentiles {
            p50: 1,
            p99: 2,
            max: 3,
        };
        Task {
            tid,
            comm: "rt".to_string(),
            kind: TaskKind::Periodic,
            period: Some(100),
            jitter: Some(3),
            min_interarrival: None,
            confidence: 0.9,
            phases: vec![phase; phases],
            jobs: vec![Job {
                release: 100,
                end: 150,
                execution: 20,
                in_sleep: true,
                state: None,
            }],
            released_by: Release::Timer,
            deadlines: vec![100],
            misses: 0,
            response: ms,
            execution: ms,
            prio: Some(19),
            cpus: vec![0, 2],
            btf: false,
            model: serde_json::json!({"name": "rt"}),
        }
    }

    /// The columns are the JSON row's keys, and each list its task's.
    #[test]
    fn columns_are_the_json_rows_keys() {
        let tasks = vec![(Some("h".to_string()), task(7, 2)), (None, task(8, 1))];
        let batch = table(&tasks).unwrap();
        let mut keys: Vec<String> = row::row(None, &tasks[0].1)
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        let mut names: Vec<String> = schema().fields().iter().map(|f| f.name().clone()).collect();
        names.sort();
        assert_eq!(names, keys);
        assert_eq!(batch.num_rows(), 2);
        let phases = batch.column_by_name("phases").unwrap().as_list::<i32>();
        assert_eq!((phases.value(0).len(), phases.value(1).len()), (2, 1));
        let host = batch.column_by_name("host").unwrap().as_string::<i32>();
        assert!(host.value(0) == "h" && host.is_null(1));
        let tid = batch.column_by_name("tid").unwrap();
        assert_eq!(tid.as_primitive::<Int64Type>().value(1), 8);
        assert_eq!(table(&[]).unwrap().num_rows(), 0);
    }
}
