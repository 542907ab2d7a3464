//! The requests that open a trace, create an experiment, or ask an output
//! for its annotations.

use serde_json::Value;

use super::optional;
use crate::params::{parameters, Result, ServiceError};

/// `POST /traces`: the trace at `uri`, named `name` (its file name when
/// none or an empty one is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTrace<'a> {
    pub uri: &'a str,
    pub name: Option<&'a str>,
}

impl<'a> OpenTrace<'a> {
    pub fn parse(body: &'a Value) -> Result<OpenTrace<'a>> {
        let p = parameters(body)?;
        let uri = p.str("uri")?;
        let name = p.opt_str("name")?;
        Ok(OpenTrace { uri, name })
    }
}

/// `POST /experiments`: an experiment named `name` (not empty) of the
/// traces `traces` (UUIDs of open traces, at least one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewExperiment<'a> {
    pub name: &'a str,
    pub traces: Vec<&'a str>,
}

impl<'a> NewExperiment<'a> {
    pub fn parse(body: &'a Value) -> Result<NewExperiment<'a>> {
        let p = parameters(body)?;
        let name = p.str("name")?;
        if name.is_empty() {
            return Err(ServiceError::bad_request(
                "parameters.name: must not be empty",
            ));
        }
        let traces = p.str_array("traces")?;
        if traces.is_empty() {
            return Err(ServiceError::bad_request(
                "parameters.traces: give at least one trace UUID",
            ));
        }
        Ok(NewExperiment { name, traces })
    }
}

/// An annotations request: the categories in
/// `requested_marker_categories`, when it lists them (the viewer sends the
/// ones its user left checked); parameters are optional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotations<'a> {
    pub categories: Option<Vec<&'a str>>,
}

impl<'a> Annotations<'a> {
    pub fn parse(body: &'a Value) -> Result<Annotations<'a>> {
        const CATEGORIES: &str = "requested_marker_categories";
        let categories = match optional(body)? {
            Some(p) if p.raw(CATEGORIES).is_some() => Some(p.str_array(CATEGORIES)?),
            _ => None,
        };
        Ok(Annotations { categories })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn opening_needs_a_uri() {
        let body = json!({"parameters": {"uri": "/t", "name": "n"}});
        let t = OpenTrace::parse(&body).unwrap();
        assert_eq!((t.uri, t.name), ("/t", Some("n")));
        let body = json!({"parameters": {"name": "x"}});
        let e = OpenTrace::parse(&body).unwrap_err();
        assert_eq!(e.detail, "missing field: parameters.uri");
    }

    #[test]
    fn an_experiment_needs_a_name_and_traces() {
        let body = json!({"parameters": {"name": "e", "traces": ["a", "b"]}});
        let x = NewExperiment::parse(&body).unwrap();
        assert_eq!((x.name, x.traces), ("e", vec!["a", "b"]));
        for (parameters, error) in [
            (json!({"traces": ["a"]}), "missing field: parameters.name"),
            (
                json!({"name": "", "traces": ["a"]}),
                "parameters.name: must not be empty",
            ),
            (json!({"name": "e"}), "missing field: parameters.traces"),
            (
                json!({"name": "e", "traces": []}),
                "parameters.traces: give at least one trace UUID",
            ),
        ] {
            let body = json!({ "parameters": parameters });
            assert_eq!(NewExperiment::parse(&body).unwrap_err().detail, error);
        }
    }

    #[test]
    fn annotations_may_name_categories() {
        fn categories(body: &Value) -> Option<Vec<&str>> {
            Annotations::parse(body).unwrap().categories
        }
        assert_eq!(categories(&json!({})), None);
        assert_eq!(categories(&json!({"parameters": {}})), None);
        let body = json!({"parameters": {"requested_marker_categories": ["a"]}});
        assert_eq!(categories(&body), Some(vec!["a"]));
        let body = json!({"parameters": {"requested_marker_categories": [1]}});
        assert_eq!(
            Annotations::parse(&body).unwrap_err().detail,
            "parameters.requested_marker_categories[0]: expected a string, got a number"
        );
    }
}
