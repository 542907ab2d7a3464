//! A trace's events in time order, from its start or from a time, handed
//! to a front end's own visitor (the TSP events table's lines, a search's
//! counts, counts by type), with the analyses it needs fed first (the
//! kernel model giving each event its thread). The session reads; the
//! visitor only looks.

use super::Session;
use crate::kernel::pass::Analysis;
use crate::run::{Pass, Ran, RunError, Tap, Work};

impl Session {
    /// Every event through `visit`, after `analyses`; from `from` when
    /// given, the reader seeking there (`RunError::CannotSeek` when the
    /// format cannot: the caller then reads from the start and skips).
    pub fn read_events<T: Tap>(
        &self,
        from: Option<i64>,
        analyses: &mut [&mut dyn Analysis],
        visit: T,
        work: &Work<'_>,
    ) -> Result<Ran, RunError> {
        let pass = Pass::new(analyses).tap(visit).options(self.options);
        let pass = match from {
            Some(ts) => pass.from(ts),
            None => pass,
        };
        pass.read(&self.trace, work)
    }
}
