//! Traces and experiments as the service holds them: a trace's indexing
//! state (run once in the background, `index`), an experiment's traces, and
//! their identifiers (v5 UUIDs from the trace's canonical path and the
//! experiment's name, stable across restarts).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};

use serde_json::{json, Value};
use sextant_engine::hosts::Host;
use sextant_engine::session::timeline::{Stamp, Timeline};
use sextant_engine::store::Places;
use uuid::Uuid;

use super::index::{self, Live, TraceIndex};
use super::params::{ErrorKind, Result, ServiceError};

/// Where a trace's indexing stands.
#[derive(Debug, Clone)]
pub enum IndexState {
    Running,
    Completed(Arc<TraceIndex>),
    Failed(String),
}

#[derive(Debug)]
pub struct TraceEntry {
    pub uuid: Uuid,
    pub name: String,
    pub path: PathBuf,
    /// The machine it was recorded on: a served trace holds one (opening
    /// a folder of several is refused), and its threads are (host, tid).
    pub host: Host,
    pub live: Arc<Live>,
    pub(super) state: RwLock<IndexState>,
}

impl TraceEntry {
    /// A trace whose indexing has not started yet (`start_indexing`).
    pub fn new(uuid: Uuid, name: String, path: PathBuf, host: Host) -> TraceEntry {
        TraceEntry {
            uuid,
            name,
            path,
            host,
            live: Arc::new(Live::default()),
            state: RwLock::new(IndexState::Running),
        }
    }

    pub fn state(&self) -> IndexState {
        self.state.read().expect("not poisoned").clone()
    }

    fn status_message(&self, state: &IndexState) -> String {
        match state {
            IndexState::Running => format!(
                "Indexing: {}% ({} events)",
                self.live.percent(),
                self.live.events.load(Ordering::Relaxed)
            ),
            IndexState::Completed(ix) => format!("Completed: {} events", ix.events),
            IndexState::Failed(e) => format!("Failed: {e}"),
        }
    }

    /// The `Trace` model.
    pub fn to_json(&self) -> Value {
        let state = self.state();
        let (start, end, events, status) = match &state {
            IndexState::Completed(ix) => (ix.start, ix.end, ix.events, "COMPLETED"),
            IndexState::Running => (
                self.live.start().unwrap_or(0),
                self.live.end().unwrap_or(0),
                self.live.events.load(Ordering::Relaxed),
                "RUNNING",
            ),
            // The Trace schema has no FAILED: CLOSED, with the reason beside.
            IndexState::Failed(_) => (0, 0, 0, "CLOSED"),
        };
        let mut properties = serde_json::Map::new();
        if let IndexState::Failed(e) = &state {
            properties.insert("error".into(), Value::String(e.clone()));
        }
        if let IndexState::Completed(ix) = &state {
            if !ix.warnings.is_empty() {
                properties.insert("warnings".into(), Value::String(ix.warnings.join("\n")));
            }
        }
        json!({
            "UUID": self.uuid,
            "name": self.name,
            "path": self.path.to_string_lossy(),
            "start": start,
            "end": end,
            "nbEvents": events,
            "indexingStatus": status,
            "statusMessage": self.status_message(&state),
            "properties": properties,
        })
    }
}

#[derive(Debug)]
pub struct ExperimentEntry {
    pub uuid: Uuid,
    pub name: String,
    pub traces: Vec<Arc<TraceEntry>>,
    /// Where each trace's times go on the experiment's one timeline (the
    /// one `sextant sync` stored, as it was when `stamp` was taken).
    pub timeline: Timeline,
    /// The traces' stored syncs the timeline was read from: another stamp
    /// now means a sync was stored since (`Service::experiment_entry`).
    pub stamp: Stamp,
}

/// An experiment's traces all indexed, or why not.
pub enum Readiness {
    Ready(Vec<Arc<TraceIndex>>),
    Running(String),
    Failed(String),
}

impl ExperimentEntry {
    pub fn readiness(&self) -> Readiness {
        let mut ready = Vec::new();
        let mut running = Vec::new();
        for t in &self.traces {
            match t.state() {
                IndexState::Completed(ix) => ready.push(ix),
                IndexState::Running => running.push(format!(
                    "{}: {}",
                    t.name,
                    t.status_message(&IndexState::Running)
                )),
                IndexState::Failed(e) => return Readiness::Failed(format!("{}: {e}", t.name)),
            }
        }
        if running.is_empty() {
            Readiness::Ready(ready)
        } else {
            Readiness::Running(running.join("; "))
        }
    }

