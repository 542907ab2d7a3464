//! Reading a folder that holds several machines' traces one machine at a
//! time: each host is its own kernel model, its executions named by host
//! ([`crate::hosts`] says how hosts are told apart), and put on the
//! timeline `sextant sync` stored, when it did.

use std::path::{Path, PathBuf};

use super::Error;
use crate::analysis::executions::{Execution, Executions};
use crate::hosts::{self, HostPick};
use crate::kernel::pass::PassSummary;
use crate::store::{Places, TraceStore};
use crate::sync;

/// The host to read: the one named, else the trace's only one (a folder of
/// several hosts is then an error that lists them).
pub fn pick(trace: &Path, named: Option<&str>) -> Result<HostPick, Error> {
    match named {
        None => Ok(HostPick::Sole),
        Some(name) => Ok(HostPick::Nth(hosts::find(trace, name)?)),
    }
}

/// Each host to read on its own, with its name: the one named, else all of
/// them (a single host goes unnamed, as `Sole`).
pub fn each(trace: &Path, named: Option<&str>) -> Result<Vec<(HostPick, String)>, Error> {
    if let Some(name) = named {
        return Ok(vec![(pick(trace, named)?, name.to_string())]);
    }
    let all = hosts::of(trace)?;
    if all.len() == 1 {
        return Ok(vec![(HostPick::Sole, all[0].name.clone())]);
    }
    Ok(all
        .into_iter()
        .enumerate()
        .map(|(i, h)| (HostPick::Nth(i), h.name))
        .collect())
}

/// The host of each execution, when they came from several.
#[derive(Debug, Default)]
pub struct HostsOf {
    /// Empty for a single host.
    pub names: Vec<String>,
    /// By execution index: its position in `names`.
    pub of: Vec<usize>,
    /// Each host's first event: the origin of its times in tables, since
    /// the hosts' clocks need not agree.
    pub origins: Vec<Option<i64>>,
}

impl HostsOf {
    /// The host of `e`, when there are several.
    pub fn of(&self, e: &Execution) -> Option<&str> {
        self.part(e).map(|i| self.names[i].as_str())
    }

    /// The position of `e`'s host among `names`, when there are several.
    pub fn part(&self, e: &Execution) -> Option<usize> {
        (self.names.len() > 1).then(|| self.of[e.index])
    }

    /// The origin of `e`'s times in a table: its host's first event when
    /// there are several hosts.
    pub fn origin(&self, e: &Execution) -> Option<i64> {
        self.part(e).and_then(|i| self.origins[i])
    }
}

/// One summary for passes over several hosts' traces.
pub fn summed(parts: &[PassSummary]) -> PassSummary {
    PassSummary {
        events: parts.iter().map(|s| s.events).sum(),
        decoded: parts.iter().map(|s| s.decoded).sum(),
        first_ts: parts.iter().filter_map(|s| s.first_ts).min(),
        last_ts: parts.iter().map(|s| s.last_ts).max().unwrap_or(0),
        repairs: parts.iter().map(|s| s.repairs).sum(),
        losses: parts
            .iter()
            .flat_map(|s| s.losses.iter().copied())
            .collect(),
        stopped_early: parts.iter().any(|s| s.stopped_early),
    }
}

/// How [`apart`]'s warning starts (dropped once the hosts are synchronised).
pub const APART: &str = "the hosts' traces do not overlap in time";

/// A warning when some hosts' traces do not overlap in time: their clocks
/// were likely not synchronised, and comparing times across them means
/// nothing. `None` when every pair overlaps.
pub fn apart(names: &[String], parts: &[PassSummary]) -> Option<String> {
    let spans: Vec<(&str, i64, i64)> = names
        .iter()
        .zip(parts)
        .filter_map(|(n, s)| s.first_ts.map(|f| (n.as_str(), f, s.last_ts)))
        .collect();
    let disjoint = spans
        .iter()
        .enumerate()
        .any(|(i, a)| spans[i + 1..].iter().any(|b| a.2 < b.1 || b.2 < a.1));
    disjoint.then(|| {
        let list: Vec<String> = spans
            .iter()
            .map(|(n, f, l)| format!("{n} from {f} to {l} ns"))
            .collect();
        format!(
            "{APART} ({}): their clocks are likely not \
             synchronised, so times are not comparable across hosts",
            list.join("; ")
        )
    })
}

/// Puts the executions of several hosts on the timeline `sextant sync`
/// stored for `trace`, if it did: each execution's start and end move by
/// its host's correction (durations stay in the host's clock), and every
/// host's times in tables count from one origin. Returns a note saying so
/// (`Ok`), or why the stored synchronisation was not used (`Err`).
pub fn on_shared_timeline(
    trace: &Path,
    places: &Places,
    executions: &mut Executions,
    hosts: &mut HostsOf,
) -> Result<Option<Result<String, String>>, Error> {
    if hosts.names.len() < 2 {
        return Ok(None);
    }
    let store = TraceStore::open(places, trace)?;
    let stored = match sync::stored::load(&store) {
        Ok(Some(s)) => s.sync,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Ok(Some(Err(format!(
                "the stored synchronisation is not used: {e}"
            ))))
        }
    };
    let mut corrections = Vec::new();
    for name in &hosts.names {
        match stored.correction_of(name) {
            Some(c) => corrections.push(c),
            None => {
                return Ok(Some(Err(format!(
                    "host {name} is not on the timeline `sextant sync` stored (no usable packet exchange links it): times are each host's own"
                ))))
            }
        }
    }
    for e in &mut executions.executions {
        sync::retime(e, &corrections[hosts.of[e.index]]);
    }
    let origin = hosts
        .origins
        .iter()
        .zip(&corrections)
        .filter_map(|(o, c)| o.map(|t| c.apply(t)))
        .min();
    hosts.origins = vec![origin; hosts.names.len()];
    let reference = stored.reference_name();
    Ok(Some(Ok(format!(
        "times of every host are on {reference}'s clock, as `sextant sync` found it; durations stay in each host's own clock"
    ))))
}

impl super::Session {
    /// Keeps `sync` (what `sextant sync` found) in the trace's store, for
    /// analyses of several hosts to use; the folder written, `None` when
    /// stores are off.
    pub fn keep_sync(&self, sync: &sync::Synchronization) -> Result<Option<PathBuf>, Error> {
        let Some(places) = &self.places else {
            return Ok(None);
        };
        let store = TraceStore::open(places, &self.trace)?;
        Ok(Some(sync::stored::save(sync, &self.trace, &store)?))
    }
}
