//! Which tracefs events a capture enables: `--events` items, each a group
//! (`sched`, `hrtimer`, `syscalls`: what the kernel model and the facilities
//! read), a `system:event`, or `system:*`.

/// The scheduler events the kernel model interprets.
const SCHED: &[&str] = &[
    "sched_switch",
    "sched_waking",
    "sched_wakeup",
    "sched_wakeup_new",
    "sched_process_fork",
    "sched_process_exec",
    "sched_process_exit",
    "sched_process_free",
    "sched_pi_setprio",
];

/// hrtimer life cycle; `hrtimer_setup` replaced `hrtimer_init` in 6.13.
const HRTIMER: &[&str] = &[
    "hrtimer_init",
    "hrtimer_setup",
    "hrtimer_start",
    "hrtimer_expire_entry",
    "hrtimer_expire_exit",
    "hrtimer_cancel",
];

/// The system calls the facilities (futex, message queues) and periodic
/// tasks (sleeps) show.
const SYSCALLS: &[&str] = &[
    "futex",
    "futex_wait",
    "futex_wake",
    "futex_waitv",
    "mq_timedsend",
    "mq_timedreceive",
    "clock_nanosleep",
    "nanosleep",
];

pub const DEFAULT: &str = "sched,hrtimer,syscalls";

/// An event to enable, and whether the capture fails without it (an event
/// named explicitly) or goes on (a group member this kernel lacks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub system: String,
    /// `*` for every event of the system.
    pub event: String,
    pub required: bool,
}

pub fn parse(list: &str) -> Result<Vec<Wanted>, String> {
    let mut out: Vec<Wanted> = Vec::new();
    let mut add = |system: &str, event: &str, required: bool| {
        if !out.iter().any(|w| w.system == system && w.event == event) {
            out.push(Wanted {
                system: system.into(),
                event: event.into(),
                required,
            });
        }
    };
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item {
            "sched" => SCHED.iter().for_each(|e| add("sched", e, false)),
            "hrtimer" | "timer" => HRTIMER.iter().for_each(|e| add("timer", e, false)),
            "syscalls" => {
                for s in SYSCALLS {
                    add("syscalls", &format!("sys_enter_{s}"), false);
                    add("syscalls", &format!("sys_exit_{s}"), false);
                }
            }
            _ => {
                let (system, event) = item.split_once([':', '/']).ok_or_else(|| {
                    format!(
                        "--events: {item:?} is neither a group (sched, hrtimer, syscalls) nor SYSTEM:EVENT"
                    )
                })?;
                let ok = |s: &str| {
                    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                };
                if !ok(system) || !(event == "*" || ok(event)) {
                    return Err(format!("--events: {item:?} is not SYSTEM:EVENT"));
                }
                add(system, event, true);
            }
        }
    }
    if out.is_empty() {
        return Err("--events: no event given".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_names() {
        let w = parse(DEFAULT).unwrap();
        assert!(w.iter().any(|w| w.event == "sched_switch" && !w.required));
        assert!(w.iter().any(|w| w.event == "sys_exit_mq_timedreceive"));
        assert!(w
            .iter()
            .any(|w| w.system == "timer" && w.event == "hrtimer_setup"));
        let w = parse("irq:irq_handler_entry, sched , irq/*").unwrap();
        assert_eq!(w[0].system, "irq");
        assert!(w[0].required);
        assert_eq!(w.last().unwrap().event, "*");
        // Duplicates collapse.
        assert_eq!(parse("sched,sched").unwrap().len(), SCHED.len());
        assert!(parse("bogus").is_err());
        assert!(parse("a:b;c").is_err());
        assert!(parse(" , ").is_err());
    }
}
