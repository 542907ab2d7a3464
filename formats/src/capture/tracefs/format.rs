//! tracefs `format` files (one per event: its id and the layout of its record)
//! and `events/header_page` (the layout of a ring-buffer page).

use std::fmt;

/// How a record field is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// An integer (or pointer) of 1, 2, 4 or 8 bytes.
    Int,
    /// `char name[N]`: text padded with NULs.
    Chars,
    /// `__data_loc char[] name`: a 32-bit word, offset (low 16 bits, from the
    /// record's start) and length (high 16 bits) of text after the fixed part.
    DataLocChars,
    /// The same for anything else, and `__rel_loc` (offset from the end of
    /// the word itself): kept as raw bytes.
    DataLoc { relative: bool, text: bool },
    /// Any other array: raw bytes.
    Bytes,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFormat {
    pub name: String,
    /// The C type as tracefs prints it (`pid_t`, `const char *`).
    pub ctype: String,
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
    pub kind: FieldKind,
}

impl FieldFormat {
    pub fn is_pointer(&self) -> bool {
        self.ctype.contains('*')
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFormat {
    pub system: String,
    pub name: String,
    pub id: u16,
    /// The common fields (`common_type`, `common_pid`, ...) first, as in the file.
    pub fields: Vec<FieldFormat>,
}

impl EventFormat {
    pub fn field(&self, name: &str) -> Option<&FieldFormat> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// A `format` or `header_page` file that does not read as one: the line and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

fn err(line: usize, message: impl Into<String>) -> FormatError {
    FormatError {
        line,
        message: message.into(),
    }
}

/// Parses an event's `format` file.
pub fn parse_event(system: &str, text: &str) -> Result<EventFormat, FormatError> {
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if let Some(v) = t.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = t.strip_prefix("ID:") {
            let v = v.trim();
            id = Some(
                v.parse::<u16>()
                    .map_err(|_| err(n, format!("event id {v:?} is not a 16-bit number")))?,
            );
        } else if t.starts_with("field:") {
            fields.push(parse_field(t).map_err(|m| err(n, m))?);
        } else if t.starts_with("print fmt:") {
            break;
        }
    }
    let name = name.ok_or_else(|| err(1, "no `name:` line"))?;
    let id = id.ok_or_else(|| err(1, "no `ID:` line"))?;
    Ok(EventFormat {
        system: system.to_string(),
        name,
        id,
        fields,
    })
}

/// `field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;`
fn parse_field(t: &str) -> Result<FieldFormat, String> {
    let mut decl = None;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for part in t.split(';') {
        let part = part.trim();
        if let Some(d) = part.strip_prefix("field:") {
            decl = Some(d.trim());
        } else if let Some(v) = part.strip_prefix("offset:") {
            offset = v.trim().parse::<usize>().ok();
        } else if let Some(v) = part.strip_prefix("size:") {
            size = v.trim().parse::<usize>().ok();
        } else if let Some(v) = part.strip_prefix("signed:") {
            signed = v.trim() == "1";
        }
    }
    let decl = decl.ok_or("no field declaration")?;
    let offset = offset.ok_or_else(|| format!("{decl}: no offset"))?;
    let size = size.ok_or_else(|| format!("{decl}: no size"))?;
    // The name is the last word, without its array brackets; the type is
    // everything before it (`const char *`, `__data_loc char[]`).
    let last = decl
        .rsplit(|c: char| c.is_whitespace() || c == '*')
        .next()
        .unwrap_or_default();
    let ctype = decl[..decl.len() - last.len()].trim();
    if ctype.is_empty() {
        return Err(format!("{decl:?}: no type before the field name"));
    }
    let (name, dims) = match last.find('[') {
        Some(b) => (&last[..b], Some(&last[b..])),
        None => (last, None),
    };
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(format!("{decl:?}: {name:?} is not a field name"));
    }
    let is_char = !ctype.contains('*') && ctype.trim_start_matches("const ").ends_with("char");
    let kind = if ctype.starts_with("__data_loc") || ctype.starts_with("__rel_loc") {
        let text = ctype.contains("char");
        if ctype.starts_with("__data_loc") && text {
            FieldKind::DataLocChars
        } else {
            FieldKind::DataLoc {
                relative: ctype.starts_with("__rel_loc"),
                text,
            }
        }
    } else if dims.is_some() {
        if is_char {
            FieldKind::Chars
        } else {
            FieldKind::Bytes
        }
    } else if matches!(size, 1 | 2 | 4 | 8) {
        FieldKind::Int
    } else {
        FieldKind::Bytes
    };
    Ok(FieldFormat {
        name: name.to_string(),
        ctype: ctype.to_string(),
        offset,
        size,
        signed,
        kind,
    })
}

/// The layout of a ring-buffer page (`events/header_page`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLayout {
    pub commit_offset: usize,
    /// 8 on 64-bit kernels (a `long`), 4 on 32-bit ones.
    pub commit_size: usize,
    pub data_offset: usize,
    pub data_size: usize,
}