    /// The experiment's time range as its model gives it (the traces that
    /// have events, merged, on the experiment's timeline), and its event
    /// count.
    fn span_of(&self, traces: &[Value]) -> (Option<(i64, i64)>, u64) {
        let mut span: Option<(i64, i64)> = None;
        let mut events = 0u64;
        for (k, t) in traces.iter().enumerate() {
            let n = t["nbEvents"].as_u64().unwrap_or(0);
            events += n;
            if n > 0 {
                let time = |key: &str| self.timeline.shared(k, t[key].as_i64().unwrap_or(0));
                let (s, e) = (time("start"), time("end"));
                span = Some(span.map_or((s, e), |(a, b)| (a.min(s), b.max(e))));
            }
        }
        (span, events)
    }

    /// The time range the viewer draws the experiment's time graphs over
    /// (`start` and `end` of its model), once some trace has events.
    pub fn span(&self) -> Option<(i64, i64)> {
        let traces: Vec<Value> = self.traces.iter().map(|t| t.to_json()).collect();
        self.span_of(&traces).0
    }

    /// The `Experiment` model: traces merged (time range, event count).
    pub fn to_json(&self) -> Value {
        let traces: Vec<Value> = self.traces.iter().map(|t| t.to_json()).collect();
        let (span, events) = self.span_of(&traces);
        let (start, end) = span.unzip();
        let (status, message) = match self.readiness() {
            Readiness::Ready(_) => ("COMPLETED", format!("Completed: {events} events")),
            Readiness::Running(m) => ("RUNNING", m),
            Readiness::Failed(m) => ("CLOSED", format!("Failed: {m}")),
        };
        json!({
            "UUID": self.uuid,
            "name": self.name,
            "start": start.unwrap_or(0),
            "end": end.unwrap_or(0),
            "nbEvents": events,
            "indexingStatus": status,
            "statusMessage": message,
            "traces": traces,
        })
    }
}

impl ExperimentEntry {
    /// The experiment's indexes, or the status message while indexing; an
    /// error when a trace failed to index.
    pub fn indexes(&self) -> Result<std::result::Result<Vec<Arc<TraceIndex>>, String>> {
        match self.readiness() {
            Readiness::Ready(ix) => Ok(Ok(ix)),
            Readiness::Running(m) => Ok(Err(m)),
            Readiness::Failed(m) => Err(cannot_run(m)),
        }
    }

    /// The paths of its traces, in order.
    pub fn paths(&self) -> Vec<&std::path::Path> {
        self.traces.iter().map(|t| t.path.as_path()).collect()
    }
}

/// The error of an analysis that cannot run (405).
pub fn cannot_run(m: impl Into<String>) -> ServiceError {
    ServiceError::new(ErrorKind::MethodNotAllowed, "The analysis cannot run", m)
}

/// Stable identifiers: v5 UUIDs in sextant's own namespace.
pub fn uuid_of(kind: &str, key: &str) -> Uuid {
    let ns = Uuid::new_v5(&Uuid::NAMESPACE_URL, b"https://sextant/tsp");
    Uuid::new_v5(&ns, format!("{kind}:{key}").as_bytes())
}

pub fn parse_uuid(what: &str, s: &str) -> Result<Uuid> {
    Uuid::parse_str(s)
        .map_err(|_| ServiceError::not_found(what, format!("{s} is not a {what} UUID")))
}

/// Indexes the trace in the background (`in_background`); removing it
/// cancels the pass (`Live::cancel`).
pub fn start_indexing(entry: Arc<TraceEntry>, store: Option<Places>) {
    in_background(move || {
        let result = index::index_trace(&entry.path, entry.live.clone(), store.as_ref());
        let state = match result {
            Ok(ix) => IndexState::Completed(Arc::new(ix)),
            Err(e) => IndexState::Failed(e),
        };
        *entry.state.write().expect("not poisoned") = state;
    });
}

/// Runs a pass on a blocking thread of the runtime when there is one (the
/// server), else on a thread of its own. The pass ends itself when its
/// `Work`'s cancel flag is set: nothing joins the thread.
pub fn in_background(work: impl FnOnce() + Send + 'static) {
    match tokio::runtime::Handle::try_current() {
        Ok(h) => {
            h.spawn_blocking(work);
        }
        Err(_) => {
            std::thread::spawn(work);
        }
    }
}
