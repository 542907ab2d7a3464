//! The thread status tree: each host of the experiment at the top, its
//! processes under it, their threads under them. A thread is (host, tid):
//! two machines' threads never share a process, whatever their numbers.
//!
//! Ids: a thread is the number of its row among the experiment's traces
//! (in trace order), so that a states request finds it without building
//! the tree; hosts and processes are numbered after the last thread, in
//! tree order. Both follow from the experiment's traces alone, so every
//! request sees the same ids.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashSet};

use sextant_engine::analysis::thread_table::Life;
use sextant_engine::hosts::Host;
use sextant_engine::sync::Correction;

use crate::index::TraceIndex;

/// One trace of the experiment, as the tree needs it.
pub struct Served<'a> {
    pub name: &'a str,
    pub host: &'a Host,
    pub index: &'a TraceIndex,
    /// Its times onto the experiment's timeline.
    pub on: Correction,
}

/// The experiment's hosts: each one's label, and each trace's host.
pub struct Hosts {
    pub labels: Vec<String>,
    /// By trace: its host's position in `labels`.
    pub of_trace: Vec<usize>,
}

impl Hosts {
    /// Traces go under one host when they name the same host and boot (a
    /// kernel trace and another of the same session). A trace whose clock
    /// names no boot could come from any machine: it stands alone.
    pub fn of(traces: &[Served<'_>]) -> Hosts {
        // Each host's first trace.
        let mut firsts: Vec<usize> = Vec::new();
        let mut of_trace = Vec::with_capacity(traces.len());
        for (t, s) in traces.iter().enumerate() {
            let same = firsts.iter().position(|&f| {
                let h = traces[f].host;
                s.host.boot.is_some() && h.boot == s.host.boot && h.name == s.host.name
            });
            of_trace.push(same.unwrap_or_else(|| {
                firsts.push(t);
                firsts.len() - 1
            }));
        }
        let labels = firsts
            .iter()
            .map(|&f| {
                let Served { name, host, .. } = &traces[f];
                let shared = firsts
                    .iter()
                    .filter(|&&g| traces[g].host.name == host.name)
                    .count();
                match &host.boot {
                    _ if shared == 1 => host.name.clone(),
                    // Two boots of one machine, as `hosts` tells them apart.
                    Some(boot) => {
                        let short: String = boot.chars().take(8).collect();
                        format!("{} (boot {short})", host.name)
                    }
                    // Trace names are unique in a server.
                    None => format!("{} ({name})", host.name),
                }
            })
            .collect();
        Hosts { labels, of_trace }
    }
}

/// The process a thread belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Process {
    /// Its PID, as the trace said it.
    Pid(i64),
    /// The trace said no PID for this thread, nor that another thread's
    /// process is its TID: a process of its own, known by that TID.
    Unsaid(i64),
}

impl Process {
    /// `life`'s process, `said` the PIDs its host's traces gave.
    fn of(life: &Life, said: &HashSet<i64>) -> Process {
        match life.pid {
            Some(pid) => Process::Pid(pid),
            // The main thread of a process whose other threads named it.
            None if said.contains(&life.tid) => Process::Pid(life.tid),
            None => Process::Unsaid(life.tid),
        }
    }

    pub fn pid(self) -> Option<i64> {
        match self {
            Process::Pid(pid) => Some(pid),
            Process::Unsaid(_) => None,
        }
    }

    /// What it is listed by: its PID, else its thread's TID.
    fn number(self) -> i64 {
        match self {
            Process::Pid(n) | Process::Unsaid(n) => n,
        }
    }
}

/// A thread's name: its command, `[TID]` when it has none.
pub fn thread_name(life: &Life) -> String {
    if life.comm.is_empty() {
        format!("[{}]", life.tid)
    } else {
        life.comm.clone()
    }
}

/// A time range, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: i64,
    pub end: i64,
}

/// `life`'s span on the experiment's timeline.
fn lived(life: &Life, on: Correction) -> Span {
    Span {
        start: on.apply(life.start),
        end: on.apply(life.end),
    }
}

fn join(a: Option<Span>, b: Span) -> Span {
    a.map_or(b, |a| Span {
        start: a.start.min(b.start),
        end: a.end.max(b.end),
    })
}

pub struct HostNode<'a> {
    pub id: i64,
    pub label: String,
    /// Its times onto the experiment's timeline (one clock: one correction).
    pub on: Correction,
    pub span: Span,
    /// By PID (or TID).
    pub processes: Vec<ProcessNode<'a>>,
}

