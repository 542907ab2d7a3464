//! Who sent a packet. LTTng's emission events (`inet_sock_local_out`,
//! `net_dev_queue`) name no thread: the sender is then the thread the
//! sending host's kernel model has on the emission's CPU, when the trace
//! shows that CPU in process context at that moment. A packet also leaves
//! from interrupt context (an ACK from the net rx softirq, a
//! retransmission from a timer softirq), where the CPU's current thread
//! has nothing to do with it; so a CPU's context counts as known only from
//! a `sched_switch` on it (the kernel never switches inside an interrupt
//! context), followed through the interrupt and softirq entries and exits
//! after it, and only in a trace that records softirqs at all (else a
//! softirq's emission would pass for its thread's). Events lost on the CPU
//! since that switch leave it unknown. Where the framing names a thread
//! (ftrace's task column), that thread is the interrupted one inside an
//! interrupt context: not named either.

use rustc_hash::FxHashMap as HashMap;

use crate::event::Loss;
use crate::kernel::vocabulary::names;

/// What an event does to its CPU's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Switch,
    Enter,
    Exit,
    Other,
}

impl Role {
    /// By canonical name.
    pub fn of(canonical: &str) -> Role {
        match canonical {
            names::SCHED_SWITCH => Role::Switch,
            names::IRQ_HANDLER_ENTRY | names::SOFTIRQ_ENTRY => Role::Enter,
            names::IRQ_HANDLER_EXIT | names::SOFTIRQ_EXIT => Role::Exit,
            _ => Role::Other,
        }
    }
}

/// A CPU's context since its last `sched_switch`.
#[derive(Debug, Clone, Copy)]
struct Known {
    /// When that switch was.
    since: i64,
    /// Interrupt contexts open on it now.
    depth: u32,
}

/// A thread found running in process context where a packet left, and
/// since when its CPU's context was known (events lost in between undo
/// it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sender {
    pub tid: i64,
    pub cpu: u32,
    pub since: i64,
    pub ts: i64,
}

/// Each CPU's context, followed event by event.
#[derive(Debug, Default)]
pub struct Contexts {
    cpus: HashMap<u32, Option<Known>>,
    softirqs_recorded: bool,
}

impl Contexts {
    /// Follows an event of `role` on `cpu` at `ts`; `softirq`: it is a
    /// softirq entry.
    pub fn see(&mut self, role: Role, cpu: Option<u32>, ts: i64, softirq: bool) {
        self.softirqs_recorded |= softirq;
        let Some(cpu) = cpu else { return };
        let state = self.cpus.entry(cpu).or_default();
        match (role, state.as_mut()) {
            (Role::Switch, _) => {
                *state = Some(Known {
                    since: ts,
                    depth: 0,
                })
            }
            (Role::Enter, Some(k)) => k.depth += 1,
            (Role::Exit, Some(k)) if k.depth > 0 => k.depth -= 1,
            // The exit of a context whose entry is not in the trace: lost.
            (Role::Exit, Some(_)) => *state = None,
            _ => {}
        }
    }

    /// Whether `cpu` is known to be in an interrupt context now.
    pub fn in_interrupt(&self, cpu: Option<u32>) -> bool {
        self.known(cpu).is_some_and(|k| k.depth > 0)
    }

    /// The sender of a packet leaving `cpu` at `ts` (now), `current` being
    /// the thread the model has there: `None` when the CPU is in an
    /// interrupt context, its context is not known, or it runs the idle
    /// task (which sends nothing of its own).
    pub fn sender(&self, cpu: Option<u32>, ts: i64, current: Option<i64>) -> Option<Sender> {
        let known = self.known(cpu)?;
        if known.depth > 0 {
            return None;
        }
        Some(Sender {
            tid: current.filter(|&t| t > 0)?,
            cpu: cpu?,
            since: known.since,
            ts,
        })
    }

    fn known(&self, cpu: Option<u32>) -> Option<Known> {
        *self.cpus.get(&cpu?)?
    }

    /// Whether `s` still holds once the whole trace is read: it records
    /// softirqs, and lost no events on the CPU between the switch and the
    /// emission.
    pub fn holds(&self, s: &Sender, losses: &[Loss]) -> bool {
        self.softirqs_recorded
            && !losses
                .iter()
                .any(|l| l.cpu.is_none_or(|c| c == s.cpu) && l.from <= s.ts && l.to >= s.since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn softirq(c: &mut Contexts, role: Role, ts: i64) {
        c.see(role, Some(0), ts, role == Role::Enter);
    }

    #[test]
    fn a_thread_is_named_only_in_known_process_context() {
        let mut c = Contexts::default();
        // Before any switch on the CPU: not known.
        assert_eq!(c.sender(Some(0), 5, Some(42)), None);
        c.see(Role::Switch, Some(0), 10, false);
        let s = c.sender(Some(0), 20, Some(42)).unwrap();
        assert_eq!((s.tid, s.since), (42, 10));
        softirq(&mut c, Role::Enter, 30);
        assert!(c.in_interrupt(Some(0)));
        assert_eq!(c.sender(Some(0), 35, Some(42)), None, "a softirq's");
        softirq(&mut c, Role::Exit, 40);
        assert!(c.sender(Some(0), 45, Some(42)).is_some());
        // The idle task, another CPU never switched: nobody.
        assert_eq!(c.sender(Some(0), 46, Some(0)), None);
        assert_eq!(c.sender(Some(1), 46, Some(42)), None);
        // An exit without its entry: the context is lost until a switch.
        softirq(&mut c, Role::Exit, 50);
        assert_eq!(c.sender(Some(0), 55, Some(42)), None);
        assert!(!c.in_interrupt(Some(0)));
        c.see(Role::Switch, Some(0), 60, false);
        assert!(c.sender(Some(0), 65, Some(42)).is_some());
    }

    #[test]
    fn losses_and_unrecorded_softirqs_undo_a_sender() {
        let mut c = Contexts::default();
        c.see(Role::Switch, Some(0), 10, false);
        let s = c.sender(Some(0), 100, Some(42)).unwrap();
        assert!(!c.holds(&s, &[]), "no softirq recorded: could be one");
        softirq(&mut c, Role::Enter, 200);
        assert!(c.holds(&s, &[]));
        let loss = |cpu, from, to| Loss {
            cpu,
            from,
            to,
            events: None,
        };
        assert!(!c.holds(&s, &[loss(Some(0), 50, 60)]));
        assert!(!c.holds(&s, &[loss(None, 5, 15)]));
        assert!(c.holds(&s, &[loss(Some(1), 50, 60), loss(Some(0), 101, 150)]));
    }
}
