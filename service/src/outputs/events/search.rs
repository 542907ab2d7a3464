//! Search expressions of the events table (`table_search_expressions`: a
//! regular expression per column, read by `queries::EventLines`) and
//! NEXT/PREVIOUS: the first matching line from the one asked for, read from
//! the trace a checkpoint block at a time.

use regex::Regex;

use super::{Plans, Row, Traces, CONTENTS, TID};
use crate::index::CHECKPOINT_EVERY;
use crate::params::Result;
use crate::queries::Direction;

/// Search expressions: (column, regular expression); a line matches when
/// every one finds a match in its column.
#[derive(Clone)]
pub(super) struct Search(pub(super) Vec<(usize, Regex)>);

impl Search {
    pub(super) fn matches(&self, row: &Row) -> bool {
        !self.0.is_empty() && self.0.iter().all(|(c, re)| re.is_match(&row.cell(*c)))
    }

    /// Whether the expressions on the columns a line has before its payload
    /// is decoded and its thread known (time, CPU, type) match `row`.
    pub(super) fn may_match(&self, row: &Row) -> bool {
        self.0
            .iter()
            .filter(|(c, _)| *c != TID && *c != CONTENTS)
            .all(|(c, re)| re.is_match(&row.cell(*c)))
    }

    /// Whether an expression reads `column`.
    pub(super) fn reads(&self, column: usize) -> bool {
        self.0.iter().any(|(c, _)| *c == column)
    }

    /// The expressions as written, by column: what tells two searches apart.
    pub(super) fn key(&self) -> Vec<(usize, String)> {
        let mut key: Vec<(usize, String)> = self
            .0
            .iter()
            .map(|(c, re)| (*c, re.as_str().to_string()))
            .collect();
        key.sort();
        key
    }
}

/// The first matching line from `from` on (or back), read from the trace.
pub(super) fn find(
    plans: &Plans,
    traces: &Traces<'_>,
    search: &Search,
    from: u64,
    dir: Direction,
) -> Result<Option<u64>> {
    let block = CHECKPOINT_EVERY;
    match dir {
        Direction::Next => {
            let mut pos = from;
            loop {
                let rows = traces.lines(plans, pos, block as usize)?;
                if rows.is_empty() {
                    return Ok(None);
                }
                if let Some(i) = rows.iter().position(|r| search.matches(r)) {
                    return Ok(Some(pos + i as u64));
                }
                pos += rows.len() as u64;
            }
        }
        Direction::Previous => {
            let mut last = from.min(traces.size().saturating_sub(1));
            loop {
                let start = last.saturating_sub(block - 1);
                let rows = traces.lines(plans, start, (last - start + 1) as usize)?;
                if let Some(i) = rows.iter().rposition(|r| search.matches(r)) {
                    return Ok(Some(start + i as u64));
                }
                if start == 0 {
                    return Ok(None);
                }
                last = start - 1;
            }
        }
    }
}
