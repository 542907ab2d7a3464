//! The requests on an experiment's outputs: each output resolved through
//! the registry (404 when the experiment or the output does not exist) and
//! asked; viewport answers (states, XY) through the cache. Creating and
//! deleting derived outputs, and the configuration types.

use std::sync::Arc;

use serde_json::{json, Value};
use sextant_engine::run::Work;

use super::cache::Key;
use super::configs;
use super::params::{Result, ServiceError};
use super::provider::{Creation, Output, Query};
use super::queries::Annotations;
use super::reply::{completed, Reply};
use super::server::Service;
use super::traces::ExperimentEntry;

fn no_output(output: &str) -> ServiceError {
    ServiceError::not_found("output", format!("no output has id {output}"))
}

fn no_type(what: impl Into<String>) -> ServiceError {
    ServiceError::not_found("configuration type", what)
}

impl Service {
    /// The experiment and its output `output`.
    fn output_of(
        &self,
        exp: &str,
        output: &str,
    ) -> Result<(Arc<ExperimentEntry>, Arc<dyn Output>)> {
        let e = self.experiment_entry(exp)?;
        let o = self
            .outputs
            .resolve(&self.configs, e.uuid, output)
            .ok_or_else(|| no_output(output))?;
        Ok((e, o))
    }

    /// Asks output `output` of `exp` with `body`.
    fn ask<T>(
        &self,
        exp: &str,
        output: &str,
        body: &Value,
        request: impl FnOnce(&dyn Output, &Query<'_>) -> Result<T>,
    ) -> Result<T> {
        let (e, o) = self.output_of(exp, output)?;
        request(
            o.as_ref(),
            &Query {
                exp: &e,
                output,
                body,
            },
        )
    }

    pub fn outputs(&self, exp: &str) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        Ok(Value::Array(self.outputs.descriptors(&self.configs, &e)))
    }

    pub fn output(&self, exp: &str, output: &str) -> Result<Value> {
        Ok(self.output_of(exp, output)?.1.descriptor())
    }

