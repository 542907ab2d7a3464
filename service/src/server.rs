//! The service: the traces and experiments open, the outputs registry, the
//! configurations posted and the viewport cache; and the requests on traces
//! and experiments. Opening a trace indexes it in the background
//! (`index::index_trace`, the single pass once); until it is done, the trace
//! and its experiments report `RUNNING` with the progress.

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};

use serde_json::{json, Value};
use sextant_engine::hosts::Host;
use sextant_engine::session::timeline;
use sextant_engine::session::Session;

use super::cache::{Cache, DEFAULT_ENTRIES};
use super::configs::Store;
use super::params::{ErrorKind, Result, ServiceError};
use super::provider::Configuration;
use super::queries::{NewExperiment, OpenTrace};
use super::registry::Registry;
use super::stored::Results;
use super::traces::{parse_uuid, start_indexing, uuid_of, ExperimentEntry, IndexState, TraceEntry};

/// Server settings.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Traces may be opened only under these directories (canonicalized).
    pub allowed_roots: Vec<PathBuf>,
    /// Answers the viewport cache keeps (`cache::DEFAULT_ENTRIES` when
    /// `None`; 0 turns it off).
    pub cache_entries: Option<usize>,
    /// Where traces' indexes are stored (`None`: indexes are not stored).
    pub store: Option<sextant_engine::store::Places>,
    pub limits: Limits,
}

/// The server's budget: past it, opening a trace answers 503 (retry later)
/// instead of using memory and cores without bound.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Traces open at once.
    pub max_traces: usize,
    /// Traces being indexed at once (one core each).
    pub max_indexing: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_traces: 64,
            max_indexing: 4,
        }
    }
}

#[derive(Default)]
struct Open {
    traces: Vec<Arc<TraceEntry>>,
    experiments: Vec<Arc<ExperimentEntry>>,
}

/// The service: registries of traces and experiments, and the outputs.
pub struct Service {
    config: Config,
    /// Roots a JSON-RPC client added at `initialize` (its `traceRoots`).
    client_roots: RwLock<Vec<PathBuf>>,
    registry: RwLock<Open>,
    /// Every output and configuration type.
    pub(super) outputs: Registry,
    /// The configurations posted, with what their outputs show.
    pub(super) configs: Store<dyn Configuration>,
    /// Repeated viewport requests.
    pub(super) cache: Cache,
    /// Results kept in the traces' stores.
    pub(super) results: Results,
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
        let cache = Cache::new(config.cache_entries.unwrap_or(DEFAULT_ENTRIES));
        let results = Results::new(config.store.clone());
        Service {
            config,
            client_roots: RwLock::new(Vec::new()),
            registry: RwLock::new(Open::default()),
            outputs: Registry::new(),
            configs: Store::default(),
            cache,
            results,
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
            "store": self.results.stats(),
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
        // The viewer shows only that opening failed: the body says what to
        // change. `real` is where the path leads (through links and `..`):
        // its folder is the one to allow, not the link's.
        let forbidden = |real: &Path| {
            let roots: Vec<String> = self
                .config
                .allowed_roots
                .iter()
                .chain(client_roots.iter())
                .map(|r| r.display().to_string())
                .collect();
            let wanted = real.parent().unwrap_or(real).display();
            let leads = if real == absolute.as_path() {
                String::new()
            } else {
                format!(" (which is {})", real.display())
            };
            ServiceError::new(
                ErrorKind::Forbidden,
                "Trace outside the allowed directories",
                format!(
                    "{raw}{leads} is outside the directories this server may read ({}). Start `sextant serve` with `--allow-root DIR` (repeatable) for each further directory, e.g. `--allow-root {wanted}`, or start it in a directory that holds the trace.",
                    roots.join(", ")
                ),
            )
        };
        match absolute.canonicalize() {
            Ok(c) if allowed(&c) => Ok(c),
            Ok(c) => Err(forbidden(&c)),
            Err(_) if !allowed(&normalize(&absolute)) => Err(forbidden(&normalize(&absolute))),
            Err(e) => Err(ServiceError::not_found("trace", format!("{raw}: {e}"))),
        }
    }

