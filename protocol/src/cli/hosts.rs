//! `--host`: which machine of a folder that holds several machines' traces
//! to read (`sextant_engine::session::hosts` reads them one at a time).

use std::path::Path;

use sextant_engine::hosts::HostPick;
use sextant_engine::session::hosts;

#[derive(clap::Args)]
pub struct HostArg {
    /// With a folder of traces recorded on several machines: only this
    /// host (its hostname, as the message listing the hosts spells it).
    /// Without it, `analyze` reads each host on its own and names the host
    /// of each execution; the other commands ask for one.
    #[arg(long)]
    pub host: Option<String>,
}

impl HostArg {
    /// The host named, if one was.
    pub fn named(&self) -> Option<&str> {
        self.host.as_deref()
    }

    /// The host to read: the one named, else the trace's only one (a
    /// folder of several hosts is then an error that lists them).
    pub fn pick(&self, trace: &Path) -> anyhow::Result<HostPick> {
        hosts::pick(trace, self.named()).map_err(anyhow::Error::from_boxed)
    }
}