pub struct ProcessNode<'a> {
    pub id: i64,
    pub process: Process,
    /// Its main thread's name, else its first thread's.
    pub name: String,
    pub span: Span,
    /// (entry id, life), by TID then start.
    pub threads: Vec<(i64, &'a Life)>,
}

/// A process while its threads are gathered: it has one from the start.
struct Gathering<'a> {
    span: Span,
    threads: Vec<(i64, &'a Life)>,
    /// The first thread gathered: its name is the process's when no main
    /// thread is seen.
    first: &'a Life,
    /// The latest life of the thread whose TID is the process's number.
    main: Option<&'a Life>,
}

impl<'a> Gathering<'a> {
    fn new(process: Process, id: i64, life: &'a Life, on: Correction) -> Gathering<'a> {
        let mut g = Gathering {
            span: lived(life, on),
            threads: Vec::new(),
            first: life,
            main: None,
        };
        g.add(process, id, life, on);
        g
    }

    fn add(&mut self, process: Process, id: i64, life: &'a Life, on: Correction) {
        self.span = join(Some(self.span), lived(life, on));
        self.threads.push((id, life));
        if life.tid == process.number() && self.main.is_none_or(|m| m.start <= life.start) {
            self.main = Some(life);
        }
    }
}

pub struct Tree<'a> {
    pub hosts: Vec<HostNode<'a>>,
}

/// An entry that is not a thread.
pub enum Group<'t, 'a> {
    Host(&'t HostNode<'a>),
    Process(&'t HostNode<'a>, &'t ProcessNode<'a>),
}

