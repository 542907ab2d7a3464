//! A trace's events in time order, from its start or from a time, handed
//! to a front end's own visitor (the TSP events table's lines, a search's
//! counts, counts by type), with the analyses it needs fed first (the
//! kernel model giving each event its thread). The session reads; the
//! visitor only looks. And the events table (SQL's `events`), resumed at a
//! stored checkpoint when it asks for events from some time on.

use super::Session;
use crate::event::ReadError;
use crate::export::events::{Only, Written};
use crate::export::{self, ExportError, TableFile};
use crate::kernel::checkpoint;
use crate::kernel::pass::Analysis;
use crate::run::{Pass, Ran, RunError, Tap, Work};
use crate::store::checkpoints;

impl Session {
    /// Every event through `visit`, after `analyses`; from `from` when
    /// given, the reader seeking there (`RunError::CannotSeek` when the
    /// format cannot, or not without changing the events: the caller then
    /// reads from the start and skips).
    pub fn read_events<T: Tap>(
        &self,
        from: Option<i64>,
        analyses: &mut [&mut dyn Analysis],
        visit: T,
        work: &Work<'_>,
    ) -> Result<Ran, RunError> {
        if from.is_some() && !self.resumable() {
            return Err(RunError::CannotSeek(ReadError::new(std::io::Error::other(
                "a BTF trace read from a time lacks the cores and tasks of its first rows",
            ))));
        }
        let pass = Pass::new(analyses).tap(visit).options(self.options);
        let pass = match from {
            Some(ts) => pass.from(ts),
            None => pass,
        };
        pass.read(&self.trace, work)
    }
}

impl Session {
    /// Whether a read of the trace from some time on gives the events a
    /// read from its start gives from that time. Not a BTF trace's: its
    /// rows' cores and tasks come from the reader's own task model, which a
    /// seek starts afresh (enough for `explain`, which replays a margin
    /// before what it tells, not for a table of every row).
    fn resumable(&self) -> bool {
        !crate::btf::is_btf_file(&self.trace)
    }

