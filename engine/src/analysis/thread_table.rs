//! Every thread life's state intervals as columns, lives one after another:
//! what a server keeps of a trace's thread states. The columns are Arrow
//! arrays, so they are either in memory (just computed, or no store to keep
//! them in) or the mapped pages of the stored index (`store::index`), of
//! which only the pages a query reads become resident: a server's memory
//! then does not grow with the number of intervals.
//!
//! Drawing a whole trace at a thousand pixels must not read every interval
//! (that would bring every page in, and cost time in proportion to the
//! trace): summary `Level`s, a pyramid per life, say for each run of
//! `FANOUT` intervals (level 1) or entries of the level below where it
//! starts and ends and how long each state lasted in it, so that a drawing
//! takes a run shorter than a pixel from one entry.

use std::ops::Range;

use arrow_array::{Int64Array, UInt8Array};

use super::intervals::{Interval, ThreadRow};
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

/// Entries of a level each summarise this many of the level below.
pub const FANOUT: usize = 64;

/// The states whose time a summary counts, by code (unknown is not drawn).
pub const COUNTED: usize = 4;

/// One level of summaries: for each life, entry `i` stands for entries
/// `i * FANOUT ..` of the level below (of the intervals for level 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub start: Int64Array,
    pub end: Int64Array,
    /// Time spent in each counted state, by code.
    pub time: [Int64Array; COUNTED],
}

impl Level {
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
    /// Level 1 first; built until no life has more than `FANOUT` entries
    /// at the top.
    pub levels: Vec<Level>,
    /// `ranges[k][life]`: the life's entries in `levels[k]`.
    ranges: Vec<Vec<Range<usize>>>,
}

impl Default for ThreadTable {
    fn default() -> Self {
        ThreadTable::from_rows(Vec::new())
    }
}

/// Each life's entries in the level above entries at `below`.
fn ranges_above(below: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut next = 0;
    below
        .iter()
        .map(|r| {
            let first = next;
            next += r.len().div_ceil(FANOUT);
            first..next
        })
        .collect()
}

/// Level 1 built from each life's intervals in turn (the table's order):
/// one entry per `FANOUT` intervals of a life, the last one shorter.
#[derive(Default)]
pub struct LevelOne {
    start: Vec<i64>,
    end: Vec<i64>,
    time: [Vec<i64>; COUNTED],
    /// Intervals of the current life so far.
    in_life: usize,
}

impl LevelOne {
    /// The next life's intervals follow.
    pub fn next_life(&mut self) {
        self.in_life = 0;
    }

    /// The current life's next interval.
    pub fn push(&mut self, start: i64, end: i64, code: u8) {
        if self.in_life.is_multiple_of(FANOUT) {
            self.start.push(start);
            self.end.push(end);
            for t in &mut self.time {
                t.push(0);
            }
        }
        *self.end.last_mut().expect("an entry") = end;
        let code = usize::from(code);
        if code < COUNTED {
            *self.time[code].last_mut().expect("an entry") += end - start;
        }
        self.in_life += 1;
    }

    fn finish(self) -> Level {
        Level {
            start: self.start.into(),
            end: self.end.into(),
            time: self.time.map(Int64Array::from),
        }
    }
}

/// The summary levels of `lives`' intervals in memory.
fn build_levels(lives: &[Life], c: &IntervalColumns) -> Vec<Level> {
    let mut one = LevelOne::default();
    for l in lives {
        one.next_life();
        for i in l.span.clone() {
            one.push(c.start.value(i), c.end.value(i), c.state.value(i));
        }
    }
    levels_from(lives, one)
}

