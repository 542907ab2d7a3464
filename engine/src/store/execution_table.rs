//! The table a trace's store keeps a model's executions in: the columns of
//! the executions table (`export::executions`) for every execution, nested
//! ones included (each after its parent, depth first), then each row's
//! parent and BTF instance times, so that what is read back is all that the
//! pass found.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use crate::analysis::btf::instances::InstanceTimes;
use crate::analysis::executions::Execution;
use crate::export::executions as exported;

/// The columns: the executions table's, then these.
pub(super) fn schema() -> SchemaRef {
    let mut fields: Vec<Field> = exported::schema("")
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let ns = |name: &str| Field::new(name, DataType::Int64, true);
    fields.extend([
        // The row of the execution this one is nested in.
        Field::new("parent", DataType::UInt64, true),
        Field::new("btf_entity", DataType::Utf8, true),
        ns("btf_instance"),
        ns("btf_active"),
        ns("btf_ready"),
        ns("btf_running"),
        ns("btf_polling"),
        ns("btf_waiting"),
        ns("btf_parking"),
        Field::new("btf_migrations", DataType::UInt32, true),
    ]);
    Arc::new(Schema::new(fields))
}

/// Every execution of `executions` and every one nested in them.
pub(super) fn batch(executions: &[Execution]) -> Result<RecordBatch, ArrowError> {
    let mut rows = Vec::new();
    let mut parents = Vec::new();
    flatten(executions, None, &mut rows, &mut parents);
    let mut columns = exported::columns(&rows);
    let btf = |f: fn(&InstanceTimes) -> i64| -> ArrayRef {
        Arc::new(
            rows.iter()
                .map(|e| e.btf.as_ref().map(f))
                .collect::<Int64Array>(),
        )
    };
    columns.extend([
        Arc::new(UInt64Array::from(parents)) as ArrayRef,
        Arc::new(
            rows.iter()
                .map(|e| e.btf.as_ref().map(|b| b.entity.as_str()))
                .collect::<StringArray>(),
        ),
        btf(|b| b.instance),
        btf(|b| b.active),
        btf(|b| b.ready),
        btf(|b| b.running),
        btf(|b| b.polling),
        btf(|b| b.waiting),
        btf(|b| b.parking),
        Arc::new(
            rows.iter()
                .map(|e| e.btf.as_ref().map(|b| b.migrations))
                .collect::<UInt32Array>(),
        ),
    ]);
    RecordBatch::try_new(schema(), columns)
}

/// Depth first: each execution, then the ones nested in it.
fn flatten<'a>(
    list: &'a [Execution],
    parent: Option<u64>,
    rows: &mut Vec<&'a Execution>,
    parents: &mut Vec<Option<u64>>,
) {
    for e in list {
        let row = rows.len() as u64;
        rows.push(e);
        parents.push(parent);
        flatten(&e.nested, Some(row), rows, parents);
    }
}

/// The executions of batches of `schema()`'s columns, each with the ones
/// nested in it; `Err` names what does not fit.
pub(super) fn read(batches: &[RecordBatch]) -> Result<Vec<Execution>, String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, UInt32Type, UInt64Type};
    use arrow_array::Array;
    let expected = schema();
    let first = exported::schema("").fields().len();
    let mut rows: Vec<(Option<usize>, Execution)> = Vec::new();
    for b in batches {
        if b.schema().fields() != expected.fields() {
            return Err("its columns are not the stored executions table's".to_string());
        }
        let own: Vec<usize> = (0..first).collect();
        let base = b.project(&own).map_err(|e| e.to_string())?;
        let parent = b.column(first).as_primitive::<UInt64Type>();
        let entity = b.column(first + 1).as_string::<i32>();
        let ns = |k: usize, i: usize| b.column(first + 2 + k).as_primitive::<Int64Type>().value(i);
        let migrations = b.column(first + 9).as_primitive::<UInt32Type>();
        for (i, mut e) in exported::rows(&base)?.into_iter().enumerate() {
            if !entity.is_null(i) {
                e.btf = Some(InstanceTimes {
                    entity: entity.value(i).to_string(),
                    instance: ns(0, i),
                    active: ns(1, i),
                    ready: ns(2, i),
                    running: ns(3, i),
                    polling: ns(4, i),
                    waiting: ns(5, i),
                    parking: ns(6, i),
                    migrations: migrations.value(i),
                });
            }
            let parent = (!parent.is_null(i))
                .then(|| usize::try_from(parent.value(i)).map_err(|e| e.to_string()))
                .transpose()?;
            rows.push((parent, e));
        }
    }
    nest(rows)
}

