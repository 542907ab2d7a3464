//! The single pass, one event at a time: an event from a reader mapped to the
//! canonical vocabulary, applied to the kernel model, and handed to every
//! analysis. The loop over a reader (with its range, progress and
//! cancellation) is `crate::run`.
//!
//! Payloads are decoded only for event classes someone needs (the model's
//! scheduling events, and the names analyses ask for); for the rest, the
//! pass touches the time and class only. Per-class decisions are made once.

use rustc_hash::FxHashMap as HashMap;

use super::fields::{Fields, Known, NameSink, Payload};
use super::model::{KEvent, KernelModel};
use super::vocabulary::{
    canonical_event, canonical_fields, kind_of, payload_cpu, payload_thread, Kind, Tracer,
};
use crate::event::{Event, ReadError};

/// Something computed in the pass.
pub trait Analysis {
    /// Whether events of this canonical name must be decoded for it.
    fn wants(&self, canonical: &str) -> bool;
    /// Called after the model applied `ev`. `thread` is the event's thread as
    /// known before (the switching-out thread for `sched_switch`).
    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel);
    /// The tracer lost events in a window (known once the reader is past
    /// it: the window may end before the last event applied).
    fn on_loss(&mut self, loss: &crate::event::Loss) {
        let _ = loss;
    }
    /// End of the trace at `end`.
    fn finish(&mut self, model: &KernelModel, end: i64);
    /// Whether it needs no more events (e.g. `max_executions` reached).
    fn done(&self) -> bool {
        false
    }
}

/// What the pass saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassSummary {
    pub events: u64,
    /// Events whose payload was decoded.
    pub decoded: u64,
    pub first_ts: Option<i64>,
    pub last_ts: i64,
    pub repairs: u64,
    /// Windows where the tracer lost events, in the order the reader found
    /// them.
    pub losses: Vec<crate::event::Loss>,
    /// Stopped before the end of the source: every analysis was done, or
    /// the pass reached its `until`.
    pub stopped_early: bool,
}

struct ClassInfo {
    name: Box<str>,
    kind: Kind,
    wanted: bool,
    /// Known after the first decoded event of the class: the tracer, the
    /// canonical field names, where the model's fields are among them.
    layout: Option<(Tracer, Vec<Box<str>>, Known)>,
}

/// The per-class decisions and the reused payload buffers of one pass.
#[derive(Default)]
pub struct Interpreter {
    classes: HashMap<u64, ClassInfo>,
    fields: Fields,
}

impl Interpreter {
    /// Applies `ev` (at `ts`) to the model and the analyses when its class is
    /// one the model interprets or an analysis wants; answers whether its
    /// payload was decoded. Which analyses want a class is asked once, at
    /// its first event: the analyses must be the same at every call.
    pub fn apply<'s, E: Event<'s>>(
        &mut self,
        ev: &E,
        ts: i64,
        model: &mut KernelModel,
        analyses: &mut [&mut dyn Analysis],
    ) -> Result<bool, ReadError> {
        let info = self.classes.entry(ev.class()).or_insert_with(|| {
            let name: Box<str> = canonical_event(ev.name()).into();
            let kind = kind_of(&name);
            let wanted = kind != Kind::Other || analyses.iter().any(|a| a.wants(&name));
            ClassInfo {
                name,
                kind,
                wanted,
                layout: None,
            }
        });
        // An event no analysis wants still counts as evidence when the
        // tracer names its thread: one that is not the CPU's current thread
        // tells of a lost switch, and is applied to repair the model.
        let evidence = !info.wanted
            && match (ev.cpu(), ev.thread()) {
                (Some(cpu), Some(tid)) => model.contradicts(tid, cpu, ts),
                _ => false,
            };
        if !info.wanted && !evidence {
            return Ok(false);
        }
        if info.layout.is_none() {
            let mut names = NameSink::default();
            ev.visit_fields(&mut names)?;
            let raw: Vec<&str> = names.names.iter().map(String::as_str).collect();
            let tracer = Tracer::of_class(ev.name(), ev.thread().is_some(), &raw);
            let names = canonical_fields(tracer, info.kind, &raw);
            let known = Known::of(&names);
            info.layout = Some((tracer, names, known));
        }
        let (tracer, names, known) = info.layout.as_ref().expect("set above");
        if evidence && *tracer == Tracer::Btf {
            return Ok(false);
        }
        ev.visit_fields(&mut self.fields.sink())?;
        self.fields.set_known(*known);
        let payload = Payload {
            names,
            fields: &self.fields,
        };
        let kev = KEvent {
            ts,
            cpu: ev.cpu().or_else(|| payload_cpu(&payload)),
            name: &info.name,
            kind: info.kind,
            tracer: *tracer,
            thread: ev.thread().or_else(|| payload_thread(&payload)),
            payload,
        };
        let before = model.event_thread(&kev);
        model.apply(&kev);
        for a in analyses.iter_mut() {
            a.on_event(&kev, before, model);
        }
        Ok(true)
    }
}
