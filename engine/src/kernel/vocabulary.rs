//! The one table that knows tracers' spellings: LTTng, perf (`perf data
//! convert --to-ctf`) and ftrace text, mapped onto the canonical LTTng-style
//! vocabulary (`docs/kernel-events.md` lists the rows and the traps). Nothing
//! else in the engine tests a tracer's spelling; analyses name events by the
//! constants of `names`.

use std::borrow::Cow;

use super::fields::{Payload, K};

/// Canonical event names, as analyses match them.
pub mod names {
    pub const SCHED_SWITCH: &str = "sched_switch";
    pub const SCHED_WAKING: &str = "sched_waking";
    pub const SCHED_WAKEUP: &str = "sched_wakeup";
    pub const SCHED_WAKEUP_NEW: &str = "sched_wakeup_new";
    pub const SCHED_PI_SETPRIO: &str = "sched_pi_setprio";
    pub const SCHED_PROCESS_FORK: &str = "sched_process_fork";
    pub const SCHED_PROCESS_EXEC: &str = "sched_process_exec";
    pub const SCHED_PROCESS_EXIT: &str = "sched_process_exit";
    pub const SCHED_PROCESS_FREE: &str = "sched_process_free";
    pub const STATEDUMP_PROCESS: &str = "lttng_statedump_process_state";
    pub const IRQ_HANDLER_ENTRY: &str = "irq_handler_entry";
    pub const IRQ_HANDLER_EXIT: &str = "irq_handler_exit";
    pub const SOFTIRQ_ENTRY: &str = "irq_softirq_entry";
    pub const SOFTIRQ_EXIT: &str = "irq_softirq_exit";
    pub const SOFTIRQ_RAISE: &str = "irq_softirq_raise";
    pub const HRTIMER_INIT: &str = "hrtimer_init";
    pub const HRTIMER_START: &str = "hrtimer_start";
    pub const HRTIMER_EXPIRE_ENTRY: &str = "hrtimer_expire_entry";
    pub const HRTIMER_EXPIRE_EXIT: &str = "hrtimer_expire_exit";
    pub const HRTIMER_CANCEL: &str = "hrtimer_cancel";
    /// System calls are `SYSCALL_ENTRY` / `SYSCALL_EXIT` + the call's name.
    pub const SYSCALL_ENTRY: &str = "syscall_entry_";
    pub const SYSCALL_EXIT: &str = "syscall_exit_";
    pub const FUTEX_ENTRY: &str = "syscall_entry_futex";
    pub const FUTEX_EXIT: &str = "syscall_exit_futex";
    pub const FUTEX_WAIT_ENTRY: &str = "syscall_entry_futex_wait";
    pub const FUTEX_WAIT_EXIT: &str = "syscall_exit_futex_wait";
    pub const FUTEX_WAKE_ENTRY: &str = "syscall_entry_futex_wake";
    pub const FUTEX_WAKE_EXIT: &str = "syscall_exit_futex_wake";
    pub const MQ_SEND_ENTRY: &str = "syscall_entry_mq_timedsend";
    pub const MQ_SEND_EXIT: &str = "syscall_exit_mq_timedsend";
    pub const MQ_RECEIVE_ENTRY: &str = "syscall_entry_mq_timedreceive";
    pub const MQ_RECEIVE_EXIT: &str = "syscall_exit_mq_timedreceive";
}

/// perf's payload field naming the event's thread (the other tracers say
/// it in the framing); with `perf_cpu`, read as `K::PerfTid`, `K::PerfCpu`.
const PERF_TID: &str = "perf_tid";

/// Which tracer wrote an event class, as far as spelling goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tracer {
    Lttng,
    Perf,
    Ftrace,
    /// A BTF file (an RTOS, a simulator): rows and the scheduling events
    /// the BTF model derives from them (`btf:` names). Its priorities are
    /// the task's own (kernel order already), with no Linux policy.
    Btf,
}

/// Event kinds the kernel model interprets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    SchedSwitch,
    SchedWaking,
    SchedWakeup,
    SchedWakeupNew,
    SchedPiSetprio,
    SchedProcessFork,
    SchedProcessExec,
    SchedProcessExit,
    SchedProcessFree,
    /// LTTng's initial list of processes.
    StatedumpProcess,
    Other,
}

