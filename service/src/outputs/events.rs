//! The events table every experiment has: one line per event (time, CPU,
//! type, thread, payload), read from the trace files on request.
//!
//! Nothing per event is kept in memory. Indexing records a checkpoint every
//! `CHECKPOINT_EVERY` events (`index::Checkpoint`: its time, and each CPU's
//! current thread); a request seeks the reader to the nearest checkpoint at
//! or before the first line asked for (`EventSource::seek`, or, on a reader
//! that cannot seek, a read from the start that steps over events without
//! decoding them) and runs the kernel model from there, so that each line gets its
//! thread. An experiment of several traces is their merge in time order (ties
//! in trace order); its checkpoints are found once, on the first request, by
//! one pass over each trace reading times only.
//!
//! With `isFiltered` the table is the lines the search expressions match,
//! numbered by rank among the matches (`filter`).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use sextant_engine::event::{Event, ReadError};
use sextant_engine::kernel::model::{KEvent, KernelModel};
use sextant_engine::kernel::pass::Analysis;
use sextant_engine::reader::OpenOptions;
use sextant_engine::run::{Flow, RunError, Tap, Work};
use sextant_engine::session::Session;
use sextant_engine::sync::Correction;
use sextant_engine::value::{Scalar, Sink};
use uuid::Uuid;

use crate::index::{Checkpoint, TraceIndex, CHECKPOINT_EVERY};
use crate::params::{ErrorKind, Result, ServiceError};
use crate::provider::{columns, no_styles, Output, Query};
use crate::queries::{At, Direction, EventLines};
use crate::reply::{completed, data, Status};
use crate::traces::ExperimentEntry;

mod filter;
mod search;

use filter::{Filters, Progress};
use search::{find, Search};

/// Trace Compass's id for its events table, so that clients special-casing
/// it work.
pub const EVENTS_TABLE: &str =
    "org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider";

/// (name, description, data type) of each column; the id is the position.
const COLUMNS: [(&str, &str, &str); 5] = [
    ("Timestamp ns", "Time of the event (ns)", "TIMESTAMP"),
    ("CPU", "CPU the event was recorded on", "NUMBER"),
    ("Event type", "Event name as written in the trace", "STRING"),
    (
        "TID",
        "Thread the event belongs to (the one switched out, for sched_switch)",
        "NUMBER",
    ),
    (
        "Contents",
        "Payload fields, name=value, nested values as JSON",
        "STRING",
    ),
];

/// The TID column's id.
const TID: usize = 3;
/// The Contents column's id.
const CONTENTS: usize = 4;

/// The line tag of a search match (the spec's HIGHLIGHT bit).
const MATCH_TAG: i64 = 8;

/// Most lines answered at once: a request's memory is bounded by this.
const MAX_COUNT: u64 = 65_536;

/// One line of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub ts: i64,
    pub cpu: Option<u32>,
    pub name: String,
    pub tid: Option<i64>,
    pub contents: String,
}

impl Row {
    fn cell(&self, column: usize) -> Cow<'_, str> {
        match column {
            0 => self.ts.to_string().into(),
            1 => self.cpu.map(|c| c.to_string()).unwrap_or_default().into(),
            2 => self.name.as_str().into(),
            TID => self.tid.map(|t| t.to_string()).unwrap_or_default().into(),
            _ => self.contents.as_str().into(),
        }
    }

    /// The line of `ev` without its payload, its thread the tracer's (the
    /// model's comes after).
    fn of<'s, E: Event<'s>>(ev: &E) -> Row {
        Row {
            ts: ev.ts(),
            cpu: ev.cpu(),
            name: ev.name().to_string(),
            tid: ev.thread(),
            contents: String::new(),
        }
    }
}

/// Writes a payload as `name=value, ...`: top-level strings bare, nested
/// values as JSON, members in the trace's order.
#[derive(Default)]
struct Contents {
    out: String,
    /// Per open container: whether it has a member yet.
    first: Vec<bool>,
}

impl Contents {
    fn member(&mut self, name: Option<&str>) {
        let depth = self.first.len();
        if let Some(first) = self.first.last_mut() {
            if !*first {
                self.out.push_str(if depth == 1 { ", " } else { "," });
            }
            *first = false;
        }
        match (depth, name) {
            (1, Some(n)) => {
                self.out.push_str(n);
                self.out.push('=');
            }
            (d, Some(n)) if d > 1 => {
                self.out.push_str(&Value::from(n).to_string());
                self.out.push(':');
            }
            _ => {}
        }
    }
}

