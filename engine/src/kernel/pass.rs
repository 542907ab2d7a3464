//! The single pass: events from a reader, mapped to the canonical vocabulary,
//! applied to the kernel model, and handed to every analysis in the same loop.
//!
//! Payloads are decoded only for event classes someone needs (the model's
//! scheduling events, and the names analyses ask for); for the rest, the
//! pass touches the time and class only. Per-class decisions are made once.

use rustc_hash::FxHashMap as HashMap;

use super::fields::{Fields, NameSink, Payload};
use super::model::{KEvent, KernelModel};
use super::vocabulary::{canonical_event, canonical_fields, kind_of, Kind, Tracer};
use crate::event::{Event, EventSource, ReadError};

/// Something computed in the pass.
pub trait Analysis {
    /// Whether events of this canonical name must be decoded for it.
    fn wants(&self, canonical: &str) -> bool;
    /// Called after the model applied `ev`. `thread` is the event's thread as
    /// known before (the switching-out thread for `sched_switch`).
    fn on_event(&mut self, ev: &KEvent<'_>, thread: Option<i64>, model: &KernelModel);
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
    /// Stopped before the end of the source: every analysis was done, or
    /// the pass reached its `until`.
    pub stopped_early: bool,
}

struct ClassInfo {
    name: Box<str>,
    kind: Kind,
    wanted: bool,
    /// Known after the first decoded event of the class.
    layout: Option<(Tracer, Vec<Box<str>>)>,
}

/// Runs the pass to the end of `source` (or until every analysis is done).
/// `progress` receives (bytes done, bytes total) now and then.
pub fn run<S: EventSource>(
    source: &mut S,
    model: &mut KernelModel,
    analyses: &mut [&mut dyn Analysis],
    progress: impl FnMut(u64, u64),
) -> Result<PassSummary, ReadError> {
    run_until(source, model, analyses, i64::MAX, progress)
}

/// The pass from wherever `source` stands (e.g. after a seek) up to and
/// including the events at `until`: the first event after it is not applied,
/// and the analyses finish at `until`. Reading a range costs the range.
pub fn run_until<S: EventSource>(
    source: &mut S,
    model: &mut KernelModel,
    analyses: &mut [&mut dyn Analysis],
    until: i64,
    mut progress: impl FnMut(u64, u64),
) -> Result<PassSummary, ReadError> {
    let mut classes: HashMap<u64, ClassInfo> = HashMap::default();
    let mut fields = Fields::default();
    let mut summary = PassSummary::default();
    let mut passed_until = false;
    while source.advance()? {
        let ev = source.event().expect("advance returned true");
        let ts = ev.ts();
        if ts > until {
            summary.stopped_early = true;
            passed_until = true;
            break;
        }
        summary.events += 1;
        summary.first_ts.get_or_insert(ts);
        summary.last_ts = ts;
        if summary.events % 65536 == 0 {
            let (done, total) = source.progress();
            progress(done, total);
            if !analyses.is_empty() && analyses.iter().all(|a| a.done()) {
                summary.stopped_early = true;
                break;
            }
        }
        let info = classes.entry(ev.class()).or_insert_with(|| {
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
        if !info.wanted {
            continue;
        }
        if info.layout.is_none() {
            let mut names = NameSink::default();
            ev.visit_fields(&mut names)?;
            let raw: Vec<&str> = names.names.iter().map(String::as_str).collect();
            let tracer = Tracer::of_class(ev.name(), ev.thread().is_some(), &raw);
            info.layout = Some((tracer, canonical_fields(tracer, info.kind, &raw)));
        }
        let (tracer, names) = info.layout.as_ref().expect("set above");
        ev.visit_fields(&mut fields.sink())?;
        summary.decoded += 1;
        let payload = Payload {
            names,
            fields: &fields,
        };
        // perf marks the final switch of an exiting thread with perf_tid -1.
        let thread = ev
            .thread()
            .or_else(|| payload.int("perf_tid").filter(|t| *t >= 0));
        let cpu = ev
            .cpu()
            .or_else(|| payload.int("perf_cpu").and_then(|c| u32::try_from(c).ok()));
        let kev = KEvent {
            ts,
            cpu,
            name: &info.name,
            kind: info.kind,
            tracer: *tracer,
            thread,
            payload,
        };
        let before = model.event_thread(&kev);
        model.apply(&kev);
        for a in analyses.iter_mut() {
            a.on_event(&kev, before, model);
        }
    }
    let end = if passed_until { until } else { summary.last_ts };
    for a in analyses.iter_mut() {
        a.finish(model, end);
    }
    summary.repairs = model.repairs;
    Ok(summary)
}