    /// The events table's rows that `only` keeps, written into `file`.
    /// Given a lower time bound and checkpoints in the trace's store (its
    /// index's, or those a read like this one kept), the read resumes at
    /// the last checkpoint before that bound instead of the trace's start
    /// (each row's thread is the same: `kernel::checkpoint`); a read from
    /// the start keeps its checkpoints for the next. Not for BTF. Problems
    /// with the store never fail the read: they join its warnings.
    pub fn events_table(
        &self,
        only: &Only,
        file: &mut TableFile,
        work: &Work<'_>,
    ) -> Result<Ran, ExportError> {
        let store = self.store().filter(|_| self.resumable());
        let mut notes = Vec::new();
        // Read even without a lower bound: a read from the start keeps its
        // checkpoints only when the store holds fewer (not at every query).
        let stored = store
            .as_ref()
            .and_then(|store| match checkpoints::load(store) {
                Ok(found) => found,
                Err(e) => {
                    // Said only when they were wanted: a read from the start
                    // loses nothing by them.
                    if only.from.is_some() {
                        notes.push(format!("stored checkpoints not used: {e}"));
                    }
                    None
                }
            });
        let start = stored
            .as_deref()
            .zip(only.from)
            .and_then(|(all, from)| checkpoint::before(all, from));
        let written =
            match export::events::write(&self.trace, self.options, only, start, file, work) {
                // A format that cannot seek is read from its start.
                Err(ExportError::Run(RunError::CannotSeek(_))) => {
                    export::events::write(&self.trace, self.options, only, None, file, work)?
                }
                other => other?,
            };
        let Written {
            mut ran,
            checkpoints,
        } = written;
        let known = stored.as_ref().map_or(0, Vec::len);
        if let Some(store) = &store {
            if checkpoints.len() > known {
                if let Err(e) = checkpoints::save(&checkpoints, store) {
                    notes.push(format!("the read's checkpoints could not be stored: {e}"));
                }
            }
        }
        ran.warnings.extend(notes);
        Ok(ran)
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use arrow_array::RecordBatch;
    use arrow_ipc::reader::FileReader;

    use super::*;
    use crate::export::Format;
    use crate::kernel::checkpoint::CHECKPOINT_EVERY;
    use crate::reader::OpenOptions;
    use crate::store::{Placement, Places};

    /// A folder of the temporary directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The events table of `session` that `only` keeps: its rows and what
    /// the read saw.
    fn table(session: &Session, only: &Only, out: &Path) -> (Vec<RecordBatch>, Ran) {
        let mut file = TableFile::create(out, Format::Arrow, export::events::schema()).unwrap();
        let ran = session
            .events_table(only, &mut file, &Work::none())
            .unwrap();
        file.finish().unwrap();
        let reader = FileReader::try_new(std::fs::File::open(out).unwrap(), None).unwrap();
        (reader.map(Result::unwrap).collect(), ran)
    }

    fn rows(batches: &[RecordBatch]) -> Vec<RecordBatch> {
        batches
            .iter()
            .filter(|b| b.num_rows() > 0)
            .cloned()
            .collect()
    }

    /// A read of the events table from some time on resumes at the stored
    /// checkpoint before it: it reads a fraction of the trace and gives the
    /// rows, threads included, of a read from the start. The time asked is
    /// just after a checkpoint, so that rows come before each CPU's next
    /// switch (their thread is the checkpoint's).
    fn resumes_as_a_whole_read(trace: &Path, tag: &str) {
        let scratch = Scratch(
            std::env::temp_dir().join(format!("sextant-events-from-{tag}-{}", std::process::id())),
        );
        std::fs::create_dir_all(&scratch.0).unwrap();
        // In the cache only: nothing is written beside the trace.
        let places = Places::new(Some(scratch.0.join("cache")), Placement::Cache);
        let stored = Session::open(trace, OpenOptions::default(), Some(places.clone()));
        let unstored = Session::open(trace, OpenOptions::default(), None);
        let out = scratch.0.join("events.arrow");

        // The first read has no checkpoint yet: from the start, keeping them.
        let (_, whole) = table(&stored, &Only::default(), &out);
        let total = whole.summary.events;
        assert!(total > 4 * CHECKPOINT_EVERY, "{total} events");
        let kept = checkpoints::load(&stored.store().unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(kept.len() as u64, total.div_ceil(CHECKPOINT_EVERY));
        // A second read from the start finds them kept: not written again.
        let stamp = || places.unit_stamp(trace, "checkpoints");
        let before_again = stamp();
        table(&stored, &Only::default(), &out);
        assert_eq!(stamp(), before_again, "the checkpoints were written again");
        let from = kept[kept.len() * 3 / 4].ts + 1;
        let late = Only {
            from: Some(from),
            ..Only::default()
        };

        let (resumed, ran) = table(&stored, &late, &out);
        assert!(
            ran.summary.events < total / 2,
            "{} of {total} events read for the last quarter",
            ran.summary.events
        );
        let (oracle, full) = table(&unstored, &late, &out);
        assert_eq!(full.summary.events, total, "without a store: read whole");
        assert!(!rows(&oracle).is_empty());
        assert_eq!(
            rows(&resumed),
            rows(&oracle),
            "the same rows, threads included"
        );
    }

    /// perf CTF (each event says its thread): 19,137 events on 2 CPUs.
    #[test]
    fn perf_events_from_a_time_resume_at_a_stored_checkpoint() {
        let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/taskset/ctf");
        resumes_as_a_whole_read(&trace, "perf");
    }

    /// LTTng kernel CTF (events say only their CPU: threads come from the
    /// model, or from the checkpoint until a CPU switches).
    #[test]
    fn lttng_events_from_a_time_resume_at_a_stored_checkpoint() {
        if let Some(trace) = sextant_formats::testing::shared_ctf("many-threads") {
            resumes_as_a_whole_read(&trace, "lttng");
        }
    }
}
