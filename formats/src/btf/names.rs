//! How BTF writers spell things: the one place that knows them, as
//! `kernel::vocabulary` is for kernel tracers.
//!
//! - Entity types: `T` task, `I` ISR, `R` runnable, `SIG`, `SEM`, `EVENT`,
//!   `STI` stimulus, `C` core (`Core` in some writers), `SIM`, `SCHED`; any
//!   other is kept as a generic event.
//! - The FreeRTOS trace logger spells tasks `[core/number]Name`: the core is
//!   where the event happened, not part of the task (`[0/0007]CS` and
//!   `[2/0007]CS` are task 7, `CS`); `[c/0000]` is no task. It writes a
//!   task's creation as a `preempt` whose note begins with `create`, and
//!   priorities in notes as `pri:N` (larger is more urgent).
//! - Cores are numbered by the digits ending their name (`Core_2` is 2).

/// The entity types the model interprets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntityType {
    Task,
    Isr,
    Runnable,
    Signal,
    Semaphore,
    Event,
    Stimulus,
    Core,
    Simulation,
    Scheduler,
    Other,
}

impl EntityType {
    pub fn of(id: &[u8]) -> EntityType {
        match id {
            b"T" => EntityType::Task,
            b"I" => EntityType::Isr,
            b"R" => EntityType::Runnable,
            b"SIG" => EntityType::Signal,
            b"SEM" => EntityType::Semaphore,
            b"EVENT" => EntityType::Event,
            b"STI" => EntityType::Stimulus,
            b"C" | b"Core" => EntityType::Core,
            b"SIM" => EntityType::Simulation,
            b"SCHED" => EntityType::Scheduler,
            _ => EntityType::Other,
        }
    }

    /// Tasks and ISRs share the process state machine.
    pub fn is_process(self) -> bool {
        matches!(self, EntityType::Task | EntityType::Isr)
    }
}

/// A process name split as the FreeRTOS logger spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessName<'a> {
    /// The core the event happened on (`[core/...]`), when spelt.
    pub core: Option<u32>,
    /// The writer's own task number (`[.../number]`), when spelt.
    pub number: Option<u64>,
    /// The name without the prefix.
    pub name: &'a [u8],
}

pub fn process_name(raw: &[u8]) -> ProcessName<'_> {
    let plain = ProcessName {
        core: None,
        number: None,
        name: raw,
    };
    let Some(rest) = raw.strip_prefix(b"[") else {
        return plain;
    };
    let Some(close) = memchr::memchr(b']', rest) else {
        return plain;
    };
    let Some((core, number)) = split_once(&rest[..close], b'/') else {
        return plain;
    };
    match (digits(core), digits(number)) {
        (Some(c), Some(n)) => ProcessName {
            core: u32::try_from(c).ok(),
            number: Some(n),
            name: &rest[close + 1..],
        },
        _ => plain,
    }
}

fn split_once(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    let i = memchr::memchr(sep, s)?;
    Some((&s[..i], &s[i + 1..]))
}

fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 18 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |v, d| v * 10 + u64::from(d - b'0')))
}

/// The number ending a core's name (`Core_2` → 2, `CORE3` → 3).
pub fn core_number(name: &[u8]) -> Option<u32> {
    let start = name
        .iter()
        .rposition(|b| !b.is_ascii_digit())
        .map_or(0, |i| i + 1);
    digits(&name[start..]).and_then(|n| u32::try_from(n).ok())
}

/// Largest writer task number used as a thread id as it is; names are
/// hashed above it.
const MAX_NUMBERED: u64 = 0xffff;

/// The thread id of a process: the writer's task number when it spells one
/// (FreeRTOS), else a hash of the name, the same in every read of the file
/// (whatever was read first, and after a seek). Hashes lie in
/// `65536..2^31`, below JavaScript's exact integers. `None` for the
/// FreeRTOS "no task" `[c/0000]`.
pub fn thread_id(name: &ProcessName<'_>) -> Option<i64> {
    match name.number {
        Some(0) => None,
        Some(n) if n <= MAX_NUMBERED => Some(n as i64),
        _ => Some(hashed_id(name.name)),
    }
}

/// FNV-1a, folded into `65536..2^31`.
pub fn hashed_id(name: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let span = (1u64 << 31) - (MAX_NUMBERED + 1);
    (MAX_NUMBERED + 1 + (h ^ (h >> 32)) % span) as i64
}

/// A priority in a note: `pri:N` (`create pri:4`); larger is more urgent.
pub fn note_priority(note: &[u8]) -> Option<i64> {
    let at = memchr::memmem::find(note, b"pri:")?;
    let rest = &note[at + 4..];
    let end = rest
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(rest.len());
    digits(&rest[..end]).and_then(|p| i64::try_from(p).ok())
}

/// Whether a process row's note announces its creation (FreeRTOS logger).
pub fn is_creation(note: &[u8]) -> bool {
    note.starts_with(b"create")
}

/// A BTF priority (larger is more urgent) in the engine's kernel order
/// (smaller is more urgent): `99 - p`, as Linux maps real-time priorities.
pub fn kernel_order(priority: i64) -> i32 {
    (99 - priority).clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freertos_spelling() {
        let p = process_name(b"[2/0007]CS");
        assert_eq!((p.core, p.number, p.name), (Some(2), Some(7), &b"CS"[..]));
        assert_eq!(thread_id(&p), Some(7));
        assert_eq!(thread_id(&process_name(b"[0/0007]CS")), Some(7));
        assert_eq!(thread_id(&process_name(b"[0/0000]")), None);
        let plain = process_name(b"TASK_10MS");
        assert_eq!((plain.core, plain.number), (None, None));
        assert_eq!(thread_id(&plain), Some(hashed_id(b"TASK_10MS")));
        // Not the prefix: kept whole.
        for raw in [&b"[x/1]A"[..], b"[1]A", b"[1/2A", b"[/]A"] {
            assert_eq!(process_name(raw).name, raw);
        }
    }

    #[test]
    fn ids_are_stable_and_out_of_the_numbered_range() {
        let a = hashed_id(b"TASK_10MS");
        assert_eq!(a, hashed_id(b"TASK_10MS"));
        assert_ne!(a, hashed_id(b"TASK_10MS_DL2"));
        for n in [&b""[..], b"a", b"TASK_InputProcessing", &[0xff; 64]] {
            let id = hashed_id(n);
            assert!((65536..1 << 31).contains(&id), "{id}");
        }
    }

    #[test]
    fn cores_priorities_notes() {
        assert_eq!(core_number(b"Core_2"), Some(2));
        assert_eq!(core_number(b"CORE13"), Some(13));
        assert_eq!(core_number(b"Core"), None);
        assert_eq!(note_priority(b"create pri:4"), Some(4));
        assert_eq!(note_priority(b"pri:12 x"), Some(12));
        assert_eq!(note_priority(b"create"), None);
        assert_eq!(note_priority(b"pri:"), None);
        assert!(is_creation(b"create pri:0"));
        assert!(!is_creation(b""));
        assert_eq!(kernel_order(4), 95);
        assert!(kernel_order(4) < kernel_order(0));
        assert_eq!(EntityType::of(b"SEM"), EntityType::Semaphore);
        assert_eq!(EntityType::of(b"IB"), EntityType::Other);
    }
}