impl<'d> Sink<'d> for Contents {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
        self.member(name);
        let top = self.first.len() == 1;
        match v {
            Scalar::Unsigned(u) => self.out.push_str(&u.to_string()),
            Scalar::Signed(i) => self.out.push_str(&i.to_string()),
            Scalar::Float(f) => self.out.push_str(&f.to_string()),
            Scalar::Str(s) if top => self.out.push_str(&String::from_utf8_lossy(s)),
            Scalar::Str(s) => self
                .out
                .push_str(&Value::from(String::from_utf8_lossy(s)).to_string()),
        }
    }

    fn open(&mut self, name: Option<&str>, list: bool) {
        if !self.first.is_empty() {
            self.member(name);
            self.out.push(if list { '[' } else { '{' });
        }
        self.first.push(true);
    }

    fn close(&mut self, list: bool) {
        self.first.pop();
        if !self.first.is_empty() {
            self.out.push(if list { ']' } else { '}' });
        }
    }
}

/// What the reader and the model share while lines are collected.
struct Collected {
    rows: Vec<Row>,
    /// Whether the event just read is a line (its thread comes next).
    pending: bool,
    /// Whether the last line is still to be tested against the search
    /// (once the model has given it its thread).
    unsettled: bool,
    snapshot: Box<[Option<i64>]>,
    /// The trace's times onto the experiment's timeline.
    on: Correction,
}

impl Collected {
    fn new(snapshot: Box<[Option<i64>]>, capacity: usize, on: Correction) -> Collected {
        Collected {
            rows: Vec::with_capacity(capacity),
            pending: false,
            unsettled: false,
            snapshot,
            on,
        }
    }

    /// Adds the line of `ev`, its payload decoded when `contents`, unless
    /// `keep` cannot match it: the expressions on its time, CPU and type are
    /// tested first, so that a line that fails them costs no decoding.
    fn offer<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        keep: Option<&Search>,
        contents: bool,
    ) -> std::result::Result<(), ReadError> {
        let mut row = Row::of(ev);
        // Searched and shown on the experiment's timeline.
        row.ts = self.on.apply(row.ts);
        if keep.is_some_and(|s| !s.may_match(&row)) {
            return Ok(());
        }
        if contents {
            let mut fields = Contents::default();
            ev.visit_fields(&mut fields)?;
            row.contents = fields.out;
        }
        self.rows.push(row);
        self.pending = true;
        self.unsettled = true;
        Ok(())
    }

    /// Drops the last line unless `keep` matches it (every line is kept
    /// without a search).
    fn settle(&mut self, keep: Option<&Search>) {
        if !std::mem::take(&mut self.unsettled) {
            return;
        }
        if let (Some(search), Some(row)) = (keep, self.rows.last()) {
            if !search.matches(row) {
                self.rows.pop();
            }
        }
    }
}

/// Which lines a read collects: at most `n` of the events numbered
/// `from..end`, only those `keep` matches when there is a search.
#[derive(Clone, Copy)]
struct Want<'s> {
    from: u64,
    end: u64,
    n: usize,
    keep: Option<&'s Search>,
}

impl Want<'_> {
    /// `n` lines from event `from` on, every one.
    fn all(from: u64, n: usize) -> Want<'static> {
        Want {
            from,
            end: from.saturating_add(n as u64),
            n,
            keep: None,
        }
    }
}

/// Collects the lines of a read starting at a checkpoint: steps over the
/// `silent` events before it, records the lines `want` asks for, and ends
/// the read when it has them.
struct Lines<'s> {
    silent: u64,
    /// Number of the next event in the trace.
    index: u64,
    want: Want<'s>,
    shared: Rc<RefCell<Collected>>,
}

impl Tap for Lines<'_> {
    fn event<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        _: &KernelModel,
    ) -> std::result::Result<Flow, ReadError> {
        if self.silent > 0 {
            self.silent -= 1;
            return Ok(Flow::Skip);
        }
        let mut shared = self.shared.borrow_mut();
        shared.pending = false;
        shared.settle(self.want.keep);
        let i = self.index;
        if shared.rows.len() >= self.want.n || i >= self.want.end {
            return Ok(Flow::Stop);
        }
        self.index += 1;
        if i >= self.want.from {
            shared.offer(ev, self.want.keep, true)?;
        }
        Ok(Flow::Apply)
    }
}

/// Gives each line its thread: the model's (the tracer's attribution, or the
/// CPU's current thread), else the checkpoint's for that CPU when the model,
/// started at the checkpoint, has not yet seen a switch there.
struct Attribution {
    shared: Rc<RefCell<Collected>>,
}

