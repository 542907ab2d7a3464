//! `sextant worker`: serves `sextant sql --cluster` (`sextant_cluster`).

use std::io::Write;
use std::net::SocketAddr;

#[derive(clap::Args)]
pub struct Request {
    /// The address to listen on; port 0 takes any free port. A worker
    /// executes the plans it is sent, reading any trace it can: it listens
    /// on this machine alone unless told otherwise.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR:PORT")]
    pub listen: SocketAddr,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    sextant_cluster::worker::serve(req.listen, |url| {
        // The URL alone on standard output, once it accepts connections:
        // what a script starting workers waits for and reads.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{url}");
        let _ = out.flush();
        eprintln!("sextant worker: listening on {url}");
    })?;
    Ok(())
}
