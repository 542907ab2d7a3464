//! `sextant sync TRACE...`: puts several hosts' traces on one timeline
//! from the TCP packets they exchanged (`sextant_engine::sync`), prints
//! each host pair's correction and quality, and keeps the result in each
//! trace's store, where `analyze` finds it.

use std::path::PathBuf;

use anyhow::Context;
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::Session;
use sextant_engine::sync::{self, Correction, Synchronization};

use super::placement::StoreArgs;

#[derive(clap::Args)]
pub struct Request {
    /// A folder holding several hosts' traces (each host found as
    /// `analyze` finds them: CTF hostname and clock UUID), or one trace per
    /// host.
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// One line per host and per host pair.
    Table,
    /// `{"hosts":[...],"pairs":[...],"reference":N,...}`.
    Json,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let result = sync::synchronize(&req.traces)?;
    let mut stored = Vec::new();
    for trace in &req.traces {
        let session = Session::open(trace, OpenOptions::default(), req.store.places());
        let kept = session
            .keep_sync(&result)
            .map_err(anyhow::Error::from_boxed)
            .with_context(|| format!("storing the synchronisation of {}", trace.display()))?;
        stored.extend(kept);
    }
    match req.format {
        Format::Json => {
            let mut v = serde_json::to_value(&result)?;
            v["stored"] = serde_json::json!(stored);
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        Format::Table => print_table(&result, &stored),
    }
    Ok(())
}

/// `t ↦ slope·t + offset`, slope to the digits an f64 drift holds.
fn formula(c: &Correction) -> String {
    format!(
        "slope 1{:+.6e} (drift {:+.4} ppm), offset {:+.1} ns",
        c.drift,
        c.drift * 1e6,
        c.offset
    )
}

fn print_table(s: &Synchronization, stored: &[PathBuf]) {
    let name = |i: usize| s.hosts[i].name.as_str();
    println!("hosts:");
    for (i, h) in s.hosts.iter().enumerate() {
        let place = match (&h.correction, s.reference) {
            (_, Some(r)) if r == i => "the reference timeline".to_string(),
            (Some(c), _) => formula(c),
            (None, _) => "not synchronised: no usable pair links it to the reference".to_string(),
        };
        println!("  {:<16} {:>6} TCP packets  {place}", h.name, h.packets);
    }
    println!("pairs:");
    if s.pairs.is_empty() {
        println!("  none: no TCP packet sent by one host was received by another");
    }
    for p in &s.pairs {
        println!(
            "  {} <-> {}: {}, {} packets matched ({} on a hull); {} onto {}: {}; accuracy {:.3e}",
            name(p.reference),
            name(p.other),
            format!("{:?}", p.quality).to_lowercase(),
            p.messages,
            p.accurate_messages,
            name(p.other),
            name(p.reference),
            formula(&p.correction),
            p.accuracy
        );
    }
    if s.local_messages > 0 {
        println!(
            "  ({} packets stayed on one host, not used)",
            s.local_messages
        );
    }
    for dir in stored {
        println!("stored in {}", dir.display());
    }
}
