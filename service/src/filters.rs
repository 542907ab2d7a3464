//! TSP's search and filter for time graphs: `filter_query_parameters`
//! `{filter_expressions_map: {"1": [...], "4": [...]}, strategy?}` on a
//! states request. The VS Code Trace Viewer sends its search box under "1"
//! (DIMMED: states that do not match are faded) and its filters under "4"
//! (EXCLUDED: states that do not match are left out, and a row left with
//! none is hidden). An expression is a case-insensitive regular expression
//! (a literal text when it is not one) searched in the row's labels (thread
//! name, TID...) and the state's name and label; every expression of a list
//! must match. `strategy` (SAMPLED or DEEP) changes nothing here: the
//! states drawn are the ones tested.

use regex::{Regex, RegexBuilder};

/// The tag of a state a search does not match (TSP's DIMMED).
pub const DIMMED: i64 = 1;

/// The expressions of one request.
#[derive(Debug, Default)]
pub struct StateFilter {
    dim: Vec<Regex>,
    exclude: Vec<Regex>,
}

/// What a filter makes of one state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Shown,
    Dimmed,
    Excluded,
}

impl Verdict {
    /// The state's tags, if it is kept.
    pub fn tags(self) -> Option<Option<i64>> {
        match self {
            Verdict::Shown => Some(None),
            Verdict::Dimmed => Some(Some(DIMMED)),
            Verdict::Excluded => None,
        }
    }
}

fn expression(text: &str) -> Regex {
    RegexBuilder::new(text)
        .case_insensitive(true)
        .build()
        .unwrap_or_else(|_| {
            RegexBuilder::new(&regex::escape(text))
                .case_insensitive(true)
                .build()
                .expect("an escaped text is a regex")
        })
}

impl StateFilter {
    /// The filter of a states request's search (`dim`) and filter
    /// (`exclude`) expressions (read by `queries::FilteredStates`), none
    /// when it has no expression.
    pub fn new(dim: &[&str], exclude: &[&str]) -> Option<StateFilter> {
        let f = StateFilter {
            dim: dim.iter().map(|t| expression(t)).collect(),
            exclude: exclude.iter().map(|t| expression(t)).collect(),
        };
        (!f.dim.is_empty() || !f.exclude.is_empty()).then_some(f)
    }

    /// The verdict on a state described by `texts` (its row's labels, its
    /// name, its label).
    pub fn verdict(&self, texts: &[&str]) -> Verdict {
        let all = |list: &[Regex]| list.iter().all(|r| texts.iter().any(|t| r.is_match(t)));
        if !all(&self.exclude) {
            Verdict::Excluded
        } else if !all(&self.dim) {
            Verdict::Dimmed
        } else {
            Verdict::Shown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queries::FilteredStates;
    use serde_json::json;

    fn filter(map: serde_json::Value) -> Option<StateFilter> {
        let body = json!({"parameters": {"requested_timerange": {"start": 0, "end": 1},
            "filter_query_parameters": {"filter_expressions_map": map}}});
        FilteredStates::parse(&body).unwrap().filter
    }

    #[test]
    fn search_dims_filter_excludes() {
        let f = filter(json!({"1": ["RT_high"]})).unwrap();
        assert_eq!(f.verdict(&["rt_high", "Running"]), Verdict::Shown);
        assert_eq!(f.verdict(&["rt_low", "Running"]), Verdict::Dimmed);
        let f = filter(json!({"4": ["rt_", "run"]})).unwrap();
        assert_eq!(f.verdict(&["rt_high", "Running"]), Verdict::Shown);
        assert_eq!(f.verdict(&["rt_high", "Blocked"]), Verdict::Excluded);
        // Not a regex: searched as text.
        let f = filter(json!({"1": ["a(b"]})).unwrap();
        assert_eq!(f.verdict(&["xa(by"]), Verdict::Shown);
        assert!(filter(json!({})).is_none());
        assert_eq!(Verdict::Dimmed.tags(), Some(Some(DIMMED)));
        assert_eq!(Verdict::Excluded.tags(), None);
    }
}