impl Analysis for Attribution {
    fn wants(&self, _canonical: &str) -> bool {
        true
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, _model: &KernelModel) {
        let mut shared = self.shared.borrow_mut();
        if !shared.pending {
            return;
        }
        let known = ev
            .cpu
            .and_then(|c| shared.snapshot.get(c as usize).copied().flatten());
        if let Some(row) = shared.rows.last_mut() {
            row.tid = thread.or(known);
        }
        shared.pending = false;
    }

    fn finish(&mut self, _model: &KernelModel, _end: i64) {}
}

/// The lines `want` asks of the trace at `path`, starting at `checkpoint`
/// (its event number and itself) — after a seek to its time when `seek`,
/// else by stepping over the events before it; their times moved by `on`.
fn read_lines(
    path: &Path,
    want: Want<'_>,
    checkpoint: Option<(u64, &Checkpoint)>,
    seek: bool,
    on: Correction,
) -> std::result::Result<Vec<Row>, RunError> {
    let (start, silent, snapshot, seek_to) = match checkpoint {
        None => (0, 0, Box::default(), None),
        Some((number, cp)) if !seek => (number, number, cp.cpus.clone(), None),
        Some((number, cp)) => (number, cp.skip, cp.cpus.clone(), Some(cp.ts)),
    };
    let shared = Rc::new(RefCell::new(Collected::new(snapshot, want.n.min(4096), on)));
    let mut lines = Lines {
        silent,
        index: start,
        want,
        shared: shared.clone(),
    };
    let mut attribution = Attribution {
        shared: shared.clone(),
    };
    let mut analyses: [&mut dyn Analysis; 1] = [&mut attribution];
    Session::open(path, OpenOptions::default(), None).read_events(
        seek_to,
        &mut analyses,
        &mut lines,
        &Work::none(),
    )?;
    drop(lines);
    drop(attribution);
    Ok(Rc::try_unwrap(shared)
        .map(|c| {
            let mut c = c.into_inner();
            // The last line read has its thread now.
            c.settle(want.keep);
            c.rows
        })
        .unwrap_or_default())
}

/// The error of a failed read of the trace at `path`.
pub fn read_error(path: &Path, e: RunError) -> ServiceError {
    ServiceError::new(
        ErrorKind::Internal,
        "Error reading the experiment",
        format!("{}: {e}", path.display()),
    )
}

/// The lines `want` asks of the trace at `path`, its times moved by `on`.
fn read_trace(path: &Path, ix: &TraceIndex, want: Want<'_>, on: Correction) -> Result<Vec<Row>> {
    if want.n == 0 || want.from >= ix.events.min(want.end) {
        return Ok(Vec::new());
    }
    let k = (want.from / CHECKPOINT_EVERY) as usize;
    let checkpoint = (k > 0)
        .then(|| ix.checkpoints.get(k))
        .flatten()
        .map(|cp| (k as u64 * CHECKPOINT_EVERY, cp));
    let fail = |e: RunError| read_error(path, e);
    match read_lines(path, want, checkpoint, true, on) {
        Ok(rows) => Ok(rows),
        // Read again from the start, stepping over what is before.
        Err(RunError::CannotSeek(_)) => read_lines(path, want, checkpoint, false, on).map_err(fail),
        Err(e) => Err(fail(e)),
    }
}

/// Where the merged events of an experiment can be read from: at line
/// `global`, trace `k` is at its event number `locals[k]`; every line before
/// it is earlier than `ts`.
#[derive(Debug, Clone)]
struct Start {
    ts: i64,
    global: u64,
    locals: Vec<u64>,
}

/// The experiments' merge points, found once per experiment.
#[derive(Default)]
pub struct Plans {
    plans: Mutex<HashMap<Uuid, Arc<Vec<Start>>>>,
}

impl Plans {
    fn forget(&self, exp: Uuid) {
        self.plans.lock().expect("not poisoned").remove(&exp);
    }
}

/// Counts, for each time of `times` (sorted, on the experiment's
/// timeline), the events earlier than it; reads times only (no event
/// reaches the model).
struct CountBefore<'t> {
    times: &'t [i64],
    /// The trace's times onto the experiment's timeline.
    on: Correction,
    counts: Vec<u64>,
    seen: u64,
}

impl Tap for CountBefore<'_> {
    fn event<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        _: &KernelModel,
    ) -> std::result::Result<Flow, ReadError> {
        let ts = self.on.apply(ev.ts());
        while self.counts.len() < self.times.len() && self.times[self.counts.len()] <= ts {
            self.counts.push(self.seen);
        }
        self.seen += 1;
        Ok(Flow::Skip)
    }
}