/// The summary levels of `lives` from their level 1: none when no life has
/// more than `FANOUT` intervals, else level 1 and those built above it.
fn levels_from(lives: &[Life], one: LevelOne) -> Vec<Level> {
    let mut below: Vec<Range<usize>> = lives.iter().map(|l| l.span.clone()).collect();
    if !below.iter().any(|r| r.len() > FANOUT) {
        return Vec::new();
    }
    let mut levels = vec![one.finish()];
    below = ranges_above(&below);
    while below.iter().any(|r| r.len() > FANOUT) {
        let n = ranges_above(&below).last().map_or(0, |r| r.end);
        let (mut start, mut end) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut time: [Vec<i64>; COUNTED] = std::array::from_fn(|_| Vec::with_capacity(n));
        let l = levels.last().expect("level 1");
        for r in &below {
            for first in r.clone().step_by(FANOUT) {
                let last = (first + FANOUT).min(r.end) - 1;
                start.push(l.start.value(first));
                end.push(l.end.value(last));
                for (k, tk) in time.iter_mut().enumerate() {
                    tk.push(l.time[k].values()[first..=last].iter().sum());
                }
            }
        }
        levels.push(Level {
            start: start.into(),
            end: end.into(),
            time: time.map(Int64Array::from),
        });
        below = ranges_above(&below);
    }
    levels
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
        let lives: Vec<Life> = rows
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
        let intervals = IntervalColumns {
            start: start.into(),
            end: end.into(),
            state: state.into(),
        };
        let levels = build_levels(&lives, &intervals);
        ThreadTable::new(lives, intervals, levels).expect("levels built for these lives")
    }

    /// The table of `lives` and `intervals` whose level 1 was built as the
    /// intervals were written (`LevelOne`), so that building the levels
    /// reads no interval (they may be a file's pages not read in yet).
    pub fn with_level_one(
        lives: Vec<Life>,
        intervals: IntervalColumns,
        one: LevelOne,
    ) -> Result<ThreadTable, String> {
        let levels = levels_from(&lives, one);
        ThreadTable::new(lives, intervals, levels)
    }

    /// The table of `lives`, `intervals` and their summary `levels` (as
    /// stored); `Err` says what does not hold together.
    pub fn new(
        lives: Vec<Life>,
        intervals: IntervalColumns,
        levels: Vec<Level>,
    ) -> Result<ThreadTable, String> {
        let n = intervals.len();
        if intervals.end.len() != n || intervals.state.len() != n {
            return Err("the interval columns differ in length".into());
        }
        if lives.iter().any(|l| l.span.end > n) {
            return Err(format!("a life's intervals run past the {n} there are"));
        }
        let mut ranges = Vec::with_capacity(levels.len());
        let mut below: Vec<Range<usize>> = lives.iter().map(|l| l.span.clone()).collect();
        for (k, level) in levels.iter().enumerate() {
            below = ranges_above(&below);
            let want = below.last().map_or(0, |r| r.end);
            let lengths = [level.end.len()]
                .into_iter()
                .chain(level.time.iter().map(|t| t.len()));
            if level.len() != want || lengths.into_iter().any(|l| l != want) {
                return Err(format!(
                    "summary level {} has {} entries, its lives {want}",
                    k + 1,
                    level.len()
                ));
            }
            ranges.push(below.clone());
        }
        Ok(ThreadTable {
            lives,
            intervals,
            levels,
            ranges,
        })
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
        let levels = self
            .levels
            .iter()
            .zip(&self.ranges)
            .map(|(l, ranges)| {
                let r = ranges[i].clone();
                LevelSlice {
                    start: &l.start.values()[r.clone()],
                    end: &l.end.values()[r.clone()],
                    time: std::array::from_fn(|k| &l.time[k].values()[r.clone()]),
                }
            })
            .collect();
        Some(Row {
            life,
            states: States::Columns {
                start: &c.start.values()[s.clone()],
                end: &c.end.values()[s.clone()],
                state: &c.state.values()[s],
            },
            pyramid: Pyramid { levels },
        })
    }

    /// Every life with its states, in order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.lives.len()).filter_map(|i| self.row(i))
    }
}

/// A life and its states.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    pub life: &'a Life,
    pub states: States<'a>,
    pub pyramid: Pyramid<'a>,
}

/// One life's entries of one summary level.
#[derive(Debug, Clone, Copy)]
pub struct LevelSlice<'a> {
    pub start: &'a [i64],
    pub end: &'a [i64],
    pub time: [&'a [i64]; COUNTED],
}

/// One life's summary levels, level 1 first: entry `i` of `levels[k]`
/// stands for entries `i * FANOUT ..` of `levels[k - 1]` (of the states
/// for `k == 0`). None for intervals made for one answer.
#[derive(Debug, Clone, Default)]
pub struct Pyramid<'a> {
    pub levels: Vec<LevelSlice<'a>>,
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
        assert!(
            t.levels.is_empty(),
            "no life has more than FANOUT intervals"
        );
    }

    #[test]
    fn levels_sum_the_runs_below_them() {
        use ThreadState::*;
        let row = |tid, n: i64| ThreadRow {
            tid,
            pid: None,
            comm: String::new(),
            start: 0,
            end: 10 * n,
            intervals: (0..n)
                .map(|i| Interval {
                    start: 10 * i,
                    end: 10 * i + 10,
                    state: [Running, Blocked, Unknown][i as usize % 3],
                })
                .collect(),
        };
        let n = (FANOUT * FANOUT + 5) as i64;
        let t = ThreadTable::from_rows(vec![row(1, 3), row(2, n), row(3, 70)]);
        assert_eq!(t.levels.len(), 2);
        let big = t.row(1).unwrap().pyramid;
        let l1 = big.levels[0];
        assert_eq!(l1.start.len(), (n as usize).div_ceil(FANOUT));
        assert_eq!(l1.start[1], 10 * FANOUT as i64);
        assert_eq!(l1.end[0], 10 * FANOUT as i64);
        let running: i64 = l1.time[code(Running) as usize].iter().sum();
        let blocked: i64 = l1.time[code(Blocked) as usize].iter().sum();
        assert_eq!(running, 10 * ((n + 2) / 3));
        assert_eq!(blocked, 10 * ((n + 1) / 3));
        let l2 = big.levels[1];
        assert_eq!(l2.start.len(), 2);
        assert_eq!(l2.end[1], 10 * n);
        assert_eq!(l2.time[0].iter().sum::<i64>(), running);
        // The small lives have their own entries, not their neighbours'.
        let small = t.row(2).unwrap().pyramid;
        assert_eq!(small.levels[0].start, &[0, 10 * FANOUT as i64]);
        assert_eq!(small.levels[1].start, &[0]);
        assert!(t.row(0).unwrap().pyramid.levels[0].start.len() == 1);
        // A stored table whose levels do not fit its lives is refused.
        let mut short = t.levels.clone();
        short[0] = short[1].clone();
        assert!(ThreadTable::new(t.lives.clone(), t.intervals.clone(), short).is_err());
    }

    #[test]
    fn every_state_has_a_code() {
        for s in STATES {
            assert_eq!(state_of(code(s)), Some(s));
        }
        assert_eq!(state_of(5), None);
    }
}
