//! The process state machine of BTF (tasks and ISRs share it):
//!
//! ```text
//! not initialized --activate--> active --start--> running
//! running --preempt--> ready --resume--> running
//! running --wait--> waiting --release--> ready
//! running --poll--> polling --run--> running
//! polling --park--> parking --release_parking--> ready
//! parking --poll_parking--> polling
//! running --terminate--> terminated
//! ```
//!
//! `activate` comes from a stimulus, every other transition from the core
//! the instance runs on. `mtalimitexceeded` (more activations than allowed:
//! no instance is created) and the migration notifications change no state.
//! Each instance (the target instance column) has its own machine.
//!
//! Tolerances, for traces that do not record every transition: an instance
//! first seen in the middle of its life (the trace or a seek began later)
//! is in `Unknown`, from which any action is taken; `resume` and `preempt`
//! are accepted from `active`, as the FreeRTOS logger never writes `start`
//! (it resumes newly created tasks, and does not record the first start of
//! tasks on the other cores, only their preemption).

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcessState {
    /// Not seen since the start of the read: its past is unknown.
    Unknown,
    NotInitialized,
    Active,
    Running,
    Ready,
    Waiting,
    Polling,
    Parking,
    Terminated,
}

impl ProcessState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessState::Unknown => "unknown",
            ProcessState::NotInitialized => "not_initialized",
            ProcessState::Active => "active",
            ProcessState::Running => "running",
            ProcessState::Ready => "ready",
            ProcessState::Waiting => "waiting",
            ProcessState::Polling => "polling",
            ProcessState::Parking => "parking",
            ProcessState::Terminated => "terminated",
        }
    }

    /// Whether the instance holds its core (running, or polling: active
    /// waiting keeps the core busy).
    pub fn on_core(self) -> bool {
        matches!(self, ProcessState::Running | ProcessState::Polling)
    }
}

impl fmt::Display for ProcessState {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcessAction {
    Activate,
    Start,
    Resume,
    Preempt,
    Terminate,
    Poll,
    Wait,
    Release,
    Run,
    Park,
    ReleaseParking,
    PollParking,
    /// A notification (`mtalimitexceeded`, migrations, ...): no state change.
    Notification,
}

impl ProcessAction {
    pub fn of(action: &[u8]) -> ProcessAction {
        match action {
            b"activate" => ProcessAction::Activate,
            b"start" => ProcessAction::Start,
            b"resume" => ProcessAction::Resume,
            b"preempt" => ProcessAction::Preempt,
            b"terminate" => ProcessAction::Terminate,
            b"poll" => ProcessAction::Poll,
            b"wait" => ProcessAction::Wait,
            b"release" => ProcessAction::Release,
            b"run" => ProcessAction::Run,
            b"park" => ProcessAction::Park,
            b"release_parking" => ProcessAction::ReleaseParking,
            b"poll_parking" => ProcessAction::PollParking,
            _ => ProcessAction::Notification,
        }
    }

    /// (the states it leaves, the state it enters); `None` for notifications.
    fn edge(self) -> Option<(&'static [ProcessState], ProcessState)> {
        use ProcessState::*;
        Some(match self {
            ProcessAction::Activate => (&[NotInitialized, Terminated], Active),
            ProcessAction::Start => (&[Active], Running),
            ProcessAction::Resume => (&[Ready, Active], Running),
            ProcessAction::Preempt => (&[Running, Active], Ready),
            ProcessAction::Terminate => (&[Running], Terminated),
            ProcessAction::Poll => (&[Running], Polling),
            ProcessAction::Wait => (&[Running], Waiting),
            ProcessAction::Release => (&[Waiting], Ready),
            ProcessAction::Run => (&[Polling], Running),
            ProcessAction::Park => (&[Polling], Parking),
            ProcessAction::ReleaseParking => (&[Parking], Ready),
            ProcessAction::PollParking => (&[Parking], Polling),
            ProcessAction::Notification => return None,
        })
    }
}

/// An action the machine does not allow in the current state. The instance
/// is put in the action's target state anyway (the trace says so), and the
/// reader counts the disagreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unexpected {
    pub from: ProcessState,
    pub action: ProcessAction,
}

