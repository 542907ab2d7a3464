//! The fleet's tables as DataFusion tables: each trace one partition, with
//! the engine's own columns (`sextant_engine::export`'s schemas) after a
//! `host` and a `trace` column. A filter on `host` and `trace` is decided
//! per trace before anything is read, so a trace it rules out is never
//! opened; filters on an event's `name` and `ts` go down to each trace's
//! pass (`narrowing`). A scan is a `TraceScanExec`, which a distributed
//! engine can send to its workers.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::Result;
use datafusion::logical_expr::{
    BinaryExpr, Expr, Operator, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::ExecutionPlan;

use sextant_engine::export::events::Only;

use crate::fleet::Trace;
use crate::narrowing;
use crate::partition::Kind;
use crate::scan::TraceScanExec;
use crate::Fleet;

/// One table over every trace of the fleet.
#[derive(Debug)]
pub(crate) struct TraceTable {
    kind: Kind,
    schema: SchemaRef,
    fleet: Arc<Fleet>,
}

impl TraceTable {
    pub(crate) fn new(kind: Kind, fleet: Arc<Fleet>) -> Self {
        let schema = with_place(&kind.schema());
        TraceTable {
            kind,
            schema,
            fleet,
        }
    }
}

/// `host` and `trace`, then the engine's columns (its schema's metadata
/// left out: one table's batches come from many traces).
pub fn with_place(core: &Schema) -> SchemaRef {
    let mut fields = vec![
        Field::new("host", DataType::Utf8, false),
        Field::new("trace", DataType::Utf8, false),
    ];
    fields.extend(core.fields().iter().map(|f| f.as_ref().clone()));
    Arc::new(Schema::new(fields))
}

#[async_trait]
impl TableProvider for TraceTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    /// Filters on `host` and `trace` alone are used to choose traces, and
    /// on `events`' `name` and `ts` to narrow each pass; DataFusion
    /// applies every filter to the rows anyway (`Inexact`), so one this
    /// module cannot decide keeps the trace.
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                let narrows = matches!(self.kind, Kind::Events(_)) && narrowing::of(f).is_some();
                if on_place_only(f) || narrows {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let kind = match &self.kind {
            Kind::Events(_) => Kind::Events(Arc::new(
                filters
                    .iter()
                    .filter_map(narrowing::of)
                    .fold(Only::default(), narrowing::both),
            )),
            other => other.clone(),
        };
        let traces: Vec<Arc<Trace>> = self
            .fleet
            .traces
            .iter()
            .filter(|t| filters.iter().all(|f| holds(f, t) != Some(false)))
            .map(|t| Arc::new(t.clone()))
            .collect();
        if traces.is_empty() {
            let schema = match projection {
                Some(p) => Arc::new(self.schema.project(p)?),
                None => self.schema.clone(),
            };
            return Ok(Arc::new(EmptyExec::new(schema)));
        }
        let width = traces.len();
        let exec = TraceScanExec::try_new(
            kind,
            traces,
            width,
            self.schema.clone(),
            projection.cloned(),
            limit,
            self.fleet.reading.clone(),
        )?;
        Ok(Arc::new(exec))
    }
}

/// The filter names no column but `host` and `trace`.
fn on_place_only(filter: &Expr) -> bool {
    let columns = filter.column_refs();
    !columns.is_empty()
        && columns
            .iter()
            .all(|c| c.name == "host" || c.name == "trace")
}

/// Whether `filter` holds for every row of trace `t`: `None` when it
/// cannot be told from the trace's host and name alone.
fn holds(filter: &Expr, t: &Trace) -> Option<bool> {
    match filter {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => match (holds(left, t), holds(right, t)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Operator::Or => match (holds(left, t), holds(right, t)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Operator::Eq | Operator::NotEq => {
                let (a, b) = (text(left, t)?, text(right, t)?);
                Some((a == b) == (*op == Operator::Eq))
            }
            _ => None,
        },
        Expr::Not(inner) => holds(inner, t).map(|b| !b),
        Expr::InList(list) => {
            let value = text(&list.expr, t)?;
            let mut found = false;
            for item in &list.list {
                found |= text(item, t)? == value;
            }
            Some(found != list.negated)
        }
        _ => None,
    }
}

/// A column `host` or `trace` of trace `t`, or a text literal.
fn text(expr: &Expr, t: &Trace) -> Option<String> {
    match expr {
        Expr::Column(c) if c.name == "host" => Some(t.host.clone()),
        Expr::Column(c) if c.name == "trace" => Some(t.name.clone()),
        Expr::Literal(v, _) => v.try_as_str().flatten().map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};
    use std::ops::Not;

    fn t(host: &str, name: &str) -> Trace {
        Trace {
            path: name.into(),
            name: name.into(),
            host: host.into(),
        }
    }

    #[test]
    fn place_filters_choose_traces() {
        let a = t("h1", "a/x.txt");
        let f = col("trace").eq(lit("a/x.txt"));
        assert_eq!(holds(&f, &a), Some(true));
        assert_eq!(holds(&f, &t("h1", "b")), Some(false));
        let g = col("host").in_list(vec![lit("h2"), lit("h3")], false);
        assert_eq!(holds(&g, &a), Some(false));
        assert_eq!(holds(&g.clone().or(f.clone()), &a), Some(true));
        assert_eq!(holds(&g.and(f.clone()), &a), Some(false));
        // Another column: undecided, the trace is kept.
        let h = col("name").eq(lit("sched_switch"));
        assert_eq!(holds(&h, &a), None);
        assert_eq!(holds(&h.clone().and(f.not()), &a), Some(false));
        assert!(!on_place_only(&h));
    }
}
