//! What an execution model's outputs show: its executions over the
//! experiment's traces, and what several outputs answer alike (descriptors,
//! deadline-miss annotations).

use serde_json::{json, Map, Value};
use sextant_engine::analysis::executions::{Execution, Merged};

use crate::params::Result;
use crate::provider::Derived;
use crate::reply::completed;

/// The configuration type of execution models.
pub const EXECUTION_MODEL: &str = "sextant.execution-model";
/// The output that creates the derived ones (type NONE, canCreate).
pub const PARENT: &str = "sextant.executions";

const DEADLINE_MISSES: &str = "Deadline misses";

/// One posted model: its executions over the experiment's traces.
pub struct Found {
    /// The `Configuration` (id, name, description, sourceTypeId, parameters).
    pub configuration: Value,
    pub merged: Merged,
}

impl Found {
    pub fn id(&self) -> &str {
        self.configuration["id"].as_str().unwrap_or_default()
    }

    pub fn execution(&self, index: i64) -> Option<&Execution> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.merged.executions.executions.get(i))
    }

    /// The descriptor of its output `prefix`.
    pub fn descriptor(&self, prefix: &str, title: &str, description: &str, kind: &str) -> Value {
        Derived {
            parent: PARENT,
            configuration: &self.configuration,
        }
        .descriptor(prefix, title, description, kind)
    }

    /// Deadline misses, the one category, when the model has a deadline.
    pub fn annotation_categories(&self) -> Result<Value> {
        let categories: Vec<&str> = if self.merged.executions.deadline.is_some() {
            vec![DEADLINE_MISSES]
        } else {
            vec![]
        };
        Ok(completed(json!({"annotationCategories": categories})))
    }

    /// The deadline misses (all of them: the request's range is not
    /// applied), each placed by `place` (entry, time, duration), or none.
    pub fn deadline_annotations(
        &self,
        place: impl Fn(&Execution, i64) -> (i64, i64, i64),
    ) -> Result<Value> {
        let mut annotations = Map::new();
        if let Some(deadline) = self.merged.executions.deadline {
            // A row annotation is drawn by the VS Code viewer (timeline-chart)
            // as its symbol only: without a symbol-type it draws nothing.
            let style = json!({"values": {
                "color": "#ff0000",
                "opacity": 0.3,
                "symbol-type": "inverted-triangle",
                "vertical-align": "top",
            }});
            let marks: Vec<Value> = self
                .merged
                .executions
                .executions
                .iter()
                .filter(|x| x.deadline_miss == Some(true))
                .map(|x| {
                    let (entry, time, duration) = place(x, deadline);
                    json!({
                        "entryId": entry,
                        "time": time,
                        "duration": duration,
                        "type": "CHART",
                        "label": format!("#{} missed its deadline by {} ns", x.index, x.duration - deadline),
                        "style": style,
                    })
                })
                .collect();
            annotations.insert(DEADLINE_MISSES.into(), Value::Array(marks));
        }
        Ok(completed(json!({"annotations": annotations})))
    }
}
