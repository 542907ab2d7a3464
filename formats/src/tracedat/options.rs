//! The options of a trace.dat file (`id`, `size`, data), as far as they say
//! something about the events: the clock, the CPU count, the instances
//! (buffers) and where their data is, a time offset, and the guests a host
//! traced. Options only a viewer of the file needs (uname, version, proc maps,
//! hooks) are kept as text or skipped.

use super::bytes::{Bad, Cursor};

pub(crate) const DONE: u16 = 0;
const DATE: u16 = 1;
const BUFFER: u16 = 3;
const TRACECLOCK: u16 = 4;
const UNAME: u16 = 5;
const OFFSET: u16 = 7;
const CPUCOUNT: u16 = 8;
const VERSION: u16 = 9;
const TIME_SHIFT: u16 = 12;
const GUEST: u16 = 13;
const TSC2NSEC: u16 = 14;
pub(crate) const HEADER_INFO: u16 = 16;
pub(crate) const FTRACE_EVENTS: u16 = 17;
pub(crate) const EVENT_FORMATS: u16 = 18;
pub(crate) const KALLSYMS: u16 = 19;
pub(crate) const PRINTK: u16 = 20;
pub(crate) const CMDLINES: u16 = 21;
const BUFFER_TEXT: u16 = 22;

/// A guest traced with its host (the `GUEST` option of a host's file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guest {
    pub name: String,
    pub trace_id: u64,
    /// (guest CPU, host thread running that virtual CPU).
    pub vcpus: Vec<(u32, u32)>,
}

/// A trace instance whose events the file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    /// `""` for the top instance.
    pub name: String,
    /// The trace clock of this instance (v7; v6 says it in `TRACECLOCK`).
    pub clock: Option<String>,
    /// Where its flyrecord data is described (v7: the BUFFER FLYRECORD
    /// section; v6: the CPU table of an instance).
    pub(crate) offset: u64,
    /// (CPU, file offset, size) of each CPU's data (v7).
    pub(crate) cpus: Vec<(u32, u64, u64)>,
    pub(crate) page_size: Option<u32>,
}

/// What the options say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceInfo {
    /// The clock the events were stamped with (`mono`, `local`, ...).
    pub clock: Option<String>,
    /// CPUs of the traced system (`CPUCOUNT`), which may exceed the CPUs with data.
    pub cpu_count: Option<u32>,
    pub uname: Option<String>,
    /// The trace-cmd that wrote the file.
    pub tracer_version: Option<String>,
    /// Added to every timestamp on reading (`OFFSET`, ns).
    pub time_offset: i64,
    /// `DATE`: the offset of the events' clock from the time of day, as written.
    pub date: Option<String>,
    pub guests: Vec<Guest>,
    pub buffers: Vec<Buffer>,
    /// The file has time synchronisation data of a guest (`TIME_SHIFT`),
    /// which is not applied: events keep the guest's own clock.
    pub has_time_shift: bool,
    /// The file converts TSC cycles to ns (`TSC2NSEC`): (mult, shift, offset).
    pub tsc2nsec: Option<(u32, u32, u64)>,
    /// A latency trace (text) instead of per-CPU buffers.
    pub has_latency_text: bool,
    /// Section offsets (v7) by option id.
    pub(crate) sections: Vec<(u16, u64)>,
}

/// Reads the options up to `DONE` into `info`; returns the DONE option's
/// data (v7: the offset of the next options section), `None` for a v6 list
/// ended by a bare zero id.
pub(crate) fn read_options(
    c: &mut Cursor<'_>,
    v7: bool,
    info: &mut TraceInfo,
) -> Result<Option<u64>, Bad> {
    loop {
        let id = c.u16("option id")?;
        if id == DONE && !v7 {
            return Ok(None);
        }
        let size = c.u32("option size")?;
        let at = c.pos();
        let data = c.bytes(size as u64, "option data")?;
        let mut d = Cursor::new(data, c.origin_at(at), c.endian);
        match id {
            DONE => return d.u64("next options section").map(Some),
            BUFFER if v7 => info.buffers.push(buffer_v7(&mut d)?),
            BUFFER => info.buffers.push(Buffer {
                offset: d.u64("buffer offset")?,
                name: text(d.cstr("buffer name")?),
                clock: None,
                cpus: Vec::new(),
                page_size: None,
            }),
            TRACECLOCK => info.clock = selected_clock(&text(data)),
            UNAME => info.uname = Some(text(data)),
            VERSION => info.tracer_version = Some(text(data)),
            DATE => info.date = Some(text(data)),
            OFFSET => {
                let t = text(data);
                info.time_offset = t
                    .trim()
                    .parse()
                    .map_err(|_| d.bad(format!("OFFSET option: not a number: `{t}`")))?;
            }
            CPUCOUNT => info.cpu_count = Some(d.u32("cpu count")?),
            GUEST => info.guests.push(guest(&mut d)?),
            TIME_SHIFT => info.has_time_shift = true,
            TSC2NSEC => {
                info.tsc2nsec = Some((
                    d.u32("tsc mult")?,
                    d.u32("tsc shift")?,
                    d.u64("tsc offset")?,
                ))
            }
            BUFFER_TEXT => info.has_latency_text = true,
            HEADER_INFO | FTRACE_EVENTS | EVENT_FORMATS | KALLSYMS | PRINTK | CMDLINES if v7 => {
                info.sections.push((id, d.u64("section offset")?))
            }
            _ => {}
        }
    }
}

