//! The stored index: a round trip, and every reason not to use one (trace
//! changed, other version, truncated, corrupt), then concurrent writers, the
//! cache by default and a read-only trace folder; a model's executions.

use std::path::{Path, PathBuf};

use super::index::{Buckets, Checkpoint, IndexTables, Statistics};
use super::{Placement, Places, TraceStore, Unusable};
use crate::analysis::states::ThreadStates;
use crate::analysis::thread_table::ThreadTable;
use crate::run::{Pass, Work};

/// A fresh directory holding a copy of scenario-a's ftrace text, and a
/// cache directory beside it.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root =
            std::env::temp_dir().join(format!("sextant-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("traces")).unwrap();
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-a/trace.txt");
        std::fs::copy(fixture, root.join("traces/trace.txt")).unwrap();
        Scratch { root }
    }

    fn trace(&self) -> PathBuf {
        self.root.join("traces/trace.txt")
    }

    /// Stores placed beside the trace, as most tests look at them there.
    fn places(&self) -> Places {
        Places::new(Some(self.root.join("cache")), Placement::Beside)
    }

    fn store(&self) -> TraceStore {
        TraceStore::open(&self.places(), &self.trace()).unwrap()
    }

    /// The store of the trace as placed by default.
    fn cached_store(&self) -> TraceStore {
        let places = Places::new(Some(self.root.join("cache")), Placement::default());
        TraceStore::open(&places, &self.trace()).unwrap()
    }

    /// The file `name` of the stored index beside the trace.
    fn file(&self, name: &str) -> PathBuf {
        self.root.join("traces/trace.txt.sextant/index").join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let traces = self.root.join("traces");
        if let Ok(m) = std::fs::metadata(&traces) {
            let mut p = m.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            p.set_readonly(false);
            let _ = std::fs::set_permissions(&traces, p);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// An index with real thread rows (from a pass) and made-up rest.
fn tables(trace: &Path) -> IndexTables {
    let mut states = ThreadStates::default();
    let ran = Pass::new(&mut [&mut states])
        .read(trace, &Work::none())
        .unwrap();
    IndexTables {
        statistics: Statistics {
            events: ran.summary.events,
            start: ran.summary.first_ts.unwrap(),
            end: ran.summary.last_ts,
            warnings: vec!["a warning".to_string()],
        },
        threads: ThreadTable::from_rows(states.into_rows()),
        event_types: vec![
            ("sched_switch".to_string(), 10),
            ("sched_wakeup".to_string(), 3),
        ],
        checkpoints: vec![
            Checkpoint {
                ts: 5,
                skip: 0,
                cpus: vec![None, Some(12)].into(),
            },
            Checkpoint {
                ts: 9,
                skip: 2,
                cpus: vec![Some(1)].into(),
            },
        ],
        histogram: Buckets {
            origin: Some(5),
            last: 90,
            width: 4,
            counts: vec![3, 0, 7],
        },
    }
}

#[test]
fn an_index_reads_back_as_written_beside_the_trace() {
    let s = Scratch::new("roundtrip");
    let store = s.store();
    assert!(IndexTables::load(&store).unwrap().is_none());
    let t = tables(&s.trace());
    assert!(t.threads.intervals.len() > 1000);
    let dir = t.save(&store).unwrap();
    assert_eq!(dir, s.root.join("traces/trace.txt.sextant/index"));
    assert_eq!(IndexTables::load(&s.store()).unwrap(), Some(t));
}

#[test]
fn a_modified_trace_makes_the_index_stale_until_rebuilt() {
    let s = Scratch::new("stale");
    let t = tables(&s.trace());
    t.save(&s.store()).unwrap();
    // Same size, new contents and time.
    let mut text = std::fs::read(s.trace()).unwrap();
    text[0] ^= 1;
    std::thread::sleep(std::time::Duration::from_millis(10));
    std::fs::write(s.trace(), &text).unwrap();
    let e = IndexTables::load(&s.store()).unwrap_err();
    assert!(matches!(e, Unusable::Stale { .. }), "{e}");
    assert!(e.to_string().contains("was modified"), "{e}");
    t.save(&s.store()).unwrap();
    assert_eq!(IndexTables::load(&s.store()).unwrap(), Some(t));
}

#[test]
fn a_truncated_table_is_not_used() {
    let s = Scratch::new("truncated");
    tables(&s.trace()).save(&s.store()).unwrap();
    let path = s.file("intervals.arrow");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = IndexTables::load(&s.store()).unwrap_err();
    assert!(matches!(e, Unusable::Truncated { .. }), "{e}");
    assert!(e.to_string().contains("intervals.arrow"), "{e}");
}

#[test]
fn another_format_version_is_not_used() {
    let s = Scratch::new("version");
    tables(&s.trace()).save(&s.store()).unwrap();
    let path = s.file("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["format_version"] = serde_json::json!(super::FORMAT_VERSION + 1);
    std::fs::write(&path, v.to_string()).unwrap();
    let e = IndexTables::load(&s.store()).unwrap_err();
    assert!(matches!(e, Unusable::ForeignVersion { .. }), "{e}");
}

#[test]
fn corrupt_bytes_or_manifest_are_not_used() {
    let s = Scratch::new("corrupt");
    tables(&s.trace()).save(&s.store()).unwrap();
    // A flipped byte in the middle of the data, the size unchanged.
    let path = s.file("intervals.arrow");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let e = IndexTables::load(&s.store()).unwrap_err();
    assert!(matches!(e, Unusable::Corrupt { .. }), "{e}");
    // A manifest that is not JSON.
    std::fs::write(s.file("manifest.json"), b"{\"format_version\": 1, ").unwrap();
    let e = IndexTables::load(&s.store()).unwrap_err();
    assert!(matches!(e, Unusable::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("manifest.json"), "{e}");
}

#[test]
fn concurrent_writers_leave_one_whole_index() {
    let s = Scratch::new("concurrent");
    let t = tables(&s.trace());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..5 {
                    t.save(&s.store()).unwrap();
                    // Whatever a reader finds meanwhile is whole or absent.
                    if let Some(read) = IndexTables::load(&s.store()).unwrap() {
                        assert_eq!(read, t);
                    }
                }
            });
        }
    });
    assert_eq!(IndexTables::load(&s.store()).unwrap(), Some(t));
    // No temporary or moved-aside unit is left.
    let left: Vec<_> = std::fs::read_dir(s.root.join("traces/trace.txt.sextant"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["index"]);
}

#[test]
fn by_default_the_index_goes_to_the_cache_and_one_beside_is_still_read() {
    let s = Scratch::new("default");
    let t = tables(&s.trace());
    let dir = t.save(&s.cached_store()).unwrap();
    assert!(dir.starts_with(s.root.join("cache")), "{}", dir.display());
    let name = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
    assert!(
        name.starts_with("trace.txt-") && name.ends_with(".sextant"),
        "{name}"
    );
    assert!(!s.root.join("traces/trace.txt.sextant").exists());
    assert_eq!(
        IndexTables::load(&s.cached_store()).unwrap(),
        Some(t.clone())
    );
    // A store beside the trace (asked for, or left by an earlier version)
    // is read when the cache has none.
    let s = Scratch::new("default-beside");
    t.save(&s.store()).unwrap();
    assert!(s.root.join("traces/trace.txt.sextant/index").is_dir());
    assert_eq!(IndexTables::load(&s.cached_store()).unwrap(), Some(t));
    assert!(!s.root.join("cache").exists());
}

#[test]
fn a_read_only_trace_folder_sends_the_index_to_the_cache() {
    let s = Scratch::new("readonly");
    let traces = s.root.join("traces");
    let mut p = std::fs::metadata(&traces).unwrap().permissions();
    p.set_readonly(true);
    std::fs::set_permissions(&traces, p).unwrap();
    let t = tables(&s.trace());
    let dir = t.save(&s.store()).unwrap();
    assert!(dir.starts_with(s.root.join("cache")), "{}", dir.display());
    assert!(!traces.join("trace.txt.sextant").exists());
    assert_eq!(IndexTables::load(&s.store()).unwrap(), Some(t));
}

/// The periodic rt_high model of the examples.
fn model() -> crate::analysis::model::ExecutionModel {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/examples/periodic-rt_high.json");
    crate::analysis::model::parse_model(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn executions_read_back_as_found_and_only_for_their_model() {
    use super::results::{Key, StoredExecutions};
    use crate::analysis::executions::{ExecutionAnalysis, Target};
    let s = Scratch::new("results");
    let m = model();
    let mut analysis = ExecutionAnalysis::new(Target::Model(Box::new(m.clone())));
    let ran = Pass::new(&mut [&mut analysis])
        .read(&s.trace(), &Work::none())
        .unwrap();
    let found = StoredExecutions {
        executions: analysis.into_executions(),
        summary: ran.summary,
        warnings: ran.warnings,
        labels: Vec::new(),
    };
    assert!(found.executions.executions.len() > 50);
    assert!(found.executions.executions.iter().any(|e| e.prio.is_some()));
    let store = s.store();
    let key = Key::model(&m);
    assert!(StoredExecutions::load(&store, &key, false)
        .unwrap()
        .is_none());
    found.save(&store, &key, false).unwrap();
    assert_eq!(
        StoredExecutions::load(&store, &key, false).unwrap(),
        Some(found.clone())
    );
    // Another model, or the same read leniently, is not answered.
    let mut other = m.clone();
    other.name.push('2');
    assert!(StoredExecutions::load(&store, &Key::model(&other), false)
        .unwrap()
        .is_none());
    assert!(StoredExecutions::load(&store, &key, true)
        .unwrap()
        .is_none());
    // Listed with its model's name; collected once the trace changed.
    let units = store.units();
    assert_eq!(units.len(), 1, "{units:?}");
    assert_eq!(
        units[0].state.as_ref().unwrap().as_deref(),
        Some("rt_high job")
    );
    std::fs::write(s.trace(), b"# tracer: nop\n").unwrap();
    let store = s.store();
    assert!(store.units()[0].state.is_err());
    assert_eq!(store.collect_garbage().unwrap().len(), 1);
    assert!(store.units().is_empty());
}

#[test]
fn a_posted_model_is_kept_with_its_labels_found_once_and_unlabelled() {
    use super::results::{labelled, load_or_find, Key, Label, Source, StoredExecutions};
    use crate::analysis::executions::{ExecutionAnalysis, Target};
    let s = Scratch::new("labels");
    let m = model();
    let key = Key::model(&m);
    let store = s.store();
    let passes = std::cell::Cell::new(0);
    let pass = || -> Result<StoredExecutions, crate::run::RunError> {
        passes.set(passes.get() + 1);
        let mut analysis = ExecutionAnalysis::new(Target::Model(Box::new(m.clone())));
        let ran = Pass::new(&mut [&mut analysis]).read(&s.trace(), &Work::none())?;
        Ok(StoredExecutions {
            executions: analysis.into_executions(),
            summary: ran.summary,
            warnings: ran.warnings,
            labels: Vec::new(),
        })
    };
    let label = |experiment: &str, name: &str| Label {
        experiment: experiment.into(),
        name: name.into(),
        description: Some("rt_high".into()),
        parameters: serde_json::json!({"as": "posted", "in": experiment}),
    };
    // Found by the command line first: kept without a label, so not offered.
    let (cli, source, notes) = load_or_find(Some(&store), &key, false, None, pass).unwrap();
    let unit = store.units()[0].dir.clone();
    assert_eq!(
        (source, passes.get()),
        (Source::Pass { kept: Some(unit) }, 1),
        "{notes:?}"
    );
    assert!(labelled(&store, "e1").is_empty());
    // Posted to a server in two experiments: read from the store, labelled
    // for each, offered only in its own.
    let (a, b) = (label("e1", "jobs"), label("e2", "other"));
    for l in [&a, &b] {
        let (posted, source, notes) =
            load_or_find(Some(&store), &key, false, Some(l), pass).unwrap();
        assert_eq!((source, passes.get()), (Source::Store, 1), "{notes:?}");
        assert_eq!(posted.executions, cli.executions);
    }
    let offered = labelled(&store, "e1");
    assert_eq!(offered.len(), 1);
    assert_eq!(offered[0].0.to_json(), m.to_json());
    assert_eq!(offered[0].1, a);
    assert_eq!(offered[0].2.executions, cli.executions);
    assert_eq!(labelled(&store, "e2")[0].1, b);
    assert!(labelled(&store, "e3").is_empty());
    // `sextant store ls` says what the unit is offered as.
    let units = store.units();
    assert_eq!(units.len(), 1, "{units:?}");
    assert_eq!(
        units[0].offered,
        [("e1".into(), "jobs".into()), ("e2".into(), "other".into())]
    );
    // The same name posted again in e1 with other parameters replaces it.
    let mut a2 = a.clone();
    a2.parameters = serde_json::json!({"as": "posted again"});
    load_or_find(Some(&store), &key, false, Some(&a2), pass).unwrap();
    let offered = labelled(&store, "e1");
    assert_eq!(offered.len(), 1);
    assert_eq!(offered[0].1, a2);
    // Without a store: a pass every time.
    let (_, source, _) = load_or_find(None, &key, false, Some(&a), pass).unwrap();
    assert_eq!((source, passes.get()), (Source::Pass { kept: None }, 2));
    // Deleted in e1: no longer offered there, still in e2, and the
    // executions are still read without a pass.
    StoredExecutions::unlabel(&store, &m, &a2).unwrap();
    assert!(labelled(&store, "e1").is_empty());
    assert_eq!(labelled(&store, "e2").len(), 1);
    let (_, source, _) = load_or_find(Some(&store), &key, false, None, pass).unwrap();
    assert_eq!((source, passes.get()), (Source::Store, 2));
}
