//! The runnable state machine of BTF: a runnable instance runs inside a
//! process instance (the row's source and source instance), is suspended
//! while that process is off its core, and terminates.
//!
//! ```text
//! not initialized --start--> running --terminate--> terminated
//! running --suspend--> suspended --resume--> running
//! ```

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunnableState {
    /// First seen in the middle of its life (the read began later).
    Unknown,
    NotInitialized,
    Running,
    Suspended,
    Terminated,
}

impl RunnableState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunnableState::Unknown => "unknown",
            RunnableState::NotInitialized => "not_initialized",
            RunnableState::Running => "running",
            RunnableState::Suspended => "suspended",
            RunnableState::Terminated => "terminated",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunnableAction {
    Start,
    Terminate,
    Suspend,
    Resume,
    /// Any other action on a runnable: no state change.
    Other,
}

impl RunnableAction {
    pub fn of(action: &[u8]) -> RunnableAction {
        match action {
            b"start" => RunnableAction::Start,
            b"terminate" => RunnableAction::Terminate,
            b"suspend" => RunnableAction::Suspend,
            b"resume" => RunnableAction::Resume,
            _ => RunnableAction::Other,
        }
    }
}

/// The state after `action`; `Err` carries the state taken anyway when the
/// machine does not allow it.
pub fn step(from: RunnableState, action: RunnableAction) -> Result<RunnableState, RunnableState> {
    use RunnableState::*;
    let (sources, to): (&[RunnableState], RunnableState) = match action {
        RunnableAction::Start => (&[NotInitialized], Running),
        RunnableAction::Terminate => (&[Running], Terminated),
        RunnableAction::Suspend => (&[Running], Suspended),
        RunnableAction::Resume => (&[Suspended], Running),
        RunnableAction::Other => return Ok(from),
    };
    if from == Unknown || sources.contains(&from) {
        Ok(to)
    } else {
        Err(to)
    }
}

#[cfg(test)]
mod tests {
    use super::RunnableAction as A;
    use super::RunnableState as S;
    use super::*;

    /// The runnable table of the BTF chapter.
    #[test]
    fn the_table() {
        assert_eq!(step(S::NotInitialized, A::Start), Ok(S::Running));
        assert_eq!(step(S::Running, A::Terminate), Ok(S::Terminated));
        assert_eq!(step(S::Running, A::Suspend), Ok(S::Suspended));
        assert_eq!(step(S::Suspended, A::Resume), Ok(S::Running));
        assert_eq!(step(S::Suspended, A::Terminate), Err(S::Terminated));
        assert_eq!(step(S::Running, A::Start), Err(S::Running));
        assert_eq!(step(S::Unknown, A::Resume), Ok(S::Running));
        assert_eq!(RunnableAction::of(b"suspend"), A::Suspend);
        assert_eq!(RunnableAction::of(b"write"), A::Other);
    }
}
