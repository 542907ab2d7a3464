//! `explain(MODEL)`, `explain(MODEL, K)`: the K longest executions of a
//! model in each trace (1 by default), each explained as `sextant explain
//! TRACE --model M --execution N` explains it (`Session::explain`, its
//! diagnosis and ranked causes): one row per cause. The executions come
//! from the front door as `executions()`'s do, with its warnings, so a
//! trace the model finds nothing in gives one warning and no rows.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{plan_err, ScalarValue};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use serde_json::Value;
use sextant_engine::analysis::executions::Execution;
use sextant_engine::analysis::explain::diagnosis::{Diagnosis, Ranked};
use sextant_engine::analysis::explain::{pick, Which};
use sextant_engine::hosts::HostPick;
use sextant_engine::run::Work;
use sextant_engine::session::executions::Source;
use sextant_engine::session::explain::Around;
use sextant_engine::session::Session;

use crate::executions::{self, Asked};
use crate::fleet::Trace;
use crate::partition::{Failure, Kind};
use crate::tables::TraceTable;
use crate::{Fleet, Reading};

const USAGE: &str = "explain() takes the model, as executions() does ('MODEL.json', the \
    model's JSON, or 'preset:NAME'), then K, the longest executions of each trace to \
    explain (an integer, 1 or more; 1 by default)";

/// `sextant explain`'s `--replay-ms` by default: each thread's state is
/// known at the execution's start, as the command would know it.
const REPLAY_NS: i64 = 100_000_000;

/// What the query asked to explain.
#[derive(Debug)]
pub(crate) struct Explained {
    pub(crate) model: Asked,
    /// How many executions of each trace, longest first.
    pub(crate) longest: usize,
}

/// The table function, over the fleet's traces.
#[derive(Debug)]
pub(crate) struct ExplainFn {
    pub(crate) fleet: Arc<Fleet>,
}

impl TableFunctionImpl for ExplainFn {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        Ok(Arc::new(TraceTable::new(
            Kind::Explain(Arc::new(explained(args.exprs())?)),
            self.fleet.clone(),
        )))
    }
}

/// The model and K the arguments give, each error naming the argument.
fn explained(args: &[Expr]) -> Result<Explained> {
    let (text, longest) = match args {
        [Expr::Literal(model, _)] => (model, None),
        [Expr::Literal(model, _), Expr::Literal(k, _)] => (model, Some(k)),
        _ => return plan_err!("{USAGE}"),
    };
    let Some(text) = text.try_as_str().flatten() else {
        return plan_err!("explain({text}): the model is a text; {USAGE}");
    };
    let longest = match longest {
        None => 1,
        Some(k) => match (k.data_type().is_integer(), k.cast_to(&DataType::UInt64)) {
            (true, Ok(ScalarValue::UInt64(Some(v)))) if v > 0 => {
                usize::try_from(v).unwrap_or(usize::MAX)
            }
            _ => {
                return plan_err!(
                    "explain('{text}', {k}): K, the longest executions of each trace to \
                     explain, is an integer of 1 or more"
                )
            }
        },
    };
    let model = executions::asked(text)
        .map_err(|e| DataFusionError::Plan(format!("explain('{text}'): the model: {e}")))?;
    Ok(Explained { model, longest })
}

/// The table's columns after `host` and `trace`.
pub(crate) fn schema() -> SchemaRef {
    let field = |name: &str, t: DataType, null: bool| Field::new(name, t, null);
    Arc::new(Schema::new(vec![
        field("execution", DataType::UInt64, false),
        field("start", DataType::Int64, false),
        field("duration", DataType::Int64, false),
        field("diagnosis", DataType::Utf8, false),
        field("rank", DataType::UInt64, true),
        field("kind", DataType::Utf8, true),
        field("cost", DataType::Int64, true),
        field("who", DataType::Utf8, true),
        field("text", DataType::Utf8, true),
    ]))
}

/// The explanations of `asked`'s longest executions in `trace`, as one
/// batch of `schema`'s columns (`host` and `trace` not yet before them).
pub(crate) fn of_trace(
    asked: &Explained,
    trace: &Trace,
    reading: &Reading,
    work: &Work<'_>,
) -> Result<RecordBatch, Failure> {
    let session = Session::open(&trace.path, reading.options, reading.places.clone());
    let found = session.host_executions(&asked.model.request, HostPick::Sole, None, work)?;
    executions::tell(
        reading,
        trace,
        found.source == Source::Store,
        &found.notes,
        &found.ran.warnings,
    );
    let around = Around {
        cpus: None,
        replay_ns: REPLAY_NS,
    };
    let mut rows = Rows::default();
    let explained = asked.longest.min(found.executions.executions.len());
    for rank in 0..explained {
        let execution = pick(&found.executions, Which::Rank(rank))?;
        let explanation = session.explain(execution, HostPick::Sole, &around, work)?;
        reading.log.warn_all(trace, &explanation.notes);
        let diagnosis = explanation.diagnosis(execution.end_tid);
        // `sextant explain` says these too: a claim the trace contradicts.
        reading.log.warn_all(trace, &diagnosis.contradictions);
        rows.add(execution, &diagnosis)?;
    }
    rows.batch()
}

/// The rows of a trace's explanations, column by column.
#[derive(Default)]
struct Rows {
    execution: Vec<u64>,
    start: Vec<i64>,
    duration: Vec<i64>,
    diagnosis: Vec<String>,
    rank: Vec<Option<u64>>,
    kind: Vec<Option<String>>,
    cost: Vec<Option<i64>>,
    who: Vec<Option<String>>,
    text: Vec<Option<String>>,
}