fn buffer_v7(d: &mut Cursor<'_>) -> Result<Buffer, Bad> {
    let offset = d.u64("buffer section offset")?;
    let name = text(d.cstr("buffer name")?);
    let clock = text(d.cstr("buffer clock")?);
    let page_size = d.u32("buffer page size")?;
    let n = d.u32("buffer cpu count")?;
    let mut cpus = Vec::new();
    for _ in 0..n {
        cpus.push((
            d.u32("cpu id")?,
            d.u64("cpu data offset")?,
            d.u64("cpu data size")?,
        ));
    }
    Ok(Buffer {
        name,
        clock: Some(clock),
        offset,
        cpus,
        page_size: Some(page_size),
    })
}

fn guest(d: &mut Cursor<'_>) -> Result<Guest, Bad> {
    let name = text(d.cstr("guest name")?);
    let trace_id = d.u64("guest trace id")?;
    let n = d.u32("guest cpu count")?;
    let mut vcpus = Vec::new();
    for _ in 0..n {
        vcpus.push((d.u32("guest cpu")?, d.u32("host pid")?));
    }
    Ok(Guest {
        name,
        trace_id,
        vcpus,
    })
}

/// `local global [mono] ...`: the one in brackets (or the whole text when
/// it names just one clock).
fn selected_clock(list: &str) -> Option<String> {
    let t = list.trim();
    if let (Some(a), Some(b)) = (t.find('['), t.find(']')) {
        if a < b {
            return Some(t[a + 1..b].to_string());
        }
    }
    (!t.is_empty() && !t.contains(' ')).then(|| t.to_string())
}

/// Option text, without its NUL.
fn text(b: &[u8]) -> String {
    let b = memchr::memchr(0, b).map_or(b, |n| &b[..n]);
    String::from_utf8_lossy(b)
        .trim_end_matches('\n')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracedat::bytes::{Endian, Origin};

    fn option(id: u16, data: &[u8]) -> Vec<u8> {
        [
            &id.to_le_bytes()[..],
            &(data.len() as u32).to_le_bytes(),
            data,
        ]
        .concat()
    }

    #[test]
    fn v7_options_clock_cpus_offset_guest_and_buffers() {
        let guest = [
            &b"vm1\0"[..],
            &7u64.to_le_bytes(),
            &2u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &1234u32.to_le_bytes(),
            &1u32.to_le_bytes(),
            &1235u32.to_le_bytes(),
        ]
        .concat();
        let buffer = [
            &4096u64.to_le_bytes()[..],
            b"\0mono\0",
            &4096u32.to_le_bytes(),
            &1u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &8192u64.to_le_bytes(),
            &100u64.to_le_bytes(),
        ]
        .concat();
        let blob = [
            option(TRACECLOCK, b"local [boot] mono\n\0"),
            option(CPUCOUNT, &4u32.to_le_bytes()),
            option(OFFSET, b"-1500\0"),
            option(GUEST, &guest),
            option(BUFFER, &buffer),
            option(HEADER_INFO, &37u64.to_le_bytes()),
            option(99, b"an option of a later trace-cmd"),
            option(DONE, &555u64.to_le_bytes()),
        ]
        .concat();
        let mut info = TraceInfo::default();
        let mut c = Cursor::new(&blob, Origin::File(0), Endian { big: false });
        assert_eq!(read_options(&mut c, true, &mut info), Ok(Some(555)));
        assert_eq!(info.clock.as_deref(), Some("boot"));
        assert_eq!(info.cpu_count, Some(4));
        assert_eq!(info.time_offset, -1500);
        assert_eq!(
            info.guests,
            [Guest {
                name: "vm1".into(),
                trace_id: 7,
                vcpus: vec![(0, 1234), (1, 1235)]
            }]
        );
        assert_eq!(info.buffers.len(), 1);
        assert_eq!(info.buffers[0].clock.as_deref(), Some("mono"));
        assert_eq!(info.buffers[0].cpus, [(0, 8192, 100)]);
        assert_eq!(info.sections, [(HEADER_INFO, 37)]);

        // Cut inside an option: an error at the offset where data is missing.
        let mut c = Cursor::new(&blob[..20], Origin::File(1000), Endian { big: false });
        let e = read_options(&mut c, true, &mut TraceInfo::default()).unwrap_err();
        assert!(e.offset >= 1000 && e.message.contains("cut short"), "{e:?}");
    }

    #[test]
    fn the_selected_clock() {
        assert_eq!(
            selected_clock("local global counter [mono] boot\n").as_deref(),
            Some("mono")
        );
        assert_eq!(selected_clock("mono").as_deref(), Some("mono"));
        assert_eq!(selected_clock("a b"), None);
    }
}
