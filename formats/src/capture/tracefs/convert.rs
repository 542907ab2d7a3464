//! tracefs events as CTF event classes with the LTTng-style names the kernel
//! model reads without any tracer-specific spelling: `syscall_entry_X` /
//! `syscall_exit_X` for `sys_enter_X` / `sys_exit_X`, `tid` where the
//! scheduler's events say `pid` (the kernel's pid is the thread id), and
//! priorities as LTTng writes them (the kernel's `prio` minus 100). The
//! common fields go: `common_pid` becomes the stream event context `tid`,
//! the rest is ring-buffer bookkeeping.

use crate::ctf::writer::{EventClass, FieldType, FieldValue};

use super::format::{EventFormat, FieldFormat, FieldKind};

/// LTTng writes `task->prio - MAX_RT_PRIO`.
const LTTNG_PRIO_OFFSET: i64 = 100;

/// How one output field is read from a record.
#[derive(Debug, Clone)]
struct Column {
    src: FieldFormat,
    prio: bool,
}

/// One tracefs event and its CTF class.
#[derive(Debug, Clone)]
pub struct Conversion {
    pub class: EventClass,
    columns: Vec<Column>,
    common_pid: Option<FieldFormat>,
}

/// The CTF name of a tracefs event.
pub fn ctf_name(system: &str, name: &str) -> String {
    if system == "syscalls" {
        if let Some(s) = name.strip_prefix("sys_enter_") {
            return format!("syscall_entry_{s}");
        }
        if let Some(s) = name.strip_prefix("sys_exit_") {
            return format!("syscall_exit_{s}");
        }
    }
    name.to_string()
}

impl Conversion {
    pub fn new(f: &EventFormat) -> Conversion {
        let sched = f.system == "sched";
        let own: Vec<&FieldFormat> = f
            .fields
            .iter()
            .filter(|x| !x.name.starts_with("common_") && x.name != "__syscall_nr")
            .collect();
        let mut fields = Vec::new();
        let mut columns = Vec::new();
        for src in &own {
            let mut name = src.name.clone();
            if sched {
                if let Some(prefix) = name.strip_suffix("pid") {
                    let tid = format!("{prefix}tid");
                    if !own.iter().any(|o| o.name == tid) {
                        name = tid;
                    }
                }
            }
            let prio = sched && src.kind == FieldKind::Int && src.name.ends_with("prio");
            let ty = match src.kind {
                FieldKind::Int if src.is_pointer() => FieldType::hex(src.size as u8 * 8),
                // LTTng writes priorities as signed 32-bit numbers.
                FieldKind::Int if prio => FieldType::int(32, true),
                FieldKind::Int => FieldType::int(src.size as u8 * 8, src.signed),
                FieldKind::Chars | FieldKind::DataLocChars => FieldType::String,
                FieldKind::DataLoc { text: true, .. } => FieldType::String,
                FieldKind::DataLoc { .. } | FieldKind::Bytes => FieldType::Bytes,
            };
            fields.push((name, ty));
            columns.push(Column {
                src: (*src).clone(),
                prio,
            });
        }
        Conversion {
            class: EventClass {
                name: ctf_name(&f.system, &f.name),
                fields,
            },
            columns,
            common_pid: f.field("common_pid").cloned(),
        }
    }

    /// The thread that was running when the event was recorded.
    pub fn thread(&self, data: &[u8]) -> Option<i64> {
        self.common_pid.as_ref().and_then(|f| int(data, f))
    }

    /// The record's values, in the class's field order; `None` when the
    /// record is shorter than its format says.
    pub fn values<'d>(&self, data: &'d [u8], out: &mut Vec<FieldValue<'d>>) -> Option<()> {
        out.clear();
        for c in &self.columns {
            let f = &c.src;
            let v = match f.kind {
                FieldKind::Int => {
                    let x = int(data, f)?;
                    if c.prio {
                        FieldValue::Int(x - LTTNG_PRIO_OFFSET)
                    } else if f.signed {
                        FieldValue::Int(x)
                    } else {
                        FieldValue::UInt(x as u64)
                    }
                }
                FieldKind::Chars => FieldValue::Str(data.get(f.offset..f.offset + f.size)?),
                FieldKind::Bytes => FieldValue::Bytes(data.get(f.offset..f.offset + f.size)?),
                FieldKind::DataLocChars => FieldValue::Str(located(data, f, false)?),
                FieldKind::DataLoc { relative, text } => {
                    let b = located(data, f, relative)?;
                    if text {
                        FieldValue::Str(b)
                    } else {
                        FieldValue::Bytes(b)
                    }
                }
            };
            out.push(v);
        }
        Some(())
    }
}

