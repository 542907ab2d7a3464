//! Which machines a trace path holds. A kernel model describes one running
//! system: its threads and CPUs are numbered by that system alone, so the
//! traces of two machines (or two boots of one) read as one model would
//! mix TIDs and CPUs that have nothing to do with each other.
//!
//! CTF traces are grouped by what their metadata says of where they were
//! recorded: the `hostname` of their environment and their clock's UUID
//! (LTTng derives it from the boot ID, so a kernel trace and the user-space
//! traces of one session share it). A trace that says neither stands alone:
//! nothing shows it shares a system with another. An ftrace or BTF file is
//! one host.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::ctf::metadata::Origin;
use crate::ctf::{find_traces, open_traces, origin_of, CtfError, CtfReader, CtfTrace};

/// One machine's traces under a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// What users call it: the trace's `hostname`, made distinct when two
    /// boots of one machine are both present; the trace's folder when the
    /// metadata names no host.
    pub name: String,
    /// Its CTF trace directories (the path itself for a file).
    pub traces: Vec<PathBuf>,
    /// Its clock's UUID, when the metadata gives one: what Trace Compass
    /// identifies a host by (and orders hosts by when synchronising).
    pub boot: Option<String>,
}

/// Which of a path's hosts to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HostPick {
    /// The path must hold a single host; several is an error naming them.
    #[default]
    Sole,
    /// The host at this position in [`of`]'s list.
    Nth(usize),
    /// Every host's events on one timeline, for listings that build no
    /// model from them (a dump of events).
    All,
}

/// The traces at `path` hold several hosts and one was not chosen.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: these traces were recorded on {} different hosts ({}); one kernel model cannot mix their threads and CPUs: choose one host (on the command line, --host NAME), or open each host's folder as a trace of its own",
    path.display(), hosts.len(), listing(hosts)
)]
pub struct SeveralHosts {
    pub path: PathBuf,
    pub hosts: Vec<Host>,
}

/// A host was asked for that the path does not hold.
#[derive(Debug, thiserror::Error)]
#[error("{}: no host `{asked}` here; the traces were recorded on {}", path.display(), listing(hosts))]
pub struct NoSuchHost {
    pub path: PathBuf,
    pub asked: String,
    pub hosts: Vec<Host>,
}

fn listing(hosts: &[Host]) -> String {
    hosts
        .iter()
        .map(|h| format!("{}: {} trace(s)", h.name, h.traces.len()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The hosts of the trace at `path`, in the order of their first trace
/// directory (sorted by path).
pub fn of(path: &Path) -> Result<Vec<Host>, CtfError> {
    match ctf_root(path) {
        Some(root) => {
            let dirs = find_traces(&root)?;
            if dirs.is_empty() {
                // The same error as opening them.
                open_traces(&root)?;
            }
            let origins = dirs
                .into_iter()
                .map(|d| Ok((origin_of(&d)?, d)))
                .collect::<Result<Vec<_>, CtfError>>()?;
            Ok(group(&root, &origins))
        }
        None => Ok(vec![Host {
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            ),
            traces: vec![path.to_path_buf()],
            boot: None,
        }]),
    }
}

/// The position in [`of`]'s list of the host named `name`.
pub fn find(path: &Path, name: &str) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
    let hosts = of(path)?;
    hosts.iter().position(|h| h.name == name).ok_or_else(|| {
        Box::new(NoSuchHost {
            path: path.to_path_buf(),
            asked: name.to_string(),
            hosts,
        }) as _
    })
}

/// The CTF root a path names: a directory, or a trace's `metadata` file.
pub(crate) fn ctf_root(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        return Some(path.to_path_buf());
    }
    path.file_name()
        .is_some_and(|n| n == "metadata")
        .then(|| path.parent().unwrap_or(Path::new(".")).to_path_buf())
}

/// Opens the CTF traces under `root` of the host `pick` chooses.
pub(crate) fn open_ctf(
    root: &Path,
    pick: HostPick,
) -> Result<CtfReader, Box<dyn std::error::Error + Send + Sync>> {
    let traces = open_traces(root)?;
    let origins: Vec<(Origin, PathBuf)> =
        traces.iter().map(|t| (origin(t), t.dir.clone())).collect();
    let hosts = group(root, &origins);
    let index = match pick {
        HostPick::All => return Ok(CtfReader::from_traces(traces)?),
        HostPick::Sole if hosts.len() > 1 => {
            return Err(Box::new(SeveralHosts {
                path: root.to_path_buf(),
                hosts,
            }))
        }
        HostPick::Sole => 0,
        HostPick::Nth(i) => i,
    };
    let Some(chosen) = hosts.get(index) else {
        return Err(Box::new(NoSuchHost {
            path: root.to_path_buf(),
            asked: format!("number {}", index + 1),
            hosts,
        }));
    };
    let traces = traces
        .into_iter()
        .filter(|t| chosen.traces.contains(&t.dir))
        .collect();
    Ok(CtfReader::from_traces(traces)?)
}

