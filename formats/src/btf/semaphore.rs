//! The semaphore state machine of BTF. A semaphore has no instances; it is
//! made ready once, then its own actions (source = the semaphore) move it
//! between states, while processes' actions (source = a process) say who
//! requests, holds and waits for it:
//!
//! ```text
//! not initialized --ready--> free
//! free --lock--> full                 (mutex, binary semaphore)
//! free --used--> used --used--> used  (counting semaphore)
//! used --free--> free    used --lock_used--> full
//! full --unlock--> free  full --unlock_full--> used
//! full --overfull--> overfull --overfull--> overfull --full--> full
//! ```
//!
//! Process actions: `requestsemaphore`, `exclusivesemaphore` (requests),
//! `assigned` (now an owner), `waiting` (now a waiter), `released` (no
//! longer an owner), `increment` / `decrement` (the counter). Writers put the
//! counter in the note of the semaphore's own actions (`lock,1`); `queued`
//! announces a request and changes nothing.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SemState {
    /// Not seen since the start of the read.
    Unknown,
    NotInitialized,
    Free,
    Used,
    Full,
    Overfull,
}

impl SemState {
    pub fn as_str(self) -> &'static str {
        match self {
            SemState::Unknown => "unknown",
            SemState::NotInitialized => "not_initialized",
            SemState::Free => "free",
            SemState::Used => "used",
            SemState::Full => "full",
            SemState::Overfull => "overfull",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SemAction {
    // The semaphore's own.
    Ready,
    Free,
    Used,
    Lock,
    LockUsed,
    Unlock,
    UnlockFull,
    Overfull,
    Full,
    Queued,
    // A process's.
    Request,
    Exclusive,
    Assigned,
    Waiting,
    Released,
    Increment,
    Decrement,
    Other,
}

impl SemAction {
    pub fn of(action: &[u8]) -> SemAction {
        match action {
            b"ready" => SemAction::Ready,
            b"free" => SemAction::Free,
            b"used" => SemAction::Used,
            b"lock" => SemAction::Lock,
            b"lock_used" => SemAction::LockUsed,
            b"unlock" => SemAction::Unlock,
            b"unlock_full" => SemAction::UnlockFull,
            b"overfull" => SemAction::Overfull,
            b"full" => SemAction::Full,
            b"queued" => SemAction::Queued,
            b"requestsemaphore" => SemAction::Request,
            b"exclusivesemaphore" => SemAction::Exclusive,
            b"assigned" => SemAction::Assigned,
            b"waiting" => SemAction::Waiting,
            b"released" => SemAction::Released,
            b"increment" => SemAction::Increment,
            b"decrement" => SemAction::Decrement,
            _ => SemAction::Other,
        }
    }
}

/// One semaphore: its state, counter, owners and waiters (thread ids).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semaphore {
    pub state: SemState,
    /// The counter, as the writer last said it or as counted.
    pub count: Option<i64>,
    pub owners: Vec<i64>,
    pub waiters: Vec<i64>,
}

impl Default for Semaphore {
    fn default() -> Self {
        Semaphore {
            state: SemState::Unknown,
            count: None,
            owners: Vec::new(),
            waiters: Vec::new(),
        }
    }
}

/// An action the machine does not allow in the current state (followed anyway).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unexpected {
    pub from: SemState,
    pub action: SemAction,
}

