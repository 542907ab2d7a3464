//! Posted configurations: the body a client posts to create derived outputs
//! (`{name, description?, sourceTypeId, parameters}`), read with errors
//! naming the field, and the store of the configurations of every experiment.
//! Nothing here knows a configuration type: each kind says its own.

use std::sync::{Arc, RwLock};

use serde_json::{json, Map, Value};
use uuid::Uuid;

use super::params::{Result, ServiceError};

/// A configuration as a client posts it, its fields checked.
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

struct Entry<T: ?Sized> {
    exp: Uuid,
    type_id: &'static str,
    id: String,
    value: Arc<T>,
}

/// The configurations posted to all experiments, in the order posted, by
/// (experiment, id); each under its configuration type.
pub struct Store<T: ?Sized> {
    list: RwLock<Vec<Entry<T>>>,
}

impl<T: ?Sized> Default for Store<T> {
    fn default() -> Self {
        Store {
            list: RwLock::new(Vec::new()),
        }
    }
}

impl<T: ?Sized> Store<T> {
    /// The experiment's configurations of one type.
    pub fn of(&self, exp: Uuid, type_id: &str) -> Vec<Arc<T>> {
        let list = self.list.read().expect("not poisoned");
        list.iter()
            .filter(|e| e.exp == exp && e.type_id == type_id)
            .map(|e| e.value.clone())
            .collect()
    }

    /// The configuration `id` of the experiment, and its type.
    pub fn find_typed(&self, exp: Uuid, id: &str) -> Option<(&'static str, Arc<T>)> {
        let list = self.list.read().expect("not poisoned");
        list.iter()
            .find(|e| e.exp == exp && e.id == id)
            .map(|e| (e.type_id, e.value.clone()))
    }

    pub fn find(&self, exp: Uuid, id: &str) -> Option<Arc<T>> {
        self.find_typed(exp, id).map(|(_, v)| v)
    }

    /// Adds `value`, unless a request that ran at the same time added one
    /// with its id first: answers the one kept.
    pub fn insert(&self, exp: Uuid, type_id: &'static str, id: &str, value: Arc<T>) -> Arc<T> {
        let mut list = self.list.write().expect("not poisoned");
        if let Some(e) = list.iter().find(|e| e.exp == exp && e.id == id) {
            return e.value.clone();
        }
        list.push(Entry {
            exp,
            type_id,
            id: id.to_string(),
            value: value.clone(),
        });
        value
    }

    pub fn remove(&self, exp: Uuid, id: &str) {
        self.list
            .write()
            .expect("not poisoned")
            .retain(|e| !(e.exp == exp && e.id == id));
    }
}
