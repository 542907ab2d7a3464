//! The engine's front door: each question a front end asks (the CLI, the
//! TSP service, SQL, Python), answered in one call. Front ends parse and
//! print; they never run a [`Pass`](crate::run::Pass) or read the store's
//! files themselves (protocol/tests/front_door.rs holds them to it).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::reader::OpenOptions;
use crate::run::RunError;
use crate::store::{Places, TraceStore};

pub mod events;
pub mod executions;
pub mod explain;
pub mod hosts;
pub mod index;
pub mod sequences;
pub mod states;
pub mod stored;
pub mod tasks;
pub mod timeline;
pub mod viewport;

/// Whatever stopped an answer, with its causes as `source()`s.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// One trace (a file, or a folder of one or several hosts' traces) and how
/// to read it: the questions are [`Session`]'s methods.
#[derive(Debug, Clone)]
pub struct Session {
    trace: PathBuf,
    options: OpenOptions,
    /// Where answers are stored and read again; `None` for none.
    places: Option<Places>,
}

impl Session {
    pub fn open(trace: impl Into<PathBuf>, options: OpenOptions, places: Option<Places>) -> Self {
        Session {
            trace: trace.into(),
            options,
            places,
        }
    }

    pub fn trace(&self) -> &Path {
        &self.trace
    }

    pub fn options(&self) -> OpenOptions {
        self.options
    }

    pub fn places(&self) -> Option<&Places> {
        self.places.as_ref()
    }

    /// The trace's store; `None` when stores are off or the trace's
    /// identity cannot be read (then the work runs as if unstored).
    fn store(&self) -> Option<TraceStore> {
        TraceStore::open(self.places.as_ref()?, &self.trace).ok()
    }
}

/// Whether `e` is a pass stopped by its caller (not a failure of the trace).
pub fn is_cancelled(e: &Error) -> bool {
    matches!(e.downcast_ref::<RunError>(), Some(RunError::Cancelled))
}

/// An error met while reading one host of several: says which.
#[derive(Debug)]
pub struct InHost {
    host: String,
    source: Error,
}

impl InHost {
    fn boxed(host: &str, source: Error) -> Error {
        Box::new(InHost {
            host: host.to_string(),
            source,
        })
    }
}

impl fmt::Display for InHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "host {}", self.host)
    }
}

impl std::error::Error for InHost {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}