impl Semaphore {
    /// Applies one row: `process` is the source when it is a process,
    /// `note` the row's note.
    pub fn apply(
        &mut self,
        action: SemAction,
        process: Option<i64>,
        note: &[u8],
    ) -> Result<(), Unexpected> {
        use SemState::*;
        let counter = std::str::from_utf8(note)
            .ok()
            .and_then(|n| n.trim().parse::<i64>().ok());
        let edge: Option<(&[SemState], SemState)> = match action {
            SemAction::Ready => Some((&[NotInitialized], Free)),
            SemAction::Free => Some((&[Used, Free], Free)),
            SemAction::Used => Some((&[Free, Used], Used)),
            SemAction::Lock => Some((&[Free], Full)),
            SemAction::LockUsed => Some((&[Used], Full)),
            SemAction::Unlock => Some((&[Full], Free)),
            SemAction::UnlockFull => Some((&[Full], Used)),
            SemAction::Overfull => Some((&[Full, Overfull], Overfull)),
            SemAction::Full => Some((&[Overfull], Full)),
            _ => None,
        };
        if let Some((sources, to)) = edge {
            if counter.is_some() {
                self.count = counter;
            }
            let from = self.state;
            self.state = to;
            if from != Unknown && !sources.contains(&from) {
                return Err(Unexpected { from, action });
            }
            return Ok(());
        }
        let Some(p) = process else { return Ok(()) };
        match action {
            SemAction::Assigned => {
                self.waiters.retain(|w| *w != p);
                if !self.owners.contains(&p) {
                    self.owners.push(p);
                }
            }
            SemAction::Waiting if !self.waiters.contains(&p) => self.waiters.push(p),
            SemAction::Released => self.owners.retain(|o| *o != p),
            SemAction::Increment => self.count = Some(self.count.unwrap_or(0) + 1),
            SemAction::Decrement => self.count = Some(self.count.unwrap_or(0) - 1),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::SemAction as A;
    use super::SemState as S;
    use super::*;

    fn sem(state: SemState) -> Semaphore {
        Semaphore {
            state,
            ..Semaphore::default()
        }
    }

    /// The semaphore state chart of the BTF chapter, edge by edge.
    #[test]
    fn the_chart() {
        let edges = [
            (S::NotInitialized, A::Ready, S::Free),
            (S::Free, A::Lock, S::Full),
            (S::Free, A::Used, S::Used),
            (S::Used, A::Used, S::Used),
            (S::Used, A::Free, S::Free),
            (S::Used, A::LockUsed, S::Full),
            (S::Full, A::Unlock, S::Free),
            (S::Full, A::UnlockFull, S::Used),
            (S::Full, A::Overfull, S::Overfull),
            (S::Overfull, A::Overfull, S::Overfull),
            (S::Overfull, A::Full, S::Full),
        ];
        for (from, action, to) in edges {
            let mut s = sem(from);
            assert_eq!(s.apply(action, None, b""), Ok(()), "{from:?} {action:?}");
            assert_eq!(s.state, to, "{from:?} {action:?}");
        }
        let mut s = sem(S::Free);
        assert_eq!(
            s.apply(A::Unlock, None, b""),
            Err(Unexpected {
                from: S::Free,
                action: A::Unlock
            })
        );
        assert_eq!(s.state, S::Free);
    }

    /// A mutex under contention, as the TA Simulator writes it: P1 holds it,
    /// P2 requests it and waits, P1 releases it to P2.
    #[test]
    fn owners_and_waiters() {
        let (p1, p2) = (11, 12);
        let mut s = sem(S::NotInitialized);
        let rows: [(SemAction, Option<i64>, &[u8]); 14] = [
            (A::Ready, None, b"0"),
            (A::Free, None, b"0"),
            (A::Request, Some(p1), b"0"),
            (A::Queued, None, b"0"),
            (A::Lock, None, b"1"),
            (A::Assigned, Some(p1), b"1"),
            (A::Request, Some(p2), b"1"),
            (A::Queued, None, b"1"),
            (A::Overfull, None, b"2"),
            (A::Waiting, Some(p2), b"2"),
            (A::Released, Some(p1), b"2"),
            (A::Assigned, Some(p2), b"1"),
            (A::Full, None, b"1"),
            (A::Released, Some(p2), b"1"),
        ];
        for (k, (a, p, n)) in rows.into_iter().enumerate() {
            s.apply(a, p, n).unwrap();
            match k {
                5 => assert_eq!((s.state, &s.owners[..]), (S::Full, &[p1][..])),
                9 => {
                    assert_eq!(s.state, S::Overfull);
                    assert_eq!(
                        (&s.owners[..], &s.waiters[..], s.count),
                        (&[p1][..], &[p2][..], Some(2))
                    );
                }
                11 => assert_eq!((&s.owners[..], s.waiters.len()), (&[p2][..], 0)),
                _ => {}
            }
        }
        s.apply(A::Unlock, None, b"0").unwrap();
        assert_eq!((s.state, s.owners.len(), s.count), (S::Free, 0, Some(0)));
        s.apply(A::Increment, Some(p1), b"").unwrap();
        assert_eq!(s.count, Some(1));
    }
}