/// The executions table (`export::executions::table` of one host, the
/// model named `name`) of batches of `schema()`'s columns, the stored
/// arrays handed on as they are: `Ok(None)` when a row is nested in
/// another (the table then lists only the outer ones, which [`read`]
/// sorts out).
pub(super) fn as_exported(
    batches: &[RecordBatch],
    name: &str,
) -> Result<Option<Vec<RecordBatch>>, String> {
    use arrow_array::Array;
    let expected = schema();
    let exported = exported::schema(name);
    let own: Vec<usize> = (0..exported.fields().len()).collect();
    let mut out = Vec::with_capacity(batches.len());
    for b in batches {
        if b.schema().fields() != expected.fields() {
            return Err("its columns are not the stored executions table's".to_string());
        }
        let parent = b.column(own.len());
        if parent.null_count() != parent.len() {
            return Ok(None);
        }
        let columns = b
            .project(&own)
            .map_err(|e| e.to_string())?
            .columns()
            .to_vec();
        out.push(RecordBatch::try_new(exported.clone(), columns).map_err(|e| e.to_string())?);
    }
    Ok(Some(out))
}

/// Moves each row into its parent's nested executions. Rows come after
/// their parent: taken from the last one back, a row has all of its own
/// nested rows (taken before it, in reverse) when it moves.
fn nest(mut rows: Vec<(Option<usize>, Execution)>) -> Result<Vec<Execution>, String> {
    let mut top = Vec::new();
    while let Some((parent, mut e)) = rows.pop() {
        e.nested.reverse();
        match parent {
            None => top.push(e),
            Some(p) if p < rows.len() => rows[p].1.nested.push(e),
            Some(p) => {
                return Err(format!(
                    "row {} is nested in row {p}, which does not come before it",
                    rows.len()
                ))
            }
        }
    }
    top.reverse();
    Ok(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execution(index: usize, nested: Vec<Execution>, btf: Option<InstanceTimes>) -> Execution {
        Execution {
            index,
            start: 10 * index as i64,
            end: 10 * index as i64 + 5,
            duration: 5,
            running: 3,
            preempted: 1,
            blocked: 0,
            waiting: 1,
            start_tid: 7,
            end_tid: 7,
            start_comm: "a".to_string(),
            end_comm: "a".to_string(),
            tid: 7,
            cpus: vec![0, 3],
            prio: Some(20),
            deadline_miss: None,
            nested,
            btf,
        }
    }

    #[test]
    fn nested_executions_and_instance_times_read_back_as_written() {
        let times = |entity: &str| InstanceTimes {
            entity: entity.to_string(),
            instance: 4,
            active: 1,
            ready: 2,
            running: 3,
            polling: 4,
            waiting: 5,
            parking: 6,
            migrations: 2,
        };
        let list = vec![
            execution(
                0,
                vec![
                    execution(0, vec![execution(0, vec![], None)], Some(times("R1"))),
                    execution(1, vec![], None),
                ],
                Some(times("TASK")),
            ),
            execution(1, vec![], None),
            execution(2, vec![execution(0, vec![], None)], None),
        ];
        let b = batch(&list).unwrap();
        assert_eq!(b.num_rows(), 7);
        assert_eq!(read(&[b]).unwrap(), list);
    }

    #[test]
    fn flat_rows_are_the_exported_table_and_nested_ones_are_not() {
        let flat = vec![execution(0, vec![], None), execution(1, vec![], None)];
        let tables = as_exported(&[batch(&flat).unwrap()], "m").unwrap().unwrap();
        let rows: Vec<&Execution> = flat.iter().collect();
        let exported = crate::export::executions::table(
            &crate::analysis::executions::Executions {
                name: "m".to_string(),
                executions: flat.clone(),
                incomplete: 0,
                deadline: None,
            },
            &rows,
            None,
        )
        .unwrap();
        assert_eq!(tables, vec![exported]);
        let nested = batch(&[execution(0, vec![execution(0, vec![], None)], None)]).unwrap();
        assert_eq!(as_exported(&[nested], "m").unwrap(), None);
    }

    #[test]
    fn a_row_nested_in_a_later_one_is_refused() {
        let b = batch(&[execution(0, vec![execution(0, vec![], None)], None)]).unwrap();
        let mut columns = b.columns().to_vec();
        let first = exported::schema("").fields().len();
        columns[first] = Arc::new(UInt64Array::from(vec![Some(1), None]));
        let bad = RecordBatch::try_new(schema(), columns).unwrap();
        assert!(read(&[bad]).unwrap_err().contains("does not come before"));
    }
}
