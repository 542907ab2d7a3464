//! The metadata of a trace.dat file, versions 6 and 7 (`man trace-cmd.dat.v6`,
//! `trace-cmd.dat.v7`): the initial format, the header page and event, the
//! ftrace and event formats, kallsyms/printk/cmdlines (skipped: events are
//! named by their formats), the options, and where each CPU's ring buffer
//! pages are.
//!
//! Version 6 is one sequence: every part follows the one before it. Version 7
//! is made of sections (id, flags, description, size), each possibly
//! compressed, found from chains of options sections.

use std::borrow::Cow;

use super::bytes::{Bad, Cursor, Endian, Origin};
use super::compress::Codec;
use super::formats::{parse_format, parse_header_page, EventFormat, PageHeader};
use super::options::{self, read_options, TraceInfo};

/// `\x17\x08\x44tracing`: the first bytes of every trace.dat.
pub const MAGIC: &[u8; 10] = b"\x17\x08\x44tracing";

/// Where one CPU's ring buffer data is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CpuLoc {
    pub cpu: u32,
    pub offset: u64,
    pub size: u64,
    /// In compressed chunks (v7) rather than raw pages.
    pub chunked: bool,
}

/// Everything before the events.
#[derive(Debug)]
pub(crate) struct Layout {
    pub version: u32,
    pub endian: Endian,
    pub page_size: u32,
    pub page: PageHeader,
    pub formats: Vec<EventFormat>,
    pub info: TraceInfo,
    pub codec: Option<Codec>,
    /// The top instance's CPUs (the ones with data).
    pub cpus: Vec<CpuLoc>,
    /// Instances other than the top one, not read.
    pub other_buffers: Vec<String>,
}

/// Sections of a v7 file (the ids of the options that point to them).
const SECTION_OPTIONS: u16 = 0;
const SECTION_BUFFER: u16 = 3;
const COMPRESSED: u16 = 1;

pub(crate) fn parse(file: &[u8]) -> Result<Layout, Bad> {
    // The byte order is known only after the version string: read the
    // magic and the version in either.
    let mut c = Cursor::new(file, Origin::File(0), Endian { big: false });
    c.tag(MAGIC, "trace.dat magic")?;
    let vat = c.pos();
    let v = c.cstr("file version")?;
    let version = std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .ok_or_else(|| {
            c.bad_at(
                vat,
                format!(
                    "file version `{}` is not a number",
                    String::from_utf8_lossy(v)
                ),
            )
        })?;
    if version != 6 && version != 7 {
        return Err(c.bad_at(
            vat,
            format!("trace.dat file version {version}: sextant reads versions 6 and 7"),
        ));
    }
    let endian = match c.u8("endianness")? {
        0 => Endian { big: false },
        1 => Endian { big: true },
        e => return Err(c.bad_at(c.pos() - 1, format!("endianness {e}: expected 0 or 1"))),
    };
    c.endian = endian;
    let long_size = c.u8("long size")?;
    if long_size != 4 && long_size != 8 {
        return Err(c.bad_at(
            c.pos() - 1,
            format!("long size {long_size}: expected 4 or 8"),
        ));
    }
    let psat = c.pos();
    let page_size = c.u32("page size")?;
    if !(64..=(1 << 24)).contains(&page_size) {
        return Err(c.bad_at(
            psat,
            format!("page size {page_size}: not a ring buffer page size"),
        ));
    }
    if version == 6 {
        v6(c, version, page_size)
    } else {
        v7(file, c, version, page_size)
    }
}

/// The parts every version has, in this order: header page and event.
fn headers(c: &mut Cursor<'_>) -> Result<PageHeader, Bad> {
    c.tag(b"header_page\0", "header_page")?;
    let n = c.u64("header_page size")?;
    let at = c.pos();
    let text = c.bytes(n, "header_page")?;
    let page = parse_header_page(text).map_err(|m| c.bad_at(at, m))?;
    c.tag(b"header_event\0", "header_event")?;
    let n = c.u64("header_event size")?;
    c.bytes(n, "header_event")?;
    Ok(page)
}

fn ftrace_formats(c: &mut Cursor<'_>, long: u32, out: &mut Vec<EventFormat>) -> Result<(), Bad> {
    let n = c.u32("ftrace format count")?;
    for _ in 0..n {
        format_file(c, "ftrace", long, out)?;
    }
    Ok(())
}

