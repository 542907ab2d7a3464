//! Several traces, one host each (a TSP experiment's), on the timeline
//! `sextant sync` stored for them: each trace's times move by its host's
//! correction, so that the traces read as one timeline; durations stay in
//! each host's own clock. The sync is found in each trace's own store
//! (`sextant sync A B` keeps it in both).

use super::Session;
use crate::analysis::executions::Executions;
use crate::store::{TraceStore, UnitStamp};
use crate::sync::stored::Stored;
use crate::sync::{self, Correction};

/// Each trace's correction onto the shared timeline, by position; every
/// one the identity when the traces are not synchronised.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    corrections: Vec<Correction>,
}

impl Timeline {
    /// Trace `trace`'s time `t` on the shared timeline.
    pub fn shared(&self, trace: usize, t: i64) -> i64 {
        self.of(trace).apply(t)
    }

    /// Time `t` of the shared timeline in trace `trace`'s own clock.
    pub fn own(&self, trace: usize, t: i64) -> i64 {
        self.of(trace).inverse().apply(t)
    }

    /// Trace `trace`'s correction.
    pub fn of(&self, trace: usize) -> Correction {
        self.corrections
            .get(trace)
            .copied()
            .unwrap_or(Correction::IDENTITY)
    }

    /// Puts trace `trace`'s executions on the shared timeline (starts and
    /// ends; durations stay).
    pub fn retime(&self, trace: usize, executions: &mut Executions) {
        let c = self.of(trace);
        if c.is_identity() {
            return;
        }
        for e in &mut executions.executions {
            sync::retime(e, &c);
        }
    }
}

/// The timeline of `sessions`' traces: the one `sextant sync` stored in
/// each of their stores, when every trace has it and they agree on the
/// reference host. With the timeline, a note for the user: that times are
/// shared, or why the stored synchronisation was not used (then every
/// trace keeps its own clock). A single trace, or traces without any stored
/// synchronisation, give the identity and no note.
pub fn of(sessions: &[Session]) -> (Timeline, Option<String>) {
    if sessions.len() < 2 {
        return (Timeline::default(), None);
    }
    let mut placed = Vec::new();
    let mut missing = Vec::new();
    for s in sessions {
        match placed_by_sync(s) {
            Ok(Some(p)) => placed.push(p),
            Ok(None) => missing.push(s.trace().display().to_string()),
            Err(why) => {
                let why = format!("{}: {why}; times are each trace's own", s.trace().display());
                return (Timeline::default(), Some(why));
            }
        }
    }
    if placed.is_empty() {
        return (Timeline::default(), None);
    }
    if !missing.is_empty() {
        let why = format!(
            "no synchronisation is stored for {} (run `sextant sync` on all the traces together): times are each trace's own",
            missing.join(", ")
        );
        return (Timeline::default(), Some(why));
    }
    let reference = &placed[0].reference;
    if let Some(other) = placed.iter().find(|p| p.reference != *reference) {
        let why = format!(
            "the stored synchronisations put hosts on different references ({} and {}; run `sextant sync` on all the traces together): times are each trace's own",
            reference, other.reference
        );
        return (Timeline::default(), Some(why));
    }
    let note = format!(
        "times of every trace are on {reference}'s clock, as `sextant sync` found it; durations stay in each host's own clock"
    );
    let corrections = placed.into_iter().map(|p| p.correction).collect();
    (Timeline { corrections }, Some(note))
}

/// What the timeline of some traces is read from: each trace's stored
/// sync, as it is on disk. Taken before `of` and compared later, it tells
/// that `sextant sync` stored (or replaced, or removed) one since, and the
/// timeline is to be read again; taking it reads no trace and no unit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp(Vec<Option<UnitStamp>>);

/// The stamp of `sessions`' stored syncs (`None` for a session without
/// stores).
pub fn stamp(sessions: &[Session]) -> Stamp {
    Stamp(
        sessions
            .iter()
            .map(|s| s.places().map(|p| sync::stored::stamp(p, s.trace())))
            .collect(),
    )
}

/// One trace's place on a stored timeline.
struct Placed {
    correction: Correction,
    /// The reference host's name.
    reference: String,
}

/// Where the sync stored for `session`'s trace puts its host: `None` when
/// none is stored (or stores are off), `Err` when it cannot be used.
fn placed_by_sync(session: &Session) -> Result<Option<Placed>, String> {
    let Some(places) = session.places() else {
        return Ok(None);
    };
    let store = TraceStore::open(places, session.trace())
        .map_err(|e| format!("its store cannot be opened: {e}"))?;
    let Stored { sync, own } = match sync::stored::load(&store) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(None),
        Err(e) => return Err(format!("the stored synchronisation is not used: {e}")),
    };
    // The store's own hosts, as `sextant sync` read this trace.
    let host = match own[..] {
        [host] => host,
        [] => {
            return Err(
                "the stored synchronisation names none of its hosts as this trace's \
                 (run `sextant sync` on all the traces together)"
                    .to_string(),
            )
        }
        _ => return Err(format!("{} hosts in one trace", own.len())),
    };
    let host = &sync.hosts[host];
    let Some(correction) = host.correction else {
        return Err(format!(
            "host {} is not on the timeline `sextant sync` stored (no usable packet exchange links it)",
            host.name
        ));
    };
    Ok(Some(Placed {
        correction,
        reference: sync.reference_name().to_string(),
    }))
}
