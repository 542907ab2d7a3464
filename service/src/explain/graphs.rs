//! The explanation's time graphs: the critical path (wake-up arrows, the
//! diagnosis as an annotation), its complement (priority inversions in
//! their own style) and the kernel facilities. Rows are built once, when
//! the configuration is posted (`build`); requests filter them.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::build::{TimeGraph, FACILITY_STYLES, INTERFERENCE, INVERSION, LOST, WAKEUP};
use super::explained::Explained;
use crate::outputs::draw::thread_state_style_map;
use crate::params::{Result, ServiceError};
use crate::provider::{Output, Query};
use crate::queries::{Arrows, Tooltip, Tree, Viewport};
use crate::reply::{completed, Reply};

pub const CRITICAL_PATH: &str = "sextant.explain.critical-path";
pub const COMPLEMENT: &str = "sextant.explain.complement";
pub const FACILITIES: &str = "sextant.explain.facilities";

const DIAGNOSIS: &str = "Diagnosis";

/// Which of the explanation's time graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawn {
    CriticalPath,
    Complement,
    Facilities,
}

pub struct GraphOutput(pub Arc<Explained>, pub Drawn);

fn style(name: &str, colour: &str, height: f64) -> Value {
    json!({"values": {
        "style-name": name,
        "background-color": colour,
        "color": colour,
        "height": height,
        "opacity": 1.0,
    }})
}

fn done(model: Value) -> Value {
    completed(model)
}

impl GraphOutput {
    fn graph(&self) -> &TimeGraph {
        match self.1 {
            Drawn::CriticalPath => &self.0.path,
            Drawn::Complement => &self.0.complement,
            Drawn::Facilities => &self.0.facilities,
        }
    }

    fn styles(&self) -> Map<String, Value> {
        match self.1 {
            Drawn::CriticalPath => {
                let mut m = thread_state_style_map();
                m.insert("unknown".into(), style("Unknown", "#b0b0b0", 1.0));
                m.insert(WAKEUP.into(), style("Wake-up", "#3070c0", 1.0));
                m
            }
            Drawn::Complement => {
                let mut m = thread_state_style_map();
                m.insert(
                    INVERSION.into(),
                    style("Priority inversion", "#d62728", 1.0),
                );
                m.insert(
                    INTERFERENCE.into(),
                    style("Ran while the path waited", "#7f7f7f", 1.0),
                );
                m.insert(
                    LOST.into(),
                    style("Unknown: the trace lost events", "#b0b0b0", 1.0),
                );
                m
            }
            Drawn::Facilities => FACILITY_STYLES
                .iter()
                .map(|(key, name, colour)| (key.to_string(), style(name, colour, 1.0)))
                .collect(),
        }
    }
}

impl Output for GraphOutput {
    fn descriptor(&self) -> Value {
        let (prefix, title, description) = match self.1 {
            Drawn::CriticalPath => (
                CRITICAL_PATH,
                "Critical path",
                "The threads the execution waited for, in turn, with the wake-ups between them; the diagnosis as an annotation",
            ),
            Drawn::Complement => (
                COMPLEMENT,
                "Critical path complement",
                "Who ran while a thread on the path was preempted or waiting for a CPU; priority inversions in red",
            ),
            Drawn::Facilities => (
                FACILITIES,
                "Kernel facilities",
                "hrtimers, futexes and message queues in the range, with their waiters",
            ),
        };
        self.0.descriptor(prefix, title, description, "TIME_GRAPH")
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        Ok(done(json!({"styles": self.styles()})))
    }

    fn annotation_categories(&self, _: &Query<'_>) -> Result<Value> {
        let categories: &[&str] = if self.1 == Drawn::CriticalPath {
            &[DIAGNOSIS]
        } else {
            &[]
        };
        Ok(done(json!({"annotationCategories": categories})))
    }

    /// The diagnosis over the analysed range, on the critical path.
    fn annotations(&self, _: &Query<'_>) -> Result<Value> {
        let d = &self.0;
        let mut annotations = Map::new();
        if self.1 == Drawn::CriticalPath {
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

    fn timegraph_tree(&self, q: &Query<'_>) -> Result<Value> {
        let d = &self.0;
        Tree::parse(q.body)?;
        let g = self.graph();
        let headers: Vec<Value> = g
            .headers
            .iter()
            .map(|(name, tooltip)| json!({"name": name, "tooltip": tooltip}))
            .collect();
        // The viewer draws states from the experiment's start but arrows
        // from the first entry's start: both must be the experiment's.
        let (start, end) = q
            .exp
            .span()
            .map_or((d.start, d.end), |(s, e)| (s.min(d.start), e.max(d.end)));
        let entries: Vec<Value> = g
            .rows
            .iter()
            .map(|r| {
                json!({
                    "id": r.id,
                    "parentId": r.parent,
                    "labels": r.labels,
                    "hasData": !r.states.is_empty(),
                    "start": start,
                    "end": end,
                })
            })
            .collect();
        Ok(done(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    /// The states of the requested rows overlapping the requested range
    /// (all of them: a path has few pieces, drawn exactly).
    fn timegraph_states(&self, q: &Query<'_>) -> Result<Reply> {
        let g = self.graph();
        let Viewport { range, items } = Viewport::parse(q.body)?;
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
        Ok(done(json!({"rows": rows})).into())
    }

    fn timegraph_arrows(&self, q: &Query<'_>) -> Result<Value> {
        let g = self.graph();
        let Arrows { range } = Arrows::parse(q.body)?;
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
    fn timegraph_tooltip(&self, q: &Query<'_>) -> Result<Value> {
        let g = self.graph();
        let asked = Tooltip::parse(q.body)?;
        let Some(id) = asked.item else {
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
        if let Some(t) = asked.time {
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
}
