//! Configuration source types (`GET /config/types`): how a client learns to
//! define an execution model. The one type's `schema` is the execution-model
//! JSON Schema, embedded at compile time.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{Result, Service, ServiceError};

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

impl Service {
    pub fn config_types(&self) -> Value {
        json!([execution_model_type()])
    }

    pub fn config_type(&self, id: &str) -> Result<Value> {
        if id == EXECUTION_MODEL {
            Ok(execution_model_type())
        } else {
            Err(ServiceError::not_found(
                "configuration type",
                format!("no configuration type has id {id} (known: {EXECUTION_MODEL})"),
            ))
        }
    }
}

impl Service {
    /// `GET /experiments/{uuid}/outputs/{output}/configTypes`: the types an
    /// output can create derived outputs from (only the executions parent).
    pub fn output_config_types(&self, exp: &str, output: &str) -> Result<Value> {
        self.output(exp, output)?;
        Ok(if output == super::executions::PARENT {
            json!([execution_model_type()])
        } else {
            json!([])
        })
    }

    pub fn output_config_type(&self, exp: &str, output: &str, id: &str) -> Result<Value> {
        self.output(exp, output)?;
        if output != super::executions::PARENT {
            return Err(ServiceError::not_found(
                "configuration type",
                format!("the output {output} takes no configuration"),
            ));
        }
        self.config_type(id)
    }
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
