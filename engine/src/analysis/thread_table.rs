//! Every thread life's state intervals as columns, lives one after another:
//! what a server keeps of a trace's thread states. The columns are Arrow
//! arrays, so they are either in memory (just computed, or no store to keep
//! them in) or the mapped pages of the stored index (`store::index`), of
//! which only the pages a query reads become resident: a server's memory
//! then does not grow with the number of intervals.

use std::ops::Range;

use arrow_array::{Int64Array, UInt8Array};

use super::states::{Interval, ThreadRow};
use crate::kernel::model::ThreadState;

/// Thread states by their code in the `state` column.
const STATES: [ThreadState; 5] = [
    ThreadState::Running,
    ThreadState::Preempted,
    ThreadState::Blocked,
    ThreadState::WaitingCpu,
    ThreadState::Unknown,
];

/// A state's code in the `state` column.
pub fn code(state: ThreadState) -> u8 {
    STATES
        .iter()
        .position(|&s| s == state)
        .expect("every state") as u8
}

/// The state of a code; `None` for a code no state has.
pub fn state_of(code: u8) -> Option<ThreadState> {
    STATES.get(usize::from(code)).copied()
}

/// One thread's life: a TID reused after `sched_process_free` gets another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Life {
    pub tid: i64,
    pub pid: Option<i64>,
    pub comm: String,
    pub start: i64,
    pub end: i64,
    /// Its intervals' rows in the columns.
    pub span: Range<usize>,
}

/// The intervals of every life, as three columns of equal length.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalColumns {
    pub start: Int64Array,
    pub end: Int64Array,
    /// `code`s (a stored table's are not scanned on load: a code no state
    /// has reads as unknown).
    pub state: UInt8Array,
}

impl IntervalColumns {
    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}

/// Every thread life of a trace with its intervals, by TID then start.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadTable {
    pub lives: Vec<Life>,
    pub intervals: IntervalColumns,
}

impl Default for ThreadTable {
    fn default() -> Self {
        ThreadTable::from_rows(Vec::new())
    }
}

impl ThreadTable {
    /// The table of `rows` (in their order), in memory.
    pub fn from_rows(rows: Vec<ThreadRow>) -> ThreadTable {
        let total = rows.iter().map(|r| r.intervals.len()).sum();
        let (mut start, mut end, mut state) = (
            Vec::with_capacity(total),
            Vec::with_capacity(total),
            Vec::with_capacity(total),
        );
        let lives = rows
            .into_iter()
            .map(|r| {
                let first = start.len();
                for iv in &r.intervals {
                    start.push(iv.start);
                    end.push(iv.end);
                    state.push(code(iv.state));
                }
                Life {
                    tid: r.tid,
                    pid: r.pid,
                    comm: r.comm,
                    start: r.start,
                    end: r.end,
                    span: first..start.len(),
                }
            })
            .collect();
        ThreadTable {
            lives,
            intervals: IntervalColumns {
                start: start.into(),
                end: end.into(),
                state: state.into(),
            },
        }
    }

    pub fn len(&self) -> usize {
        self.lives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lives.is_empty()
    }

    /// Life `i` with its states; `None` past the last.
    pub fn row(&self, i: usize) -> Option<Row<'_>> {
        let life = self.lives.get(i)?;
        let c = &self.intervals;
        let s = life.span.clone();
        Some(Row {
            life,
            states: States::Columns {
                start: &c.start.values()[s.clone()],
                end: &c.end.values()[s.clone()],
                state: &c.state.values()[s],
            },
        })
    }

    /// Every life with its states, in order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.lives.len()).filter_map(|i| self.row(i))
    }
}

/// A life and its states.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    pub life: &'a Life,
    pub states: States<'a>,
}

/// A life's intervals in time order: columns of a table, or intervals made
/// for one answer (a Comparison View row).
#[derive(Debug, Clone, Copy)]
pub enum States<'a> {
    Columns {
        start: &'a [i64],
        end: &'a [i64],
        state: &'a [u8],
    },
    Intervals(&'a [Interval]),
}

impl<'a> From<&'a [Interval]> for States<'a> {
    fn from(ivs: &'a [Interval]) -> States<'a> {
        States::Intervals(ivs)
    }
}

impl<'a> States<'a> {
    pub fn len(&self) -> usize {
        match self {
            States::Columns { start, .. } => start.len(),
            States::Intervals(ivs) => ivs.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Interval `i` (`i < len()`).
    pub fn get(&self, i: usize) -> Interval {
        match self {
            States::Columns { start, end, state } => Interval {
                start: start[i],
                end: end[i],
                state: state_of(state[i]).unwrap_or(ThreadState::Unknown),
            },
            States::Intervals(ivs) => ivs[i],
        }
    }

    /// The number of intervals before the first one that ends after `t`.
    pub fn ending_by(&self, t: i64) -> usize {
        match self {
            States::Columns { end, .. } => end.partition_point(|&e| e <= t),
            States::Intervals(ivs) => ivs.partition_point(|iv| iv.end <= t),
        }
    }

    /// The interval holding `t`, if any.
    pub fn at(&self, t: i64) -> Option<Interval> {
        let i = self.ending_by(t);
        (i < self.len())
            .then(|| self.get(i))
            .filter(|iv| iv.start <= t)
    }

    /// The intervals from the `first`th on.
    pub fn starting_at(self, first: usize) -> impl Iterator<Item = Interval> + 'a {
        (first..self.len()).map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_intervals_and_order() {
        use ThreadState::*;
        let iv = |start, end, state| Interval { start, end, state };
        let rows = vec![
            ThreadRow {
                tid: 1,
                pid: Some(1),
                comm: "a".into(),
                start: 0,
                end: 30,
                intervals: vec![iv(0, 10, Running), iv(10, 30, Blocked)],
            },
            ThreadRow {
                tid: 2,
                pid: None,
                comm: "b".into(),
                start: 5,
                end: 6,
                intervals: vec![],
            },
            ThreadRow {
                tid: 3,
                pid: None,
                comm: "c".into(),
                start: 0,
                end: 50,
                intervals: vec![iv(0, 40, WaitingCpu), iv(45, 50, Preempted)],
            },
        ];
        let t = ThreadTable::from_rows(rows.clone());
        assert_eq!(t.len(), 3);
        for (row, want) in t.rows().zip(&rows) {
            assert_eq!(row.life.tid, want.tid);
            let got: Vec<Interval> = row.states.starting_at(0).collect();
            assert_eq!(got, want.intervals);
        }
        let c = t.row(2).unwrap().states;
        assert_eq!(c.at(42), None, "a gap");
        assert_eq!(c.at(45), Some(iv(45, 50, Preempted)));
        assert_eq!(c.at(0), Some(iv(0, 40, WaitingCpu)));
        assert_eq!(c.ending_by(40), 1);
        let plain = States::from(&rows[2].intervals[..]);
        assert_eq!(plain.at(45), c.at(45));
        assert_eq!(plain.ending_by(40), 1);
        assert!(t.row(3).is_none());
        assert!(t.row(1).unwrap().states.is_empty());
    }

    #[test]
    fn every_state_has_a_code() {
        for s in STATES {
            assert_eq!(state_of(code(s)), Some(s));
        }
        assert_eq!(state_of(5), None);
    }
}