    /// `POST /traces`: opens (and starts indexing) a trace, or returns the
    /// one already open at that path.
    pub fn open_trace(&self, body: &Value) -> Result<Value> {
        let OpenTrace { uri, name } = OpenTrace::parse(body)?;
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
        let host = sole_host(&path)?;
        let entry = Arc::new(TraceEntry::new(uuid, name, path, host));
        {
            let mut reg = self.registry.write().expect("not poisoned");
            // Another request may have opened it meanwhile.
            if let Some(t) = reg.traces.iter().find(|t| t.uuid == uuid) {
                return Ok(t.to_json());
            }
            self.within_budget(&reg.traces)?;
            reg.traces.push(entry.clone());
        }
        start_indexing(entry.clone(), self.config.store.clone());
        Ok(entry.to_json())
    }

    /// Whether one more trace may be opened and indexed now.
    fn within_budget(&self, open: &[Arc<TraceEntry>]) -> Result<()> {
        let Limits {
            max_traces,
            max_indexing,
        } = self.config.limits;
        if open.len() >= max_traces {
            return Err(ServiceError::unavailable(format!(
                "{} traces are open, the most this server keeps (--max-traces): \
                 close one (DELETE /traces/{{uuid}}) or retry later",
                open.len()
            )));
        }
        let indexing = open
            .iter()
            .filter(|t| matches!(t.state(), IndexState::Running))
            .count();
        if indexing >= max_indexing {
            return Err(ServiceError::unavailable(format!(
                "{indexing} traces are being indexed, the most at once (--max-indexing): \
                 retry when one is done"
            )));
        }
        Ok(())
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
        let all = self
            .registry
            .read()
            .expect("not poisoned")
            .experiments
            .clone();
        Value::Array(
            all.into_iter()
                .map(|e| self.on_stored_timeline(e).to_json())
                .collect(),
        )
    }

    /// The experiment `uuid`, on the timeline stored for its traces now.
    pub fn experiment_entry(&self, uuid: &str) -> Result<Arc<ExperimentEntry>> {
        let id = parse_uuid("experiment", uuid)?;
        let reg = self.registry.read().expect("not poisoned");
        let e = reg.experiments.iter().find(|e| e.uuid == id).cloned();
        drop(reg);
        let e = e.ok_or_else(|| {
            ServiceError::not_found("experiment", format!("no experiment has UUID {uuid}"))
        })?;
        Ok(self.on_stored_timeline(e))
    }

    /// `e`, or, when `sextant sync` stored (or replaced, or removed) a
    /// synchronisation for its traces since its timeline was read, `e` on
    /// the timeline stored now, in its place in the registry; what was
    /// computed on the old timeline (answers, event plans and filters) is
    /// forgotten. Costs a stat of each trace's sync manifest when nothing
    /// changed.
    fn on_stored_timeline(&self, e: Arc<ExperimentEntry>) -> Arc<ExperimentEntry> {
        let sessions = self.sessions_of(&e.traces);
        let stamp = timeline::stamp(&sessions);
        if stamp == e.stamp {
            return e;
        }
        let (timeline, note) = timeline::of(&sessions);
        if let Some(note) = note {
            eprintln!("sextant: experiment {}: {note}", e.name);
        }
        let moved = Arc::new(ExperimentEntry {
            uuid: e.uuid,
            name: e.name.clone(),
            traces: e.traces.clone(),
            timeline,
            stamp,
        });
        let mut reg = self.registry.write().expect("not poisoned");
        let Some(slot) = reg.experiments.iter_mut().find(|x| x.uuid == e.uuid) else {
            // Deleted meanwhile.
            return e;
        };
        *slot = moved.clone();
        drop(reg);
        self.cache.forget(e.uuid, |_| true);
        self.outputs.forget(e.uuid);
        moved
    }

    /// A session of each of `traces`, with the server's stores.
    fn sessions_of(&self, traces: &[Arc<TraceEntry>]) -> Vec<Session> {
        traces
            .iter()
            .map(|t| self.results.session(&t.path))
            .collect()
    }

    pub fn experiment(&self, uuid: &str) -> Result<Value> {
        Ok(self.experiment_entry(uuid)?.to_json())
    }

