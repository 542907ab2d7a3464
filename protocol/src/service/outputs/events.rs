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

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use regex::Regex;
use serde_json::{json, Value};
use sextant_engine::event::{Event, ReadError};
use sextant_engine::kernel::model::{KEvent, KernelModel};
use sextant_engine::kernel::pass::Analysis;
use sextant_engine::run::{Flow, Pass, RunError, Tap, Work};
use sextant_engine::value::{Scalar, Sink};
use uuid::Uuid;

use crate::service::index::{Checkpoint, TraceIndex, CHECKPOINT_EVERY};
use crate::service::params::{self, ErrorKind, Result, ServiceError};
use crate::service::provider::{columns, no_styles, Output, Query};
use crate::service::reply::data;
use crate::service::traces::ExperimentEntry;

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

/// The line tag of a search match (the spec's HIGHLIGHT bit).
const MATCH_TAG: i64 = 8;

/// Most lines answered at once: a request's memory is bounded by this.
const MAX_COUNT: i64 = 65_536;

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
    fn cell(&self, column: usize) -> String {
        match column {
            0 => self.ts.to_string(),
            1 => self.cpu.map(|c| c.to_string()).unwrap_or_default(),
            2 => self.name.clone(),
            3 => self.tid.map(|t| t.to_string()).unwrap_or_default(),
            _ => self.contents.clone(),
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
    snapshot: Box<[Option<i64>]>,
}

/// Collects the lines of a read starting at a checkpoint: steps over the
/// `silent` events before it, records the lines from `from` on, and ends the
/// read after `n` of them.
struct Lines {
    silent: u64,
    /// Number of the next event in the trace.
    index: u64,
    from: u64,
    n: usize,
    shared: Rc<RefCell<Collected>>,
}

impl Tap for Lines {
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
        if shared.rows.len() >= self.n {
            return Ok(Flow::Stop);
        }
        let i = self.index;
        self.index += 1;
        if i >= self.from {
            let mut contents = Contents::default();
            ev.visit_fields(&mut contents)?;
            shared.rows.push(Row {
                ts: ev.ts(),
                cpu: ev.cpu(),
                name: ev.name().to_string(),
                tid: ev.thread(),
                contents: contents.out,
            });
            shared.pending = true;
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

/// `n` lines of the trace at `path` from event number `from`, starting at
/// `checkpoint` (its event number and itself) — after a seek to its time
/// when `seek`, else by stepping over the events before it.
fn read_lines(
    path: &Path,
    from: u64,
    n: usize,
    checkpoint: Option<(u64, &Checkpoint)>,
    seek: bool,
) -> std::result::Result<Vec<Row>, RunError> {
    let (start, silent, snapshot, seek_to) = match checkpoint {
        None => (0, 0, Box::default(), None),
        Some((number, cp)) if !seek => (number, number, cp.cpus.clone(), None),
        Some((number, cp)) => (number, cp.skip, cp.cpus.clone(), Some(cp.ts)),
    };
    let shared = Rc::new(RefCell::new(Collected {
        rows: Vec::with_capacity(n.min(4096)),
        pending: false,
        snapshot,
    }));
    let mut lines = Lines {
        silent,
        index: start,
        from,
        n,
        shared: shared.clone(),
    };
    let mut attribution = Attribution {
        shared: shared.clone(),
    };
    let mut analyses: [&mut dyn Analysis; 1] = [&mut attribution];
    let mut pass = Pass::new(&mut analyses).tap(&mut lines);
    if let Some(ts) = seek_to {
        pass = pass.from(ts);
    }
    pass.read(path, &Work::none())?;
    drop(lines);
    drop(attribution);
    Ok(Rc::try_unwrap(shared)
        .map(|c| c.into_inner().rows)
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

/// `n` lines of the trace at `path` from its event number `from`.
fn read_trace(path: &Path, ix: &TraceIndex, from: u64, n: usize) -> Result<Vec<Row>> {
    if n == 0 || from >= ix.events {
        return Ok(Vec::new());
    }
    let k = (from / CHECKPOINT_EVERY) as usize;
    let checkpoint = (k > 0)
        .then(|| ix.checkpoints.get(k))
        .flatten()
        .map(|cp| (k as u64 * CHECKPOINT_EVERY, cp));
    let fail = |e: RunError| read_error(path, e);
    match read_lines(path, from, n, checkpoint, true) {
        Ok(rows) => Ok(rows),
        // Read again from the start, stepping over what is before.
        Err(RunError::CannotSeek(_)) => read_lines(path, from, n, checkpoint, false).map_err(fail),
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

/// Counts, for each time of `times` (sorted), the events earlier than it;
/// reads times only (no event reaches the model).
struct CountBefore<'t> {
    times: &'t [i64],
    counts: Vec<u64>,
    seen: u64,
}

impl Tap for CountBefore<'_> {
    fn event<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        _: &KernelModel,
    ) -> std::result::Result<Flow, ReadError> {
        let ts = ev.ts();
        while self.counts.len() < self.times.len() && self.times[self.counts.len()] <= ts {
            self.counts.push(self.seen);
        }
        self.seen += 1;
        Ok(Flow::Skip)
    }
}

/// For each time of `times` (sorted), the events of the trace at `path`
/// earlier than it.
fn count_before(path: &Path, times: &[i64]) -> std::result::Result<Vec<u64>, RunError> {
    let mut tap = CountBefore {
        times,
        counts: Vec::with_capacity(times.len()),
        seen: 0,
    };
    Pass::new(&mut []).tap(&mut tap).read(path, &Work::none())?;
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

    /// Merge points of several traces: at each checkpoint time of any trace.
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
            .flat_map(|ix| ix.checkpoints.iter().skip(1).map(|c| c.ts))
            .collect();
        times.sort_unstable();
        times.dedup();
        let mut per_trace = Vec::new();
        for (t, ix) in self.entry.traces.iter().zip(&self.indexes) {
            let counts = if ix.events == 0 {
                vec![0; times.len()]
            } else {
                count_before(&t.path, &times).map_err(|e| read_error(&t.path, e))?
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
            return read_trace(&self.entry.traces[0].path, ix, lo, n);
        }
        let plan = self.plan(plans)?;
        let start = &plan[plan.partition_point(|s| s.global <= lo).max(1) - 1];
        let skip = (lo - start.global) as usize;
        let need = skip + n;
        let mut all: Vec<(i64, usize, usize, Row)> = Vec::new();
        for (k, (t, ix)) in self.entry.traces.iter().zip(&self.indexes).enumerate() {
            let rows = read_trace(&t.path, ix, start.locals[k], need)?;
            all.extend(rows.into_iter().enumerate().map(|(i, r)| (r.ts, k, i, r)));
        }
        all.sort_by_key(|(ts, k, i, _)| (*ts, *k, *i));
        Ok(all.into_iter().skip(skip).take(n).map(|x| x.3).collect())
    }

    /// The number of the first line at or after `t`.
    fn line_at(&self, plans: &Plans, t: i64) -> Result<u64> {
        let mut pos = if let [ix] = &self.indexes[..] {
            let k = ix.checkpoints.partition_point(|c| c.ts < t).max(1) - 1;
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

/// Search expressions: (column, regular expression); a line matches when
/// every one finds a match in its column.
struct Search(Vec<(usize, Regex)>);

impl Search {
    fn from_params(p: &params::Params<'_>) -> Result<Search> {
        let Some(v) = p.raw("table_search_expressions") else {
            return Ok(Search(Vec::new()));
        };
        let Some(m) = v.as_object() else {
            return Err(ServiceError::bad_request(
                "parameters.table_search_expressions: expected an object {columnId: regex}",
            ));
        };
        let mut out = Vec::new();
        for (k, e) in m {
            let field = format!("parameters.table_search_expressions.{k}");
            let column = k
                .parse::<usize>()
                .ok()
                .filter(|&c| c < COLUMNS.len())
                .ok_or_else(|| {
                    ServiceError::bad_request(format!(
                        "{field}: no column has id {k} (0..{})",
                        COLUMNS.len() - 1
                    ))
                })?;
            let text = e.as_str().ok_or_else(|| {
                ServiceError::bad_request(format!("{field}: expected a regular expression"))
            })?;
            if text.is_empty() {
                continue;
            }
            let re =
                Regex::new(text).map_err(|x| ServiceError::bad_request(format!("{field}: {x}")))?;
            out.push((column, re));
        }
        Ok(Search(out))
    }

    fn matches(&self, row: &Row) -> bool {
        !self.0.is_empty() && self.0.iter().all(|(c, re)| re.is_match(&row.cell(*c)))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Next,
    Previous,
}

/// The events table, and where each several-trace experiment's table merges.
#[derive(Default)]
pub struct EventsTable {
    plans: Plans,
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

    fn table_lines(&self, q: &Query<'_>) -> Result<Value> {
        let e = q.exp;
        let body = q.body;
        let p = params::parameters(body)?;
        let index = p.opt_i64("requested_table_index")?;
        let times = p.opt_i64_array("requested_times")?;
        let count = p.opt_i64("requested_table_count")?.unwrap_or(100);
        if count < 0 || index.is_some_and(|i| i < 0) {
            return Err(ServiceError::bad_request(
                "parameters.requested_table_index, requested_table_count: must not be negative",
            ));
        }
        let columns: Vec<usize> = match p.opt_i64_array("requested_table_column_ids")? {
            Some(ids) if !ids.is_empty() => {
                for &c in &ids {
                    if c < 0 || c as usize >= COLUMNS.len() {
                        return Err(ServiceError::bad_request(format!(
                            "parameters.requested_table_column_ids: no column has id {c}"
                        )));
                    }
                }
                ids.into_iter().map(|c| c as usize).collect()
            }
            _ => (0..COLUMNS.len()).collect(),
        };
        let search = Search::from_params(&p)?;
        let direction = match p.opt_str("table_search_direction")? {
            None => None,
            Some(d) if d.eq_ignore_ascii_case("next") => Some(Direction::Next),
            Some(d) if d.eq_ignore_ascii_case("previous") => Some(Direction::Previous),
            Some(d) => {
                return Err(ServiceError::bad_request(format!(
                    "parameters.table_search_direction: expected NEXT or PREVIOUS, got {d}"
                )))
            }
        };
        let empty = |size: u64, low: u64| json!({"columnIds": columns, "lowIndex": low, "size": size, "lines": []});
        let indexes = match e.indexes()? {
            Ok(ix) => ix,
            Err(m) => return Ok(data(empty(0, 0), "RUNNING", m)),
        };
        let traces = Traces { entry: e, indexes };
        let size = traces.size();
        let mut low = match (index, times.as_deref()) {
            (Some(i), _) => i as u64,
            (None, Some([t, ..])) => traces.line_at(&self.plans, *t)?,
            (None, _) => 0,
        };
        if let Some(dir) = direction.filter(|_| !search.0.is_empty()) {
            match find(&self.plans, &traces, &search, low, dir)? {
                Some(m) => low = m,
                None => return Ok(data(empty(size, low), "COMPLETED", "No match")),
            }
        }
        let n = count.min(MAX_COUNT) as usize;
        let rows = traces.lines(&self.plans, low, n)?;
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
        Ok(data(
            json!({"columnIds": columns, "lowIndex": low, "size": size, "lines": lines}),
            "COMPLETED",
            "Completed",
        ))
    }
}

/// The first matching line from `from` on (or back).
fn find(
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
