//! Recording, in the single pass, the canonical event types of the chosen
//! threads: one sequence of type ids per thread, at most `max_events` events
//! in all (four bytes each).

use std::collections::HashMap;

use crate::analysis::model::ThreadFilter;
use crate::kernel::model::{KEvent, KernelModel};
use crate::kernel::pass::Analysis;

/// The event types of each chosen thread, in time order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sequences {
    /// Canonical event names, by type id.
    pub names: Vec<String>,
    /// Thread id and its events' type ids, by thread id.
    pub threads: Vec<(i64, Vec<u32>)>,
    /// `max_events` was reached: later events were not recorded.
    pub truncated: bool,
}

impl Sequences {
    /// Events recorded, over all threads.
    pub fn events(&self) -> usize {
        self.threads.iter().map(|(_, s)| s.len()).sum()
    }

    /// The type id of a canonical name, if any recorded event has it.
    pub fn id_of(&self, name: &str) -> Option<u32> {
        self.names.iter().position(|n| n == name).map(|i| i as u32)
    }
}

/// The analysis that fills `Sequences`: it wants every event, and keeps those
/// whose thread the filter accepts (by its name at the time of the event).
pub struct Collector {
    filter: ThreadFilter,
    max_events: usize,
    ids: HashMap<String, u32>,
    names: Vec<String>,
    seqs: HashMap<i64, Vec<u32>>,
    /// Per thread, the last name seen and whether the filter accepted it.
    accepted: HashMap<i64, (String, bool)>,
    events: usize,
    truncated: bool,
}

impl Collector {
    /// `max_events` is capped so that a position fits in a `u32`.
    pub fn new(filter: ThreadFilter, max_events: usize) -> Collector {
        Collector {
            filter,
            max_events: max_events.min(u32::MAX as usize - 1),
            ids: HashMap::new(),
            names: Vec::new(),
            seqs: HashMap::new(),
            accepted: HashMap::new(),
            events: 0,
            truncated: false,
        }
    }

    pub fn into_sequences(self) -> Sequences {
        let mut threads: Vec<(i64, Vec<u32>)> = self.seqs.into_iter().collect();
        threads.sort_by_key(|(tid, _)| *tid);
        Sequences {
            names: self.names,
            threads,
            truncated: self.truncated,
        }
    }

    fn accepts(&mut self, tid: i64, model: &KernelModel) -> bool {
        if self.filter.tids.as_ref().is_some_and(|t| !t.contains(&tid)) {
            return false;
        }
        if self.filter.process.is_none() {
            return true;
        }
        let comm = model.thread(tid).map_or("", |t| t.comm.as_str());
        match self.accepted.get(&tid) {
            Some((seen, ok)) if seen == comm => *ok,
            _ => {
                let ok = self.filter.matches(tid, comm);
                self.accepted.insert(tid, (comm.to_string(), ok));
                ok
            }
        }
    }

    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }
}

impl Analysis for Collector {
    fn wants(&self, _canonical: &str) -> bool {
        true
    }

    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel) {
        let Some(tid) = thread.filter(|t| *t > 0) else {
            return;
        };
        if self.truncated || !self.accepts(tid, model) {
            return;
        }
        if self.events == self.max_events {
            self.truncated = true;
            return;
        }
        let id = self.id(ev.name);
        self.seqs.entry(tid).or_default().push(id);
        self.events += 1;
    }

    fn finish(&mut self, _model: &KernelModel, _end: i64) {}

    fn done(&self) -> bool {
        self.truncated
    }
}