impl Tracer {
    /// Guesses the tracer from an event class: BTF's are named `btf:` (the
    /// derived ones) or have its row fields, ftrace events name their thread
    /// in the framing, perf names carry a `subsystem:` prefix and every payload
    /// starts with `perf_ip`/`perf_tid`.
    pub fn of_class(raw_name: &str, has_framing_thread: bool, fields: &[&str]) -> Tracer {
        if raw_name.starts_with("btf:") || fields.contains(&"source_instance") {
            Tracer::Btf
        } else if has_framing_thread {
            Tracer::Ftrace
        } else if raw_name.contains(':') || fields.contains(&PERF_TID) {
            Tracer::Perf
        } else {
            Tracer::Lttng
        }
    }
}

/// The canonical name of an event.
pub fn canonical_event(raw: &str) -> Cow<'_, str> {
    // perf: `sched:sched_switch`, `syscalls:sys_enter_futex`, `timer:hrtimer_start`.
    let base = raw.rsplit_once(':').map_or(raw, |(_, b)| b);
    if let Some(s) = base.strip_prefix("sys_enter_") {
        return Cow::Owned(format!("{}{s}", names::SYSCALL_ENTRY));
    }
    if let Some(s) = base.strip_prefix("sys_exit_") {
        return Cow::Owned(format!("{}{s}", names::SYSCALL_EXIT));
    }
    if let Some(s) = base.strip_prefix("compat_syscall_") {
        return Cow::Owned(format!("syscall_{s}"));
    }
    // LTTng before 2.7 spelt entries `sys_X` (and exits `exit_syscall`).
    if let Some(s) = base.strip_prefix("sys_") {
        return Cow::Owned(format!("{}{s}", names::SYSCALL_ENTRY));
    }
    match base {
        // Kernels >= 6.13 replaced hrtimer_init by hrtimer_setup.
        "hrtimer_setup" => Cow::Borrowed(names::HRTIMER_INIT),
        // LTTng prefixes the softirq events with their subsystem.
        "softirq_entry" => Cow::Borrowed(names::SOFTIRQ_ENTRY),
        "softirq_exit" => Cow::Borrowed(names::SOFTIRQ_EXIT),
        "softirq_raise" => Cow::Borrowed(names::SOFTIRQ_RAISE),
        _ if base.len() == raw.len() => Cow::Borrowed(raw),
        _ => Cow::Owned(base.to_string()),
    }
}

pub fn kind_of(canonical: &str) -> Kind {
    use names::*;
    match canonical {
        SCHED_SWITCH => Kind::SchedSwitch,
        SCHED_WAKING => Kind::SchedWaking,
        SCHED_WAKEUP => Kind::SchedWakeup,
        SCHED_WAKEUP_NEW => Kind::SchedWakeupNew,
        SCHED_PI_SETPRIO => Kind::SchedPiSetprio,
        SCHED_PROCESS_FORK => Kind::SchedProcessFork,
        SCHED_PROCESS_EXEC => Kind::SchedProcessExec,
        SCHED_PROCESS_EXIT => Kind::SchedProcessExit,
        SCHED_PROCESS_FREE => Kind::SchedProcessFree,
        STATEDUMP_PROCESS => Kind::StatedumpProcess,
        _ => Kind::Other,
    }
}

/// The event's thread when its payload names it (perf's `perf_tid`; -1
/// marks the final switch of an exiting thread, which names none).
pub fn payload_thread(payload: &Payload<'_>) -> Option<i64> {
    payload.int_at(K::PerfTid).filter(|t| *t >= 0)
}

/// The event's CPU when its payload names it (perf's `perf_cpu`).
pub fn payload_cpu(payload: &Payload<'_>) -> Option<u32> {
    payload
        .int_at(K::PerfCpu)
        .and_then(|c| u32::try_from(c).ok())
}

/// The canonical names of a class's payload fields, in order. perf and ftrace
/// say `pid` where LTTng says `tid` (the kernel's pid *is* the thread id);
/// LTTng's fork also has `parent_pid`, the process id, so a `…pid` is renamed
/// only when the class has no `…tid` of the same prefix. ftrace text prints
/// a fork's parent as `comm=… pid=…` (the tracepoint's format string), not
/// under its field names `parent_comm`, `parent_pid`.
pub fn canonical_fields(tracer: Tracer, kind: Kind, raw: &[&str]) -> Vec<Box<str>> {
    raw.iter()
        .map(|f| {
            let renamed = match (tracer, kind) {
                (Tracer::Lttng, _) | (_, Kind::Other) => None,
                (Tracer::Ftrace, Kind::SchedProcessFork) if matches!(*f, "pid" | "comm") => {
                    Some(format!("parent_{}", f.replace("pid", "tid")))
                }
                _ => f.strip_suffix("pid").map(|prefix| format!("{prefix}tid")),
            };
            match renamed {
                Some(t) if !raw.contains(&t.as_str()) => t.into_boxed_str(),
                _ => (*f).into(),
            }
        })
        .collect()
}

