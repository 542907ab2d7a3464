//! What an output is to the service: a data provider answering the TSP
//! requests it makes sense for, and refusing the others with one clear error.
//! Outputs either exist for every experiment (`Output`s registered as they
//! are) or derive from a configuration a client posted (`ConfigKind`: the
//! configuration type, how to create one, and the outputs each one has).
//!
//! Adding an output is one file implementing `Output` (and, for a new
//! configuration type, `ConfigKind` and `Configuration`) plus one line in
//! `registry.rs`.

use std::any::Any;
use std::sync::Arc;

use serde_json::{json, Value};

use sextant_engine::run::Work;
use uuid::Uuid;

use super::configs::{Posted, Store};
use super::params::{ErrorKind, Result, ServiceError};
use super::queries::{Arrows, Page};
use super::reply::{completed, Reply};
use super::stored::Results;
use super::traces::ExperimentEntry;

/// A request on one output of one experiment.
pub struct Query<'a> {
    pub exp: &'a ExperimentEntry,
    /// The output's id, as the client gave it.
    pub output: &'a str,
    /// The request body (`{"parameters": {...}}`), empty for GET requests.
    pub body: &'a Value,
}

impl Query<'_> {
    /// The error of a request this output does not answer.
    pub fn unanswered(&self) -> ServiceError {
        ServiceError::bad_request(format!(
            "the output {} does not answer this request",
            self.output
        ))
    }
}

/// A data provider. Every data request defaults to "this output does not
/// answer this request" (400): an output implements the ones its type
/// answers. Annotations and marker sets default to none.
pub trait Output: Send + Sync {
    /// The `OutputDescriptor`: id, name, description, type, and for derived
    /// outputs their parent and configuration.
    fn descriptor(&self) -> Value;

    /// Whether the experiment's traces have what it shows: it is listed
    /// only then (every output but those of one trace format).
    fn applies_to(&self, _exp: &ExperimentEntry) -> bool {
        true
    }

    /// The configuration types it creates derived outputs from.
    fn config_types(&self) -> Vec<Value> {
        Vec::new()
    }

    /// The marker sets it offers for its annotations (none by default: not
    /// an error, the marker-set request is the experiment's).
    fn marker_sets(&self) -> Vec<Value> {
        Vec::new()
    }

    fn style(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// None by default: viewers ask every output they list for its
    /// annotations, so having none is an answer, not an error.
    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        Ok(completed(json!({"annotationCategories": []})))
    }

    /// None by default (see `annotation_categories`).
    fn annotations(&self, _: &Query<'_>) -> Result<Value> {
        Ok(completed(json!({"annotations": {}})))
    }

