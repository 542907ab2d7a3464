//! Scratch space in a trace's store for the pass that builds its index:
//! the state intervals spilled in sorted runs as the pass goes
//! (`analysis::spill`), then merged into one column file per interval
//! column, mapped, so that the index is written to the store without ever
//! holding its intervals in memory.
//!
//! The scratch directory is `.index.spill-PID-N` in the store the index is
//! written to (the cache directory when the trace's folder is read-only);
//! it is removed when the index is written or the pass fails, and the
//! directories of processes that died on the way (a crash, a kill) are
//! removed by the next pass over the trace, as `sextant store gc` does.
//! Its size: 21 bytes per interval in runs, then 17 per interval in the
//! columns, besides the index's own 17.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Int64Array, UInt8Array};
use arrow_buffer::{Buffer, ScalarBuffer};

use super::index::{Mappings, UNIT};
use super::{manage, unit, TraceStore};
use crate::analysis::states::Spilled;
use crate::analysis::thread_table::{code, IntervalColumns, LevelOne, Life, ThreadTable};
use crate::mapped::Mapped;

/// A scratch directory, removed with everything in it when dropped.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl TraceStore {
    /// A new scratch directory in the store the index is written to, after
    /// removing those that interrupted passes left there.
    pub fn scratch(&self) -> io::Result<Scratch> {
        let store = self
            .writing_store()
            .map_err(|(p, e)| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
        // Best effort: a leftover that cannot be removed now is tried again
        // at the next pass.
        let _ = manage::leftovers(&store);
        let dir = store.join(unit::unique(UNIT, "spill"));
        std::fs::create_dir(&dir)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
        Ok(Scratch { dir })
    }
}

/// The thread table of a spilling pass: its intervals merged into column
/// files of `scratch` and mapped (the returned mappings are the columns'
/// pages, for the store's writer to give back as it copies them), its
/// summary level 1 built on the way.
pub fn spilled_table(spilled: &Spilled, scratch: &Scratch) -> io::Result<(ThreadTable, Mappings)> {
    let file = |name: &str| -> io::Result<(PathBuf, BufWriter<File>)> {
        let path = scratch.dir.join(name);
        let f = File::create(&path).map_err(|e| with_path(&path, e))?;
        Ok((path, BufWriter::with_capacity(1 << 20, f)))
    };
    let (start_path, mut start) = file("start")?;
    let (end_path, mut end) = file("end")?;
    let (state_path, mut state) = file("state")?;
    let mut one = LevelOne::default();
    let mut per_life = vec![0u64; spilled.order.len()];
    let mut current = usize::MAX;
    spilled.merge(|place, iv| {
        if place != current {
            current = place;
            one.next_life();
        }
        per_life[place] += 1;
        let c = code(iv.state);
        one.push(iv.start, iv.end, c);
        start.write_all(&iv.start.to_le_bytes())?;
        end.write_all(&iv.end.to_le_bytes())?;
        state.write_all(&[c])
    })?;
    for (w, p) in [
        (&mut start, &start_path),
        (&mut end, &end_path),
        (&mut state, &state_path),
    ] {
        w.flush().map_err(|e| with_path(p, e))?;
    }
    let mut lives = Vec::with_capacity(spilled.order.len());
    let mut next = 0usize;
    for (place, &i) in spilled.order.iter().enumerate() {
        let r = &spilled.rows[i];
        if per_life[place] != spilled.counts[i] {
            return Err(io::Error::other(format!(
                "{}: {} intervals of thread {} read back, {} written",
                scratch.dir.display(),
                per_life[place],
                r.tid,
                spilled.counts[i]
            )));
        }
        let first = next;
        next += per_life[place] as usize;
        lives.push(Life {
            tid: r.tid,
            pid: r.pid,
            comm: r.comm.clone(),
            start: r.start,
            end: r.end,
            span: first..next,
        });
    }
    let mut maps = Vec::new();
    let mut column = |path: &Path, width: usize| -> io::Result<Buffer> {
        let f = File::open(path).map_err(|e| with_path(path, e))?;
        let len = f.metadata().map_err(|e| with_path(path, e))?.len();
        if len != (next * width) as u64 {
            return Err(io::Error::other(format!(
                "{}: {len} bytes, {} were written",
                path.display(),
                next * width
            )));
        }
        if len == 0 {
            return Ok(Buffer::from_vec(Vec::<u8>::new()));
        }
        // Written above and never again; cut short by another process, it
        // is the store's writer (`Shedding`) that says so.
        let map = Arc::new(Mapped::map(&f, path).map_err(|e| with_path(path, e))?);
        maps.push(map.clone());
        Ok(Buffer::from(bytes::Bytes::from_owner(Shared(map))))
    };
    let intervals = IntervalColumns {
        start: Int64Array::new(ScalarBuffer::new(column(&start_path, 8)?, 0, next), None),
        end: Int64Array::new(ScalarBuffer::new(column(&end_path, 8)?, 0, next), None),
        state: UInt8Array::new(ScalarBuffer::new(column(&state_path, 1)?, 0, next), None),
    };
    let table = ThreadTable::with_level_one(lives, intervals, one).map_err(io::Error::other)?;
    Ok((table, Mappings(maps)))
}