    pub fn create_experiment(&self, body: &Value) -> Result<Value> {
        let NewExperiment { name, traces: ids } = NewExperiment::parse(body)?;
        let mut traces = Vec::new();
        for id in ids {
            let t = self.trace_entry(id)?;
            if !traces.iter().any(|x: &Arc<TraceEntry>| x.uuid == t.uuid) {
                traces.push(t);
            }
        }
        // Reads each trace's store: before the registry is locked. The stamp
        // first: a sync stored meanwhile makes the next request read the
        // timeline again.
        let sessions = self.sessions_of(&traces);
        let stamp = timeline::stamp(&sessions);
        let (timeline, note) = timeline::of(&sessions);
        if let Some(note) = note {
            eprintln!("sextant: experiment {name}: {note}");
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
            timeline,
            stamp,
        });
        reg.experiments.push(entry.clone());
        drop(reg);
        // What a server before this one computed for these traces, offered
        // again under the same ids.
        for kind in self.outputs.kinds() {
            for c in kind.restore(&entry, &self.results) {
                let id = c.id().to_string();
                self.configs.insert(entry.uuid, kind.type_id(), &id, c);
            }
        }
        Ok(entry.to_json())
    }

    pub fn delete_experiment(&self, uuid: &str) -> Result<Value> {
        let e = self.experiment_entry(uuid)?;
        self.cache.forget(e.uuid, |_| true);
        let mut reg = self.registry.write().expect("not poisoned");
        reg.experiments.retain(|x| x.uuid != e.uuid);
        drop(reg);
        // After the removal: no request finds the experiment any more.
        self.outputs.forget(e.uuid);
        Ok(e.to_json())
    }
}

/// The one host a trace that opened was recorded on (`AnyReader::open`
/// has refused a folder of several).
fn sole_host(path: &Path) -> Result<Host> {
    let not_one = |detail: String| {
        ServiceError::new(
            ErrorKind::NotAcceptable,
            "Cannot read this trace type",
            detail,
        )
    };
    let mut hosts = sextant_engine::hosts::of(path).map_err(|e| not_one(e.to_string()))?;
    match hosts.len() {
        1 => Ok(hosts.remove(0)),
        n => Err(not_one(format!(
            "{}: {n} hosts, where a trace is one",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-a/ctf")
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
        // The body names the allowed roots and how to add one.
        let allowed = root.canonicalize().unwrap();
        assert!(
            e.detail.contains(&allowed.display().to_string()),
            "{}",
            e.detail
        );
        assert!(e.detail.contains("--allow-root /etc"), "{}", e.detail);
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

    #[test]
    fn a_link_out_of_the_roots_is_refused_naming_its_target_folder() {
        let dir = std::env::temp_dir().join(format!("sextant-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (root, elsewhere) = (dir.join("allowed"), dir.join("elsewhere"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("trace.txt"), "# tracer: nop\n").unwrap();
        let link = root.join("trace.txt");
        std::os::unix::fs::symlink(elsewhere.join("trace.txt"), &link).unwrap();
        let root = root.canonicalize().unwrap();
        let s = Service::new(Config {
            allowed_roots: vec![root.clone()],
            ..Default::default()
        });
        let e = s
            .open_trace(&json!({"parameters": {"uri": link}}))
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Forbidden);
        let target = elsewhere.canonicalize().unwrap();
        assert!(
            e.detail
                .contains(&format!("--allow-root {}`", target.display())),
            "{}",
            e.detail
        );
        assert!(
            e.detail.contains(&format!(
                "(which is {})",
                target.join("trace.txt").display()
            )),
            "{}",
            e.detail
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn past_the_budget_opening_is_refused_for_now() {
        let root = fixture().join("..");
        let s = Service::new(Config {
            allowed_roots: vec![root.clone()],
            limits: Limits {
                max_traces: 2,
                max_indexing: 1,
            },
            ..Default::default()
        });
        let open = |path: &Path| s.open_trace(&json!({"parameters": {"uri": path}}));
        // A trace still being indexed (this one never starts).
        let busy = Arc::new(TraceEntry::new(
            uuid_of("trace", "/busy"),
            "busy".into(),
            "/busy".into(),
            sole_host(&fixture()).unwrap(),
        ));
        s.registry.write().unwrap().traces.push(busy.clone());
        let e = open(&fixture()).unwrap_err();
        assert_eq!(
            (e.kind, e.kind.http_status()),
            (ErrorKind::Unavailable, 503)
        );
        assert!(
            e.detail.contains("1 traces are being indexed"),
            "{}",
            e.detail
        );
        assert_eq!(e.to_json()["retryAfter"], 5);
        // Indexed: room for one more trace, not two.
        *busy.state.write().unwrap() = IndexState::Failed("done".into());
        let a = open(&fixture()).unwrap();
        let e = open(&root.join("trace.txt")).unwrap_err();
        assert!(e.detail.contains("2 traces are open"), "{}", e.detail);
        // Asking again for a trace already open is no new work.
        assert_eq!(open(&fixture()).unwrap()["UUID"], a["UUID"]);
    }
}