    /// `timeGraph/{id}/tree` (TIME_GRAPH and GANTT_CHART outputs).
    fn timegraph_tree(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// `timeGraph/{id}/states`; the service caches COMPLETED answers.
    fn timegraph_states(&self, q: &Query<'_>) -> Result<Reply> {
        Err(q.unanswered())
    }

    fn timegraph_arrows(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    fn timegraph_tooltip(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// `XY/{id}/tree` (TREE_TIME_XY outputs).
    fn xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// `XY/{id}/xy`; the service caches COMPLETED answers.
    fn xy(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// `table/{id}/columns` (TABLE outputs).
    fn table_columns(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    fn table_lines(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// The experiment `exp` was deleted: drop what is kept for it (and stop
    /// the work still running for it).
    fn forget(&self, _exp: Uuid) {}

    /// `data/{id}/tree` (DATA_TREE outputs).
    fn data_tree(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    /// `genericXY/{id}/tree` (TREE_GENERIC_XY outputs).
    fn generic_xy_tree(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }

    fn generic_xy(&self, q: &Query<'_>) -> Result<Value> {
        Err(q.unanswered())
    }
}

/// The `style` answer of an output that defines no styles of its own.
pub fn no_styles() -> Result<Value> {
    Ok(completed(json!({"styles": {}})))
}

/// The `arrows` answer of a time graph that draws none: none, once the
/// request's time range is read (a malformed one is still an error).
pub fn no_arrows(q: &Query<'_>) -> Result<Value> {
    Arrows::parse(q.body)?;
    Ok(completed(json!([])))
}

/// The `columns` answer of a table: (name, description, data type) by id.
pub fn columns(columns: &[(&str, &str, &str)]) -> Result<Value> {
    let columns: Vec<Value> = columns
        .iter()
        .enumerate()
        .map(|(i, (name, description, ty))| {
            json!({"id": i as i64, "name": name, "description": description, "type": ty})
        })
        .collect();
    Ok(completed(Value::Array(columns)))
}

/// A plain table's `lines` answer: the `page` of `rows`, each line
/// numbered by `index` and its cells written by `cell(row, column)`.
pub fn lines<R>(
    page: &Page,
    rows: &[R],
    index: impl Fn(&R) -> i64,
    cell: impl Fn(&R, usize) -> String,
) -> Result<Value> {
    let lines: Vec<Value> = rows
        .iter()
        .skip(page.low)
        .take(page.count)
        .map(|r| {
            let cells: Vec<Value> = page
                .columns
                .iter()
                .map(|&c| json!({"content": cell(r, c)}))
                .collect();
            json!({"index": index(r), "cells": cells})
        })
        .collect();
    Ok(completed(json!({
        "columnIds": page.columns,
        "lowIndex": page.low,
        "size": rows.len(),
        "lines": lines,
    })))
}

/// What creating a configuration has at hand.
pub struct Creation<'a> {
    pub exp: &'a ExperimentEntry,
    pub posted: Posted<'a>,
    /// Every configuration posted so far (one kind may refer to another's).
    pub configs: &'a Store<dyn Configuration>,
    /// Progress and cancellation of the work creating it.
    pub work: &'a Work<'a>,
    /// The traces' stores, for results kept across requests and servers.
    pub results: &'a Results,
}

impl Creation<'_> {
    /// The configuration `id` of this experiment when one was posted with
    /// these same parameters; a conflict when its parameters differ
    /// (`other` names them in the error).
    pub fn existing(&self, id: &str, other: &str) -> Result<Option<Arc<dyn Configuration>>> {
        match self.configs.find(self.exp.uuid, id) {
            None => Ok(None),
            Some(c) if c.configuration()["parameters"] == *self.posted.parameters => Ok(Some(c)),
            Some(_) => Err(ServiceError::new(
                ErrorKind::Conflict,
                "Conflict",
                format!(
                    "a configuration named {} already exists with {other}",
                    self.posted.name
                ),
            )),
        }
    }
}

/// A configuration type whose configurations derive outputs.
pub trait ConfigKind: Send + Sync {
    /// The configuration type's id (`sourceTypeId`).
    fn type_id(&self) -> &'static str;
    /// The `ConfigurationSourceType`: id, name, description, schema.
    fn config_type(&self) -> Value;
    /// The output that creates them (type NONE, `canCreate`): its id,
    /// name and description.
    fn parent_id(&self) -> &'static str;
    fn parent_name(&self) -> &'static str;
    fn parent_description(&self) -> &'static str;
    /// What its parameters are, for the error when they are missing.
    fn parameters_hint(&self) -> &'static str;
    /// Checks the posted parameters and computes what the outputs show (or
    /// answers the configuration already posted with them).
    fn create(&self, c: &Creation<'_>) -> Result<Arc<dyn Configuration>>;
    /// The configurations of this kind that the experiment's traces' stores
    /// kept from an earlier server (read, never computed), to offer again.
    fn restore(&self, _exp: &ExperimentEntry, _results: &Results) -> Vec<Arc<dyn Configuration>> {
        Vec::new()
    }
}

/// One posted configuration and what its outputs show.
pub trait Configuration: Send + Sync {
    fn id(&self) -> &str;
    /// The `Configuration` model (id, name, description, sourceTypeId,
    /// parameters).
    fn configuration(&self) -> &Value;
    /// Its outputs, in order: the first is what creating it answers.
    fn outputs(self: Arc<Self>) -> Vec<Arc<dyn Output>>;
    /// The output whose id is `prefix:<this configuration's id>`.
    fn output(self: Arc<Self>, prefix: &str) -> Option<Arc<dyn Output>>;
    /// For kinds that read another kind's configurations.
    fn as_any(&self) -> &dyn Any;
    /// It is being deleted: forget what the traces' stores keep of it.
    fn deleted(&self, _exp: &ExperimentEntry, _results: &Results) {}
}

/// A derived output's descriptor: id `{prefix}:{configuration id}`, named
/// after its configuration, deletable.
pub struct Derived<'a> {
    /// The parent output's id.
    pub parent: &'a str,
    /// The `Configuration` model.
    pub configuration: &'a Value,
}

impl Derived<'_> {
    pub fn descriptor(&self, prefix: &str, title: &str, description: &str, kind: &str) -> Value {
        let c = self.configuration;
        json!({
            "id": format!("{prefix}:{}", c["id"].as_str().unwrap_or_default()),
            "name": format!("{title}: {}", c["name"].as_str().unwrap_or_default()),
            "description": description,
            "type": kind,
            "parentId": self.parent,
            "configuration": c,
            "capabilities": {"canCreate": false, "canDelete": true},
        })
    }
}

/// One output a configuration of type `T` derives: (id prefix, maker).
pub type Maker<T> = (&'static str, fn(Arc<T>) -> Arc<dyn Output>);

/// The outputs a configuration of type `T` derives, in order.
pub type Makers<T> = [Maker<T>];

/// Every output of `c`, in order.
pub fn make_all<T>(c: Arc<T>, makers: &Makers<T>) -> Vec<Arc<dyn Output>> {
    makers.iter().map(|(_, make)| make(c.clone())).collect()
}

/// The output of `c` whose id prefix is `prefix`.
pub fn make_one<T>(c: Arc<T>, makers: &Makers<T>, prefix: &str) -> Option<Arc<dyn Output>> {
    makers
        .iter()
        .find(|(p, _)| *p == prefix)
        .map(|(_, make)| make(c))
}

/// The output that creates a kind's configurations: it has no data, no
/// annotations, and takes the kind's configuration type.
pub struct Parent(pub Arc<dyn ConfigKind>);

impl Output for Parent {
    fn descriptor(&self) -> Value {
        json!({
            "id": self.0.parent_id(),
            "name": self.0.parent_name(),
            "description": self.0.parent_description(),
            "type": "NONE",
            "capabilities": {"canCreate": true, "canDelete": false},
        })
    }

    fn config_types(&self) -> Vec<Value> {
        vec![self.0.config_type()]
    }
}
