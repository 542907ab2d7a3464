//! The executions table: one row per execution of a model, the columns of
//! `sextant analyze` (times in ns).

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, UInt32Builder};
use arrow_array::{
    ArrayRef, BooleanArray, Int32Array, Int64Array, RecordBatch, StringArray, UInt64Array,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use crate::analysis::executions::{Execution, Executions};

/// The executions table's columns.
pub fn schema(model: &str) -> SchemaRef {
    let ns = |name: &str| Field::new(name, DataType::Int64, false);
    let fields = vec![
        Field::new("index", DataType::UInt64, false),
        ns("start"),
        ns("end"),
        ns("duration"),
        ns("running"),
        ns("preempted"),
        ns("blocked"),
        ns("waiting"),
        ns("tid"),
        ns("start_tid"),
        ns("end_tid"),
        Field::new("start_comm", DataType::Utf8, false),
        Field::new("end_comm", DataType::Utf8, false),
        Field::new(
            "cpus",
            DataType::List(Arc::new(Field::new("item", DataType::UInt32, false))),
            false,
        ),
        Field::new("prio", DataType::Int32, true),
        Field::new("deadline_miss", DataType::Boolean, true),
    ];
    let mut metadata = super::metadata("executions");
    metadata.insert("sextant.model".to_string(), model.to_string());
    Arc::new(Schema::new_with_metadata(fields, metadata))
}

/// Every execution, in start order.
pub fn batch(executions: &Executions) -> Result<RecordBatch, ArrowError> {
    let rows: Vec<&Execution> = executions.executions.iter().collect();
    RecordBatch::try_new(schema(&executions.name), columns(&rows))
}

/// `schema`'s columns of `rows`.
pub(crate) fn columns(rows: &[&Execution]) -> Vec<ArrayRef> {
    let ns = |f: fn(&Execution) -> i64| -> ArrayRef {
        Arc::new(rows.iter().map(|e| f(e)).collect::<Int64Array>())
    };
    let text = |f: fn(&Execution) -> &str| -> ArrayRef {
        Arc::new(rows.iter().map(|e| Some(f(e))).collect::<StringArray>())
    };
    let item = Field::new("item", DataType::UInt32, false);
    let mut cpus = ListBuilder::new(UInt32Builder::new()).with_field(Arc::new(item));
    for e in rows {
        cpus.values().append_slice(&e.cpus);
        cpus.append(true);
    }
    vec![
        Arc::new(rows.iter().map(|e| e.index as u64).collect::<UInt64Array>()),
        ns(|e| e.start),
        ns(|e| e.end),
        ns(|e| e.duration),
        ns(|e| e.running),
        ns(|e| e.preempted),
        ns(|e| e.blocked),
        ns(|e| e.waiting),
        ns(|e| e.tid),
        ns(|e| e.start_tid),
        ns(|e| e.end_tid),
        text(|e| &e.start_comm),
        text(|e| &e.end_comm),
        Arc::new(cpus.finish()),
        Arc::new(rows.iter().map(|e| e.prio).collect::<Int32Array>()),
        Arc::new(
            rows.iter()
                .map(|e| e.deadline_miss)
                .collect::<BooleanArray>(),
        ),
    ]
}

/// The executions of a batch of `schema`'s columns (a stored table read
/// back); `Err` names what does not fit.
pub fn rows(batch: &RecordBatch) -> Result<Vec<Execution>, String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
    if batch.schema().fields() != schema("").fields() {
        return Err("its columns are not the executions table's".to_string());
    }
    let ns = |i: usize| batch.column(i).as_primitive::<Int64Type>();
    let index = batch.column(0).as_primitive::<UInt64Type>();
    let (start_comm, end_comm) = (
        batch.column(11).as_string::<i32>(),
        batch.column(12).as_string::<i32>(),
    );
    let cpus = batch.column(13).as_list::<i32>();
    let prio = batch.column(14).as_primitive::<Int32Type>();
    let miss = batch.column(15).as_boolean();
    let value = |a: &Int64Array, i: usize| a.value(i);
    (0..batch.num_rows())
        .map(|i| {
            use arrow_array::Array;
            Ok(Execution {
                index: usize::try_from(index.value(i)).map_err(|e| e.to_string())?,
                start: value(ns(1), i),
                end: value(ns(2), i),
                duration: value(ns(3), i),
                running: value(ns(4), i),
                preempted: value(ns(5), i),
                blocked: value(ns(6), i),
                waiting: value(ns(7), i),
                tid: value(ns(8), i),
                start_tid: value(ns(9), i),
                end_tid: value(ns(10), i),
                start_comm: start_comm.value(i).to_string(),
                end_comm: end_comm.value(i).to_string(),
                cpus: cpus.value(i).as_primitive::<UInt32Type>().values().to_vec(),
                prio: (!prio.is_null(i)).then(|| prio.value(i)),
                deadline_miss: (!miss.is_null(i)).then(|| miss.value(i)),
                nested: Vec::new(),
                btf: None,
            })
        })
        .collect()
}
