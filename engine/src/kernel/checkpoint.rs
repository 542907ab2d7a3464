//! Where a read can resume in the middle of a trace and still give each
//! event the thread a read from the start gives it: a time to seek to, and
//! the kernel model's current thread on each CPU there. Recorded during any
//! pass from the start (the index's, the events table's); the TSP events
//! table and SQL's `events` with a lower time bound start from one.

use super::model::KernelModel;

/// Events between two checkpoints: reading any event costs at most this many
/// events read from the nearest checkpoint before it.
pub const CHECKPOINT_EVERY: u64 = 4096;

/// CPU numbers a checkpoint records at most (a CPU number from a corrupt
/// trace must not make every checkpoint gigabytes).
const MAX_CPUS: usize = 1 << 16;

/// Where to resume reading at one event number: seeking to `ts` yields the
/// first event at that time, `skip` events before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub ts: i64,
    pub skip: u64,
    /// Each CPU's current thread just before the event (by CPU number), for
    /// the events that do not say their thread.
    pub cpus: Box<[Option<i64>]>,
}

/// Records checkpoint `k` at event number `k * CHECKPOINT_EVERY` of a read
/// from the trace's first event, shown every event before the model
/// applies it.
#[derive(Debug, Default)]
pub struct Recorder {
    events: u64,
    /// The latest time seen and the number of the first event at it.
    same_ts: (i64, u64),
    checkpoints: Vec<Checkpoint>,
}

impl Recorder {
    pub fn see(&mut self, ts: i64, model: &KernelModel) {
        let index = self.events;
        if index == 0 || ts != self.same_ts.0 {
            self.same_ts = (ts, index);
        }
        if index.is_multiple_of(CHECKPOINT_EVERY) {
            let cpus = model.cpus();
            self.checkpoints.push(Checkpoint {
                ts,
                skip: index - self.same_ts.1,
                cpus: cpus[..cpus.len().min(MAX_CPUS)].into(),
            });
        }
        self.events += 1;
    }

    pub fn into_checkpoints(self) -> Vec<Checkpoint> {
        self.checkpoints
    }
}

/// The last checkpoint strictly before `from`: a read resumed there yields
/// every event at `from` or later with the thread a whole read gives it
/// (an event at the checkpoint's own time but before it is read again and
/// only brings the model to where the checkpoint says it was).
pub fn before(checkpoints: &[Checkpoint], from: i64) -> Option<&Checkpoint> {
    let after = checkpoints.partition_point(|c| c.ts < from);
    after.checked_sub(1).map(|k| &checkpoints[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ts: i64) -> Checkpoint {
        Checkpoint {
            ts,
            skip: 0,
            cpus: Box::default(),
        }
    }

    #[test]
    fn the_checkpoint_before_a_time_is_strictly_before_it() {
        let cps = [at(10), at(20), at(20), at(30)];
        assert_eq!(before(&cps, 5), None);
        assert_eq!(before(&cps, 10), None);
        assert_eq!(before(&cps, 11).map(|c| c.ts), Some(10));
        // Two checkpoints at 20: an event at 20 may be before either.
        assert_eq!(before(&cps, 20).map(|c| c.ts), Some(10));
        assert_eq!(before(&cps, 21).map(|c| c.ts), Some(20));
        assert_eq!(before(&cps, i64::MAX).map(|c| c.ts), Some(30));
    }
}