/// For each time of `times` (sorted, on the experiment's timeline), the
/// events of the trace at `path` (its times moved by `on`) earlier than it.
fn count_before(
    path: &Path,
    times: &[i64],
    on: Correction,
) -> std::result::Result<Vec<u64>, RunError> {
    let mut tap = CountBefore {
        times,
        on,
        counts: Vec::with_capacity(times.len()),
        seen: 0,
    };
    Session::open(path, OpenOptions::default(), None).read_events(
        None,
        &mut [],
        &mut tap,
        &Work::none(),
    )?;
    let (mut counts, seen) = (tap.counts, tap.seen);
    counts.resize(times.len(), seen);
    Ok(counts)
}

/// The experiment's traces with their indexes.
struct Traces<'a> {
    entry: &'a ExperimentEntry,
    indexes: Vec<Arc<TraceIndex>>,
}

impl Traces<'_> {
    fn size(&self) -> u64 {
        self.indexes.iter().map(|ix| ix.events).sum()
    }

    /// Trace `k`'s times onto the experiment's timeline.
    fn on(&self, k: usize) -> Correction {
        self.entry.timeline.of(k)
    }

    /// Merge points of several traces: at each checkpoint time of any trace
    /// (on the experiment's timeline).
    fn plan(&self, plans: &Plans) -> Result<Arc<Vec<Start>>> {
        if let Some(p) = plans
            .plans
            .lock()
            .expect("not poisoned")
            .get(&self.entry.uuid)
        {
            return Ok(p.clone());
        }
        let mut times: Vec<i64> = self
            .indexes
            .iter()
            .enumerate()
            .flat_map(|(k, ix)| {
                let on = self.on(k);
                ix.checkpoints.iter().skip(1).map(move |c| on.apply(c.ts))
            })
            .collect();
        times.sort_unstable();
        times.dedup();
        let mut per_trace = Vec::new();
        for (k, (t, ix)) in self.entry.traces.iter().zip(&self.indexes).enumerate() {
            let counts = if ix.events == 0 {
                vec![0; times.len()]
            } else {
                count_before(&t.path, &times, self.on(k)).map_err(|e| read_error(&t.path, e))?
            };
            per_trace.push(counts);
        }
        let mut plan = vec![Start {
            ts: i64::MIN,
            global: 0,
            locals: vec![0; self.indexes.len()],
        }];
        for (j, &ts) in times.iter().enumerate() {
            let locals: Vec<u64> = per_trace.iter().map(|c| c[j]).collect();
            plan.push(Start {
                ts,
                global: locals.iter().sum(),
                locals,
            });
        }
        let plan = Arc::new(plan);
        plans
            .plans
            .lock()
            .expect("not poisoned")
            .insert(self.entry.uuid, plan.clone());
        Ok(plan)
    }

    /// Lines `lo..lo + n` of the merged table.
    fn lines(&self, plans: &Plans, lo: u64, n: usize) -> Result<Vec<Row>> {
        if let [ix] = &self.indexes[..] {
            return read_trace(&self.entry.traces[0].path, ix, Want::all(lo, n), self.on(0));
        }
        let plan = self.plan(plans)?;
        let start = &plan[plan.partition_point(|s| s.global <= lo).max(1) - 1];
        let skip = (lo - start.global) as usize;
        let need = skip + n;
        let mut all: Vec<(i64, usize, usize, Row)> = Vec::new();
        for (k, (t, ix)) in self.entry.traces.iter().zip(&self.indexes).enumerate() {
            let rows = read_trace(&t.path, ix, Want::all(start.locals[k], need), self.on(k))?;
            all.extend(rows.into_iter().enumerate().map(|(i, r)| (r.ts, k, i, r)));
        }
        all.sort_by_key(|(ts, k, i, _)| (*ts, *k, *i));
        Ok(all.into_iter().skip(skip).take(n).map(|x| x.3).collect())
    }

    /// The number of the first line at or after `t`.
    fn line_at(&self, plans: &Plans, t: i64) -> Result<u64> {
        let mut pos = if let [ix] = &self.indexes[..] {
            let on = self.on(0);
            let k = ix
                .checkpoints
                .partition_point(|c| on.apply(c.ts) < t)
                .max(1)
                - 1;
            k as u64 * CHECKPOINT_EVERY
        } else {
            let plan = self.plan(plans)?;
            plan[plan.partition_point(|s| s.ts < t).max(1) - 1].global
        };
        loop {
            let block = self.lines(plans, pos, CHECKPOINT_EVERY as usize)?;
            if block.is_empty() {
                return Ok(pos);
            }
            if let Some(i) = block.iter().position(|r| r.ts >= t) {
                return Ok(pos + i as u64);
            }
            pos += block.len() as u64;
        }
    }
}

