//! A BTF file as an event source: each row, preceded or followed by the
//! canonical scheduling events the model derives from it.
//!
//! Rows are named `<type>_<action>` (`T_activate`, `R_start`, ...) with the
//! fields `source`, `source_instance`, `target`, `target_instance`, `note`
//! (empty when absent) and the model's `tid` (the row's thread, -1 for
//! none), `core` (-1 when unknown) and `state` (the target's state after
//! the row, empty for entities without states). The derived events are
//! `btf:sched_switch` (`prev_comm`, `prev_tid`, `prev_prio`, `prev_state`
//! 0 = runnable / 1 = blocked, `next_comm`, `next_tid`, `next_prio`),
//! `btf:sched_wakeup` and `btf:sched_wakeup_new` (`comm`, `tid`, `prio`; on
//! the CPU of the waker when known); their `btf:` prefix marks them as derived, and the
//! vocabulary reads them as the kernel's events of the same name.
//! Priorities are in kernel order (see `names::kernel_order`) and absent
//! when unknown.

use std::path::Path;

use super::classes::Classes;
use super::error::BtfError;
use super::model::{BtfModel, Derived, Outcome};
use super::reader::{BtfReader, Options, Row};
use crate::event::{Event, EventSource, ReadError};
use crate::value::{Scalar, Sink};

/// Class numbers of derived events, above every row class.
const DERIVED: u64 = 1 << 40;
const SWITCH: u64 = DERIVED;
const WAKEUP: u64 = DERIVED | 8;
/// Class bits: priorities present (switch: prev 1, next 2; wakeup: 1) and
/// a new thread (wakeup: 4).
const PRIO_A: u64 = 1;
const PRIO_B: u64 = 2;
const NEW: u64 = 4;

/// What the source yields next for the current row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Derived(Derived),
    Row,
}

pub struct BtfSource {
    reader: BtfReader,
    classes: Classes,
    model: BtfModel,
    /// The current row's class and outcome.
    class: u32,
    outcome: Outcome,
    items: [Option<Item>; 4],
    next: usize,
    current: Option<Item>,
}

impl BtfSource {
    pub fn open(path: &Path, options: Options) -> Result<BtfSource, BtfError> {
        Ok(BtfSource {
            reader: BtfReader::open(path, options)?,
            classes: Classes::default(),
            model: BtfModel::default(),
            class: 0,
            outcome: Outcome::default(),
            items: [None; 4],
            next: 4,
            current: None,
        })
    }

    pub fn reader(&self) -> &BtfReader {
        &self.reader
    }

    pub fn model(&self) -> &BtfModel {
        &self.model
    }

    fn read_row(&mut self) -> Result<bool, BtfError> {
        if !self.reader.advance()? {
            return Ok(false);
        }
        let row = self.reader.row().expect("advanced");
        self.class = self.classes.id(row.target_type(), row.action());
        let o = self.model.apply(&row, self.classes.get(self.class));
        self.outcome = o;
        self.items = [
            o.before[0].map(Item::Derived),
            o.before[1].map(Item::Derived),
            Some(Item::Row),
            o.after.map(Item::Derived),
        ];
        self.next = 0;
        Ok(true)
    }
}

impl EventSource for BtfSource {
    type Event<'s> = BtfEvent<'s>;

    fn advance(&mut self) -> Result<bool, ReadError> {
        loop {
            while self.next < self.items.len() {
                let item = self.items[self.next];
                self.next += 1;
                if item.is_some() {
                    self.current = item;
                    return Ok(true);
                }
            }
            if !self.read_row().map_err(ReadError::new)? {
                self.current = None;
                return Ok(false);
            }
        }
    }

    fn event(&self) -> Option<BtfEvent<'_>> {
        let item = self.current?;
        Some(BtfEvent {
            source: self,
            row: self.reader.row()?,
            item,
        })
    }

    fn seek(&mut self, ns: i64) -> Result<(), ReadError> {
        self.reader.seek(ns).map_err(ReadError::new)?;
        self.model.reset();
        self.items = [None; 4];
        self.next = self.items.len();
        self.current = None;
        Ok(())
    }

    fn progress(&self) -> (u64, u64) {
        self.reader.progress()
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = self.reader.warnings();
        let (count, first, coreless) = self.model.disagreements();
        if let Some((offset, what)) = first {
            w.push(format!(
                "{count} row{} did not follow the BTF state machines, the first at line {}: {what}",
                if count == 1 { "" } else { "s" },
                self.reader.line_at(*offset)
            ));
        }
        if coreless > 0 {
            w.push(format!(
                "{coreless} process row{} put a process on a core the row does not name: not shown as running",
                if coreless == 1 { "" } else { "s" }
            ));
        }
        w
    }
}

