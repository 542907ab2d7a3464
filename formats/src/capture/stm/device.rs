//! The live STM path on a board with CoreSight (Linux sysfs mode): a
//! `stp-policy` in configfs giving the workload's writers masters and
//! channels, the sink and the STM source enabled through sysfs, the
//! workload run, the source disabled and the sink's buffer read from its
//! device node. Every path is under `root` (normally `/`), so that a
//! directory tree that behaves like the kernel's can stand in for it.
//! Whatever happens, the source and sink are disabled and the policy removed.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::StmError;

#[derive(Debug, Clone)]
pub struct DeviceOptions {
    /// Stands for `/`: sysfs at `ROOT/sys`, configfs at
    /// `ROOT/sys/kernel/config`, device nodes in `ROOT/dev`.
    pub root: PathBuf,
    /// The STM's CoreSight device (`stm0`, or `<addr>.stm`).
    pub stm: String,
    /// The sink (`tmc_etf0`); by default the first ETF, ETR or ETB found.
    pub sink: Option<String>,
    /// `p_sys-t` or `p_basic`.
    pub protocol: String,
    /// Policy node name the writers match (their command name), besides `default`.
    pub node: Option<String>,
    pub masters: Option<(u32, u32)>,
    pub channels: Option<(u32, u32)>,
}

/// What the sink held, and the STM's trace ID to pick it out.
pub struct Recorded {
    pub bytes: Vec<u8>,
    pub trace_id: Option<u8>,
    pub sink: String,
}

fn err(path: &Path, message: impl Into<String>) -> StmError {
    StmError::Device {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn write_attr(path: &Path, value: &str) -> Result<(), StmError> {
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .and_then(|mut f| f.write_all(value.as_bytes()))
        .map_err(|e| err(path, e.to_string()))
}

/// Disables what was enabled and removes the policy, on every way out.
struct Armed {
    enabled: Vec<PathBuf>,
    policy_dirs: Vec<PathBuf>,
    /// Attributes written in the policy: configfs removes them with their
    /// node, a plain directory standing in for it does not.
    policy_files: Vec<PathBuf>,
}

impl Drop for Armed {
    fn drop(&mut self) {
        // Sources before sinks: the reverse of enabling.
        for p in self.enabled.iter().rev() {
            let _ = write_attr(p, "0");
        }
        for d in self.policy_dirs.iter().rev() {
            if std::fs::remove_dir(d).is_err() {
                for f in self.policy_files.iter().filter(|f| f.parent() == Some(d)) {
                    let _ = std::fs::remove_file(f);
                }
                let _ = std::fs::remove_dir(d);
            }
        }
    }
}

/// Records with the STM while `run` runs the workload.
pub fn record(
    opts: &DeviceOptions,
    run: impl FnOnce() -> Result<(), String>,
) -> Result<Recorded, StmError> {
    let devices = opts.root.join("sys/bus/coresight/devices");
    let stm = devices.join(&opts.stm);
    if !stm.join("enable_source").exists() {
        return Err(err(
            &stm,
            "no CoreSight STM source here (no enable_source): this machine has no CoreSight STM, or it is not this device",
        ));
    }
    let sink_name = match &opts.sink {
        Some(s) => s.clone(),
        None => find_sink(&devices)?,
    };
    let sink = devices.join(&sink_name);
    if !sink.join("enable_sink").exists() {
        return Err(err(&sink, "not a CoreSight sink (no enable_sink)"));
    }
    let trace_id = std::fs::read_to_string(stm.join("traceid"))
        .ok()
        .and_then(|t| parse_number(t.trim()))
        .and_then(|v| u8::try_from(v).ok());
    let mut armed = Armed {
        enabled: Vec::new(),
        policy_dirs: Vec::new(),
        policy_files: Vec::new(),
    };
    // The policy: masters and channels for the workload's writers.
    let policies = opts.root.join("sys/kernel/config/stp-policy");
    if !policies.is_dir() {
        return Err(err(
            &policies,
            "no stp-policy directory: is configfs mounted (mount -t configfs none /sys/kernel/config) and the stm_core module loaded?",
        ));
    }
    let policy = policies.join(format!(
        "{}:{}.sextant-{}",
        opts.stm,
        opts.protocol,
        std::process::id()
    ));
    std::fs::create_dir(&policy).map_err(|e| err(&policy, e.to_string()))?;
    armed.policy_dirs.push(policy.clone());
    let mut nodes = vec!["default".to_string()];
    nodes.extend(opts.node.iter().cloned());
    for n in &nodes {
        let node = policy.join(n);
        std::fs::create_dir(&node).map_err(|e| err(&node, e.to_string()))?;
        armed.policy_dirs.push(node.clone());
        for (attr, range) in [("masters", opts.masters), ("channels", opts.channels)] {
            if let Some((a, b)) = range {
                let p = node.join(attr);
                armed.policy_files.push(p.clone());
                write_policy(&p, &format!("{a} {b}"))?;
            }
        }
    }
    write_attr(&sink.join("enable_sink"), "1")?;
    armed.enabled.push(sink.join("enable_sink"));
    write_attr(&stm.join("enable_source"), "1")?;
    armed.enabled.push(stm.join("enable_source"));
    let ran = run();
    // Stop the source before reading what the sink holds.
    write_attr(&stm.join("enable_source"), "0")?;
    armed.enabled.retain(|p| !p.ends_with("enable_source"));
    let node = opts.root.join("dev").join(&sink_name);
    let bytes = std::fs::read(&node).map_err(|e| err(&node, e.to_string()))?;
    drop(armed);
    ran.map_err(StmError::Input)?;
    Ok(Recorded {
        bytes,
        trace_id,
        sink: sink_name,
    })
}

/// configfs attributes exist once their node does; a stand-in tree may not
/// have them yet.
fn write_policy(path: &Path, value: &str) -> Result<(), StmError> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .and_then(|mut f| f.write_all(value.as_bytes()))
        .map_err(|e| err(path, e.to_string()))
}

fn find_sink(devices: &Path) -> Result<String, StmError> {
    let mut names: Vec<String> = std::fs::read_dir(devices)
        .map_err(|e| err(devices, e.to_string()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("enable_sink").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Buffers the CPU reads back, in the order Linux's docs use them.
    let rank = |n: &str| {
        ["etf", "etr", "etb"]
            .iter()
            .position(|k| n.contains(k))
            .unwrap_or(3)
    };
    names.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    names
        .into_iter()
        .next()
        .ok_or_else(|| err(devices, "no CoreSight sink (no device with enable_sink)"))
}

fn parse_number(t: &str) -> Option<u64> {
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}