fn event_formats(c: &mut Cursor<'_>, long: u32, out: &mut Vec<EventFormat>) -> Result<(), Bad> {
    let systems = c.u32("event system count")?;
    for _ in 0..systems {
        let system = String::from_utf8_lossy(c.cstr("event system name")?).into_owned();
        let n = c.u32("event count")?;
        for _ in 0..n {
            format_file(c, &system, long, out)?;
        }
    }
    Ok(())
}

fn format_file(
    c: &mut Cursor<'_>,
    system: &str,
    long: u32,
    out: &mut Vec<EventFormat>,
) -> Result<(), Bad> {
    let n = c.u64("event format size")?;
    let at = c.pos();
    let text = c.bytes(n, "event format")?;
    let f = parse_format(system, text, long).map_err(|m| c.bad_at(at, format!("{system}: {m}")))?;
    out.push(f);
    Ok(())
}

fn v6(mut c: Cursor<'_>, version: u32, page_size: u32) -> Result<Layout, Bad> {
    let page = headers(&mut c)?;
    let mut formats = Vec::new();
    ftrace_formats(&mut c, page.commit_size, &mut formats)?;
    event_formats(&mut c, page.commit_size, &mut formats)?;
    let n = c.u32("kallsyms size")?;
    c.bytes(n as u64, "kallsyms")?;
    let n = c.u32("printk formats size")?;
    c.bytes(n as u64, "printk formats")?;
    let n = c.u64("saved cmdlines size")?;
    c.bytes(n, "saved cmdlines")?;
    let ncpus = c.u32("cpu count")?;
    let mut info = TraceInfo::default();
    let mut tat = c.pos();
    let mut kind = c.bytes(10, "data kind")?;
    if kind == b"options  \0" {
        read_options(&mut c, false, &mut info)?;
        tat = c.pos();
        kind = c.bytes(10, "data kind")?;
    }
    match kind {
        b"flyrecord\0" => {}
        b"latency  \0" => return Err(c.bad_at(
            tat,
            "a latency trace (text), not per-CPU buffers: sextant reads flyrecord trace.dat files",
        )),
        k => {
            return Err(c.bad_at(
                tat,
                format!(
                    "expected `flyrecord` or `options`, found `{}`",
                    String::from_utf8_lossy(k).escape_debug()
                ),
            ))
        }
    }
    let mut cpus = Vec::new();
    for cpu in 0..ncpus {
        cpus.push(CpuLoc {
            cpu,
            offset: c.u64("cpu data offset")?,
            size: c.u64("cpu data size")?,
            chunked: false,
        });
    }
    let other_buffers = info.buffers.iter().map(|b| b.name.clone()).collect();
    Ok(Layout {
        version,
        endian: c.endian,
        page_size,
        page,
        formats,
        info,
        codec: None,
        cpus,
        other_buffers,
    })
}