/// A mapping shared by a column's buffer and the list of mappings whose
/// pages the writer gives back.
struct Shared(Arc<Mapped>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::analysis::spill::Runs;
    use crate::analysis::states::ThreadStates;
    use crate::analysis::thread_table::FANOUT;
    use crate::run::{Pass, Work};
    use crate::store::index::{Buckets, IndexTables, Statistics};
    use crate::store::{Placement, Places};

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sextant-scratch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// The traces compared: the fixtures', and the shared ones when there.
    fn traces() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut out: Vec<PathBuf> = ["scenario-a/trace.txt", "scenario-a/ctf", "scenario-b/ctf"]
            .iter()
            .map(|t| root.join("fixtures").join(t))
            .collect();
        let shared = root.join("../shared/traces");
        let found: Vec<PathBuf> = [
            "ctf/many-threads",
            "ctf/perf-taskset2",
            "ftrace/ftrace_syscalls.txt",
        ]
        .iter()
        .map(|t| shared.join(t))
        .filter(|t| t.exists())
        .collect();
        if found.is_empty() {
            eprintln!("{}: absent, only the fixtures compared", shared.display());
        }
        out.extend(found);
        out
    }

    /// An index of `threads` whose other tables are empty.
    fn index(threads: ThreadTable) -> IndexTables {
        IndexTables {
            statistics: Statistics::default(),
            threads,
            event_types: Vec::new(),
            checkpoints: Vec::new(),
            histogram: Buckets::default(),
        }
    }

    /// The files of `t`'s threads and intervals as stored for `trace`.
    fn stored(t: &IndexTables, trace: &Path, cache: &Path, maps: Mappings) -> Vec<Vec<u8>> {
        let places = Places::new(Some(cache.to_path_buf()), Placement::Cache);
        let store = TraceStore::open(&places, trace).unwrap();
        let dir = t.save_shedding(&store, maps).unwrap();
        let loaded = IndexTables::load(&store).unwrap().expect("stored");
        assert_eq!(loaded.threads, t.threads, "{} read back", trace.display());
        ["threads.arrow", "intervals.arrow", "levels.arrow"]
            .iter()
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect()
    }

    /// Spilled in runs of a few intervals (many runs, lives cut across
    /// them) or of many, the table and its stored files are the ones the
    /// intervals kept in memory give, byte for byte.
    #[test]
    fn spilled_intervals_store_the_same_index() {
        let root = temp("same");
        for trace in traces() {
            let mut kept = ThreadStates::default();
            Pass::new(&mut [&mut kept])
                .read(&trace, &Work::none())
                .unwrap();
            let want = index(ThreadTable::from_rows(kept.into_rows()));
            let want_files = stored(&want, &trace, &root.join("kept"), Mappings::default());
            for budget in [7, 100_000] {
                let scratch = Scratch {
                    dir: root.join(format!("scratch-{budget}")),
                };
                std::fs::create_dir_all(&scratch.dir).unwrap();
                let mut states = ThreadStates::spilling(Runs::new(&scratch.dir, budget));
                Pass::new(&mut [&mut states])
                    .read(&trace, &Work::none())
                    .unwrap();
                let spilled = states.into_spilled().unwrap().unwrap();
                let (table, maps) = spilled_table(&spilled, &scratch).unwrap();
                assert_eq!(
                    table,
                    want.threads,
                    "{} in runs of {budget}",
                    trace.display()
                );
                let got = index(table);
                let cache = root.join(format!("spilled-{budget}"));
                let files = stored(&got, &trace, &cache, maps);
                assert!(
                    files == want_files,
                    "{}: stored files differ",
                    trace.display()
                );
            }
            eprintln!(
                "{}: {} intervals, same index",
                trace.display(),
                want.threads.intervals.len()
            );
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Lives long enough for two summary levels, cut across many runs.
    #[test]
    fn levels_of_spilled_lives_are_the_same() {
        use crate::analysis::states::{Interval, ThreadRow};
        use crate::kernel::model::ThreadState::*;
        let root = temp("levels");
        let n = (FANOUT * FANOUT + 5) as i64;
        let row = |tid, n: i64| ThreadRow {
            tid,
            pid: None,
            comm: format!("t{tid}"),
            start: 0,
            end: 10 * n,
            intervals: (0..n)
                .map(|i| Interval {
                    start: 10 * i,
                    end: 10 * i + 10,
                    state: [Running, Blocked, Preempted][i as usize % 3],
                })
                .collect(),
        };
        let rows = vec![row(3, 70), row(1, n), row(2, 3)];
        let want = ThreadTable::from_rows({
            let mut r = rows.clone();
            r.sort_by_key(|r| (r.tid, r.start));
            r
        });
        // As a pass would give them: created in `rows`' order, a few
        // intervals at a time, runs written on the way.
        let mut runs = Runs::new(&root, 1);
        let mut waiting: Vec<ThreadRow> = rows
            .iter()
            .map(|r| ThreadRow {
                intervals: Vec::new(),
                ..r.clone()
            })
            .collect();
        let order = vec![1, 2, 0];
        let mut spilled = vec![0u64; 3];
        for step in (0..n as usize).step_by(500) {
            for (w, r) in waiting.iter_mut().zip(&rows) {
                let end = (step + 500).min(r.intervals.len());
                w.intervals
                    .extend(r.intervals.get(step..end).unwrap_or(&[]));
            }
            runs.write_run(&mut waiting, &order, &mut spilled);
        }
        let counts = rows.iter().map(|r| r.intervals.len() as u64).collect();
        let s = Spilled {
            rows: waiting,
            order,
            counts,
            runs,
        };
        let scratch = Scratch { dir: root.clone() };
        let (table, _maps) = spilled_table(&s, &scratch).unwrap();
        assert_eq!(table.levels.len(), 2);
        assert_eq!(table, want);
    }

    /// A scratch directory is made in the store, removed when dropped;
    /// one a dead process left is removed by the next, a live one's kept.
    #[test]
    fn scratch_leftovers_of_dead_passes_are_removed() {
        let root = temp("leftovers");
        let trace = root.join("trace.txt");
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-a/trace.txt");
        std::fs::copy(fixture, &trace).unwrap();
        let places = Places::new(Some(root.join("cache")), Placement::Cache);
        let store = TraceStore::open(&places, &trace).unwrap();
        let first = store.scratch().unwrap();
        let dir = first.path().parent().unwrap().to_path_buf();
        // PIDs above the kernel's largest (2^22) are nobody's.
        let dead = dir.join(".index.spill-4194305-0");
        let alive = dir.join(format!(".index.spill-{}-999", std::process::id()));
        for d in [&dead, &alive] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("run-0"), b"left").unwrap();
        }
        let second = store.scratch().unwrap();
        assert!(!dead.exists(), "a dead pass's scratch is removed");
        assert!(alive.exists(), "a running pass's scratch is kept");
        let (p1, p2) = (first.path().to_path_buf(), second.path().to_path_buf());
        assert_ne!(p1, p2);
        drop(first);
        drop(second);
        assert!(!p1.exists() && !p2.exists(), "scratch removed when done");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