/// What an opened trace says of where it was recorded: the same as
/// [`origin_of`] reads from its metadata alone.
fn origin(t: &CtfTrace) -> Origin {
    Origin {
        hostname: t.env("hostname"),
        boot: t.layout.clocks.iter().find_map(|c| c.uuid.clone()),
    }
}

/// Groups traces (sorted by directory) by origin, naming each group.
fn group(root: &Path, traces: &[(Origin, PathBuf)]) -> Vec<Host> {
    // Position of each origin's group; a trace of unknown origin gets a
    // group of its own.
    let mut by_origin: BTreeMap<Origin, usize> = BTreeMap::new();
    let mut groups: Vec<(Origin, Vec<PathBuf>)> = Vec::new();
    for (o, dir) in traces {
        let known = o.hostname.is_some() || o.boot.is_some();
        match by_origin.get(o) {
            Some(&g) if known => groups[g].1.push(dir.clone()),
            _ => {
                by_origin.insert(o.clone(), groups.len());
                groups.push((o.clone(), vec![dir.clone()]));
            }
        }
    }
    let folder = |dirs: &[PathBuf]| {
        let d = &dirs[0];
        match d.strip_prefix(root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => d
                .file_name()
                .map_or_else(|| d.display().to_string(), |n| n.to_string_lossy().into()),
        }
    };
    let mut named: Vec<Host> = groups
        .iter()
        .map(|(o, dirs)| Host {
            name: o.hostname.clone().unwrap_or_else(|| folder(dirs)),
            traces: dirs.clone(),
            boot: o.boot.clone(),
        })
        .collect();
    // Two boots of one machine: told apart by boot, else by folder.
    let names: Vec<String> = named.iter().map(|h| h.name.clone()).collect();
    for (i, h) in named.iter_mut().enumerate() {
        if names.iter().filter(|n| **n == names[i]).count() > 1 {
            h.name = match &groups[i].0.boot {
                Some(boot) => format!("{} (boot {})", h.name, &boot[..boot.len().min(8)]),
                None => format!("{} ({})", h.name, folder(&groups[i].1)),
            };
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::shared_ctf as shared;

    #[test]
    fn one_session_is_one_host() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenario-a/ctf");
        assert_eq!(of(&fixture).unwrap().len(), 1);
        let Some(multi) = shared("multi-domains") else {
            return;
        };
        let hosts = of(&multi).unwrap();
        assert_eq!(hosts.len(), 1, "{hosts:?}");
        assert_eq!(hosts[0].name, "joraj-alpa");
        assert_eq!(hosts[0].traces.len(), 2, "kernel and ust traces together");
    }

    #[test]
    fn two_machines_are_two_hosts_and_must_be_chosen() {
        let Some(sync) = shared("synctraces") else {
            return;
        };
        let hosts = of(&sync).unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["VM3", "VM1"], "sorted by folder: scp_dest, scp_src");
        let err = open_ctf(&sync, HostPick::Sole)
            .err()
            .expect("several hosts");
        let text = err.to_string();
        assert!(
            text.contains("2 different hosts") && text.contains("VM1"),
            "{text}"
        );
        let one = open_ctf(&sync, HostPick::Nth(1)).unwrap();
        assert_eq!(one.traces().len(), 1);
        assert!(one.traces()[0].dir.ends_with("scp_src"));
        assert!(open_ctf(&sync, HostPick::Nth(2)).is_err());
        assert_eq!(open_ctf(&sync, HostPick::All).unwrap().traces().len(), 2);
        assert_eq!(find(&sync, "VM1").unwrap(), 1);
        assert!(find(&sync, "VM2")
            .unwrap_err()
            .to_string()
            .contains("VM3: 1 trace(s)"));
    }

    #[test]
    fn unrelated_traces_stay_apart() {
        let Some(all) = shared("") else {
            return;
        };
        let hosts = of(&all).unwrap();
        // funky_trace and perf-taskset2 name no host: each stands alone,
        // under its folder's name.
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert!(names.contains(&"perf-taskset2"), "{names:?}");
        assert!(
            names.contains(&"VM1") && names.contains(&"VM3"),
            "{names:?}"
        );
        let distinct: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "names are distinct: {names:?}");
    }

    /// The origin read from the metadata alone is the opened trace's, on
    /// every CTF trace the project has and the shared ones (TSDL, packetized,
    /// CTF 2; with and without hostname and clock UUID).
    #[test]
    fn the_quick_origin_is_the_parsed_one() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut roots = vec![fixtures];
        roots.extend(shared(""));
        let mut compared = 0;
        for root in roots {
            for dir in find_traces(&root).unwrap() {
                // A trace the reader refuses has no origin to compare.
                let Ok(trace) = CtfTrace::open(&dir) else {
                    continue;
                };
                let quick = origin_of(&dir).unwrap();
                assert_eq!(quick, origin(&trace), "{}", dir.display());
                compared += 1;
            }
        }
        assert!(compared >= 6, "only {compared} traces compared");
    }
}