impl PageLayout {
    pub fn page_size(&self) -> usize {
        self.data_offset + self.data_size
    }
}

pub fn parse_header_page(text: &str) -> Result<PageLayout, FormatError> {
    let mut commit = None;
    let mut data = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if !t.starts_with("field:") {
            continue;
        }
        let f = parse_field(t).map_err(|m| err(i + 1, m))?;
        match f.name.as_str() {
            "commit" => commit = Some((f.offset, f.size)),
            "data" => data = Some((f.offset, f.size)),
            _ => {}
        }
    }
    let (commit_offset, commit_size) = commit.ok_or_else(|| err(1, "no `commit` field"))?;
    let (data_offset, data_size) = data.ok_or_else(|| err(1, "no `data` field"))?;
    if !matches!(commit_size, 4 | 8) || commit_offset + commit_size > data_offset || data_size == 0
    {
        return Err(err(1, "commit and data fields do not describe a page"));
    }
    Ok(PageLayout {
        commit_offset,
        commit_size,
        data_offset,
        data_size,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `events/sched/sched_switch/format` of a 64-bit kernel.
    pub(crate) const SCHED_SWITCH: &str = "name: sched_switch
ID: 372
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;

print fmt: \"prev_comm=%s\", REC->prev_comm
";

    #[test]
    fn event_format() {
        let f = parse_event("sched", SCHED_SWITCH).unwrap();
        assert_eq!(
            (f.name.as_str(), f.id, f.fields.len()),
            ("sched_switch", 372, 11)
        );
        let comm = f.field("prev_comm").unwrap();
        assert_eq!(
            (comm.offset, comm.size, comm.kind),
            (8, 16, FieldKind::Chars)
        );
        let pid = f.field("prev_pid").unwrap();
        assert_eq!((pid.kind, pid.signed, pid.size), (FieldKind::Int, true, 4));
        assert_eq!(f.field("common_pid").unwrap().offset, 4);
    }

    #[test]
    fn field_kinds() {
        let text = "name: x\nID: 9\nformat:
\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__rel_loc u8[] blob;\toffset:12;\tsize:4;\tsigned:0;
\tfield:u32 * uaddr;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned long args[6];\toffset:24;\tsize:48;\tsigned:0;
\tfield:const char * filename;\toffset:72;\tsize:8;\tsigned:0;
";
        let f = parse_event("x", text).unwrap();
        assert_eq!(f.field("name").unwrap().kind, FieldKind::DataLocChars);
        assert_eq!(
            f.field("blob").unwrap().kind,
            FieldKind::DataLoc {
                relative: true,
                text: false
            }
        );
        let uaddr = f.field("uaddr").unwrap();
        assert!(uaddr.is_pointer());
        assert_eq!(uaddr.kind, FieldKind::Int);
        assert_eq!(f.field("args").unwrap().kind, FieldKind::Bytes);
        assert!(f.field("filename").unwrap().is_pointer());
    }

    #[test]
    fn bad_formats_name_the_line() {
        let e = parse_event("x", "name: a\nID: 99999\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_event("x", "name: a\nID: 3\n\tfield:int;\toffset:0;\tsize:4;\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(parse_event("x", "ID: 3\n").is_err());
    }

    #[test]
    fn header_page() {
        let text = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
";
        let p = parse_header_page(text).unwrap();
        assert_eq!((p.commit_size, p.data_offset, p.page_size()), (8, 16, 4096));
        assert!(parse_header_page("nothing").is_err());
    }
}
