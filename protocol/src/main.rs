//! The `sextant` command: analyses on the command line and the server.

mod cli;
mod jsonl;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sextant: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
