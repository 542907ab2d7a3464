//! The TSP 0.6.0 OpenAPI document (../shared/specs/tsp-API.yaml) as a
//! validator of `sextant serve`'s answers: the request path is matched
//! against the spec's path templates, and the response schema of that
//! method and status is taken (an error status the spec does not list is
//! checked against `ErrorResponse` and reported; an undeclared success
//! status fails). OpenAPI 3.0 schemas are turned into JSON Schema 2020-12
//! (see `to_json_schema`) and validated with `$ref`s into the components.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::repo_root;
use super::server::Server;

pub fn spec_path() -> PathBuf {
    repo_root().join("../shared/specs/tsp-API.yaml")
}

// ----- the spec -----

/// OpenAPI 3.0 schema → JSON Schema 2020-12, in place:
/// - `nullable: true` → `null` added to `type`;
/// - `oneOf` over plain types (StyleValue, MetadataValue: string | number |
///   integer, generated with a wrong `type: object` beside) → `anyOf` without
///   the `type`, since an integer is also a number;
/// - `format: int32` / `int64` → the bounds they mean.
pub fn to_json_schema(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("nullable") == Some(&Value::Bool(true)) {
                o.remove("nullable");
                if let Some(Value::String(t)) = o.get("type").cloned() {
                    o.insert("type".into(), json!([t, "null"]));
                }
            }
            let plain_one_of = o.get("oneOf").and_then(Value::as_array).is_some_and(|a| {
                a.iter().all(|b| {
                    b.get("$ref").is_none() && b.get("type").is_some_and(|t| t != "object")
                })
            });
            if plain_one_of {
                let branches = o.remove("oneOf").unwrap();
                o.remove("type");
                o.insert("anyOf".into(), branches);
            }
            match o.get("format").and_then(Value::as_str) {
                Some("int32") => {
                    o.insert("minimum".into(), json!(i32::MIN));
                    o.insert("maximum".into(), json!(i32::MAX));
                }
                Some("int64") => {
                    o.insert("minimum".into(), json!(i64::MIN));
                    o.insert("maximum".into(), json!(i64::MAX));
                }
                _ => {}
            }
            o.values_mut().for_each(to_json_schema);
        }
        Value::Array(a) => a.iter_mut().for_each(to_json_schema),
        _ => {}
    }
}

pub struct Operation {
    method: String,
    segments: Vec<String>,
    /// Status code → response schema.
    pub responses: HashMap<u16, Value>,
}

pub struct Spec {
    components: Value,
    operations: Vec<Operation>,
    validators: HashMap<String, jsonschema::Validator>,
}

impl Spec {
    pub fn load() -> Option<Spec> {
        let text = std::fs::read_to_string(spec_path()).ok()?;
        let mut doc: Value = serde_norway::from_str(&text).expect("the spec is YAML");
        to_json_schema(&mut doc);
        let mut operations = Vec::new();
        for (path, ops) in doc["paths"].as_object().expect("paths") {
            for (method, op) in ops.as_object().unwrap() {
                let Some(responses) = op.get("responses").and_then(Value::as_object) else {
                    continue;
                };
                let responses = responses
                    .iter()
                    .filter_map(|(code, r)| {
                        let schema = r.pointer("/content/application~1json/schema")?;
                        Some((code.parse().ok()?, schema.clone()))
                    })
                    .collect();
                operations.push(Operation {
                    method: method.to_uppercase(),
                    segments: path.split('/').map(String::from).collect(),
                    responses,
                });
            }
        }
        let components = json!({"schemas": doc["components"]["schemas"].clone()});
        Some(Spec {
            components,
            operations,
            validators: HashMap::new(),
        })
    }

    /// The operation of `method path` (query string ignored): the matching
    /// template with the most literal segments (`/outputs/markerSets` over
    /// `/outputs/{outputId}`).
    pub fn operation(&self, method: &str, path: &str) -> Option<&Operation> {
        let path = path.split('?').next().unwrap();
        let segs: Vec<&str> = path.split('/').collect();
        self.operations
            .iter()
            .filter(|op| {
                op.method == method
                    && op.segments.len() == segs.len()
                    && op
                        .segments
                        .iter()
                        .zip(&segs)
                        .all(|(t, s)| t.starts_with('{') || t == s)
            })
            .max_by_key(|op| op.segments.iter().filter(|t| !t.starts_with('{')).count())
    }

    /// Validates `body` against `schema` (which may `$ref` the components).
    pub fn validate(&mut self, key: &str, schema: &Value, body: &Value) -> Vec<String> {
        let components = &self.components;
        let v = self.validators.entry(key.to_string()).or_insert_with(|| {
            let mut root = schema.as_object().cloned().unwrap_or_default();
            root.insert("components".into(), components.clone());
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(&Value::Object(root))
                .unwrap_or_else(|e| panic!("{key}: the spec's schema does not compile: {e}"))
        });
        v.iter_errors(body)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }
}

// ----- requests, each answer checked -----

pub struct Session {
    pub srv: Server,
    pub spec: Spec,
    /// "METHOD template status" → how many answers were validated.
    pub checked: HashMap<String, usize>,
    pub failures: Vec<String>,
    /// Error statuses the spec does not list for the operation.
    pub undeclared: Vec<String>,
}

impl Session {
    pub fn call(&mut self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let text = body.map(Value::to_string);
        let (status, resp) = self.srv.raw(method, path, text.as_deref());
        let what = format!("{method} {path} → {status}");
        let Ok(v) = serde_json::from_str::<Value>(&resp) else {
            self.failures.push(format!("{what}: not JSON: {resp}"));
            return (status, Value::Null);
        };
        let Some(op) = self.spec.operation(method, path) else {
            self.failures
                .push(format!("{what}: the spec has no such operation"));
            return (status, v);
        };
        let template = op.segments.join("/");
        let schema = match op.responses.get(&status) {
            Some(s) => s.clone(),
            None if status >= 400 => {
                self.undeclared
                    .push(format!("{method} {template} → {status}"));
                json!({"$ref": "#/components/schemas/ErrorResponse"})
            }
            None => {
                self.failures.push(format!(
                    "{what}: the spec lists no {status} answer ({:?})",
                    op.responses.keys().collect::<Vec<_>>()
                ));
                return (status, v);
            }
        };
        let key = format!("{method} {template} {status}");
        let errors = self.spec.validate(&key, &schema, &v);
        if !errors.is_empty() {
            let mut shown = v.to_string();
            if shown.len() > 600 {
                let mut cut = 600;
                while !shown.is_char_boundary(cut) {
                    cut -= 1;
                }
                shown.truncate(cut);
                shown.push('…');
            }
            self.failures
                .push(format!("{what}: {errors:#?}\nbody: {shown}"));
        }
        *self.checked.entry(key).or_default() += 1;
        (status, v)
    }

    pub fn get(&mut self, path: &str) -> (u16, Value) {
        self.call("GET", path, None)
    }

    pub fn post(&mut self, path: &str, body: Value) -> (u16, Value) {
        self.call("POST", path, Some(&body))
    }

    pub fn delete(&mut self, path: &str) -> (u16, Value) {
        self.call("DELETE", path, None)
    }
}