    /// The marker sets the experiment's outputs offer.
    pub fn marker_sets(&self, exp: &str) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        let sets: Vec<Value> = self
            .outputs
            .outputs(&self.configs, &e)
            .iter()
            .flat_map(|o| o.marker_sets())
            .collect();
        Ok(completed(Value::Array(sets)))
    }

    pub fn style(&self, exp: &str, output: &str) -> Result<Value> {
        self.ask(exp, output, &Value::Null, |o, q| o.style(q))
    }

    pub fn annotation_categories(&self, exp: &str, output: &str) -> Result<Value> {
        self.ask(exp, output, &Value::Null, |o, q| o.annotation_categories(q))
    }

    /// The output's annotations, of the categories in
    /// `requested_marker_categories` when the request lists them (the
    /// viewer sends the ones its user left checked).
    pub fn annotations(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let wanted = Annotations::parse(body)?.categories;
        let mut answer = self.ask(exp, output, body, |o, q| o.annotations(q))?;
        if let (Some(wanted), Some(Value::Object(by_category))) =
            (wanted, answer.pointer_mut("/model/annotations"))
        {
            by_category.retain(|category, _| wanted.contains(&category.as_str()));
        }
        Ok(answer)
    }

    pub fn timegraph_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.timegraph_tree(q))
    }

    /// `ask`, through the cache: answers to viewports asked before.
    fn cached(
        &self,
        exp: &str,
        output: &str,
        body: &Value,
        request: &'static str,
        answer: impl FnOnce(&dyn Output, &Query<'_>) -> Result<Reply>,
    ) -> Result<Reply> {
        let key = Key::new(self.experiment_entry(exp)?.uuid, output, request, body);
        self.cache
            .get_or(key, || self.ask(exp, output, body, answer))
    }

    pub fn timegraph_states(&self, exp: &str, output: &str, body: &Value) -> Result<Reply> {
        self.cached(exp, output, body, "states", |o, q| o.timegraph_states(q))
    }

    pub fn timegraph_arrows(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.timegraph_arrows(q))
    }

    pub fn timegraph_tooltip(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.timegraph_tooltip(q))
    }

    pub fn xy_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.xy_tree(q))
    }

    pub fn xy(&self, exp: &str, output: &str, body: &Value) -> Result<Reply> {
        self.cached(exp, output, body, "xy", |o, q| o.xy(q).map(Reply::from))
    }

    pub fn table_columns(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.table_columns(q))
    }

    pub fn table_lines(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.table_lines(q))
    }

    pub fn data_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.data_tree(q))
    }

    pub fn generic_xy_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.generic_xy_tree(q))
    }

    pub fn generic_xy(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        self.ask(exp, output, body, |o, q| o.generic_xy(q))
    }

    /// `POST /experiments/{uuid}/outputs/{parent}`: checks the posted
    /// configuration, computes what its outputs show (reporting to `work`,
    /// stopped when it is cancelled), registers them; answers the first
    /// one's descriptor.
    pub fn create_derived(
        &self,
        exp: &str,
        output: &str,
        body: &Value,
        work: &Work,
    ) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        let Some(kind) = self.outputs.kind_of_parent(output) else {
            return Err(if self.output(exp, output).is_ok() {
                ServiceError::bad_request(format!(
                    "the output {output} cannot create derived outputs (use {})",
                    self.outputs.parent_ids()
                ))
            } else {
                no_output(output)
            });
        };
        let posted = configs::posted(body, kind.type_id(), kind.parameters_hint())?;
        let created = kind.create(&Creation {
            exp: &e,
            posted,
            configs: &self.configs,
            work,
            results: &self.results,
        })?;
        let id = created.id().to_string();
        let kept = self.configs.insert(e.uuid, kind.type_id(), &id, created);
        Ok(kept.outputs()[0].descriptor())
    }

    /// `DELETE /experiments/{uuid}/outputs/{parent}/{derived}`: removes the
    /// configuration and all its outputs; answers the derived descriptor.
    pub fn delete_derived(&self, exp: &str, output: &str, derived: &str) -> Result<Value> {
        let e = self.experiment_entry(exp)?;
        let Some(kind) = self.outputs.kind_of_parent(output) else {
            return Err(ServiceError::not_found(
                "output",
                format!(
                    "{output} has no derived outputs (the outputs that create some: {})",
                    self.outputs.parent_ids()
                ),
            ));
        };
        let found = derived.split_once(':').and_then(|(prefix, id)| {
            let (type_id, c) = self.configs.find_typed(e.uuid, id)?;
            let o = c.clone().output(prefix)?;
            (type_id == kind.type_id()).then_some((c, o))
        });
        let (c, o) = found.ok_or_else(|| no_output(derived))?;
        self.configs.remove(e.uuid, c.id());
        c.deleted(&e, &self.results);
        // After the removal, so that no request can cache them again.
        let suffix = format!(":{}", c.id());
        self.cache.forget(e.uuid, |o| o.ends_with(&suffix));
        Ok(o.descriptor())
    }

    pub fn config_types(&self) -> Value {
        Value::Array(self.outputs.kinds().map(|k| k.config_type()).collect())
    }

    pub fn config_type(&self, id: &str) -> Result<Value> {
        self.outputs
            .kind(id)
            .map(|k| k.config_type())
            .ok_or_else(|| {
                no_type(format!(
                    "no configuration type has id {id} (known: {})",
                    self.outputs.type_ids()
                ))
            })
    }

    /// `GET /experiments/{uuid}/outputs/{output}/configTypes`: the types an
    /// output can create derived outputs from (only the parents have some).
    pub fn output_config_types(&self, exp: &str, output: &str) -> Result<Value> {
        Ok(json!(self.output_of(exp, output)?.1.config_types()))
    }

    pub fn output_config_type(&self, exp: &str, output: &str, id: &str) -> Result<Value> {
        let takes = self.output_of(exp, output)?.1.config_types();
        if let Some(t) = takes.iter().find(|t| t["id"] == id) {
            return Ok(t.clone());
        }
        let ids: Vec<&str> = takes.iter().filter_map(|t| t["id"].as_str()).collect();
        Err(no_type(if ids.is_empty() {
            format!("the output {output} takes no configuration")
        } else {
            format!("the output {output} takes only {}", ids.join(", "))
        }))
    }
}