/// An integer field, sign-extended when the format says it is signed.
fn int(data: &[u8], f: &FieldFormat) -> Option<i64> {
    let b = data.get(f.offset..f.offset + f.size)?;
    let mut raw = [0u8; 8];
    raw[..b.len()].copy_from_slice(b);
    let u = u64::from_ne_bytes(raw);
    let bits = 8 * b.len() as u32;
    Some(if f.signed && bits < 64 {
        ((u << (64 - bits)) as i64) >> (64 - bits)
    } else {
        u as i64
    })
}

/// The bytes a `__data_loc` / `__rel_loc` word points at.
fn located<'d>(data: &'d [u8], f: &FieldFormat, relative: bool) -> Option<&'d [u8]> {
    let word = u32::from_ne_bytes(data.get(f.offset..f.offset + 4)?.try_into().ok()?);
    let mut start = (word & 0xffff) as usize;
    if relative {
        start += f.offset + 4;
    }
    let len = (word >> 16) as usize;
    data.get(start..start + len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::tracefs::format::parse_event;
    use crate::capture::tracefs::format::tests::SCHED_SWITCH;

    fn record() -> Vec<u8> {
        let mut r = vec![0u8; 64];
        r[0..2].copy_from_slice(&372u16.to_ne_bytes());
        r[4..8].copy_from_slice(&4611i32.to_ne_bytes());
        r[8..15].copy_from_slice(b"rt_high");
        r[24..28].copy_from_slice(&4611i32.to_ne_bytes());
        r[28..32].copy_from_slice(&19i32.to_ne_bytes());
        r[32..40].copy_from_slice(&1i64.to_ne_bytes());
        r[40..46].copy_from_slice(b"rt_low");
        r[56..60].copy_from_slice(&(-1i32).to_ne_bytes());
        r[60..64].copy_from_slice(&89i32.to_ne_bytes());
        r
    }

    #[test]
    fn sched_switch_in_lttng_spelling() {
        let c = Conversion::new(&parse_event("sched", SCHED_SWITCH).unwrap());
        let names: Vec<&str> = c.class.fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "prev_comm",
                "prev_tid",
                "prev_prio",
                "prev_state",
                "next_comm",
                "next_tid",
                "next_prio"
            ]
        );
        let r = record();
        assert_eq!(c.thread(&r), Some(4611));
        let mut v = Vec::new();
        c.values(&r, &mut v).unwrap();
        assert!(matches!(v[0], FieldValue::Str(s) if s.starts_with(b"rt_high\0")));
        assert!(matches!(v[2], FieldValue::Int(-81)));
        assert!(matches!(v[5], FieldValue::Int(-1)));
        assert!(matches!(v[6], FieldValue::Int(-11)));
        // A record cut short is refused, not read past its end.
        assert!(c.values(&r[..50], &mut v).is_none());
    }

    #[test]
    fn syscall_names_and_strings() {
        assert_eq!(
            ctf_name("syscalls", "sys_enter_futex"),
            "syscall_entry_futex"
        );
        assert_eq!(ctf_name("syscalls", "sys_exit_futex"), "syscall_exit_futex");
        assert_eq!(ctf_name("timer", "hrtimer_start"), "hrtimer_start");
        let fmt = "name: sys_enter_openat\nID: 7\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\
\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:__data_loc char[] path;\toffset:24;\tsize:4;\tsigned:0;\n";
        let c = Conversion::new(&parse_event("syscalls", fmt).unwrap());
        assert_eq!(c.class.name, "syscall_entry_openat");
        assert_eq!(c.class.fields[0], ("filename".into(), FieldType::hex(64)));
        let mut r = vec![0u8; 28];
        r[24..28].copy_from_slice(&(28u32 | (3 << 16)).to_ne_bytes());
        r.extend_from_slice(b"/a\0");
        let mut v = Vec::new();
        c.values(&r, &mut v).unwrap();
        assert!(matches!(v[1], FieldValue::Str(b"/a\0")));
    }
}
