//! The requests of the time-range views: trees (time graph, XY, data),
//! time-graph states, arrows and tooltips, XY and generic XY series.

use serde_json::Value;
use sextant_engine::analysis::executions::SortKey;

use super::optional;
use crate::filters::StateFilter;
use crate::params::{parameters, Params, Result, ServiceError, TimeRange};

/// A tree request (`timeGraph`, `XY`, `genericXY` or `data` tree): its
/// time range is optional, and so are its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tree {
    pub range: Option<TimeRange>,
}

impl Tree {
    pub fn parse(body: &Value) -> Result<Tree> {
        Tree::of(optional(body)?.as_ref())
    }

    fn of(p: Option<&Params<'_>>) -> Result<Tree> {
        let range = match p {
            Some(p) => p.opt_time_range()?,
            None => None,
        };
        Ok(Tree { range })
    }

    /// The range asked for, everything when none is: what a data tree
    /// counts (the executions that start in it, the events in it).
    pub fn span(&self) -> (i64, i64) {
        self.range
            .map_or((i64::MIN, i64::MAX), |r| (r.start, r.end))
    }
}

/// The comparison view's tree: a tree request, and the order of its rows
/// (`sort`: by duration when not given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComparisonTree {
    pub tree: Tree,
    pub sort: SortKey,
}

impl ComparisonTree {
    pub fn parse(body: &Value) -> Result<ComparisonTree> {
        let p = optional(body)?;
        let tree = Tree::of(p.as_ref())?;
        let sort = match p.map(|p| p.opt_str("sort")).transpose()?.flatten() {
            None => SortKey::Duration,
            Some(s) => s
                .parse()
                .map_err(|e: String| ServiceError::bad_request(format!("parameters.sort: {e}")))?,
        };
        Ok(ComparisonTree { tree, sort })
    }
}

/// What a view shows: `requested_timerange` (required) and the rows or
/// series in `requested_items` (each output's default when not given).
/// The time-graph states of outputs that do not filter, and XY series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Viewport {
    pub range: TimeRange,
    pub items: Option<Vec<i64>>,
}

impl Viewport {
    pub fn parse(body: &Value) -> Result<Viewport> {
        Viewport::of(&parameters(body)?)
    }

    fn of(p: &Params<'_>) -> Result<Viewport> {
        let range = p.time_range()?;
        let items = p.opt_i64_array("requested_items")?;
        Ok(Viewport { range, items })
    }
}

/// Time-graph states of an output that searches and filters them: the
/// viewport and `filter_query_parameters` (see `filters`).
#[derive(Debug)]
pub struct FilteredStates {
    pub viewport: Viewport,
    /// None when the request has no expression.
    pub filter: Option<StateFilter>,
}

impl FilteredStates {
    pub fn parse(body: &Value) -> Result<FilteredStates> {
        let p = parameters(body)?;
        let viewport = Viewport::of(&p)?;
        let filter = state_filter(&p)?;
        Ok(FilteredStates { viewport, filter })
    }
}

/// `filter_query_parameters`: `{filter_expressions_map: {"1": [...],
/// "4": [...]}, strategy?}`, the search (DIMMED) and filter (EXCLUDED)
/// expressions; `strategy` is checked and changes nothing.
fn state_filter(p: &Params<'_>) -> Result<Option<StateFilter>> {
    let Some(q) = p.opt_obj("filter_query_parameters")? else {
        return Ok(None);
    };
    let map = q.obj("filter_expressions_map")?;
    let list = |key| match map.raw(key) {
        Some(_) => map.str_array(key),
        None => Ok(Vec::new()),
    };
    let (dim, exclude) = (list("1")?, list("4")?);
    if let Some(strategy) = q.opt_str("strategy")? {
        if strategy != "SAMPLED" && strategy != "DEEP" {
            return Err(ServiceError::bad_request(format!(
                "parameters.filter_query_parameters.strategy: SAMPLED or DEEP, got {strategy}"
            )));
        }
    }
    Ok(StateFilter::new(&dim, &exclude))
}

/// A time graph's arrows request: the arrows in `requested_timerange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrows {
    pub range: TimeRange,
}

impl Arrows {
    pub fn parse(body: &Value) -> Result<Arrows> {
        Ok(Arrows {
            range: parameters(body)?.time_range()?,
        })
    }
}