impl Rows {
    /// One row per cause of `execution`, or one row without a cause when
    /// it has none, so that the execution is not lost.
    fn add(&mut self, execution: &Execution, diagnosis: &Diagnosis) -> Result<(), Failure> {
        let mut causes: Vec<Option<&Ranked>> = diagnosis.causes.iter().map(Some).collect();
        if causes.is_empty() {
            causes.push(None);
        }
        for (i, cause) in causes.into_iter().enumerate() {
            self.execution.push(execution.index as u64);
            self.start.push(execution.start);
            self.duration.push(execution.duration);
            self.diagnosis.push(diagnosis.text.clone());
            let Some(cause) = cause else {
                self.rank.push(None);
                self.kind.push(None);
                self.cost.push(None);
                self.who.push(None);
                self.text.push(None);
                continue;
            };
            // The cause as `explain --format json` writes it, so that `kind`
            // and `who` are its words.
            let json = serde_json::to_value(cause)?;
            self.rank.push(Some(i as u64 + 1));
            self.kind
                .push(json.get("kind").and_then(Value::as_str).map(str::to_string));
            self.cost.push(Some(cause.cost));
            self.who.push(who(&json));
            self.text.push(Some(cause.text.clone()));
        }
        Ok(())
    }

    fn batch(self) -> Result<RecordBatch, Failure> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(self.execution)),
            Arc::new(Int64Array::from(self.start)),
            Arc::new(Int64Array::from(self.duration)),
            Arc::new(StringArray::from(self.diagnosis)),
            Arc::new(UInt64Array::from(self.rank)),
            Arc::new(StringArray::from(self.kind)),
            Arc::new(Int64Array::from(self.cost)),
            Arc::new(StringArray::from(self.who)),
            Arc::new(StringArray::from(self.text)),
        ];
        Ok(RecordBatch::try_new(schema(), columns)?)
    }
}

/// Who the cause's time went to, as its JSON names them: the thread that
/// held the CPU (`by`, or `ran` for a late timer), else the host a packet
/// came from, else the path's own thread (`of`); a thread as
/// "comm (tid)".
pub(crate) fn who(cause: &Value) -> Option<String> {
    let thread = |p: &Value| {
        let tid = p.get("tid")?.as_i64()?;
        Some(match p.get("comm").and_then(Value::as_str).unwrap_or("") {
            "" => format!("thread {tid}"),
            comm => format!("{comm} ({tid})"),
        })
    };
    let named = |key: &str| cause.get(key).filter(|v| !v.is_null());
    if let Some(p) = named("by").or_else(|| named("ran")) {
        return thread(p);
    }
    if let Some(host) = named("from").and_then(Value::as_str) {
        return Some(format!("host {host}"));
    }
    named("of").and_then(thread)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::lit;

    #[test]
    fn arguments_are_the_model_then_k() {
        let e = explained(&[lit("preset:running")]).unwrap();
        assert_eq!((e.model.name.as_str(), e.longest), ("running", 1));
        assert_eq!(
            explained(&[lit("preset:running"), lit(3_i64)])
                .unwrap()
                .longest,
            3
        );
        let said = |args: &[Expr]| explained(args).unwrap_err().to_string();
        for k in [lit(0_i64), lit(-2_i64), lit(1.5), lit("2")] {
            let e = said(&[lit("preset:running"), k]);
            assert!(e.contains("explain('preset:running', ") && e.contains("K, the longest"));
        }
        let e = said(&[lit("preset:nope")]);
        assert!(e.contains("explain('preset:nope'): the model") && e.contains("whole-thread"));
        assert!(said(&[lit(3_i64)]).contains("explain(3): the model is a text"));
        assert!(said(&[]).contains("explain() takes the model"));
        let three = [lit("preset:running"), lit(1_i64), lit(1_i64)];
        assert!(said(&three).contains("explain() takes the model"));
    }

    /// An execution whose diagnosis names no cause keeps its row.
    #[test]
    fn an_execution_without_a_cause_is_one_row_of_nulls() {
        let execution = Execution {
            index: 4,
            start: 10,
            end: 30,
            duration: 20,
            running: 20,
            preempted: 0,
            blocked: 0,
            waiting: 0,
            start_tid: 1,
            end_tid: 1,
            start_comm: "a".into(),
            end_comm: "a".into(),
            tid: 1,
            cpus: vec![0],
            prio: None,
            deadline_miss: None,
            nested: Vec::new(),
            btf: None,
        };
        let diagnosis = Diagnosis {
            text: "nothing".into(),
            inversion: false,
            causes: Vec::new(),
            contradictions: Vec::new(),
        };
        let mut rows = Rows::default();
        rows.add(&execution, &diagnosis).unwrap();
        let batch = rows.batch().unwrap();
        assert_eq!(batch.num_rows(), 1);
        let execution = batch.column(0).as_any().downcast_ref::<UInt64Array>();
        assert_eq!(execution.unwrap().value(0), 4);
        for column in 4..batch.num_columns() {
            assert!(batch.column(column).is_null(0), "column {column}");
        }
    }

    #[test]
    fn who_is_the_holder_else_the_sender_else_the_thread() {
        let of = serde_json::json!({"tid": 7, "comm": "job"});
        let by = serde_json::json!({"tid": 9, "comm": ""});
        let c = serde_json::json!({"kind": "preemption", "by": by, "of": of});
        assert_eq!(who(&c).as_deref(), Some("thread 9"));
        let c = serde_json::json!({"kind": "late_timer", "ran": null, "of": of});
        assert_eq!(who(&c).as_deref(), Some("job (7)"));
        let c = serde_json::json!({"kind": "packet", "from": "b", "of": of});
        assert_eq!(who(&c).as_deref(), Some("host b"));
    }
}
