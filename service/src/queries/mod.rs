//! The requests' parameters, typed: each request shape's
//! `{"parameters": {...}}` body read once, by one constructor, into a
//! struct a handler reads instead of the JSON. The fields are read through
//! `params::Params`, so that an error names the offending field
//! (`parameters.requested_timerange.end`); each constructor reads its
//! fields in the order the handlers always have, so that a body wrong in
//! two places reports the same one.
//!
//! A handler parses its request where it always did (after its output was
//! found, before or after its own checks): an output that does not answer a
//! request, or ignores a field, must not start refusing bodies it never
//! read. That is also why two shapes that differ by one field (states with
//! or without a filter, a table page with or without search) are two
//! structs.

mod objects;
mod tables;
mod views;

pub use objects::{Annotations, NewExperiment, OpenTrace};
pub use tables::{At, Direction, EventLines, Page};
pub use views::{Arrows, ComparisonTree, FilteredStates, GenericXy, Tooltip, Tree, Viewport};

use serde_json::Value;

use super::params::{parameters, Params, Result};

/// The parameters of a request whose parameters are all optional: none
/// when the body has no `parameters` at all (a `null` one is still wrong).
fn optional(body: &Value) -> Result<Option<Params<'_>>> {
    match body.get("parameters") {
        Some(_) => parameters(body).map(Some),
        None => Ok(None),
    }
}