/// A time graph's tooltip request: the first of `requested_times` and of
/// `requested_items` (the viewer asks for one state; the rest are checked
/// and not used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tooltip {
    pub time: Option<i64>,
    pub item: Option<i64>,
}

impl Tooltip {
    pub fn parse(body: &Value) -> Result<Tooltip> {
        let p = parameters(body)?;
        let first = |name| -> Result<Option<i64>> {
            Ok(p.opt_i64_array(name)?.and_then(|v| v.first().copied()))
        };
        let time = first("requested_times")?;
        let item = first("requested_items")?;
        Ok(Tooltip { time, item })
    }
}

/// Bins a generic XY (duration density) request asks for when it does not
/// say (`nbSamples`), and the most it may.
const DEFAULT_BINS: i64 = 100;
const MAX_BINS: i64 = 65_536;

/// A generic XY request read as Trace Compass's segment density reads it:
/// `requested_timerange` (its `nbTimes` unread, `nb_times` none) with
/// `nbSamples`, the number of bins, and `requested_items`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenericXy {
    pub range: TimeRange,
    /// 1 to `MAX_BINS`.
    pub bins: i64,
    pub items: Option<Vec<i64>>,
}

impl GenericXy {
    pub fn parse(body: &Value) -> Result<GenericXy> {
        let p = parameters(body)?;
        let r = p.obj("requested_timerange")?;
        let (start, end) = (r.i64("start")?, r.i64("end")?);
        if end < start {
            return Err(ServiceError::bad_request(format!(
                "parameters.requested_timerange: end ({end}) is before start ({start})"
            )));
        }
        let bins = r.opt_i64("nbSamples")?.unwrap_or(DEFAULT_BINS);
        if !(1..=MAX_BINS).contains(&bins) {
            return Err(ServiceError::bad_request(format!(
                "parameters.requested_timerange.nbSamples: must be 1 to {MAX_BINS}, got {bins}"
            )));
        }
        let items = p.opt_i64_array("requested_items")?;
        let range = TimeRange {
            start,
            end,
            nb_times: None,
        };
        Ok(GenericXy { range, bins, items })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn detail<T: std::fmt::Debug>(r: Result<T>) -> String {
        r.unwrap_err().detail
    }

    #[test]
    fn a_tree_takes_no_parameters_or_a_range() {
        let all = Tree::parse(&json!({})).unwrap();
        assert_eq!((all.range, all.span()), (None, (i64::MIN, i64::MAX)));
        let body = json!({"parameters": {"requested_timerange": {"start": 5, "end": 9}}});
        assert_eq!(Tree::parse(&body).unwrap().span(), (5, 9));
        // Given, the parameters must be an object, and the range whole.
        let e = detail(Tree::parse(&json!({"parameters": null})));
        assert_eq!(e, "parameters: expected an object");
        let body = json!({"parameters": {"requested_timerange": {"start": 5}}});
        let e = detail(Tree::parse(&body));
        assert_eq!(e, "missing field: parameters.requested_timerange.end");
    }

    #[test]
    fn the_comparison_tree_is_sorted_by_duration_unless_asked() {
        assert_eq!(
            ComparisonTree::parse(&json!({})).unwrap().sort,
            SortKey::Duration
        );
        let body = json!({"parameters": {"sort": "start"}});
        assert_eq!(ComparisonTree::parse(&body).unwrap().sort, SortKey::Start);
        let e = detail(ComparisonTree::parse(&json!({"parameters": {"sort": "x"}})));
        assert!(e.starts_with("parameters.sort: "), "{e}");
        let e = detail(ComparisonTree::parse(&json!({"parameters": {"sort": 1}})));
        assert_eq!(e, "parameters.sort: expected a string, got a number");
        // The range is read first.
        let body = json!({"parameters": {"requested_timerange": 1, "sort": "x"}});
        let e = detail(ComparisonTree::parse(&body));
        assert_eq!(
            e,
            "parameters.requested_timerange: expected an object, got a number"
        );
    }

    #[test]
    fn a_viewport_needs_its_range() {
        let e = detail(Viewport::parse(&json!({"parameters": {}})));
        assert_eq!(e, "missing field: parameters.requested_timerange");
        let e = detail(Viewport::parse(&json!({})));
        assert_eq!(e, "missing field: parameters");
        let body = json!({"parameters": {"requested_timerange": {"start": 0, "end": 10},
            "requested_items": [1, "x"]}});
        let e = detail(Viewport::parse(&body));
        assert_eq!(
            e,
            "parameters.requested_items[1]: expected an integer, got a string"
        );
        let body = json!({"parameters": {"requested_timerange": {"start": 0, "end": 10, "nbTimes": 5},
            "requested_items": [3, "4"]}});
        let v = Viewport::parse(&body).unwrap();
        assert_eq!((v.range.nb_times, v.items), (Some(5), Some(vec![3, 4])));
    }

    #[test]
    fn filtered_states_read_the_viewport_then_the_filter() {
        let range = json!({"start": 0, "end": 10});
        let body = json!({"parameters": {"requested_timerange": range}});
        assert!(FilteredStates::parse(&body).unwrap().filter.is_none());
        let body = json!({"parameters": {"filter_query_parameters": {}}});
        let e = detail(FilteredStates::parse(&body));
        assert_eq!(e, "missing field: parameters.requested_timerange");
        let body = json!({"parameters": {"requested_timerange": range,
            "filter_query_parameters": {}}});
        let e = detail(FilteredStates::parse(&body));
        assert_eq!(
            e,
            "missing field: parameters.filter_query_parameters.filter_expressions_map"
        );
    }

    #[test]
    fn wrong_shapes_name_the_field() {
        let body = json!({"parameters": {"requested_timerange": {"start": 0, "end": 1},
            "filter_query_parameters": {"filter_expressions_map": {"1": "x"}}}});
        let e = FilteredStates::parse(&body).unwrap_err();
        assert!(
            e.detail.contains("filter_expressions_map.1"),
            "{}",
            e.detail
        );
        let body = json!({"parameters": {"requested_timerange": {"start": 0, "end": 1},
            "filter_query_parameters": {"filter_expressions_map": {}, "strategy": "ALL"}}});
        let e = FilteredStates::parse(&body).unwrap_err();
        assert!(e.detail.contains("strategy"), "{}", e.detail);
    }

    #[test]
    fn arrows_need_a_range() {
        let e = detail(Arrows::parse(&json!({"parameters": {}})));
        assert_eq!(e, "missing field: parameters.requested_timerange");
        let body = json!({"parameters": {"requested_timerange": {"start": 9, "end": 5}}});
        let e = detail(Arrows::parse(&body));
        assert_eq!(
            e,
            "parameters.requested_timerange: end (5) is before start (9)"
        );
    }

    #[test]
    fn a_tooltip_is_the_first_time_and_item() {
        let body = json!({"parameters": {"requested_times": [7, 8], "requested_items": [3]}});
        let tip = Tooltip::parse(&body).unwrap();
        assert_eq!((tip.time, tip.item), (Some(7), Some(3)));
        let tip = Tooltip::parse(&json!({"parameters": {"requested_items": []}})).unwrap();
        assert_eq!((tip.time, tip.item), (None, None));
        // Every value is checked, not only the first.
        let body = json!({"parameters": {"requested_times": [1, true]}});
        let e = detail(Tooltip::parse(&body));
        assert_eq!(
            e,
            "parameters.requested_times[1]: expected an integer, got a boolean"
        );
    }

    #[test]
    fn a_generic_xy_reads_its_bins_in_the_range() {
        let e = detail(GenericXy::parse(&json!({"parameters": {}})));
        assert_eq!(e, "missing field: parameters.requested_timerange");
        let body = json!({"parameters": {"requested_timerange": {"end": 5}}});
        let e = detail(GenericXy::parse(&body));
        assert_eq!(e, "missing field: parameters.requested_timerange.start");
        let body = json!({"parameters": {"requested_timerange": {"start": 6, "end": 5}}});
        let e = detail(GenericXy::parse(&body));
        assert_eq!(
            e,
            "parameters.requested_timerange: end (5) is before start (6)"
        );
        let body =
            json!({"parameters": {"requested_timerange": {"start": 0, "end": 5, "nbSamples": 0}}});
        let e = detail(GenericXy::parse(&body));
        assert_eq!(
            e,
            "parameters.requested_timerange.nbSamples: must be 1 to 65536, got 0"
        );
        // nbTimes is not this request's: a 0 there is no error.
        let body =
            json!({"parameters": {"requested_timerange": {"start": 0, "end": 5, "nbTimes": 0}}});
        let xy = GenericXy::parse(&body).unwrap();
        assert_eq!((xy.bins, xy.range.nb_times, xy.items), (100, None, None));
    }
}