fn v7(file: &[u8], mut c: Cursor<'_>, version: u32, page_size: u32) -> Result<Layout, Bad> {
    let cat = c.pos();
    let name = String::from_utf8_lossy(c.cstr("compression name")?).into_owned();
    let cversion = String::from_utf8_lossy(c.cstr("compression version")?).into_owned();
    let codec =
        Codec::from_name(&name).map_err(|m| c.bad_at(cat, format!("{m} (version {cversion})")))?;
    let endian = c.endian;
    let mut next = c.u64("first options section offset")?;
    let mut info = TraceInfo::default();
    // Options sections chain through their DONE options; a chain that loops
    // back is damage, not a reason to read forever.
    let mut seen = std::collections::HashSet::new();
    while next != 0 {
        if !seen.insert(next) {
            return Err(Bad {
                offset: next,
                message: "options sections chain back to one already read".into(),
            });
        }
        let (data, origin) = section(file, next, SECTION_OPTIONS, endian, codec)?;
        let mut o = Cursor::new(&data, origin, endian);
        next = read_options(&mut o, true, &mut info)?.unwrap_or(0);
    }
    let find = |id: u16, what: &str| {
        info.sections
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, at)| *at)
            .ok_or_else(|| Bad {
                offset: 0,
                message: format!("no {what} section (its option is missing)"),
            })
    };
    let (data, origin) = section(
        file,
        find(options::HEADER_INFO, "header info")?,
        options::HEADER_INFO,
        endian,
        codec,
    )?;
    let page = headers(&mut Cursor::new(&data, origin, endian))?;
    let long = page.commit_size;
    let mut formats = Vec::new();
    if let Ok(at) = find(options::FTRACE_EVENTS, "ftrace formats") {
        let (data, origin) = section(file, at, options::FTRACE_EVENTS, endian, codec)?;
        ftrace_formats(&mut Cursor::new(&data, origin, endian), long, &mut formats)?;
    }
    let at = find(options::EVENT_FORMATS, "event formats")?;
    let (data, origin) = section(file, at, options::EVENT_FORMATS, endian, codec)?;
    event_formats(&mut Cursor::new(&data, origin, endian), long, &mut formats)?;

    let top = info
        .buffers
        .iter()
        .position(|b| b.name.is_empty())
        .or(if info.buffers.is_empty() {
            None
        } else {
            Some(0)
        });
    let Some(top) = top else {
        let message = if info.has_latency_text {
            "a latency trace (text), not per-CPU buffers: sextant reads flyrecord trace.dat files"
        } else {
            "no BUFFER option: the file holds no events"
        };
        return Err(Bad {
            offset: 0,
            message: message.into(),
        });
    };
    let buffer = &info.buffers[top];
    if let Some(ps) = buffer.page_size {
        if ps != page_size {
            return Err(Bad {
                offset: buffer.offset,
                message: format!(
                    "buffer pages of {ps} bytes, the file says {page_size}: not supported"
                ),
            });
        }
    }
    let mut h = Cursor::new(file, Origin::File(0), endian);
    h.bytes(buffer.offset, "buffer section")?;
    let id = h.u16("section id")?;
    let flags = h.u16("section flags")?;
    if id != SECTION_BUFFER {
        return Err(h.bad_at(
            buffer.offset as usize,
            format!("section {id} where the BUFFER option points, expected {SECTION_BUFFER}"),
        ));
    }
    let chunked = flags & COMPRESSED != 0;
    if chunked && codec.is_none() {
        return Err(h.bad_at(
            buffer.offset as usize,
            "compressed buffer in a file that names no compression",
        ));
    }
    let cpus = buffer
        .cpus
        .iter()
        .map(|&(cpu, offset, size)| CpuLoc {
            cpu,
            offset,
            size,
            chunked,
        })
        .collect();
    if buffer.clock.is_some() {
        info.clock = buffer.clock.clone();
    }
    let other_buffers = info
        .buffers
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != top)
        .map(|(_, b)| b.name.clone())
        .collect();
    Ok(Layout {
        version,
        endian,
        page_size,
        page,
        formats,
        info,
        codec,
        cpus,
        other_buffers,
    })
}

/// The content of the v7 section at `offset`, which must have id `id`,
/// decompressed when its flags say so.
fn section(
    file: &[u8],
    offset: u64,
    id: u16,
    endian: Endian,
    codec: Option<Codec>,
) -> Result<(Cow<'_, [u8]>, Origin), Bad> {
    let mut c = Cursor::new(file, Origin::File(0), endian);
    c.bytes(offset, "section offset")?;
    let got = c.u16("section id")?;
    if got != id {
        return Err(c.bad_at(offset as usize, format!("section id {got}, expected {id}")));
    }
    let flags = c.u16("section flags")?;
    c.u32("section description")?;
    let size = c.u64("section size")?;
    let start = c.pos();
    let data = c.bytes(size, "section")?;
    if flags & COMPRESSED == 0 {
        return Ok((Cow::Borrowed(data), Origin::File(start as u64)));
    }
    let Some(codec) = codec else {
        return Err(c.bad_at(
            offset as usize,
            "compressed section in a file that names no compression",
        ));
    };
    let mut z = Cursor::new(data, Origin::File(start as u64), endian);
    let csize = z.u32("compressed size")?;
    let usize_ = z.u32("uncompressed size")?;
    let cdata = z.bytes(csize as u64, "compressed data")?;
    let out = codec
        .decompress(cdata, usize_ as usize)
        .map_err(|m| z.bad_at(0, m))?;
    Ok((Cow::Owned(out), Origin::Section(offset)))
}
