//! The event formats stored in the file: the text of each event's
//! `events/<system>/<event>/format` (name, id, fields with offsets, sizes and
//! signedness), the ring buffer's page header (`events/header_page`), and the
//! decoding of an event's fields from its record.
//!
//! ```text
//! name: sched_switch
//! ID: 316
//! format:
//!     field:unsigned short common_type;    offset:0;    size:2;    signed:0;
//!     field:int common_pid;    offset:4;    size:4;    signed:1;
//!
//!     field:char prev_comm[16];    offset:8;    size:16;    signed:0;
//!     field:__data_loc char[] name;    offset:24;    size:4;    signed:0;
//! print fmt: "..."
//! ```
//!
//! Fields are handed out under the format's names, in its order, without the
//! `common_` ones (the thread is the event's framing, as in ftrace text):
//! integers as `Signed`/`Unsigned` by their `signed:` flag, `char` arrays and
//! `__data_loc char[]` as strings (to their first NUL), other arrays as lists.

use super::bytes::Endian;
use crate::value::{Scalar, Sink};

/// How a field's value is laid out in the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// An integer of `size` bytes (1, 2, 4 or 8).
    Int,
    /// `char name[N]`: text up to the first NUL.
    Text,
    /// `T name[N]` of another `T`: `size / elem` elements.
    Array { elem: u32 },
    /// `__data_loc T[] name` (4 bytes: offset in the record in the low 16
    /// bits, length in the high 16) or `__rel_loc` (offset counted from the
    /// end of the field); text when `T` is `char`.
    Dynamic {
        elem: u32,
        text: bool,
        relative: bool,
    },
    /// Anything else (an integer of an odd size): its bytes as a list.
    Bytes,
}

#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub name: Box<str>,
    pub offset: u32,
    pub size: u32,
    pub signed: bool,
    pub shape: Shape,
}

/// One event's format.
#[derive(Debug, Clone)]
pub struct EventFormat {
    pub(crate) id: u32,
    pub(crate) system: Box<str>,
    pub(crate) name: Box<str>,
    /// The fields after the common ones, in the format's order.
    pub(crate) fields: Vec<Field>,
    pub(crate) common_pid: Option<Field>,
}

impl EventFormat {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn system(&self) -> &str {
        &self.system
    }

    /// The fields' names, in the order they are visited.
    pub fn field_names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|f| &*f.name)
    }
}

/// The parts of the ring buffer page header a reader needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageHeader {
    /// Bytes of the `commit` word (the kernel's `long`).
    pub commit_size: u32,
    /// Where the events start in a page.
    pub data_offset: u32,
}

/// `events/header_page`: the `commit` and `data` fields.
pub(crate) fn parse_header_page(text: &[u8]) -> Result<PageHeader, String> {
    let text = String::from_utf8_lossy(text);
    let mut commit = None;
    let mut data = None;
    for line in text.lines() {
        let Some(f) = parse_field_line(line, 8)? else {
            continue;
        };
        match &*f.name {
            "commit" => commit = Some(f.size),
            "data" => data = Some(f.offset),
            _ => {}
        }
    }
    match (commit, data) {
        (Some(c @ (4 | 8)), Some(d)) if d >= 8 + c => Ok(PageHeader {
            commit_size: c,
            data_offset: d,
        }),
        (Some(c), Some(d)) => Err(format!(
            "header_page: commit of {c} bytes, data at {d}: not a ring buffer page this reader knows"
        )),
        _ => Err("header_page: no `commit` or `data` field".into()),
    }
}

/// One event's `format` text; `long_size` is the kernel's long (the page
/// header's commit size), the element size of `long` arrays.
pub(crate) fn parse_format(
    system: &str,
    text: &[u8],
    long_size: u32,
) -> Result<EventFormat, String> {
    let text = String::from_utf8_lossy(text);
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    let mut common_pid = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name:") {
            name = Some(n.trim().to_string());
        } else if let Some(n) = line.strip_prefix("ID:") {
            id = Some(
                n.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("event format: bad ID `{}`", n.trim()))?,
            );
        } else if line.starts_with("print fmt:") {
            break;
        } else if let Some(f) = parse_field_line(line, long_size)? {
            if f.name.starts_with("common_") {
                if &*f.name == "common_pid" {
                    common_pid = Some(f);
                }
            } else {
                fields.push(f);
            }
        }
    }
    let name = name.ok_or("event format without `name:`")?;
    let id = id.ok_or_else(|| format!("event format `{name}` without `ID:`"))?;
    Ok(EventFormat {
        id,
        system: system.into(),
        name: name.into(),
        fields,
        common_pid,
    })
}

