//! The transport-free service core of the Trace Server Protocol: requests in
//! (path identifiers and JSON bodies), JSON models or `ServiceError`s out.
//! The HTTP adapter (`crate::http`) is a thin layer over it; a JSON-RPC one
//! would be another.
//!
//! Traces and experiments live in registries keyed by UUIDs derived from the
//! trace's canonical path and the experiment's name (v5), so they are stable
//! across restarts. Opening a trace indexes it in the background
//! (`index::index_trace`, the single pass once); until it is done, the trace
//! and its experiments report `RUNNING` with the progress.

pub mod cache;
pub mod config;
pub mod density;
pub mod events;
pub mod executions;
pub mod explain;
pub mod index;
pub mod outputs;
pub mod params;
pub mod reply;
pub mod statistics;

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::{json, Value};
use uuid::Uuid;

use index::{Live, TraceIndex};
pub use params::{ErrorKind, Result, ServiceError};
pub use reply::Reply;

/// Server settings.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Traces may be opened only under these directories (canonicalized).
    pub allowed_roots: Vec<PathBuf>,
    /// Answers the viewport cache keeps (`cache::DEFAULT_ENTRIES` when
    /// `None`; 0 turns it off).
    pub cache_entries: Option<usize>,
}

/// What a long request reports its progress to and is stopped by. The
/// JSON-RPC transports pass their own (work-done progress, `$/cancelRequest`);
/// HTTP, which has neither, passes `Work::none()`.
pub struct Work<'a> {
    /// Per cent done, 0..=100; called from the worker thread.
    pub progress: &'a (dyn Fn(u8) + Sync),
    /// Set when the request is cancelled: the work stops at the next check.
    pub cancel: &'a AtomicBool,
}

fn no_progress(_: u8) {}

impl Work<'static> {
    pub fn none() -> Work<'static> {
        static NEVER: AtomicBool = AtomicBool::new(false);
        Work {
            progress: &no_progress,
            cancel: &NEVER,
        }
    }
}

impl Work<'_> {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

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
    pub live: Arc<Live>,
    state: RwLock<IndexState>,
}

impl TraceEntry {
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

