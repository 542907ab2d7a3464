//! Configuration source types (`GET /config/types`): how a client learns to
//! define an execution model. The one type's `schema` is the execution-model
//! JSON Schema, embedded at compile time.

use std::sync::{Arc, OnceLock, RwLock};

use serde_json::{json, Map, Value};
use uuid::Uuid;

use super::{explain, Result, Service, ServiceError};

/// The id of the execution-model configuration type.
pub const EXECUTION_MODEL: &str = "sextant.execution-model";

const SCHEMA: &str = include_str!("../../../schemas/execution-model.schema.json");

/// The execution-model schema, parsed once.
fn schema() -> &'static Value {
    static PARSED: OnceLock<Value> = OnceLock::new();
    PARSED.get_or_init(|| serde_json::from_str(SCHEMA).expect("the embedded schema is JSON"))
}

/// The `ConfigurationSourceType` of execution models.
pub fn execution_model_type() -> Value {
    json!({
        "id": EXECUTION_MODEL,
        "name": "Execution model",
        "description": "An execution model (events that start and end each execution, threads, deadline): creates the Comparison View, the Time Perspective and the executions table",
        "schema": schema(),
    })
}

/// A configuration as a client posts it (`{name, description?,
/// sourceTypeId, parameters}`), its fields checked.
pub struct Posted<'a> {
    pub name: String,
    pub description: Option<String>,
    pub parameters: &'a Value,
}

impl Posted<'_> {
    /// The `Configuration` model answered with the derived outputs.
    pub fn configuration(&self, id: &str, type_id: &str) -> Value {
        let mut c = Map::new();
        c.insert("id".into(), json!(id));
        c.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            c.insert("description".into(), json!(d));
        }
        c.insert("sourceTypeId".into(), json!(type_id));
        c.insert("parameters".into(), self.parameters.clone());
        Value::Object(c)
    }
}

/// Reads a posted configuration of type `type_id`; `give` says what its
/// parameters are, for the error when they are missing.
pub fn posted<'a>(body: &'a Value, type_id: &str, give: &str) -> Result<Posted<'a>> {
    let Some(obj) = body.as_object() else {
        return Err(ServiceError::bad_request(
            "the request body must be a JSON object {name, description, sourceTypeId, parameters}",
        ));
    };
    let name = match obj.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(ServiceError::bad_request("name: must not be empty")),
        Some(_) => return Err(ServiceError::bad_request("name: expected a string")),
        None => return Err(ServiceError::bad_request("name: required field is missing")),
    };
    let description = match obj.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(ServiceError::bad_request("description: expected a string")),
    };
    match obj.get("sourceTypeId").or_else(|| obj.get("typeId")) {
        Some(Value::String(s)) if s == type_id => {}
        Some(Value::String(s)) => {
            return Err(ServiceError::not_found(
                "configuration type",
                format!(
                "sourceTypeId: no configuration type {s} creates these outputs (give {type_id})"
            ),
            ))
        }
        Some(_) => return Err(ServiceError::bad_request("sourceTypeId: expected a string")),
        None => {
            return Err(ServiceError::bad_request(format!(
                "sourceTypeId: required field is missing (give {type_id})"
            )))
        }
    }
    let parameters = obj.get("parameters").ok_or_else(|| {
        ServiceError::bad_request(format!(
            "parameters: required field is missing (give {give})"
        ))
    })?;
    Ok(Posted {
        name,
        description,
        parameters,
    })
}

/// What the configurations of a store are found by.
pub trait Configured {
    fn experiment(&self) -> Uuid;
    fn config_id(&self) -> &str;
}

/// The configurations posted to all experiments, of one type.
pub struct Store<T> {
    list: RwLock<Vec<Arc<T>>>,
}

impl<T> Default for Store<T> {
    fn default() -> Self {
        Store {
            list: RwLock::new(Vec::new()),
        }
    }
}

impl<T: Configured> Store<T> {
    pub fn of(&self, exp: Uuid) -> Vec<Arc<T>> {
        let list = self.list.read().expect("not poisoned");
        list.iter()
            .filter(|d| d.experiment() == exp)
            .cloned()
            .collect()
    }

    pub fn find(&self, exp: Uuid, id: &str) -> Option<Arc<T>> {
        let list = self.list.read().expect("not poisoned");
        list.iter()
            .find(|d| d.experiment() == exp && d.config_id() == id)
            .cloned()
    }

    /// Adds `item`, unless a request that ran at the same time added one
    /// with its id first: answers the one kept.
    pub fn insert(&self, item: Arc<T>) -> Arc<T> {
        let mut list = self.list.write().expect("not poisoned");
        if let Some(d) = list
            .iter()
            .find(|d| d.experiment() == item.experiment() && d.config_id() == item.config_id())
        {
            return d.clone();
        }
        list.push(item.clone());
        item
    }

    pub fn remove(&self, exp: Uuid, id: &str) {
        self.list
            .write()
            .expect("not poisoned")
            .retain(|d| !(d.experiment() == exp && d.config_id() == id));
    }
}

impl Service {
    pub fn config_types(&self) -> Value {
        json!([execution_model_type(), explain::config_type()])
    }

    pub fn config_type(&self, id: &str) -> Result<Value> {
        match id {
            EXECUTION_MODEL => Ok(execution_model_type()),
            explain::EXPLAIN => Ok(explain::config_type()),
            _ => Err(ServiceError::not_found(
                "configuration type",
                format!(
                    "no configuration type has id {id} (known: {EXECUTION_MODEL}, {})",
                    explain::EXPLAIN
                ),
            )),
        }
    }
}

impl Service {
    /// `GET /experiments/{uuid}/outputs/{output}/configTypes`: the types an
    /// output can create derived outputs from (only the parents: executions
    /// and explanations).
    pub fn output_config_types(&self, exp: &str, output: &str) -> Result<Value> {
        self.output(exp, output)?;
        Ok(match output {
            super::executions::PARENT => json!([execution_model_type()]),
            explain::PARENT => json!([explain::config_type()]),
            _ => json!([]),
        })
    }

    pub fn output_config_type(&self, exp: &str, output: &str, id: &str) -> Result<Value> {
        self.output(exp, output)?;
        let takes = match output {
            super::executions::PARENT => EXECUTION_MODEL,
            explain::PARENT => explain::EXPLAIN,
            _ => {
                return Err(ServiceError::not_found(
                    "configuration type",
                    format!("the output {output} takes no configuration"),
                ))
            }
        };
        if id != takes {
            return Err(ServiceError::not_found(
                "configuration type",
                format!("the output {output} takes only {takes}"),
            ));
        }
        self.config_type(id)
    }
}

/// The outputs one configuration type derives, each named by an id prefix
/// (`<prefix>:<configuration id>`).
pub trait DerivedKind: Copy + 'static {
    const ALL: &'static [Self];
    fn prefix(self) -> &'static str;
}

/// `prefix:config` → (kind, configuration id).
pub fn parse_derived_id<K: DerivedKind>(output: &str) -> Option<(K, &str)> {
    let (prefix, config) = output.split_once(':')?;
    K::ALL
        .iter()
        .copied()
        .find(|k| k.prefix() == prefix)
        .map(|k| (k, config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_embedded() {
        let t = execution_model_type();
        assert_eq!(t["id"], EXECUTION_MODEL);
        assert!(t["schema"].is_object());
        assert!(t["schema"].get("properties").is_some() || t["schema"].get("$defs").is_some());
    }
}