/// `\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;`, or `None` for a
/// line of another kind.
fn parse_field_line(line: &str, long_size: u32) -> Result<Option<Field>, String> {
    let Some(rest) = line.trim_start().strip_prefix("field:") else {
        return Ok(None);
    };
    let mut parts = rest.split(';').map(str::trim);
    let decl = parts.next().unwrap_or_default();
    let (mut offset, mut size, mut signed) = (None, None, None);
    for p in parts {
        let num = |v: &str| {
            v.trim()
                .parse::<u32>()
                .map_err(|_| format!("field `{decl}`: bad number in `{p}`"))
        };
        if let Some(v) = p.strip_prefix("offset:") {
            offset = Some(num(v)?);
        } else if let Some(v) = p.strip_prefix("size:") {
            size = Some(num(v)?);
        } else if let Some(v) = p.strip_prefix("signed:") {
            signed = Some(num(v)? != 0);
        }
    }
    let (Some(offset), Some(size)) = (offset, size) else {
        return Err(format!("field `{decl}` without offset or size"));
    };
    // The name is the last word of the declaration, less any `[N]`.
    let decl_words = decl.trim_end();
    let split = decl_words.rfind([' ', '\t', '*']).map_or(0, |i| i + 1);
    let (ty, last) = decl_words.split_at(split);
    let (name, dims) = match last.find('[') {
        Some(b) => (&last[..b], Some(&last[b..])),
        None => (last, None),
    };
    if name.is_empty() {
        return Err(format!("field `{decl}` without a name"));
    }
    let ty = ty.trim();
    let base = ty.trim_start_matches("const ").trim();
    let dynamic = base.starts_with("__data_loc") || base.starts_with("__rel_loc");
    let shape = if dynamic {
        // `__data_loc char[] name`: the element type is between the keyword and `[]`.
        let elem_ty = base
            .trim_start_matches("__data_loc")
            .trim_start_matches("__rel_loc")
            .trim()
            .trim_end_matches("[]")
            .trim();
        if size != 4 {
            return Err(format!(
                "field `{decl}`: a __data_loc of {size} bytes, not 4"
            ));
        }
        Shape::Dynamic {
            elem: type_size(elem_ty, long_size),
            text: elem_ty == "char",
            relative: base.starts_with("__rel_loc"),
        }
    } else if let Some(dims) = dims {
        let count: Option<u32> = dims
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .ok();
        if base == "char" {
            Shape::Text
        } else {
            let elem = match count {
                Some(n) if n > 0 && size.is_multiple_of(n) => size / n,
                _ => type_size(base, long_size),
            };
            Shape::Array { elem }
        }
    } else if matches!(size, 1 | 2 | 4 | 8) {
        Shape::Int
    } else {
        Shape::Bytes
    };
    Ok(Some(Field {
        name: name.into(),
        offset,
        size,
        // Very old kernels printed no `signed:`: the type says it.
        signed: signed.unwrap_or_else(|| !base.starts_with("unsigned") && !base.starts_with('u')),
        shape,
    }))
}

/// Bytes of an element type of a dynamic array (1 when unknown: its bytes).
fn type_size(ty: &str, long_size: u32) -> u32 {
    if ty.ends_with('*') {
        return long_size;
    }
    let t = ty
        .trim_start_matches("unsigned ")
        .trim_start_matches("signed ");
    match t {
        "char" | "u8" | "s8" | "bool" | "__u8" => 1,
        "short" | "u16" | "s16" | "__u16" | "__be16" | "__le16" => 2,
        "int" | "u32" | "s32" | "__u32" | "__be32" | "__le32" | "pid_t" => 4,
        "long long" | "u64" | "s64" | "__u64" | "__be64" | "__le64" => 8,
        "long" => long_size,
        _ => 1,
    }
}

/// Why a field could not be read from a record.
#[derive(Debug)]
pub(crate) struct FieldOutside {
    pub field: Box<str>,
    pub len: usize,
}

/// Walks the fields of `record` (the event's bytes, from `common_type`):
/// `open(None, false)`, one value per field, `close`.
pub(crate) fn visit<'s, S: Sink<'s>>(
    format: &EventFormat,
    record: &'s [u8],
    endian: Endian,
    sink: &mut S,
) -> Result<(), FieldOutside> {
    sink.open(None, false);
    for f in &format.fields {
        visit_field(f, record, endian, sink).ok_or_else(|| FieldOutside {
            field: f.name.clone(),
            len: record.len(),
        })?;
    }
    sink.close(false);
    Ok(())
}

