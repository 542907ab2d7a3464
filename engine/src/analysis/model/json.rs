//! Checked models back to JSON in the schema's format (`parse_model` of it
//! gives back an equal model), e.g. for `sextant discover --emit-model`.

use serde_json::{json, Map, Value};

use super::{
    EventPattern, ExecutionModel, FieldConstraint, Mode, NestedModel, ThreadFilter, TID_VARIABLE,
};

impl ExecutionModel {
    /// The model as JSON in the schema's format; `parse_model` of it gives back
    /// an equal model. `threads` is written per side for `different_tids`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("mode".into(), json!(self.mode.as_str()));
        match &self.mode {
            Mode::SameTid {
                threads,
                events,
                nested,
            } => {
                if !threads.is_any() {
                    m.insert("threads".into(), threads.to_json());
                }
                m.insert("events".into(), events_json(events));
                if let Some(n) = nested {
                    m.insert("nested".into(), n.to_json());
                }
            }
            Mode::DifferentTids {
                start,
                end,
                start_threads,
                end_threads,
                chained,
            } => {
                m.insert("start".into(), start.to_json());
                m.insert("end".into(), end.to_json());
                if !start_threads.is_any() {
                    m.insert("start_threads".into(), start_threads.to_json());
                }
                if !end_threads.is_any() {
                    m.insert("end_threads".into(), end_threads.to_json());
                }
                m.insert("chained".into(), json!(chained));
            }
        }
        if let Some(r) = &self.time_range {
            let mut t = Map::new();
            if let Some(s) = r.start {
                t.insert("start".into(), json!(s));
            }
            if let Some(e) = r.end {
                t.insert("end".into(), json!(e));
            }
            m.insert("time_range".into(), Value::Object(t));
        }
        if let Some(n) = self.max_executions {
            m.insert("max_executions".into(), json!(n.get()));
        }
        if let Some(d) = self.deadline {
            m.insert("deadline".into(), json!(d));
        }
        Value::Object(m)
    }
}

impl NestedModel {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("mode".into(), json!("same_tid"));
        m.insert("events".into(), events_json(&self.events));
        if let Some(d) = self.deadline {
            m.insert("deadline".into(), json!(d));
        }
        Value::Object(m)
    }
}

fn events_json(events: &[EventPattern]) -> Value {
    Value::Array(events.iter().map(EventPattern::to_json).collect())
}

impl ThreadFilter {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(t) = &self.tids {
            m.insert("tids".into(), json!(t.iter().collect::<Vec<_>>()));
        }
        if let Some(r) = &self.process {
            m.insert("process".into(), json!(r.as_str()));
        }
        Value::Object(m)
    }
}

impl EventPattern {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        if !self.constraints.is_empty() {
            let fields: Map<String, Value> = self
                .constraints
                .iter()
                .map(FieldConstraint::to_json)
                .collect();
            m.insert("fields".into(), Value::Object(fields));
        }
        Value::Object(m)
    }
}

impl FieldConstraint {
    fn to_json(&self) -> (String, Value) {
        match self {
            FieldConstraint::Int { field, value } => {
                // Within i64 or u64 by construction.
                let v = match i64::try_from(*value) {
                    Ok(i) => json!(i),
                    Err(_) => json!(*value as u64),
                };
                (field.clone(), v)
            }
            FieldConstraint::Str { field, value } => (field.clone(), json!(value)),
            FieldConstraint::Tid { field } => (field.clone(), json!(TID_VARIABLE)),
            FieldConstraint::Masked { field, mask, value } => {
                (format!("{field}&{mask:#x}"), json!(value))
            }
        }
    }
}
