//! `tasks()`, `tasks(MIN_JOBS)`, `tasks(MIN_JOBS, DEADLINE)`: each trace's
//! real-time tasks, found by themselves as `sextant tasks` finds them
//! (`Session::tasks`), in the engine's tasks table (`export::tasks`).
//! DataFusion's table functions take positional arguments only; they are
//! `sextant tasks`' `--min-jobs` and `--deadline` in that order.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{plan_err, ScalarValue};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use sextant_engine::analysis::tasks::{Deadline, Options};
use sextant_engine::export;
use sextant_engine::hosts::HostPick;
use sextant_engine::run::Work;
use sextant_engine::session::Session;

use crate::fleet::Trace;
use crate::partition::{Failure, Kind};
use crate::tables::TraceTable;
use crate::{Fleet, Reading};

const USAGE: &str = "tasks() takes up to two arguments, as sextant tasks' flags: \
    the jobs a task needs at least (an integer, 10 by default) and each job's deadline \
    (a share of the period, 0.8, or a time, '2ms'; the period by default)";

/// The table function, over the fleet's traces.
#[derive(Debug)]
pub(crate) struct TasksFn {
    pub(crate) fleet: Arc<Fleet>,
}

impl TableFunctionImpl for TasksFn {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let options = options(args.exprs())?;
        Ok(Arc::new(TraceTable::new(
            Kind::Tasks(options),
            self.fleet.clone(),
        )))
    }
}

/// The options the arguments give, checked as `sextant tasks` checks its
/// flags.
fn options(args: &[Expr]) -> Result<Options> {
    let values: Option<Vec<&ScalarValue>> = args
        .iter()
        .map(|e| match e {
            Expr::Literal(v, _) => Some(v),
            _ => None,
        })
        .collect();
    let (min_jobs, deadline) = match values.as_deref() {
        Some([]) => (None, None),
        Some([n]) => (Some(*n), None),
        Some([n, d]) => (Some(*n), Some(*d)),
        _ => return plan_err!("{USAGE}"),
    };
    let defaults = Options::default();
    let min_jobs = match min_jobs {
        None => defaults.min_jobs,
        Some(n) => match (n.data_type().is_integer(), n.cast_to(&DataType::UInt64)) {
            (true, Ok(ScalarValue::UInt64(Some(v)))) => usize::try_from(v).unwrap_or(usize::MAX),
            _ => return plan_err!("tasks({n}): {USAGE}"),
        },
    };
    let deadline = match deadline {
        None => defaults.deadline,
        Some(d) => deadline_of(d)
            .map_err(|e| DataFusionError::Plan(format!("tasks({min_jobs}, {d}): {e}")))?,
    };
    Options::new(min_jobs, deadline)
        .map_err(|e| DataFusionError::Plan(format!("tasks({min_jobs}): {e}")))
}

/// A number is a share of the period and a text is read as `--deadline`
/// reads it: `0.8`, `'0.8'` and `'2ms'`.
fn deadline_of(value: &ScalarValue) -> Result<Deadline, String> {
    match value.try_as_str().flatten() {
        Some(s) => s.parse(),
        None if value.data_type().is_numeric() && !value.is_null() => value.to_string().parse(),
        None => Err(USAGE.to_string()),
    }
}

/// The engine's columns of the tasks table after its `host`: the table's
/// own `host` column says it, as for every table.
pub(crate) fn schema() -> SchemaRef {
    let fields: Vec<_> = export::tasks::schema()
        .fields()
        .iter()
        .skip(1)
        .cloned()
        .collect();
    Arc::new(Schema::new(fields))
}

/// The tasks of `trace` as one batch of `schema`'s columns (`host` and
/// `trace` not yet before them). A trace of several hosts is refused
/// (`HostPick::Sole`) as the other tables refuse it: one partition is one
/// kernel model.
pub(crate) fn of_trace(
    options: &Options,
    trace: &Trace,
    reading: &Reading,
    work: &Work<'_>,
) -> Result<RecordBatch, Failure> {
    let session = Session::open(&trace.path, reading.options, None);
    let (found, warnings) = session.host_tasks(HostPick::Sole, options, work)?;
    reading.log.warn_all(trace, &warnings);
    let found: Vec<_> = found.into_iter().map(|t| (None, t)).collect();
    let batch = export::tasks::table(&found)?;
    let rest: Vec<usize> = (1..batch.num_columns()).collect();
    Ok(batch.project(&rest)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::lit;

    #[test]
    fn arguments_are_min_jobs_then_the_deadline() {
        assert_eq!(options(&[]).unwrap(), Options::default());
        let o = options(&[lit(20_i64), lit(0.5)]).unwrap();
        assert_eq!((o.min_jobs, o.deadline), (20, Deadline::Ratio(0.5)));
        let o = options(&[lit(5_i64), lit("2ms")]).unwrap();
        assert_eq!(o.deadline, Deadline::Time(2_000_000));
        assert_eq!(
            options(&[lit(5_i64), lit(1_i64)]).unwrap().deadline,
            Deadline::Ratio(1.0)
        );
        let said = |args: &[Expr]| options(args).unwrap_err().to_string();
        assert!(said(&[lit(1_i64)]).contains("at least 2 jobs"));
        assert!(said(&[lit(-3_i64)]).contains("tasks(-3)"));
        assert!(said(&[lit(2.5)]).contains("up to two arguments"));
        assert!(said(&[lit(5_i64), lit("soon")]).contains("expected a ratio"));
        assert!(said(&[lit(5_i64), lit(0.0)]).contains("positive"));
        assert!(said(&[lit(1_i64), lit(1_i64), lit(1_i64)]).contains("up to two"));
    }
}