/// The events table, where each several-trace experiment's table merges,
/// and the filters' match counts.
#[derive(Default)]
pub struct EventsTable {
    plans: Plans,
    filters: Filters,
}

impl Output for EventsTable {
    fn descriptor(&self) -> Value {
        json!({
            "id": EVENTS_TABLE,
            "name": "Events Table",
            "description": "Every event: time, CPU, type, thread, payload",
            "type": "TABLE",
        })
    }

    fn style(&self, _: &Query<'_>) -> Result<Value> {
        no_styles()
    }

    fn table_columns(&self, _: &Query<'_>) -> Result<Value> {
        columns(&COLUMNS)
    }

    fn forget(&self, exp: Uuid) {
        self.plans.forget(exp);
        self.filters.forget(exp);
    }

    fn table_lines(&self, q: &Query<'_>) -> Result<Value> {
        let e = q.exp;
        let EventLines {
            at,
            count,
            columns,
            search,
            filtered,
            direction,
        } = EventLines::parse(q.body, COLUMNS.len())?;
        let search = Search(search);
        let empty = |size: u64, low: u64| json!({"columnIds": columns, "lowIndex": low, "size": size, "lines": []});
        let indexes = match e.indexes()? {
            Ok(ix) => ix,
            Err(m) => return Ok(data(empty(0, 0), Status::Running, m)),
        };
        let traces = Traces { entry: e, indexes };
        // A filtered table's lines are the matches, counted first.
        let matches = if filtered {
            match self.filters.matches(&traces, &self.plans, &search)? {
                Progress::Counted(m) => Some(m),
                Progress::Running(percent) => {
                    let low = match at {
                        At::Index(i) => i,
                        At::Time(_) => 0,
                    };
                    let m = format!("Filtering: {percent}%");
                    return Ok(data(empty(0, low), Status::Running, m));
                }
            }
        } else {
            None
        };
        let size = matches.as_ref().map_or_else(|| traces.size(), |m| m.size());
        let mut low = match (at, &matches) {
            (At::Index(i), _) => i,
            (At::Time(t), None) => traces.line_at(&self.plans, t)?,
            (At::Time(t), Some(m)) => m.line_at(&traces, &search, t)?,
        };
        if let Some(dir) = direction.filter(|_| !search.0.is_empty()) {
            let found = match (&matches, dir) {
                (None, _) => find(&self.plans, &traces, &search, low, dir)?,
                // Every line of a filtered table matches.
                (Some(_), Direction::Next) => (low < size).then_some(low),
                (Some(_), Direction::Previous) => (size > 0).then(|| low.min(size - 1)),
            };
            match found {
                Some(m) => low = m,
                None => return Ok(data(empty(size, low), Status::Completed, "No match")),
            }
        }
        let n = count.min(MAX_COUNT) as usize;
        let rows = match &matches {
            Some(m) => m.lines(&traces, &search, low, n)?,
            None => traces.lines(&self.plans, low, n)?,
        };
        let lines: Vec<Value> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let cells: Vec<Value> = columns
                    .iter()
                    .map(|&c| json!({"content": r.cell(c)}))
                    .collect();
                let mut line = json!({"index": low + i as u64, "cells": cells});
                if search.matches(r) {
                    line["tags"] = json!(MATCH_TAG);
                }
                line
            })
            .collect();
        Ok(completed(
            json!({"columnIds": columns, "lowIndex": low, "size": size, "lines": lines}),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_are_name_value_pairs_in_order() {
        let mut c = Contents::default();
        c.open(None, false);
        c.scalar(Some("z"), Scalar::Signed(-1));
        c.scalar(Some("comm"), Scalar::Str(b"x \"y\""));
        c.open(Some("arr"), true);
        c.scalar(None, Scalar::Unsigned(1));
        c.scalar(None, Scalar::Unsigned(2));
        c.close(true);
        c.open(Some("s"), false);
        c.scalar(Some("k"), Scalar::Str(b"v"));
        c.close(false);
        c.close(false);
        assert_eq!(c.out, r#"z=-1, comm=x "y", arr=[1,2], s={"k":"v"}"#);
        let mut empty = Contents::default();
        empty.open(None, false);
        empty.close(false);
        assert_eq!(empty.out, "");
    }
}