impl<'a> Tree<'a> {
    pub fn of(traces: &[Served<'a>]) -> Tree<'a> {
        let hosts = Hosts::of(traces);
        let mut said: Vec<HashSet<i64>> = vec![HashSet::new(); hosts.labels.len()];
        for (s, &h) in traces.iter().zip(&hosts.of_trace) {
            said[h].extend(s.index.threads.lives.iter().filter_map(|l| l.pid));
        }
        let mut spans: Vec<Option<Span>> = vec![None; hosts.labels.len()];
        let mut on = vec![Correction::IDENTITY; hosts.labels.len()];
        let mut gathered: Vec<BTreeMap<(i64, Process), Gathering<'a>>> =
            (0..hosts.labels.len()).map(|_| BTreeMap::new()).collect();
        let mut id = 0;
        for (s, &h) in traces.iter().zip(&hosts.of_trace) {
            let ix = s.index;
            on[h] = s.on;
            if ix.events > 0 {
                spans[h] = Some(join(
                    spans[h],
                    Span {
                        start: s.on.apply(ix.start),
                        end: s.on.apply(ix.end),
                    },
                ));
            }
            for life in &ix.threads.lives {
                let process = Process::of(life, &said[h]);
                match gathered[h].entry((process.number(), process)) {
                    Entry::Vacant(v) => {
                        v.insert(Gathering::new(process, id, life, s.on));
                    }
                    Entry::Occupied(mut o) => o.get_mut().add(process, id, life, s.on),
                }
                id += 1;
            }
        }
        // Hosts and processes numbered after the threads, in tree order.
        let mut next = id;
        let mut number = || {
            next += 1;
            next - 1
        };
        let hosts = hosts
            .labels
            .into_iter()
            .zip(gathered)
            .zip(spans)
            .zip(on)
            .map(|(((label, processes), span), on)| {
                let id = number();
                let processes: Vec<ProcessNode<'a>> = processes
                    .into_iter()
                    .map(|((_, process), mut g)| {
                        g.threads.sort_by_key(|(id, l)| (l.tid, l.start, *id));
                        ProcessNode {
                            id: number(),
                            process,
                            name: thread_name(g.main.unwrap_or(g.first)),
                            span: g.span,
                            threads: g.threads,
                        }
                    })
                    .collect();
                let span = processes
                    .iter()
                    .fold(span, |s, p| Some(join(s, p.span)))
                    .unwrap_or(Span { start: 0, end: 0 });
                HostNode {
                    id,
                    label,
                    on,
                    span,
                    processes,
                }
            })
            .collect();
        Tree { hosts }
    }

    /// The host or process entry `id`, if it is one.
    pub fn group(&self, id: i64) -> Option<Group<'_, 'a>> {
        self.hosts.iter().find_map(|h| {
            if h.id == id {
                return Some(Group::Host(h));
            }
            h.processes
                .iter()
                .find(|p| p.id == id)
                .map(|p| Group::Process(h, p))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{ThreadRow, ThreadTable};

    fn host(name: &str, boot: Option<&str>) -> Host {
        Host {
            name: name.into(),
            traces: Vec::new(),
            boot: boot.map(Into::into),
        }
    }

    /// An index of threads (tid, pid, comm), each alive over [tid, tid + 10].
    fn index(threads: &[(i64, Option<i64>, &str)]) -> TraceIndex {
        let rows = threads
            .iter()
            .map(|&(tid, pid, comm)| ThreadRow {
                tid,
                pid,
                comm: comm.into(),
                start: tid,
                end: tid + 10,
                intervals: Vec::new(),
            })
            .collect();
        TraceIndex {
            events: 1,
            start: 0,
            end: 100,
            threads: ThreadTable::from_rows(rows),
            ..Default::default()
        }
    }

    fn served<'a>(traces: &'a [(&'a str, Host, TraceIndex)]) -> Vec<Served<'a>> {
        traces
            .iter()
            .map(|(name, host, index)| Served {
                name,
                host,
                index,
                on: Correction::IDENTITY,
            })
            .collect()
    }

    #[test]
    fn each_host_holds_its_own_processes_and_threads() {
        // The same TIDs on two machines.
        let same = [
            (1, Some(1), "init"),
            (7, Some(5), "worker"),
            (5, None, "daemon"),
        ];
        let traces = [
            ("a", host("vm1", Some("1111")), index(&same)),
            ("b", host("vm2", Some("2222")), index(&same)),
        ];
        let tree = Tree::of(&served(&traces));
        let labels: Vec<&str> = tree.hosts.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, ["vm1", "vm2"]);
        let mut ids = HashSet::new();
        for (k, h) in tree.hosts.iter().enumerate() {
            let processes: Vec<(Process, &str, Vec<i64>)> = h
                .processes
                .iter()
                .map(|p| {
                    (
                        p.process,
                        p.name.as_str(),
                        p.threads.iter().map(|(id, _)| *id).collect(),
                    )
                })
                .collect();
            // Threads keep their row numbers, trace after trace; 5 is the
            // main thread of the process its worker named.
            let first = 3 * k as i64;
            assert_eq!(
                processes,
                [
                    (Process::Pid(1), "init", vec![first]),
                    (Process::Pid(5), "daemon", vec![first + 2, first + 1]),
                ]
            );
            assert_eq!(h.span, Span { start: 0, end: 100 });
            assert!(ids.insert(h.id));
            ids.extend(h.processes.iter().map(|p| p.id));
        }
        // Hosts and processes after the six threads, each once.
        assert_eq!(ids, (6..12).collect());
        assert!(matches!(tree.group(6), Some(Group::Host(h)) if h.label == "vm1"));
        assert!(
            matches!(tree.group(8), Some(Group::Process(h, p)) if h.label == "vm1" && p.name == "daemon")
        );
        assert!(tree.group(5).is_none() && tree.group(12).is_none());
    }

    #[test]
    fn a_thread_of_no_said_process_is_a_process_of_its_own() {
        let traces = [(
            "a",
            host("a", None),
            index(&[(3, None, ""), (4, None, "x")]),
        )];
        let tree = Tree::of(&served(&traces));
        let processes: Vec<(Process, &str)> = tree.hosts[0]
            .processes
            .iter()
            .map(|p| (p.process, p.name.as_str()))
            .collect();
        assert_eq!(
            processes,
            [(Process::Unsaid(3), "[3]"), (Process::Unsaid(4), "x")]
        );
        assert_eq!(Process::Unsaid(3).pid(), None);
    }

    #[test]
    fn traces_share_a_host_only_by_name_and_boot() {
        let traces = [
            ("kernel", host("m", Some("b1")), index(&[])),
            ("ust", host("m", Some("b1")), index(&[])),
            ("reboot", host("m", Some("b2222222222")), index(&[])),
            ("x", host("ctf", None), index(&[])),
            ("y", host("ctf", None), index(&[])),
        ];
        let hosts = Hosts::of(&served(&traces));
        assert_eq!(hosts.of_trace, [0, 0, 1, 2, 3]);
        assert_eq!(
            hosts.labels,
            ["m (boot b1)", "m (boot b2222222)", "ctf (x)", "ctf (y)"]
        );
    }
}
