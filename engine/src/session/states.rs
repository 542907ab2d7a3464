//! Every thread's state intervals over a whole trace (one host), as the
//! kernel model derives them: what `export --states`, SQL's
//! `thread_states` and Python's `thread_states()` hand over.

use super::{Error, Session};
use crate::analysis::intervals::ThreadRow;
use crate::analysis::states::ThreadStates;
use crate::hosts::HostPick;
use crate::reader::OpenOptions;
use crate::run::{Pass, Ran, Work};

impl Session {
    /// Each thread's rows, by TID then start, with the pass's warnings.
    pub fn thread_states(
        &self,
        pick: HostPick,
        work: &Work<'_>,
    ) -> Result<(Vec<ThreadRow>, Ran), Error> {
        let mut states = ThreadStates::default();
        let ran = Pass::new(&mut [&mut states])
            .options(OpenOptions {
                host: pick,
                ..self.options
            })
            .read(&self.trace, work)?;
        Ok((states.into_rows(), ran))
    }
}
