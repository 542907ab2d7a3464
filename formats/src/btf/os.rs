//! Signals and OS events of BTF.
//!
//! A signal is a variable: processes (or stimuli) `write` it, the note
//! holding the new value, and `read` it (the note, optional, holding the
//! value read). Its values over time are a numeric series.
//!
//! An OS event is set for a process (`set_event`, the note naming that
//! process), waited for by a process (`wait_event`: it waits until the event
//! is set for it) and cleared by the process it was set for (`clear_event`).

/// A value written to a signal: an integer or a decimal number, else not
/// numeric (kept out of the series).
pub fn signal_value(note: &[u8]) -> Option<f64> {
    let t = std::str::from_utf8(note).ok()?.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Some(i as f64);
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalAction {
    Read,
    Write,
    Other,
}

impl SignalAction {
    pub fn of(action: &[u8]) -> SignalAction {
        match action {
            b"read" => SignalAction::Read,
            b"write" => SignalAction::Write,
            _ => SignalAction::Other,
        }
    }
}

/// One signal: its value as last written, and accesses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Signal {
    pub value: Option<f64>,
    pub reads: u64,
    pub writes: u64,
}

impl Signal {
    /// Applies a row; the new value when it was a numeric write.
    pub fn apply(&mut self, action: SignalAction, note: &[u8]) -> Option<f64> {
        match action {
            SignalAction::Read => {
                self.reads += 1;
                None
            }
            SignalAction::Write => {
                self.writes += 1;
                let v = signal_value(note)?;
                self.value = Some(v);
                Some(v)
            }
            SignalAction::Other => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventAction {
    Set,
    Wait,
    Clear,
    Other,
}

impl EventAction {
    pub fn of(action: &[u8]) -> EventAction {
        match action {
            b"set_event" => EventAction::Set,
            b"wait_event" => EventAction::Wait,
            b"clear_event" => EventAction::Clear,
            _ => EventAction::Other,
        }
    }
}

/// One OS event: the processes it is set for, and those waiting for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OsEvent {
    pub set_for: Vec<i64>,
    pub waiters: Vec<i64>,
}

/// What an event row did to a waiting process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventEffect {
    None,
    /// `process` starts waiting (the event was not set for it).
    Waits(i64),
    /// The event is set for `process`, which was waiting: its wait ends.
    Releases(i64),
}

impl OsEvent {
    /// `source` is the acting process; `target` the process named by a
    /// `set_event` note.
    pub fn apply(
        &mut self,
        action: EventAction,
        source: Option<i64>,
        target: Option<i64>,
    ) -> EventEffect {
        match (action, source, target) {
            (EventAction::Set, _, Some(p)) => {
                if !self.set_for.contains(&p) {
                    self.set_for.push(p);
                }
                let was_waiting = self.waiters.contains(&p);
                self.waiters.retain(|w| *w != p);
                if was_waiting {
                    EventEffect::Releases(p)
                } else {
                    EventEffect::None
                }
            }
            (EventAction::Wait, Some(p), _) => {
                if self.set_for.contains(&p) || self.waiters.contains(&p) {
                    EventEffect::None
                } else {
                    self.waiters.push(p);
                    EventEffect::Waits(p)
                }
            }
            (EventAction::Clear, Some(p), _) => {
                self.set_for.retain(|s| *s != p);
                EventEffect::None
            }
            _ => EventEffect::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_series() {
        let mut s = Signal::default();
        assert_eq!(s.apply(SignalAction::Write, b"42"), Some(42.0));
        assert_eq!(s.apply(SignalAction::Read, b"42"), None);
        assert_eq!(s.apply(SignalAction::Write, b" -1.5 "), Some(-1.5));
        assert_eq!(s.apply(SignalAction::Write, b"on"), None);
        assert_eq!((s.value, s.reads, s.writes), (Some(-1.5), 1, 3));
        assert_eq!(SignalAction::of(b"write"), SignalAction::Write);
    }

    /// Wait, set by another process, clear: the seed's event protocol.
    #[test]
    fn event_wait_set_clear() {
        let (a, b) = (1, 2);
        let mut e = OsEvent::default();
        assert_eq!(
            e.apply(EventAction::Wait, Some(a), None),
            EventEffect::Waits(a)
        );
        assert_eq!(
            e.apply(EventAction::Set, Some(b), Some(a)),
            EventEffect::Releases(a)
        );
        assert_eq!(e.set_for, vec![a]);
        // Already set: waiting does not block.
        assert_eq!(e.apply(EventAction::Wait, Some(a), None), EventEffect::None);
        assert_eq!(
            e.apply(EventAction::Clear, Some(a), None),
            EventEffect::None
        );
        assert!(e.set_for.is_empty());
        assert_eq!(
            e.apply(EventAction::Wait, Some(a), None),
            EventEffect::Waits(a)
        );
        assert_eq!(EventAction::of(b"clear_event"), EventAction::Clear);
    }
}