/// Kernel-order priority (0..139, smaller is higher) from a traced value:
/// LTTng reports `prio - 100` (MAX_RT_PRIO), perf and ftrace the kernel's.
pub fn kernel_prio(tracer: Tracer, traced: i64) -> i32 {
    let p = match tracer {
        Tracer::Lttng => traced + 100,
        Tracer::Perf | Tracer::Ftrace | Tracer::Btf => traced,
    };
    p.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// Whether a `prev_state` means "still runnable" (preempted rather than
/// blocked): 0, or only the preemption marker above the state bits
/// (TASK_REPORT_MAX / TASK_STATE_MAX), or ftrace's `R` / `R+`.
pub fn runnable_from_int(state: i64) -> bool {
    state & 0xff == 0
}

pub fn runnable_from_letters(state: &[u8]) -> bool {
    matches!(state, b"R" | b"R+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names() {
        assert_eq!(canonical_event("sched:sched_switch"), "sched_switch");
        assert_eq!(
            canonical_event("syscalls:sys_enter_futex"),
            "syscall_entry_futex"
        );
        assert_eq!(
            canonical_event("sys_exit_clock_nanosleep"),
            "syscall_exit_clock_nanosleep"
        );
        assert_eq!(canonical_event("syscall_exit_futex"), "syscall_exit_futex");
        assert_eq!(
            canonical_event("compat_syscall_entry_read"),
            "syscall_entry_read"
        );
        assert_eq!(canonical_event("sys_open"), "syscall_entry_open");
        assert_eq!(canonical_event("timer:hrtimer_setup"), "hrtimer_init");
        assert_eq!(canonical_event("irq:softirq_entry"), "irq_softirq_entry");
        assert_eq!(canonical_event("irq_softirq_exit"), "irq_softirq_exit");
        assert_eq!(
            canonical_event("irq:irq_handler_entry"),
            "irq_handler_entry"
        );
        assert_eq!(
            canonical_event("lttng_statedump_process_state"),
            "lttng_statedump_process_state"
        );
        assert_eq!(
            kind_of(&canonical_event("sched:sched_process_free")),
            Kind::SchedProcessFree
        );
    }

    #[test]
    fn field_names() {
        let perf = canonical_fields(
            Tracer::Perf,
            Kind::SchedSwitch,
            &["perf_tid", "prev_pid", "next_pid"],
        );
        assert_eq!(&*perf[1], "prev_tid");
        assert_eq!(&*perf[2], "next_tid");
        // perf_tid stays: it is not the event's subject.
        let fork = canonical_fields(
            Tracer::Lttng,
            Kind::SchedProcessFork,
            &["parent_tid", "parent_pid"],
        );
        assert_eq!(&*fork[1], "parent_pid");
        let ft = canonical_fields(
            Tracer::Ftrace,
            Kind::SchedProcessFork,
            &["parent_pid", "child_pid"],
        );
        assert_eq!((&*ft[0], &*ft[1]), ("parent_tid", "child_tid"));
        // As kernel 6.x ftrace prints it.
        let ft = canonical_fields(
            Tracer::Ftrace,
            Kind::SchedProcessFork,
            &["comm", "pid", "child_comm", "child_pid"],
        );
        let names: Vec<&str> = ft.iter().map(|f| &**f).collect();
        assert_eq!(
            names,
            ["parent_comm", "parent_tid", "child_comm", "child_tid"]
        );
        let other = canonical_fields(Tracer::Perf, Kind::Other, &["pid"]);
        assert_eq!(&*other[0], "pid");
    }

    #[test]
    fn priorities_and_states() {
        assert_eq!(kernel_prio(Tracer::Lttng, 20), 120);
        assert_eq!(kernel_prio(Tracer::Lttng, -81), 19);
        assert_eq!(kernel_prio(Tracer::Perf, 19), 19);
        assert!(runnable_from_int(0));
        assert!(runnable_from_int(0x100)); // preempted, kernel >= 4.14
        assert!(runnable_from_int(2048)); // preempted, Linux 4.4
        assert!(!runnable_from_int(1));
        assert!(!runnable_from_int(0x82));
        assert!(runnable_from_letters(b"R+"));
        assert!(!runnable_from_letters(b"S"));
    }
}