    /// The `Experiment` model: traces merged (time range, event count).
    pub fn to_json(&self) -> Value {
        let traces: Vec<Value> = self.traces.iter().map(|t| t.to_json()).collect();
        let mut start: Option<i64> = None;
        let mut end: Option<i64> = None;
        let mut events = 0u64;
        for t in &traces {
            events += t["nbEvents"].as_u64().unwrap_or(0);
            if t["nbEvents"].as_u64().unwrap_or(0) > 0 {
                let (s, e) = (
                    t["start"].as_i64().unwrap_or(0),
                    t["end"].as_i64().unwrap_or(0),
                );
                start = Some(start.map_or(s, |x| x.min(s)));
                end = Some(end.map_or(e, |x| x.max(e)));
            }
        }
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

#[derive(Default)]
struct Registry {
    traces: Vec<Arc<TraceEntry>>,
    experiments: Vec<Arc<ExperimentEntry>>,
}

/// The service: registries of traces and experiments, and the outputs.
pub struct Service {
    config: Config,
    /// Roots a JSON-RPC client added at `initialize` (its `traceRoots`).
    client_roots: RwLock<Vec<PathBuf>>,
    registry: RwLock<Registry>,
    /// Execution-model configurations and their derived outputs.
    derived: executions::Store,
    /// Explanations (`sextant.explain` configurations) and their outputs.
    explained: explain::Store,
    /// Where the events table of each several-trace experiment merges.
    events: events::Plans,
    /// Repeated viewport requests.
    cache: cache::Cache,
}

/// Stable identifiers: v5 UUIDs in sextant's own namespace.
fn uuid_of(kind: &str, key: &str) -> Uuid {
    let ns = Uuid::new_v5(&Uuid::NAMESPACE_URL, b"https://sextant/tsp");
    Uuid::new_v5(&ns, format!("{kind}:{key}").as_bytes())
}

pub fn parse_uuid(what: &str, s: &str) -> Result<Uuid> {
    Uuid::parse_str(s)
        .map_err(|_| ServiceError::not_found(what, format!("{s} is not a {what} UUID")))
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

impl Service {
    pub fn new(mut config: Config) -> Service {
        config.allowed_roots = config
            .allowed_roots
            .iter()
            .map(|r| r.canonicalize().unwrap_or_else(|_| normalize(r)))
            .collect();
        let cache = cache::Cache::new(config.cache_entries.unwrap_or(cache::DEFAULT_ENTRIES));
        Service {
            config,
            client_roots: RwLock::new(Vec::new()),
            registry: RwLock::new(Registry::default()),
            derived: executions::Store::default(),
            explained: explain::Store::default(),
            events: events::Plans::default(),
            cache,
        }
    }

    /// Lets clients open traces under `root` too (a directory that exists).
    pub fn allow_root(&self, root: &Path) -> Result<()> {
        let c = root.canonicalize().map_err(|e| {
            ServiceError::bad_request(format!("trace root {}: {e}", root.display()))
        })?;
        let mut roots = self.client_roots.write().expect("not poisoned");
        if !roots.contains(&c) {
            roots.push(c);
        }
        Ok(())
    }

    pub fn health(&self) -> Value {
        json!({"status": "UP"})
    }

    pub fn identifier(&self) -> Value {
        json!({
            "productId": "sextant",
            "version": env!("CARGO_PKG_VERSION"),
            "tspVersion": "0.6.0",
            "os": std::env::consts::OS,
            "osArch": std::env::consts::ARCH,
            "cpuCount": std::thread::available_parallelism().map_or(1, |n| n.get()),
            "launcherName": "sextant serve",
            "cache": self.cache.stats(),
        })
    }

    // ----- traces -----

    pub fn traces(&self) -> Value {
        let reg = self.registry.read().expect("not poisoned");
        Value::Array(reg.traces.iter().map(|t| t.to_json()).collect())
    }

    pub fn trace_entry(&self, uuid: &str) -> Result<Arc<TraceEntry>> {
        let id = parse_uuid("trace", uuid)?;
        let reg = self.registry.read().expect("not poisoned");
        reg.traces
            .iter()
            .find(|t| t.uuid == id)
            .cloned()
            .ok_or_else(|| ServiceError::not_found("trace", format!("no trace has UUID {uuid}")))
    }

    pub fn trace(&self, uuid: &str) -> Result<Value> {
        Ok(self.trace_entry(uuid)?.to_json())
    }

    /// The trace's path, checked: it exists and lies under an allowed root.
    fn resolve(&self, uri: &str) -> Result<PathBuf> {
        let raw = uri.strip_prefix("file://").unwrap_or(uri);
        let p = Path::new(raw);
        let absolute = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(|e| {
                    ServiceError::new(ErrorKind::Internal, "Internal error", e.to_string())
                })?
                .join(p)
        };
        let client_roots = self.client_roots.read().expect("not poisoned");
        let allowed = |q: &Path| {
            self.config
                .allowed_roots
                .iter()
                .chain(client_roots.iter())
                .any(|r| q.starts_with(r))
        };
        let forbidden = || {
            ServiceError::new(
                ErrorKind::Forbidden,
                "Forbidden",
                format!(
                    "{raw} is outside the directories this server may read (start it with --allow-root DIR)"
                ),
            )
        };
        match absolute.canonicalize() {
            Ok(c) if allowed(&c) => Ok(c),
            Ok(_) => Err(forbidden()),
            Err(_) if !allowed(&normalize(&absolute)) => Err(forbidden()),
            Err(e) => Err(ServiceError::not_found("trace", format!("{raw}: {e}"))),
        }
    }

    /// `POST /traces`: opens (and starts indexing) a trace, or returns the
    /// one already open at that path.
    pub fn open_trace(&self, body: &Value) -> Result<Value> {
        let p = params::parameters(body)?;
        let uri = p.str("uri")?;
        let name = p.opt_str("name")?;
        let path = self.resolve(uri)?;
        let name = match name {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.to_string_lossy().into_owned()),
        };
        let uuid = uuid_of("trace", &path.to_string_lossy());
        {
            let reg = self.registry.read().expect("not poisoned");
            if let Some(t) = reg.traces.iter().find(|t| t.uuid == uuid) {
                return Ok(t.to_json());
            }
            if let Some(t) = reg.traces.iter().find(|t| t.name == name) {
                return Err(ServiceError::new(
                    ErrorKind::Conflict,
                    "Conflict",
                    format!(
                        "a trace named {name} is already open from another path ({})",
                        t.path.display()
                    ),
                )
                .with("trace", t.to_json()));
            }
        }
        // Fail now, not in the background, on what is not a trace at all.
        if let Err(e) = sextant_engine::reader::AnyReader::open(&path) {
            return Err(ServiceError::new(
                ErrorKind::NotAcceptable,
                "Cannot read this trace type",
                e.to_string(),
            ));
        }
        let entry = Arc::new(TraceEntry {
            uuid,
            name,
            path,
            live: Arc::new(Live::default()),
            state: RwLock::new(IndexState::Running),
        });
        {
            let mut reg = self.registry.write().expect("not poisoned");
            // Another request may have opened it meanwhile.
            if let Some(t) = reg.traces.iter().find(|t| t.uuid == uuid) {
                return Ok(t.to_json());
            }
            reg.traces.push(entry.clone());
        }
        start_indexing(entry.clone());
        Ok(entry.to_json())
    }

    pub fn delete_trace(&self, uuid: &str) -> Result<Value> {
        let t = self.trace_entry(uuid)?;
        let mut reg = self.registry.write().expect("not poisoned");
        if let Some(e) = reg
            .experiments
            .iter()
            .find(|e| e.traces.iter().any(|x| x.uuid == t.uuid))
        {
            return Err(ServiceError::new(
                ErrorKind::Conflict,
                "Conflict",
                format!("the trace is in use by the experiment {}", e.name),
            )
            .with("trace", t.to_json()));
        }
        reg.traces.retain(|x| x.uuid != t.uuid);
        t.live.cancel.store(true, Ordering::Relaxed);
        Ok(t.to_json())
    }

    // ----- experiments -----

    pub fn experiments(&self) -> Value {
        let reg = self.registry.read().expect("not poisoned");
        Value::Array(reg.experiments.iter().map(|e| e.to_json()).collect())
    }

    pub fn experiment_entry(&self, uuid: &str) -> Result<Arc<ExperimentEntry>> {
        let id = parse_uuid("experiment", uuid)?;
        let reg = self.registry.read().expect("not poisoned");
        reg.experiments
            .iter()
            .find(|e| e.uuid == id)
            .cloned()
            .ok_or_else(|| {
                ServiceError::not_found("experiment", format!("no experiment has UUID {uuid}"))
            })
    }

    pub fn experiment(&self, uuid: &str) -> Result<Value> {
        Ok(self.experiment_entry(uuid)?.to_json())
    }

    pub fn create_experiment(&self, body: &Value) -> Result<Value> {
        let p = params::parameters(body)?;
        let name = p.str("name")?;
        if name.is_empty() {
            return Err(ServiceError::bad_request(
                "parameters.name: must not be empty",
            ));
        }
        let ids = p.str_array("traces")?;
        if ids.is_empty() {
            return Err(ServiceError::bad_request(
                "parameters.traces: give at least one trace UUID",
            ));
        }
        let mut traces = Vec::new();
        for id in ids {
            let t = self.trace_entry(id)?;
            if !traces.iter().any(|x: &Arc<TraceEntry>| x.uuid == t.uuid) {
                traces.push(t);
            }
        }
        let uuid = uuid_of("experiment", name);
        let mut reg = self.registry.write().expect("not poisoned");
        if let Some(e) = reg.experiments.iter().find(|e| e.uuid == uuid) {
            let same = e.traces.len() == traces.len()
                && e.traces
                    .iter()
                    .all(|x| traces.iter().any(|t| t.uuid == x.uuid));
            if same {
                return Ok(e.to_json());
            }
            return Err(ServiceError::new(
                ErrorKind::Conflict,
                "Conflict",
                format!("an experiment named {name} already exists with other traces"),
            )
            .with("experiment", e.to_json()));
        }
        let entry = Arc::new(ExperimentEntry {
            uuid,
            name: name.to_string(),
            traces,
        });
        reg.experiments.push(entry.clone());
        Ok(entry.to_json())
    }

    pub fn delete_experiment(&self, uuid: &str) -> Result<Value> {
        let e = self.experiment_entry(uuid)?;
        self.cache.forget(e.uuid, |_| true);
        let mut reg = self.registry.write().expect("not poisoned");
        reg.experiments.retain(|x| x.uuid != e.uuid);
        Ok(e.to_json())
    }
}

/// Runs the pass on a blocking thread of the runtime when there is one (the
/// server), else on a thread of its own.
fn start_indexing(entry: Arc<TraceEntry>) {
    let work = move || {
        let result = index::index_trace(&entry.path, entry.live.clone());
        let state = match result {
            Ok(ix) => IndexState::Completed(Arc::new(ix)),
            Err(e) => IndexState::Failed(e),
        };
        *entry.state.write().expect("not poisoned") = state;
    };
    match tokio::runtime::Handle::try_current() {
        Ok(h) => {
            h.spawn_blocking(work);
        }
        Err(_) => {
            std::thread::spawn(work);
        }
    }
}

/// A data response: `{"model", "status", "statusMessage"}`.
pub fn data(mut model: Value, status: &str, message: impl Into<String>) -> Value {
    short_floats(&mut model);
    json!({"model": model, "status": status, "statusMessage": message.into()})
}

/// Fractional numbers written in at most 15 characters: json-bigint (the TS
/// client's parser) hands any longer number to `BigInt()`, which throws on a
/// fraction, and the whole response is lost (`29.042327880859375`).
pub fn short_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(0.0);
            if n.to_string().len() <= 15 {
                return;
            }
            for digits in (1..15).rev() {
                let r: f64 = format!("{:.*e}", digits - 1, f).parse().unwrap_or(f);
                if let Some(m) = serde_json::Number::from_f64(r) {
                    if m.to_string().len() <= 15 {
                        *n = m;
                        return;
                    }
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(short_floats),
        Value::Object(o) => o.values_mut().for_each(short_floats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-a/ctf")
    }

    #[test]
    fn floats_stay_short() {
        let mut v = json!([
            29.042327880859375,
            -0.000_123_456_789_012_345_67,
            1.5,
            376.0,
            12345678901234567u64,
            1e300 / 3.0
        ]);
        short_floats(&mut v);
        assert_eq!(v[0].to_string(), "29.042327880859");
        assert_eq!(v[2], json!(1.5));
        assert_eq!(v[4], json!(12345678901234567u64));
        for (i, x) in v.as_array().unwrap().iter().enumerate() {
            assert!(i == 4 || x.to_string().len() <= 15, "{x}");
        }
    }

    #[test]
    fn uuids_are_stable_and_distinct() {
        assert_eq!(uuid_of("trace", "/a"), uuid_of("trace", "/a"));
        assert_ne!(uuid_of("trace", "/a"), uuid_of("experiment", "/a"));
    }

    #[test]
    fn roots_are_enforced() {
        let root = fixture().join("..");
        let s = Service::new(Config {
            allowed_roots: vec![root.clone()],
            ..Default::default()
        });
        let e = s
            .open_trace(&json!({"parameters": {"uri": "/etc/passwd"}}))
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Forbidden);
        let sneaky = format!("{}/../../../../etc", root.display());
        let e = s
            .open_trace(&json!({"parameters": {"uri": sneaky}}))
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Forbidden);
        let e = s
            .open_trace(&json!({"parameters": {"name": "x"}}))
            .unwrap_err();
        assert!(e.detail.contains("parameters.uri"), "{}", e.detail);
    }
}
