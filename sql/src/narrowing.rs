//! What a query's filters on `events` say of the rows' `name` and `ts`, so
//! that a trace's pass writes only those rows, stops after the last time
//! asked and, from a stored checkpoint, starts near the first
//! (`export::events::Only`, `Session::events_table`). DataFusion applies every filter to
//! the rows again (the push-down is `Inexact`): a filter this module reads
//! only in part narrows the pass no further than the filter itself does.

use std::collections::BTreeSet;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{Between, InList};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use sextant_engine::export::events::Only;

/// The rows `filter` can keep, when it says something of `name` or `ts`.
pub(crate) fn of(filter: &Expr) -> Option<Only> {
    match filter {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            // Both hold: each side's narrowing applies (an unreadable side
            // narrows nothing).
            Operator::And => match (of(left), of(right)) {
                (None, None) => None,
                (a, b) => Some(both(a.unwrap_or_default(), b.unwrap_or_default())),
            },
            // Either holds: only names on both sides make one set.
            Operator::Or => {
                let (a, b) = (of(left)?, of(right)?);
                match (a, b) {
                    (
                        Only {
                            names: Some(mut a),
                            from: None,
                            until: None,
                        },
                        Only {
                            names: Some(b),
                            from: None,
                            until: None,
                        },
                    ) => {
                        a.extend(b);
                        Some(names(a))
                    }
                    _ => None,
                }
            }
            _ => compared(left, *op, right),
        },
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) if column(expr) == Some("name") => {
            let all: Option<BTreeSet<String>> = list.iter().map(text).collect();
            all.map(names)
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) if column(expr) == Some("ts") => Some(Only {
            from: Some(integer(low)?),
            until: Some(integer(high)?),
            ..Only::default()
        }),
        _ => None,
    }
}

/// What both narrowings keep.
pub(crate) fn both(a: Only, b: Only) -> Only {
    Only {
        names: match (a.names, b.names) {
            (Some(x), Some(y)) => Some(x.intersection(&y).cloned().collect()),
            (x, None) => x,
            (None, y) => y,
        },
        from: a.from.max(b.from),
        until: match (a.until, b.until) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        },
    }
}

fn names(set: BTreeSet<String>) -> Only {
    Only {
        names: Some(set),
        ..Only::default()
    }
}

/// `name = 'x'`, `ts >= N` and the like, either way round.
fn compared(left: &Expr, op: Operator, right: &Expr) -> Option<Only> {
    let (col, op, value) = match (column(left), column(right)) {
        (Some(c), None) => (c, op, right),
        (None, Some(c)) => (c, op.swap()?, left),
        _ => return None,
    };
    match (col, op) {
        ("name", Operator::Eq) => Some(names(BTreeSet::from([text(value)?]))),
        ("ts", _) => {
            let v = integer(value)?;
            let (from, until) = match op {
                Operator::Eq => (Some(v), Some(v)),
                Operator::GtEq => (Some(v), None),
                Operator::Gt => (Some(v.checked_add(1)?), None),
                Operator::LtEq => (None, Some(v)),
                Operator::Lt => (None, Some(v.checked_sub(1)?)),
                _ => return None,
            };
            Some(Only {
                from,
                until,
                ..Only::default()
            })
        }
        _ => None,
    }
}

fn column(e: &Expr) -> Option<&str> {
    match e {
        Expr::Column(c) => Some(c.name.as_str()),
        _ => None,
    }
}

fn text(e: &Expr) -> Option<String> {
    match e {
        Expr::Literal(v, _) => v.try_as_str().flatten().map(str::to_string),
        _ => None,
    }
}

fn integer(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(v, _) => match v.cast_to(&DataType::Int64).ok()? {
            ScalarValue::Int64(Some(n)) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};

    #[test]
    fn names_and_times_are_read_and_the_rest_is_not() {
        let n = of(&col("name").eq(lit("sched_switch"))).unwrap();
        assert_eq!(n.names, Some(BTreeSet::from(["sched_switch".into()])));
        let t = of(&col("ts").gt_eq(lit(10i64)).and(col("ts").lt(lit(20i64)))).unwrap();
        assert_eq!((t.from, t.until), (Some(10), Some(19)));
        // The literal first: the comparison turned round.
        let r = of(&lit(5i64).lt(col("ts"))).unwrap();
        assert_eq!((r.from, r.until), (Some(6), None));
        let either = of(&col("name")
            .eq(lit("a"))
            .or(col("name").in_list(vec![lit("b"), lit("c")], false)))
        .unwrap();
        assert_eq!(either.names.unwrap().len(), 3);
        // A name or a time: no one narrowing holds for both.
        assert_eq!(
            of(&col("name").eq(lit("a")).or(col("ts").gt(lit(1i64)))),
            None
        );
        // Another column narrows nothing, beside one that does.
        assert_eq!(of(&col("cpu").eq(lit(1u32))), None);
        let half = of(&col("cpu").eq(lit(1u32)).and(col("ts").lt_eq(lit(7i64)))).unwrap();
        assert_eq!((half.from, half.until, half.names), (None, Some(7), None));
        assert_eq!(
            of(&col("name").in_list(vec![lit("a")], true)),
            None,
            "NOT IN keeps names it does not list"
        );
        let b = of(&col("ts").between(lit(3i64), lit(4i64))).unwrap();
        assert_eq!((b.from, b.until), (Some(3), Some(4)));
    }

    #[test]
    fn both_keeps_what_each_keeps() {
        let a = of(&col("name").in_list(vec![lit("a"), lit("b")], false)).unwrap();
        let b = of(&col("name").eq(lit("b")).and(col("ts").gt_eq(lit(2i64)))).unwrap();
        let ab = both(a, b);
        assert_eq!(ab.names, Some(BTreeSet::from(["b".into()])));
        assert_eq!(ab.from, Some(2));
    }
}