/// One event of a BTF source: a row, or an event derived from it.
#[derive(Clone, Copy)]
pub struct BtfEvent<'s> {
    source: &'s BtfSource,
    row: Row<'s>,
    item: Item,
}

impl<'s> BtfEvent<'s> {
    fn comm(&self, tid: i64) -> &'s [u8] {
        self.source.model.comm(tid)
    }

    fn prio(&self, tid: i64) -> Option<i32> {
        self.source.model.prio(tid)
    }
}

impl<'s> Event<'s> for BtfEvent<'s> {
    fn name(&self) -> &'s str {
        match self.item {
            Item::Row => &self.source.classes.get(self.source.class).name,
            Item::Derived(Derived::Switch { .. }) => "btf:sched_switch",
            Item::Derived(Derived::Wakeup { new: false, .. }) => "btf:sched_wakeup",
            Item::Derived(Derived::Wakeup { new: true, .. }) => "btf:sched_wakeup_new",
        }
    }

    fn ts(&self) -> i64 {
        self.row.ts
    }

    fn cpu(&self) -> Option<u32> {
        match self.item {
            Item::Row => self.source.outcome.cpu,
            Item::Derived(Derived::Switch { cpu, .. }) => Some(cpu),
            Item::Derived(Derived::Wakeup { cpu, .. }) => cpu,
        }
    }

    fn thread(&self) -> Option<i64> {
        match self.item {
            Item::Row => self.source.outcome.tid,
            Item::Derived(_) => None,
        }
    }

    fn class(&self) -> u64 {
        let bit = |known: bool, b: u64| if known { b } else { 0 };
        match self.item {
            Item::Row => u64::from(self.source.class),
            Item::Derived(Derived::Switch { prev, next, .. }) => {
                SWITCH
                    | bit(self.prio(prev).is_some(), PRIO_A)
                    | bit(self.prio(next).is_some(), PRIO_B)
            }
            Item::Derived(Derived::Wakeup { tid, new, .. }) => {
                WAKEUP | bit(self.prio(tid).is_some(), PRIO_A) | bit(new, NEW)
            }
        }
    }

    fn visit_fields<S: Sink<'s>>(&self, sink: &mut S) -> Result<(), ReadError> {
        sink.open(None, false);
        let int = |sink: &mut S, name: &str, v: i64| sink.scalar(Some(name), Scalar::Signed(v));
        let text = |sink: &mut S, name: &str, v: &'s [u8]| sink.scalar(Some(name), Scalar::Str(v));
        match self.item {
            Item::Row => {
                let r = &self.row;
                let o = &self.source.outcome;
                text(sink, "source", r.source());
                int(sink, "source_instance", r.source_instance());
                text(sink, "target", r.target());
                int(sink, "target_instance", r.target_instance());
                text(sink, "note", r.note());
                int(sink, "tid", o.tid.unwrap_or(-1));
                int(sink, "core", o.core.map_or(-1, i64::from));
                text(sink, "state", o.state.as_bytes());
            }
            Item::Derived(Derived::Switch {
                prev,
                prev_runnable,
                next,
                ..
            }) => {
                text(sink, "prev_comm", self.comm(prev));
                int(sink, "prev_tid", prev);
                if let Some(p) = self.prio(prev) {
                    int(sink, "prev_prio", i64::from(p));
                }
                int(sink, "prev_state", if prev_runnable { 0 } else { 1 });
                text(sink, "next_comm", self.comm(next));
                int(sink, "next_tid", next);
                if let Some(p) = self.prio(next) {
                    int(sink, "next_prio", i64::from(p));
                }
            }
            Item::Derived(Derived::Wakeup { tid, .. }) => {
                text(sink, "comm", self.comm(tid));
                int(sink, "tid", tid);
                if let Some(p) = self.prio(tid) {
                    int(sink, "prio", i64::from(p));
                }
            }
        }
        sink.close(false);
        Ok(())
    }
}
