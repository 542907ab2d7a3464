//! `sextant store`: what a trace's stores hold (the index `serve` keeps,
//! the executions `analyze` keeps), removing them, and removing what can
//! no longer be used.

use std::path::PathBuf;

use anyhow::Context;
use sextant_engine::reader::OpenOptions;
use sextant_engine::session::{stored, Session};
use sextant_engine::store::{Placement, Places};

#[derive(clap::Args)]
pub struct Request {
    #[command(subcommand)]
    action: Action,
    /// The cache directory (default: $XDG_CACHE_HOME/sextant, else
    /// ~/.cache/sextant). A trace's stores there and beside it
    /// (NAME.sextant/, `--store beside`) are both listed and removed.
    #[arg(long, value_name = "DIR", global = true)]
    cache_dir: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Every unit stored for a trace: where, its size, usable or why not,
    /// and the configurations a server offers a model's executions as.
    Ls { trace: PathBuf },
    /// Remove a trace's stores.
    Rm { trace: PathBuf },
    /// Remove what cannot be used any more: for a trace, its units made for
    /// another version of it or of sextant, or damaged; without one, that
    /// for every store in the cache directory, and the stores of traces that
    /// are gone.
    Gc { trace: Option<PathBuf> },
}

pub fn run(req: Request) -> anyhow::Result<()> {
    let places = Places::new(req.cache_dir, Placement::default());
    let session =
        |trace: &PathBuf| Session::open(trace, OpenOptions::default(), Some(places.clone()));
    let reading = |trace: &PathBuf| format!("reading {}", trace.display());
    match req.action {
        Action::Ls { trace } => {
            let units = session(&trace)
                .stored_units()
                .with_context(|| reading(&trace))?;
            if units.is_empty() {
                println!("nothing stored for {}", trace.display());
            }
            for u in units {
                let state = match &u.state {
                    Ok(Some(name)) => format!("ok  {name}"),
                    Ok(None) => "ok".to_string(),
                    Err(e) => format!("unusable: {e}"),
                };
                println!("{}  {} bytes  {state}", u.dir.display(), u.bytes);
                for (experiment, name) in &u.offered {
                    println!("    offered to servers as {name:?} in experiment {experiment:?}");
                }
            }
        }
        Action::Rm { trace } => {
            for dir in session(&trace)
                .remove_stored()
                .with_context(|| reading(&trace))?
            {
                println!("removed {}", dir.display());
            }
        }
        Action::Gc { trace } => {
            let removed = match trace {
                Some(t) => session(&t).collect_garbage().with_context(|| reading(&t))?,
                None => stored::collect_garbage(&places)
                    .with_context(|| format!("cleaning {}", places.cache.display()))?,
            };
            for dir in &removed {
                println!("removed {}", dir.display());
            }
            println!("{} removed", removed.len());
        }
    }
    Ok(())
}
