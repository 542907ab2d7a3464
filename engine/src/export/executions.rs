//! The executions table: one row per execution of a model, the columns of
//! `sextant analyze` (times in ns). `table` builds what both `analyze
//! --format csv` and `export` write, so that the two agree byte for byte;
//! the store keeps `schema`'s columns (`columns`, `rows`).

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

/// The table people are given: `rows` in the order asked, with a `host`
/// column last when the trace has several hosts (`hosts`, one per row).
pub fn table(
    executions: &Executions,
    rows: &[&Execution],
    hosts: Option<&[&str]>,
) -> Result<RecordBatch, ArrowError> {
    let core = schema(&executions.name);
    let mut fields: Vec<Field> = core.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut values = columns(rows);
    if let Some(hosts) = hosts {
        fields.push(Field::new("host", DataType::Utf8, false));
        values.push(Arc::new(StringArray::from(hosts.to_vec())));
    }
    let schema = Schema::new_with_metadata(fields, core.metadata().clone());
    RecordBatch::try_new(Arc::new(schema), values)
}

/// A list of CPUs as every table spells it: `[0, 1]`, as CSV writes the
/// `cpus` list column (and as JSON reads it).
pub fn cpu_list(cpus: &[u32]) -> String {
    let items: Vec<String> = cpus.iter().map(u32::to_string).collect();
    format!("[{}]", items.join(", "))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn execution(index: usize, cpus: Vec<u32>) -> Execution {
        Execution {
            index,
            start: 10,
            end: 20,
            duration: 10,
            running: 10,
            preempted: 0,
            blocked: 0,
            waiting: 0,
            start_tid: 7,
            end_tid: 7,
            start_comm: "a, \"b\"".to_string(),
            end_comm: "a".to_string(),
            tid: 7,
            cpus,
            prio: None,
            deadline_miss: Some(false),
            nested: Vec::new(),
            btf: None,
        }
    }

    /// The human table's spelling is the CSV's: the cell arrow's CSV writer
    /// gives the list column, unquoted.
    #[test]
    fn cpu_list_is_the_csv_spelling() {
        let list = Executions {
            name: "m".to_string(),
            executions: vec![
                execution(0, vec![0, 3]),
                execution(1, vec![]),
                execution(2, vec![5]),
            ],
            incomplete: 0,
            deadline: None,
        };
        let rows: Vec<&Execution> = list.executions.iter().collect();
        let batch = table(&list, &rows, Some(&["h1", "h2", "h1"])).unwrap();
        let mut out = Vec::new();
        super::super::write_csv(&mut out, &batch).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].ends_with(",cpus,prio,deadline_miss,host"),
            "{text}"
        );
        for (line, e) in lines[1..].iter().zip(&list.executions) {
            let cell = format!("\"{}\"", cpu_list(&e.cpus));
            let cell = if e.cpus.len() > 1 {
                cell
            } else {
                cpu_list(&e.cpus)
            };
            assert!(line.contains(&format!(",{cell},,false,")), "{line}");
        }
    }
}