fn visit_field<'s, S: Sink<'s>>(
    f: &Field,
    record: &'s [u8],
    endian: Endian,
    sink: &mut S,
) -> Option<()> {
    let at = f.offset as usize;
    let size = f.size as usize;
    let name = Some(&*f.name);
    match f.shape {
        Shape::Int => {
            let u = endian.uint(record, at, size)?;
            sink.scalar(name, int(u, size, f.signed));
        }
        Shape::Text => sink.scalar(name, Scalar::Str(text(record.get(at..at + size)?))),
        Shape::Array { elem } => list(f, record.get(at..at + size)?, elem, endian, sink),
        Shape::Bytes => list(f, record.get(at..at + size)?, 1, endian, sink),
        Shape::Dynamic {
            elem,
            text: is_text,
            relative,
        } => {
            let loc = endian.uint(record, at, 4)?;
            let mut start = (loc & 0xffff) as usize;
            let len = (loc >> 16) as usize;
            if relative {
                start += at + 4;
            }
            let bytes = record.get(start..start + len)?;
            if is_text {
                sink.scalar(name, Scalar::Str(text(bytes)));
            } else {
                list(f, bytes, elem, endian, sink);
            }
        }
    }
    Some(())
}

/// A list of `bytes.len() / elem` integers (a trailing partial element is
/// dropped: it cannot be read as one).
fn list<'s, S: Sink<'s>>(f: &Field, bytes: &[u8], elem: u32, endian: Endian, sink: &mut S) {
    let elem = if matches!(elem, 1 | 2 | 4 | 8) {
        elem as usize
    } else {
        1
    };
    sink.open(Some(&f.name), true);
    for i in 0..bytes.len() / elem {
        if let Some(u) = endian.uint(bytes, i * elem, elem) {
            sink.scalar(None, int(u, elem, f.signed));
        }
    }
    sink.close(true);
}

/// An integer of `size` bytes, sign-extended when signed.
fn int(u: u64, size: usize, signed: bool) -> Scalar<'static> {
    if signed {
        let shift = 64 - 8 * size as u32;
        Scalar::Signed(((u << shift) as i64) >> shift)
    } else {
        Scalar::Unsigned(u)
    }
}

/// Text up to the first NUL.
fn text(b: &[u8]) -> &[u8] {
    memchr::memchr(0, b).map_or(b, |n| &b[..n])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Value, ValueBuilder};

    const SWITCH: &str = "name: sched_switch\nID: 316\nformat:\n\
        \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
        \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
        \tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
        \tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\
        \tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n\
        \tfield:unsigned long args[2];\toffset:32;\tsize:16;\tsigned:0;\n\
        \tfield:const struct x * ptr;\toffset:48;\tsize:8;\tsigned:0;\n\
        print fmt: \"prev_comm=%s\", REC->prev_comm\n";

    #[test]
    fn a_format_and_its_fields() {
        let f = parse_format("sched", SWITCH.as_bytes(), 8).unwrap();
        assert_eq!((f.id, f.name()), (316, "sched_switch"));
        let names: Vec<_> = f.field_names().collect();
        assert_eq!(names, ["prev_comm", "prev_pid", "name", "args", "ptr"]);
        assert_eq!(
            f.fields[2].shape,
            Shape::Dynamic {
                elem: 1,
                text: true,
                relative: false
            }
        );
        assert_eq!(f.fields[3].shape, Shape::Array { elem: 8 });
        assert_eq!(f.fields[4].shape, Shape::Int);
        assert_eq!(f.common_pid.as_ref().map(|p| p.offset), Some(4));

        let mut rec = vec![0u8; 60];
        rec[8..12].copy_from_slice(b"bash");
        rec[24..28].copy_from_slice(&(-5i32).to_le_bytes());
        rec[28..32].copy_from_slice(&((3u32 << 16) | 56).to_le_bytes());
        rec[32..40].copy_from_slice(&7u64.to_le_bytes());
        rec[48..56].copy_from_slice(&0xffff_8000u64.to_le_bytes());
        rec[56..59].copy_from_slice(b"ab\0");
        let mut b = ValueBuilder::default();
        visit(&f, &rec, Endian { big: false }, &mut b).unwrap();
        let v = b.finish().unwrap();
        assert_eq!(v.get("prev_comm"), Some(&Value::Str("bash".into())));
        assert_eq!(v.get("prev_pid"), Some(&Value::Signed(-5)));
        assert_eq!(v.get("name"), Some(&Value::Str("ab".into())));
        assert_eq!(
            v.get("args"),
            Some(&Value::List(vec![Value::Unsigned(7), Value::Unsigned(0)]))
        );
        assert_eq!(v.get("ptr"), Some(&Value::Unsigned(0xffff_8000)));

        // A record too short for its fields is an error, not a panic.
        let mut b = ValueBuilder::default();
        let e = visit(&f, &rec[..30], Endian { big: false }, &mut b).unwrap_err();
        assert_eq!(&*e.field, "name");
    }

    #[test]
    fn the_page_header() {
        let text = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\
            \tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\
            \tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\
            \tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
        assert_eq!(
            parse_header_page(text),
            Ok(PageHeader {
                commit_size: 8,
                data_offset: 16
            })
        );
        assert!(parse_header_page(b"nothing").is_err());
    }
}
