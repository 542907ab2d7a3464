//! Why one execution was late: a second pass over only its range (after a
//! seek, with a short replay before it), and the report `explain --format
//! json`, the Python package and scripts read (its critical path, the
//! path's complement with the priority inversions, the related threads,
//! the kernel facilities and the diagnosis). When `sextant sync` stored a
//! synchronisation for the trace, the packets its host received from the
//! others go with the explanation, so that the diagnosis names the host
//! behind a wake-up.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::{Error, Session};
use crate::analysis::executions::Execution;
use crate::analysis::explain::path::{Link, PathState};
use crate::analysis::explain::{self, explain_trace, request_for, Diagnosis, Explanation};
use crate::analysis::facilities::Facilities;
use crate::analysis::model::census::TraceFacts;
use crate::hosts::HostPick;
use crate::reader::OpenOptions;
use crate::run::Work;
use crate::sync;

/// What an explanation reads around an execution.
#[derive(Debug, Clone, Default)]
pub struct Around {
    /// Only these CPUs' threads in "who ran" (`None`: every CPU).
    pub cpus: Option<Vec<u32>>,
    /// Read this long before the execution, so each thread's state (and
    /// each futex's, queue's and timer's) is known at its start.
    pub replay_ns: i64,
}

impl Around {
    /// Chosen CPUs the trace does not have, refused with those it has.
    /// Known when the executions were found by reading the trace (`facts`),
    /// not when the store gave them, nor when no event header names a CPU.
    /// `option` is how the front end spells the choice (`--cpus`, `cpus=`).
    pub fn check_cpus(
        &self,
        option: &str,
        facts: Option<&TraceFacts>,
        trace: &Path,
    ) -> Result<(), String> {
        let (Some(cpus), Some(facts)) = (&self.cpus, facts) else {
            return Ok(());
        };
        let missing: Vec<u32> = cpus
            .iter()
            .copied()
            .filter(|c| !facts.cpus.is_empty() && !facts.cpus.contains(c))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{option} {}: no such CPU in {}; it has CPUs {}",
            listed(&missing),
            trace.display(),
            listed(&facts.cpus)
        ))
    }

    /// The warning for chosen CPUs on which no thread ran in the range read
    /// for `e` (its replay included): "who ran" lists nothing for them.
    /// `time` writes the range's ends as the front end writes times.
    pub fn idle_cpus(
        &self,
        option: &str,
        e: &Explanation,
        time: &dyn Fn(i64) -> String,
    ) -> Option<String> {
        let ran: BTreeSet<u32> = e
            .graph
            .lines
            .values()
            .flat_map(|l| l.segments.iter().filter_map(|s| s.cpu))
            .collect();
        let idle: Vec<u32> = self
            .cpus
            .iter()
            .flatten()
            .copied()
            .filter(|c| !ran.contains(c))
            .collect();
        if idle.is_empty() {
            return None;
        }
        let range = match e.pass.first_ts {
            Some(first) => format!(
                "from {} to {}, replay included",
                time(first),
                time(e.pass.last_ts)
            ),
            None => "nothing was read".to_string(),
        };
        Some(format!(
            "{option} {}: no thread ran there around the execution ({range}), so who ran lists \
             nothing for it; threads ran on CPUs {}",
            listed(&idle),
            if ran.is_empty() {
                "none".to_string()
            } else {
                listed(&ran)
            }
        ))
    }
}

/// "0,2,3".
fn listed<'a>(cpus: impl IntoIterator<Item = &'a u32>) -> String {
    let v: Vec<String> = cpus.into_iter().map(u32::to_string).collect();
    v.join(",")
}

impl Session {
    /// The explanation of `execution`, found on host `pick`.
    pub fn explain(
        &self,
        execution: &Execution,
        pick: HostPick,
        around: &Around,
        work: &Work<'_>,
    ) -> Result<Explanation, Error> {
        let request = request_for(execution, around.cpus.clone(), around.replay_ns);
        self.explain_range(&request, pick, work)
    }

    /// The explanation `request` asks for (a thread over a range), on host
    /// `pick`, with the packets that host received from the others when a
    /// synchronisation is stored for the trace.
    pub fn explain_range(
        &self,
        request: &explain::Request,
        pick: HostPick,
        work: &Work<'_>,
    ) -> Result<Explanation, Error> {
        let options = OpenOptions {
            host: pick,
            ..self.options
        };
        let mut explanation = explain_trace(&self.trace, options, request, work)?;
        match self.arrivals(pick) {
            Ok(arrivals) => explanation.arrivals = arrivals,
            Err(note) => explanation.notes.push(note),
        }
        Ok(explanation)
    }