/// The state after `action` from `from`.
pub fn step(
    from: ProcessState,
    action: ProcessAction,
) -> Result<ProcessState, (ProcessState, Unexpected)> {
    let Some((sources, to)) = action.edge() else {
        return Ok(from);
    };
    if from == ProcessState::Unknown || sources.contains(&from) {
        Ok(to)
    } else {
        Err((to, Unexpected { from, action }))
    }
}

#[cfg(test)]
mod tests {
    use super::ProcessAction as A;
    use super::ProcessState as S;
    use super::*;

    /// The transition table of the BTF chapter, row by row.
    #[test]
    fn the_table() {
        let table = [
            (S::NotInitialized, A::Activate, S::Active),
            (S::Active, A::Start, S::Running),
            (S::Ready, A::Resume, S::Running),
            (S::Running, A::Preempt, S::Ready),
            (S::Running, A::Terminate, S::Terminated),
            (S::Running, A::Poll, S::Polling),
            (S::Running, A::Wait, S::Waiting),
            (S::Waiting, A::Release, S::Ready),
            (S::Polling, A::Run, S::Running),
            (S::Polling, A::Park, S::Parking),
            (S::Parking, A::ReleaseParking, S::Ready),
            (S::Parking, A::PollParking, S::Polling),
        ];
        for (from, action, to) in table {
            assert_eq!(step(from, action), Ok(to), "{from} {action:?}");
        }
        let spelled = [
            "activate",
            "start",
            "resume",
            "preempt",
            "terminate",
            "poll",
            "wait",
            "release",
            "run",
            "park",
            "release_parking",
            "poll_parking",
        ];
        for (name, (_, action, _)) in spelled.iter().zip(table) {
            assert_eq!(ProcessAction::of(name.as_bytes()), action);
        }
    }

    #[test]
    fn a_whole_life() {
        // activate, start, preempt, resume, wait, release, resume, poll,
        // park, poll_parking, run, terminate: a valid instance.
        let mut s = S::NotInitialized;
        for a in [
            A::Activate,
            A::Start,
            A::Preempt,
            A::Resume,
            A::Wait,
            A::Release,
            A::Resume,
            A::Poll,
            A::Park,
            A::PollParking,
            A::Run,
            A::Terminate,
        ] {
            s = step(s, a).unwrap_or_else(|e| panic!("{e:?}"));
        }
        assert_eq!(s, S::Terminated);
        // A new instance of the same process.
        assert_eq!(step(S::Terminated, A::Activate), Ok(S::Active));
    }

    #[test]
    fn notifications_change_nothing() {
        for s in [S::Running, S::Ready, S::Waiting] {
            assert_eq!(step(s, ProcessAction::of(b"mtalimitexceeded")), Ok(s));
        }
    }

    #[test]
    fn disallowed_actions_are_reported_and_followed() {
        assert_eq!(
            step(S::Ready, A::Terminate),
            Err((
                S::Terminated,
                Unexpected {
                    from: S::Ready,
                    action: A::Terminate
                }
            ))
        );
        assert!(step(S::Waiting, A::Resume).is_err());
        assert!(step(S::Running, A::Start).is_err());
        assert!(step(S::Polling, A::Preempt).is_err());
        assert!(step(S::Waiting, A::Preempt).is_err());
        // The tolerances.
        assert_eq!(step(S::Unknown, A::Preempt), Ok(S::Ready));
        assert_eq!(step(S::Active, A::Resume), Ok(S::Running));
        assert_eq!(step(S::Active, A::Preempt), Ok(S::Ready));
        assert!(S::Polling.on_core() && S::Running.on_core() && !S::Parking.on_core());
    }
}
