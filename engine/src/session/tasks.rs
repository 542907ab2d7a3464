//! The real-time tasks of a trace, found by themselves, host by host: what
//! `sextant tasks`, SQL and Python's `tasks()` hand over.

use super::{hosts, Error, InHost, Session};
use crate::analysis::tasks::{self, Options, Task, TaskCollector};
use crate::hosts::HostPick;
use crate::reader::OpenOptions;
use crate::run::{Pass, Work};

/// A task with its host's name when the trace has several.
pub type HostTask = (Option<String>, Task);

impl Session {
    /// Each host's tasks (the host `only` names, else every one), and the
    /// passes' warnings (prefixed by the host when there are several).
    pub fn tasks(
        &self,
        only: Option<&str>,
        options: &Options,
        work: &Work<'_>,
    ) -> Result<(Vec<HostTask>, Vec<String>), Error> {
        let each = hosts::each(&self.trace, only)?;
        let several = each.len() > 1;
        let (mut found, mut warnings) = (Vec::new(), Vec::new());
        for (k, (pick, name)) in each.iter().enumerate() {
            let (tasks, ran) = work
                .part(k, each.len(), |w| self.host_tasks(*pick, options, w))
                .map_err(|e| match several {
                    true => InHost::boxed(name, e),
                    false => e,
                })?;
            let host = several.then(|| name.clone());
            warnings.extend(ran.into_iter().map(|w| match &host {
                Some(h) => format!("{h}: {w}"),
                None => w,
            }));
            found.extend(tasks.into_iter().map(|t| (host.clone(), t)));
        }
        Ok((found, warnings))
    }

    /// The tasks of host `pick` alone, and its pass's warnings: `Sole`
    /// refuses a trace of several hosts, as every one-model question does.
    pub fn host_tasks(
        &self,
        pick: HostPick,
        options: &Options,
        work: &Work<'_>,
    ) -> Result<(Vec<Task>, Vec<String>), Error> {
        let mut collector = TaskCollector::default();
        let ran = Pass::new(&mut [&mut collector])
            .options(OpenOptions {
                host: pick,
                ..self.options
            })
            .read(&self.trace, work)?;
        Ok((tasks::tasks(collector, options), ran.warnings))
    }
}
