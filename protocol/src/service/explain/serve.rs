//! The TSP requests on an explanation's outputs: styles, trees, states,
//! arrows, tooltips, annotations, and the related-threads data tree.

use serde_json::{json, Map, Value};

use super::build::{TimeGraph, FACILITY_STYLES, INTERFERENCE, INVERSION, WAKEUP};
use super::{Explained, Kind};
use crate::service::outputs::thread_state_style_map;
use crate::service::params::{self, Result, ServiceError};
use crate::service::{data, Service};

const DIAGNOSIS: &str = "Diagnosis";

fn style(name: &str, colour: &str, height: f64) -> Value {
    json!({"values": {
        "style-name": name,
        "background-color": colour,
        "color": colour,
        "height": height,
        "opacity": 1.0,
    }})
}

fn styles(kind: Kind) -> Map<String, Value> {
    let mut m = match kind {
        Kind::CriticalPath | Kind::Complement => thread_state_style_map(),
        Kind::Relations | Kind::Facilities => Map::new(),
    };
    match kind {
        Kind::CriticalPath => {
            m.insert("unknown".into(), style("Unknown", "#b0b0b0", 1.0));
            m.insert(WAKEUP.into(), style("Wake-up", "#3070c0", 1.0));
        }
        Kind::Complement => {
            m.insert(
                INVERSION.into(),
                style("Priority inversion", "#d62728", 1.0),
            );
            m.insert(
                INTERFERENCE.into(),
                style("Ran while the path waited", "#7f7f7f", 1.0),
            );
        }
        Kind::Facilities => {
            for (key, name, colour) in FACILITY_STYLES {
                m.insert(key.to_string(), style(name, colour, 1.0));
            }
        }
        Kind::Relations => {}
    }
    m
}

fn done(model: Value) -> Value {
    data(model, "COMPLETED", "Completed")
}

impl Service {
    /// The time graph of a time-graph output.
    fn explained_graph(
        &self,
        exp: &str,
        output: &str,
    ) -> Result<(std::sync::Arc<Explained>, Kind)> {
        let (kind, d) = self.explained(exp, output)?;
        if d.graph(kind).is_none() {
            return Err(ServiceError::bad_request(format!(
                "the output {output} does not answer this request"
            )));
        }
        Ok((d, kind))
    }

    pub fn explained_style(&self, exp: &str, output: &str) -> Result<Value> {
        let (kind, _) = self.explained(exp, output)?;
        Ok(done(json!({"styles": styles(kind)})))
    }

    pub fn explained_annotation_categories(&self, exp: &str, output: &str) -> Result<Value> {
        let (kind, _) = self.explained(exp, output)?;
        let categories: &[&str] = if kind == Kind::CriticalPath {
            &[DIAGNOSIS]
        } else {
            &[]
        };
        Ok(done(json!({"annotationCategories": categories})))
    }

    /// The diagnosis over the analysed range, on the critical path.
    pub fn explained_annotations(&self, exp: &str, output: &str) -> Result<Value> {
        let (kind, d) = self.explained(exp, output)?;
        let mut annotations = Map::new();
        if kind == Kind::CriticalPath {
            let colour = if d.diagnosis.inversion {
                "#d62728"
            } else {
                "#3070c0"
            };
            annotations.insert(
                DIAGNOSIS.into(),
                json!([{
                    "entryId": -1,
                    "time": d.start,
                    "duration": d.end - d.start,
                    "type": "CHART",
                    "label": d.diagnosis.text,
                    "style": {"values": {"color": colour, "opacity": 0.2}},
                }]),
            );
        }
        Ok(done(json!({"annotations": annotations})))
    }

