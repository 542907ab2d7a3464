//! What the BTF outputs share: the lanes of each BTF trace of an experiment
//! (`sextant_engine::analysis::btf::lanes`, one pass per trace, kept for the traces
//! asked last), and a time graph drawn from one kind of lane (tree, states,
//! tooltip, styles). Traces that are not BTF have no lanes.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use lru::LruCache;
use serde_json::{json, Map, Value};
use sextant_engine::analysis::btf::lanes::{BtfLanes, Lanes, Span};
use sextant_engine::run::Work;

use crate::params::{Result, ServiceError};
use crate::provider::{no_arrows, Output, Query};
use crate::queries::{Tooltip, Tree, Viewport};
use crate::reply::{completed, Reply};
use crate::traces::{cannot_run, ExperimentEntry};

/// A file as read: its path, size and modification time (a file written
/// again is read again).
type Key = (PathBuf, u64, Option<SystemTime>);

/// Lanes of the traces asked for last.
const KEPT: usize = 8;

fn cache() -> &'static Mutex<LruCache<Key, Arc<Option<BtfLanes>>>> {
    static CACHE: OnceLock<Mutex<LruCache<Key, Arc<Option<BtfLanes>>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(LruCache::new(NonZeroUsize::new(KEPT).expect("not 0"))))
}

/// The lanes of the trace at `path` (`None`: not a BTF trace).
fn lanes_of(path: &Path) -> Result<Arc<Option<BtfLanes>>> {
    let meta = std::fs::metadata(path).ok();
    let key = (
        path.to_path_buf(),
        meta.as_ref().map_or(0, |m| m.len()),
        meta.and_then(|m| m.modified().ok()),
    );
    if let Some(l) = cache().lock().expect("not poisoned").get(&key) {
        return Ok(l.clone());
    }
    let lanes = BtfLanes::of_trace(path, &Work::none())
        .map_err(|e| cannot_run(format!("{}: {e}", path.display())))?;
    let lanes = Arc::new(lanes);
    cache()
        .lock()
        .expect("not poisoned")
        .put(key, lanes.clone());
    Ok(lanes)
}

/// Whether one of the experiment's traces is a BTF file: the BTF outputs
/// are listed only then.
pub fn has_btf(exp: &ExperimentEntry) -> bool {
    exp.paths()
        .into_iter()
        .any(sextant_engine::btf::is_btf_file)
}

/// The lanes of every trace of the query's experiment, in order.
pub fn experiment_lanes(q: &Query<'_>) -> Result<Vec<Arc<Option<BtfLanes>>>> {
    q.exp.paths().into_iter().map(lanes_of).collect()
}

/// One kind of lane of every trace, numbered from 0 across the traces:
/// (first id of the trace, its lanes).
fn numbered(all: &[Arc<Option<BtfLanes>>], pick: fn(&BtfLanes) -> &Lanes) -> Vec<(i64, &Lanes)> {
    let mut next = 0i64;
    let mut out = Vec::new();
    for l in all.iter().filter_map(|l| l.as_ref().as_ref()) {
        let lanes = pick(l);
        out.push((next, lanes));
        next += lanes.lanes.len() as i64;
    }
    out
}

fn find<'a>(all: &[(i64, &'a Lanes)], id: i64) -> Option<(usize, &'a Lanes)> {
    all.iter()
        .rev()
        .find(|(first, l)| id >= *first && ((id - first) as usize) < l.lanes.len())
        .map(|(first, l)| ((id - first) as usize, *l))
}

/// A time graph of one kind of lane, in the states `states` (drawn with
/// `colours`, same order): an output of its own, for every experiment.
pub struct LaneGraph {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub pick: fn(&BtfLanes) -> &Lanes,
    pub states: &'static [&'static str],
    pub colours: &'static [&'static str],
    /// The tree's first column: what a lane is.
    pub column: &'static str,
    /// Whether spans belong to instances (shown in the tooltip).
    pub instances: bool,
}

