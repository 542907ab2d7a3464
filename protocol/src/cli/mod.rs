//! Command-line surface (contract in DESIGN.md): one module per subcommand.

mod dump;
mod progress;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "sextant",
    version,
    about = "Finds the late jobs of real-time tasks in kernel traces and explains them"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every event of a trace, in time order.
    Dump {
        /// CTF trace directory (or a directory holding several traces).
        trace: PathBuf,
        #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
        format: DumpFormat,
        /// Do not decode payloads: names, times and CPUs only.
        #[arg(long)]
        no_payload: bool,
    },
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum DumpFormat {
    /// One JSON object per line: {"ts","name","cpu","fields"}.
    Jsonl,
    /// One readable line per event.
    Text,
    /// Decode everything, print only a summary (for benchmarks).
    None,
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Dump {
            trace,
            format,
            no_payload,
        } => dump::run(&trace, format, no_payload),
    }
}
