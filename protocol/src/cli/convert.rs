//! `sextant convert SRC DST`: every CTF 1.8 trace at or under SRC written
//! as CTF 2 under DST (`ctf::writer::rewrite_as_ctf2`): the metadata
//! translated to CTF 2's JSON, the stream files copied unchanged, the
//! layout of a session (`kernel/`, `ust/...`) kept. What a CTF 2 consumer
//! (babeltrace2 ≥ 2.1, the reader benchmark's CTF 2 row) reads.

use std::path::PathBuf;

use anyhow::Context;
use sextant_engine::ctf::writer::rewrite_as_ctf2;

#[derive(clap::Args)]
pub struct Request {
    /// A CTF 1.8 trace directory, or a directory holding several (an
    /// LTTng session).
    pub src: PathBuf,
    /// Where to write the CTF 2 traces: a directory that does not exist
    /// yet, or an empty one.
    pub dst: PathBuf,
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let written = rewrite_as_ctf2(&req.src, &req.dst).with_context(|| {
        format!(
            "writing {} as CTF 2 under {}",
            req.src.display(),
            req.dst.display()
        )
    })?;
    println!(
        "{written} CTF 2 trace(s) written under {}",
        req.dst.display()
    );
    Ok(())
}