    pub fn explained_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let (d, kind) = self.explained_graph(exp, output)?;
        if body.get("parameters").is_some() {
            params::parameters(body)?.opt_time_range()?;
        }
        let g = d.graph(kind).unwrap_or(&d.path);
        let headers: Vec<Value> = g
            .headers
            .iter()
            .map(|(name, tooltip)| json!({"name": name, "tooltip": tooltip}))
            .collect();
        let entries: Vec<Value> = g
            .rows
            .iter()
            .map(|r| {
                json!({
                    "id": r.id,
                    "parentId": r.parent,
                    "labels": r.labels,
                    "hasData": !r.states.is_empty(),
                    "start": d.start,
                    "end": d.end,
                })
            })
            .collect();
        Ok(done(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    /// The states of the requested rows overlapping the requested range
    /// (all of them: a path has few pieces, drawn exactly).
    pub fn explained_states(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let (d, kind) = self.explained_graph(exp, output)?;
        let g: &TimeGraph = d.graph(kind).unwrap_or(&d.path);
        let p = params::parameters(body)?;
        let range = p.time_range()?;
        let items = p.opt_i64_array("requested_items")?;
        let rows: Vec<Value> = g
            .rows
            .iter()
            .filter(|r| items.as_ref().is_none_or(|ids| ids.contains(&r.id)))
            .map(|r| {
                let states: Vec<Value> = r
                    .states
                    .iter()
                    .filter(|s| s.end >= range.start && s.start <= range.end)
                    .map(|s| {
                        let mut v = json!({
                            "start": s.start,
                            "end": s.end,
                            "style": {"parentKey": s.style, "values": {}},
                        });
                        if let Some(l) = &s.label {
                            v["label"] = json!(l);
                        }
                        v
                    })
                    .collect();
                json!({"entryId": r.id, "states": states})
            })
            .collect();
        Ok(done(json!({"rows": rows})))
    }

    pub fn explained_arrows(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let (d, kind) = self.explained_graph(exp, output)?;
        let g = d.graph(kind).unwrap_or(&d.path);
        let range = params::parameters(body)?.time_range()?;
        let arrows: Vec<Value> = g
            .arrows
            .iter()
            .filter(|a| range.start <= a.time && a.time <= range.end)
            .map(|a| {
                json!({
                    "sourceId": a.source,
                    "targetId": a.target,
                    "start": a.time,
                    "end": a.time,
                    "style": {"parentKey": WAKEUP, "values": {}},
                })
            })
            .collect();
        Ok(done(Value::Array(arrows)))
    }

    /// The row's tooltip, and the state's at the requested time.
    pub fn explained_tooltip(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let (d, kind) = self.explained_graph(exp, output)?;
        let g = d.graph(kind).unwrap_or(&d.path);
        let p = params::parameters(body)?;
        let times = p.opt_i64_array("requested_times")?.unwrap_or_default();
        let items = p.opt_i64_array("requested_items")?.unwrap_or_default();
        let Some(&id) = items.first() else {
            return Ok(done(json!({})));
        };
        let row = g
            .rows
            .iter()
            .find(|r| r.id == id)
            .ok_or_else(|| ServiceError::not_found("entry", format!("no entry has id {id}")))?;
        let mut tip = Map::new();
        for (k, v) in &row.tips {
            tip.insert(k.clone(), json!(v));
        }
        if let Some(&t) = times.first() {
            if let Some(s) = row.states.iter().find(|s| s.start <= t && t <= s.end) {
                tip.insert(
                    "State".into(),
                    json!(s.label.as_deref().unwrap_or(&s.style)),
                );
                for (k, v) in &s.tips {
                    tip.insert(k.clone(), json!(v));
                }
            }
        }
        Ok(done(Value::Object(tip)))
    }

    /// The related threads: the analysed one, then its relations.
    pub fn explained_data_tree(&self, exp: &str, output: &str, body: &Value) -> Result<Value> {
        let (kind, d) = self.explained(exp, output)?;
        if kind != Kind::Relations {
            return Err(ServiceError::bad_request(format!(
                "the output {output} does not answer this request"
            )));
        }
        if body.get("parameters").is_some() {
            params::parameters(body)?.opt_time_range()?;
        }
        let headers = json!([
            {"name": "Thread", "tooltip": "Thread name"},
            {"name": "TID", "tooltip": "Thread id", "dataType": "NUMBER"},
            {"name": "Relation", "tooltip": "analysed; direct: woke, was woken by or forked it; indirect: through others"},
            {"name": "Interactions", "tooltip": "Wake-ups and forks in the range: with the analysed thread (direct), with any thread (the others)", "dataType": "NUMBER"},
        ]);
        let entries: Vec<Value> = d
            .relations
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "id": i as i64,
                    "parentId": if i == 0 { -1 } else { 0 },
                    "labels": [r.comm, r.tid.to_string(), r.relation, r.interactions.to_string()],
                    "hasData": true,
                })
            })
            .collect();
        Ok(done(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }
}
