//! Ready-made models, chosen by name on the command line.

use std::fmt;
use std::str::FromStr;

use super::{EventPattern, ExecutionModel, Mode, ModelError, ThreadFilter};

/// Ready-made models. The first three are defined by thread states and are
/// implemented by the matcher itself; `Periodic` is an ordinary model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    WholeThread,
    Running,
    Blocking,
    Periodic,
    TaskInstance,
}

const PRESETS: &[(&str, &str)] = &[
    ("whole-thread", "each thread as one execution, from its first to its last event"),
    ("running", "each contiguous interval in which a thread runs on a CPU"),
    ("blocking", "each interval in which a thread is blocked (scheduled out while not runnable)"),
    (
        "periodic",
        "each job of a periodic thread: from the return of clock_nanosleep to its next call, on the same thread",
    ),
    (
        "task-instance",
        "each instance of a BTF task or ISR, from its activation to its termination, with its runnables nested",
    ),
];

impl Preset {
    /// Every preset: its name (as `FromStr` takes it) and a description.
    pub fn all() -> &'static [(&'static str, &'static str)] {
        PRESETS
    }

    pub fn name(&self) -> &'static str {
        PRESETS[*self as usize].0
    }

    pub fn description(&self) -> &'static str {
        PRESETS[*self as usize].1
    }

    /// The preset as a model on `threads`; `None` for the state-based presets
    /// (whole-thread, running, blocking) and BTF task instances, which no
    /// event sequence of one thread describes.
    pub fn model(&self, threads: ThreadFilter) -> Option<ExecutionModel> {
        match self {
            Preset::WholeThread | Preset::Running | Preset::Blocking | Preset::TaskInstance => None,
            Preset::Periodic => Some(ExecutionModel {
                name: self.name().to_string(),
                description: Some(self.description().to_string()),
                mode: Mode::SameTid {
                    threads,
                    events: vec![
                        EventPattern::named("syscall_exit_clock_nanosleep"),
                        EventPattern::named("syscall_entry_clock_nanosleep"),
                    ],
                    nested: None,
                },
                time_range: None,
                max_executions: None,
                deadline: None,
            }),
        }
    }
}

impl FromStr for Preset {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self, ModelError> {
        const ALL: [Preset; 5] = [
            Preset::WholeThread,
            Preset::Running,
            Preset::Blocking,
            Preset::Periodic,
            Preset::TaskInstance,
        ];
        ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            ModelError::new(
                "preset",
                format!(
                    "unknown preset \"{s}\", expected one of {}",
                    names.join(", ")
                ),
            )
        })
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}
