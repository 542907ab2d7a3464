//! The `sextant` command: analyses on the command line and the server.

use std::process::ExitCode;

use sextant_protocol::cli;

fn main() -> ExitCode {
    // A usage error exits 2 inside `parse` (clap's convention); any other
    // error is 1, below.
    let args = cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sextant: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
