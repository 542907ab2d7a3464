//! A thread's states sampled to a viewport: about one state per
//! `resolution` ns, whatever the number of intervals, reading only the
//! summary entries (the pyramid, `analysis::thread_table`) a drawing of
//! that resolution needs. What the TSP time graphs draw.

use std::ops::Range;

use crate::analysis::intervals::Interval;
use crate::analysis::thread_table::{code, state_of, Pyramid, States, COUNTED, FANOUT};
use crate::kernel::model::ThreadState;

/// One state as drawn: an interval, or several short ones merged and shown
/// as the state that took most of their time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub start: i64,
    pub end: i64,
    pub state: ThreadState,
}

/// The states of a row overlapping `[start, end]`, at most about one per
/// `resolution` ns: a state shorter than that is merged with its short
/// neighbours into one sample of the state that took most of it. A
/// summary entry of `pyramid` shorter than `resolution` is merged as a
/// whole, so that a drawing reads about as many entries as it has pixels.
pub fn sample(
    states: States<'_>,
    pyramid: &Pyramid<'_>,
    start: i64,
    end: i64,
    resolution: i64,
) -> Vec<Sample> {
    let mut d = Drawing {
        out: Vec::new(),
        group: None,
        start,
        end,
        resolution,
    };
    match pyramid.levels.last() {
        None => {
            d.states(states, 0..states.len());
        }
        Some(top) => {
            d.level(
                states,
                pyramid,
                pyramid.levels.len() - 1,
                0..top.start.len(),
            );
        }
    }
    d.flush();
    d.out
}

/// A drawing in progress: what is drawn, and the group of short states not
/// drawn yet (start, end, time per state code).
struct Drawing {
    out: Vec<Sample>,
    group: Option<(i64, i64, [i64; COUNTED])>,
    start: i64,
    end: i64,
    resolution: i64,
}

impl Drawing {
    fn emit(&mut self, start: i64, end: i64, state: ThreadState) {
        self.out.push(Sample { start, end, state });
    }

    fn flush(&mut self) {
        if let Some((s, e, time)) = self.group.take() {
            let dominant = (0..COUNTED).max_by_key(|&i| time[i]).unwrap_or(0);
            let state = state_of(dominant as u8).unwrap_or(ThreadState::Running);
            self.emit(s, e, state);
        }
    }

    /// Adds `[s, e)` with `time` per state code to the group, which starts
    /// again after a gap and is drawn once it covers `resolution`.
    fn merge(&mut self, s: i64, e: i64, time: impl Fn(usize) -> i64) {
        if self.group.is_some_and(|(_, ge, _)| ge != s) {
            self.flush();
        }
        let g = self.group.get_or_insert((s, s, [0; COUNTED]));
        g.1 = e;
        for (k, t) in g.2.iter_mut().enumerate() {
            *t += time(k);
        }
        if g.1 - g.0 >= self.resolution {
            self.flush();
        }
    }

    /// Draws the states `range`; false once past the end of the drawing.
    fn states(&mut self, states: States<'_>, range: Range<usize>) -> bool {
        // A whole row is searched; a run below a summary entry (at most
        // FANOUT) is walked, so as not to read pages outside it.
        let first = if range == (0..states.len()) {
            states.ending_by(self.start.saturating_sub(1))
        } else {
            range.start
        };
        for i in first..range.end {
            let Interval {
                start: s,
                end: e,
                state,
            } = states.get(i);
            if s > self.end {
                return false;
            }
            // Intervals ending at `start` are drawn too (they touch the range).
            if e < self.start {
                continue;
            }
            if e - s >= self.resolution {
                self.flush();
                self.emit(s, e, state);
                continue;
            }
            let k = usize::from(code(state));
            self.merge(s, e, |i| if i == k { e - s } else { 0 });
        }
        true
    }

    /// Draws the entries `range` of summary level `k` (0 is level 1): an
    /// entry shorter than the resolution as a whole, a longer one by the
    /// entries (or states) below it; false once past the end of the drawing.
    fn level(
        &mut self,
        states: States<'_>,
        pyramid: &Pyramid<'_>,
        k: usize,
        range: Range<usize>,
    ) -> bool {
        let l = pyramid.levels[k];
        let first = range.start + l.end[range.clone()].partition_point(|&e| e < self.start);
        for i in first..range.end {
            let (s, e) = (l.start[i], l.end[i]);
            if s > self.end {
                return false;
            }
            if e - s < self.resolution {
                self.merge(s, e, |state| l.time[state][i]);
                continue;
            }
            let below = i * FANOUT..(i + 1) * FANOUT;
            let more = match k {
                0 => self.states(states, below.start..below.end.min(states.len())),
                _ => {
                    let n = pyramid.levels[k - 1].start.len();
                    self.level(states, pyramid, k - 1, below.start..below.end.min(n))
                }
            };
            if !more {
                return false;
            }
        }
        true
    }
}