    /// The packets host `pick` of the trace received from other hosts, as
    /// the synchronisation stored for the trace matched them: none when
    /// stores are off or none is stored; `Err` saying why when one is
    /// stored but cannot be used (an earlier sextant's), so that the
    /// explanation that names no host says why. Read from the stored unit
    /// alone: no trace, not even this one's metadata.
    fn arrivals(&self, pick: HostPick) -> Result<Vec<explain::remote::Arrival>, String> {
        let Some(store) = self.store() else {
            return Ok(Vec::new());
        };
        let stored = match sync::stored::load(&store) {
            Ok(Some(stored)) => stored,
            Ok(None) => return Ok(Vec::new()),
            Err(e) => {
                return Err(format!(
                    "no packet's host is named: the stored synchronisation is not used: {e}"
                ))
            }
        };
        // The unit lists this trace's hosts as `hosts::of` does, which is
        // what `pick` counts in.
        let host = match (pick, &stored.own[..]) {
            (HostPick::Nth(i), own) => own.get(i).copied(),
            (_, [one]) => Some(*one),
            _ => None,
        };
        Ok(host.map_or_else(Vec::new, |h| sync::received_by(&stored.sync, h)))
    }
}

/// One piece of the critical path.
#[derive(Debug, Serialize)]
pub struct Piece<'a> {
    pub tid: i64,
    pub comm: &'a str,
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub woken_by: Option<explain::graph::Context>,
    #[serde(flatten)]
    pub link: Link,
    pub start: i64,
    pub end: i64,
}

/// What the second pass read.
#[derive(Debug, Serialize)]
pub struct Read {
    pub events: u64,
    pub decoded: u64,
    pub start: Option<i64>,
    pub end: i64,
}

/// The report of one explanation, as `explain --format json` writes it.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// The execution's host, when the trace holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<&'a str>,
    pub execution: &'a Execution,
    pub prio: Option<i32>,
    pub priority: String,
    pub critical_path: Vec<Piece<'a>>,
    /// Each thread of the path with its part of the time, per state.
    pub by_thread: Vec<explain::shares::Share>,
    pub complement: &'a [explain::complement::Held],
    pub culprits: &'a [explain::complement::Culprit],
    pub relations: &'a explain::relations::Relations,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie: Option<&'a [explain::relations::Edge]>,
    pub facilities: &'a Facilities,
    pub diagnosis: String,
    pub inversion: bool,
    pub causes: Vec<explain::diagnosis::Ranked>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contradictions: Vec<String>,
    pub read: Read,
}

/// The report of `e`, the explanation of `execution` (on `host` when the
/// trace holds several), with its diagnosis.
pub fn report<'a>(
    execution: &'a Execution,
    host: Option<&'a str>,
    e: &'a Explanation,
    diagnosis: Diagnosis,
) -> Report<'a> {
    let tid = execution.end_tid;
    Report {
        host,
        execution,
        prio: e.prio,
        priority: e.graph.priority(tid, e.prio),
        critical_path: e
            .path
            .iter()
            .map(|p| Piece {
                tid: p.tid,
                comm: e.graph.comm(p.tid),
                state: p.state.name(),
                woken_by: match p.state {
                    PathState::Blocked { woken_by } => woken_by,
                    _ => None,
                },
                link: p.link,
                start: p.start,
                end: p.end,
            })
            .collect(),
        by_thread: explain::shares::by_thread(&e.path, &e.graph),
        complement: &e.complement.intervals,
        culprits: &e.complement.culprits,
        relations: &e.relations,
        tie: e.tie.as_deref(),
        facilities: &e.facilities,
        diagnosis: diagnosis.text,
        inversion: diagnosis.inversion,
        causes: diagnosis.causes,
        contradictions: diagnosis.contradictions,
        read: Read {
            events: e.pass.events,
            decoded: e.pass.decoded,
            start: e.pass.first_ts,
            end: e.pass.last_ts,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Placement, Places};

    /// A synchronisation an earlier sextant stored (its result alone, no
    /// matched packets) names no host in explain, and says why; no sync
    /// stored says nothing.
    #[test]
    fn an_earlier_sextants_sync_is_said_not_silently_dropped() {
        let Some(trace) = sextant_formats::testing::shared_ctf("synctraces") else {
            return;
        };
        let cache = std::env::temp_dir().join(format!(
            "sextant-explain-earlier-sync-{}",
            std::process::id()
        ));
        let places = Places::new(Some(cache.clone()), Placement::Cache);
        let session = Session::open(&trace, OpenOptions::default(), Some(places));
        assert_eq!(session.arrivals(HostPick::Nth(0)), Ok(Vec::new()));

        let s = sync::synchronize(std::slice::from_ref(&trace)).unwrap();
        let store = session.store().unwrap();
        // What sextant wrote before the unit had a version: the result alone.
        store
            .write("sync", Vec::new(), serde_json::to_value(&s).unwrap())
            .unwrap();
        let said = session.arrivals(HostPick::Nth(0)).unwrap_err();
        let _ = std::fs::remove_dir_all(&cache);
        assert!(said.contains("run `sextant sync` again"), "{said}");
        assert!(said.starts_with("no packet's host is named"), "{said}");
    }
}
