//! The `table/{id}/lines` requests: a page of a plain table, and the events
//! table's page with where it starts, its search and its filter.

use regex::Regex;
use serde_json::Value;

use crate::params::{parameters, Params, Result, ServiceError};

const NEGATIVE: &str =
    "parameters.requested_table_index, requested_table_count: must not be negative";

/// The lines a plain table's request asks for: from `low`, at most
/// `count`, of the columns named (every column when none is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub low: usize,
    pub count: usize,
    pub columns: Vec<usize>,
}

impl Page {
    /// The request on a table of `width` columns; a column id outside them
    /// is left out.
    pub fn parse(body: &Value, width: usize) -> Result<Page> {
        let p = parameters(body)?;
        let low = p.opt_i64("requested_table_index")?.unwrap_or(0);
        let count = p.opt_i64("requested_table_count")?.unwrap_or(i64::MAX);
        let (Ok(low), Ok(count)) = (usize::try_from(low), usize::try_from(count)) else {
            return Err(ServiceError::bad_request(NEGATIVE));
        };
        let columns = match p.opt_i64_array("requested_table_column_ids")? {
            Some(ids) if !ids.is_empty() => ids
                .into_iter()
                .filter_map(|c| usize::try_from(c).ok())
                .filter(|&c| c < width)
                .collect(),
            _ => (0..width).collect(),
        };
        Ok(Page {
            low,
            count,
            columns,
        })
    }
}

/// Where the events table's page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// `requested_table_index` (0 when neither it nor a time is given).
    Index(u64),
    /// The first of `requested_times`, when no index is given: the line
    /// of the first event at or after it.
    Time(i64),
}

/// Where a search looks from the line asked for (`table_search_direction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Next,
    Previous,
}

/// The events table's lines request.
#[derive(Debug, Clone)]
pub struct EventLines {
    pub at: At,
    /// `requested_table_count`, 100 when not given.
    pub count: u64,
    /// Every column when none is named.
    pub columns: Vec<usize>,
    /// `table_search_expressions`: (column, regular expression), the empty
    /// ones left out.
    pub search: Vec<(usize, Regex)>,
    /// `isFiltered`, and there is an expression to filter by.
    pub filtered: bool,
    pub direction: Option<Direction>,
}

impl EventLines {
    /// The request on the events table, of `width` columns: naming a
    /// column outside them is an error.
    pub fn parse(body: &Value, width: usize) -> Result<EventLines> {
        let p = parameters(body)?;
        let index = p.opt_i64("requested_table_index")?;
        let times = p.opt_i64_array("requested_times")?;
        let count = p.opt_i64("requested_table_count")?.unwrap_or(100);
        let (Ok(count), Ok(index)) = (u64::try_from(count), index.map(u64::try_from).transpose())
        else {
            return Err(ServiceError::bad_request(NEGATIVE));
        };
        // An index wins over a time; an empty list of times is none.
        let at = match (index, times.as_deref()) {
            (Some(i), _) => At::Index(i),
            (None, Some([t, ..])) => At::Time(*t),
            (None, _) => At::Index(0),
        };
        let columns: Vec<usize> = match p.opt_i64_array("requested_table_column_ids")? {
            Some(ids) if !ids.is_empty() => ids
                .into_iter()
                .map(|c| {
                    usize::try_from(c)
                        .ok()
                        .filter(|&c| c < width)
                        .ok_or_else(|| {
                            ServiceError::bad_request(format!(
                                "parameters.requested_table_column_ids: no column has id {c}"
                            ))
                        })
                })
                .collect::<Result<_>>()?,
            _ => (0..width).collect(),
        };
        let search = search_expressions(&p, width)?;
        // Without an expression there is nothing to filter by.
        let filtered = p.opt_bool("isFiltered")?.unwrap_or(false) && !search.is_empty();
        let direction = match p.opt_str("table_search_direction")? {
            None => None,
            Some(d) if d.eq_ignore_ascii_case("next") => Some(Direction::Next),
            Some(d) if d.eq_ignore_ascii_case("previous") => Some(Direction::Previous),
            Some(d) => {
                return Err(ServiceError::bad_request(format!(
                    "parameters.table_search_direction: expected NEXT or PREVIOUS, got {d}"
                )))
            }
        };
        Ok(EventLines {
            at,
            count,
            columns,
            search,
            filtered,
            direction,
        })
    }
}