impl Output for LaneGraph {
    fn descriptor(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "type": "TIME_GRAPH",
        })
    }

    fn applies_to(&self, exp: &ExperimentEntry) -> bool {
        has_btf(exp)
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        let styles: Map<String, Value> = self
            .states
            .iter()
            .zip(self.colours)
            .map(|(s, c)| {
                let style = json!({"values": {
                    "style-name": s,
                    "background-color": c,
                    "height": 1.0,
                    "opacity": 1.0,
                }});
                (s.to_string(), style)
            })
            .collect();
        Ok(completed(json!({"styles": styles})))
    }

    fn timegraph_tree(&self, q: &Query<'_>) -> Result<Value> {
        Tree::parse(q.body)?;
        let all = experiment_lanes(q)?;
        let mut entries = Vec::new();
        for (first, lanes) in numbered(&all, self.pick) {
            let extents = extents(lanes);
            for (i, lane) in lanes.lanes.iter().enumerate() {
                let (start, end) = extents[i].unwrap_or((0, 0));
                entries.push(json!({
                    "id": first + i as i64,
                    "parentId": lane.parent.map_or(-1, |p| first + p as i64),
                    "labels": [lane.name],
                    "hasData": !lane.spans.is_empty(),
                    "start": start,
                    "end": end,
                }));
            }
        }
        let headers = json!([{"name": self.column, "tooltip": ""}]);
        Ok(completed(
            json!({"headers": headers, "entries": entries, "autoExpandLevel": -1}),
        ))
    }

    fn timegraph_states(&self, q: &Query<'_>) -> Result<Reply> {
        let Viewport { range, items } = Viewport::parse(q.body)?;
        let all = experiment_lanes(q)?;
        let lanes = numbered(&all, self.pick);
        let ids: Vec<i64> = match items {
            Some(ids) => ids,
            None => lanes
                .iter()
                .flat_map(|(first, l)| (0..l.lanes.len() as i64).map(move |i| first + i))
                .collect(),
        };
        let mut rows = Vec::new();
        for id in ids {
            let Some((i, l)) = find(&lanes, id) else {
                continue;
            };
            let spans = &l.lanes[i].spans;
            let states = sample(spans, range.start, range.end, range.resolution())
                .into_iter()
                .map(|(s, merged)| {
                    let mut v = json!({
                        "start": s.start,
                        "end": s.end,
                        "style": {"parentKey": self.states[s.state as usize], "values": {}},
                    });
                    if merged {
                        v["tags"] = json!(1);
                    }
                    v
                })
                .collect::<Vec<_>>();
            rows.push(json!({"entryId": id, "states": states}));
        }
        Ok(completed(json!({"rows": rows})).into())
    }

    fn timegraph_arrows(&self, q: &Query<'_>) -> Result<Value> {
        no_arrows(q)
    }

    fn timegraph_tooltip(&self, q: &Query<'_>) -> Result<Value> {
        let asked = Tooltip::parse(q.body)?;
        let (Some(t), Some(id)) = (asked.time, asked.item) else {
            return Ok(completed(json!({})));
        };
        let all = experiment_lanes(q)?;
        let lanes = numbered(&all, self.pick);
        let Some((i, l)) = find(&lanes, id) else {
            return Err(ServiceError::not_found(
                "entry",
                format!("no entry has id {id}"),
            ));
        };
        let lane = &l.lanes[i];
        let mut tip = Map::new();
        tip.insert(self.column.into(), json!(lane.name));
        let k = lane.spans.partition_point(|s| s.end <= t);
        if let Some(s) = lane.spans.get(k).filter(|s| s.start <= t) {
            tip.insert("State".into(), json!(self.states[s.state as usize]));
            if self.instances {
                tip.insert("Instance".into(), json!(s.instance.to_string()));
            }
            tip.insert("Start".into(), json!(s.start.to_string()));
            tip.insert("Duration (ns)".into(), json!((s.end - s.start).to_string()));
        }
        Ok(completed(Value::Object(tip)))
    }
}

/// Each lane's extent: its spans' and its descendants'.
fn extents(lanes: &Lanes) -> Vec<Option<(i64, i64)>> {
    let mut out: Vec<Option<(i64, i64)>> =
        (0..lanes.lanes.len()).map(|i| lanes.extent(i)).collect();
    // Children come after their parents: one backward sweep widens them.
    for i in (0..lanes.lanes.len()).rev() {
        if let (Some(p), Some((s, e))) = (lanes.lanes[i].parent, out[i]) {
            let w = out[p].get_or_insert((s, e));
            *w = (w.0.min(s), w.1.max(e));
        }
    }
    out
}

/// The spans overlapping `[start, end]`, at most about one per `resolution`
/// ns: consecutive spans shorter than that are drawn as one, in the state
/// of the first, and marked merged.
fn sample(spans: &[Span], start: i64, end: i64, resolution: i64) -> Vec<(Span, bool)> {
    let first = spans.partition_point(|s| s.end < start);
    let mut out: Vec<(Span, bool)> = Vec::new();
    for s in spans[first..].iter().take_while(|s| s.start <= end) {
        if let Some((last, merged)) = out.last_mut() {
            let short = last.end - last.start < resolution;
            if short && s.start == last.end && s.end - s.start < resolution {
                last.end = s.end;
                *merged = true;
                continue;
            }
        }
        out.push((*s, false));
    }
    out
}