/// `table_search_expressions`: `{columnId: regex}` over `width` columns.
fn search_expressions(p: &Params<'_>, width: usize) -> Result<Vec<(usize, Regex)>> {
    let Some(v) = p.raw("table_search_expressions") else {
        return Ok(Vec::new());
    };
    let Some(m) = v.as_object() else {
        return Err(ServiceError::bad_request(
            "parameters.table_search_expressions: expected an object {columnId: regex}",
        ));
    };
    let mut out = Vec::new();
    for (k, e) in m {
        let field = format!("parameters.table_search_expressions.{k}");
        let column = k
            .parse::<usize>()
            .ok()
            .filter(|&c| c < width)
            .ok_or_else(|| {
                ServiceError::bad_request(format!(
                    "{field}: no column has id {k} (0..{})",
                    width - 1
                ))
            })?;
        let text = e.as_str().ok_or_else(|| {
            ServiceError::bad_request(format!("{field}: expected a regular expression"))
        })?;
        if text.is_empty() {
            continue;
        }
        let re =
            Regex::new(text).map_err(|x| ServiceError::bad_request(format!("{field}: {x}")))?;
        out.push((column, re));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(parameters: Value) -> Result<EventLines> {
        EventLines::parse(&json!({ "parameters": parameters }), 5)
    }

    #[test]
    fn a_page_defaults_to_everything() {
        let p = Page::parse(&json!({"parameters": {}}), 3).unwrap();
        assert_eq!(
            (p.low, p.count, p.columns),
            (0, i64::MAX as usize, vec![0, 1, 2])
        );
        let body = json!({"parameters": {"requested_table_index": 2,
            "requested_table_count": 4, "requested_table_column_ids": [2, 7, -1, 0]}});
        let p = Page::parse(&body, 3).unwrap();
        assert_eq!((p.low, p.count, p.columns), (2, 4, vec![2, 0]));
        let body = json!({"parameters": {"requested_table_count": -1}});
        assert_eq!(Page::parse(&body, 3).unwrap_err().detail, NEGATIVE);
        let e = Page::parse(&json!({}), 3).unwrap_err();
        assert_eq!(e.detail, "missing field: parameters");
    }

    #[test]
    fn the_index_wins_over_a_time_and_neither_is_the_first_line() {
        let both = lines(json!({"requested_table_index": 4, "requested_times": [9]}));
        assert_eq!(both.unwrap().at, At::Index(4));
        assert_eq!(lines(json!({})).unwrap().at, At::Index(0));
        let time = lines(json!({"requested_times": [9, 10]})).unwrap();
        assert_eq!(time.at, At::Time(9));
        let no_time = lines(json!({"requested_times": []})).unwrap();
        assert_eq!(no_time.at, At::Index(0));
        // With an index, the times are still read.
        let e = lines(json!({"requested_table_index": 4, "requested_times": ["x"]}));
        assert_eq!(
            e.unwrap_err().detail,
            "parameters.requested_times[0]: expected an integer, got a string"
        );
    }

    #[test]
    fn event_lines_defaults_and_errors() {
        let l = lines(json!({})).unwrap();
        assert_eq!((l.count, l.columns.len()), (100, 5));
        assert!(l.search.is_empty() && !l.filtered && l.direction.is_none());
        for negative in [
            json!({"requested_table_index": -1}),
            json!({"requested_table_count": -1}),
        ] {
            assert_eq!(lines(negative).unwrap_err().detail, NEGATIVE);
        }
        let e = lines(json!({"requested_table_column_ids": [1, 5]})).unwrap_err();
        assert_eq!(
            e.detail,
            "parameters.requested_table_column_ids: no column has id 5"
        );
        let e = lines(json!({"table_search_expressions": {"9": "a"}})).unwrap_err();
        assert_eq!(
            e.detail,
            "parameters.table_search_expressions.9: no column has id 9 (0..4)"
        );
        let e = lines(json!({"table_search_expressions": ["a"]})).unwrap_err();
        assert_eq!(
            e.detail,
            "parameters.table_search_expressions: expected an object {columnId: regex}"
        );
        let e = lines(json!({"table_search_direction": "up"})).unwrap_err();
        assert_eq!(
            e.detail,
            "parameters.table_search_direction: expected NEXT or PREVIOUS, got up"
        );
    }

    #[test]
    fn only_an_expression_filters() {
        let l = lines(json!({"isFiltered": true, "table_search_expressions": {"1": ""}}));
        let l = l.unwrap();
        assert!(l.search.is_empty() && !l.filtered);
        let l = lines(
            json!({"isFiltered": true, "table_search_expressions": {"1": "a+"},
            "table_search_direction": "previous"}),
        )
        .unwrap();
        assert_eq!(l.search.len(), 1);
        assert!(l.filtered);
        assert_eq!(l.direction, Some(Direction::Previous));
    }
}
