//! The BTF file reader: the header, then one row at a time, straight from
//! the file mapped in memory (nothing is copied, nothing grows with the
//! file). Rows must be in time order, as the format requires.
//!
//! Policy: a row that does not parse, goes back in time or lies in a line
//! longer than [`MAX_LINE`] is an error naming its line and column; with
//! `lenient`, it is skipped and counted in the warnings instead (with the
//! first such line). Errors and warnings name lines, counted from the start
//! of the file when needed (so also after a seek).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::mapped::Mapped;

use super::error::BtfError;
use super::header::{classify, Header, LineKind, Version};
use super::row::{self, Fields};
use super::time::TimeScale;

/// Longest line read: a row is eight short fields, so a longer line is not
/// BTF (and is never searched to its end unless `lenient` skips it).
pub const MAX_LINE: usize = 1 << 20;

/// How to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Skip malformed rows (counted in the warnings) instead of stopping.
    pub lenient: bool,
}

/// The current row: its place in the file and its parsed fields.
#[derive(Debug, Clone, Copy, Default)]
struct Current {
    start: usize,
    end: usize,
    fields: Fields,
    ts: i64,
}

/// A row, borrowed from the reader until it advances.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    line: &'a [u8],
    fields: &'a Fields,
    /// Nanoseconds.
    pub ts: i64,
    /// Byte offset of the line in the file.
    pub offset: usize,
}

impl<'a> Row<'a> {
    pub fn source(&self) -> &'a [u8] {
        self.fields.source.of(self.line)
    }
    pub fn source_instance(&self) -> i64 {
        self.fields.source_instance
    }
    pub fn target_type(&self) -> &'a [u8] {
        self.fields.target_type.of(self.line)
    }
    pub fn target(&self) -> &'a [u8] {
        self.fields.target.of(self.line)
    }
    pub fn target_instance(&self) -> i64 {
        self.fields.target_instance
    }
    pub fn action(&self) -> &'a [u8] {
        self.fields.action.of(self.line)
    }
    /// The note, empty when the row has none.
    pub fn note(&self) -> &'a [u8] {
        self.fields.note.map_or(&[][..], |s| s.of(self.line))
    }
    /// The time as written, in the file's unit.
    pub fn raw_time(&self) -> u64 {
        self.fields.time
    }
}

/// Rows skipped by `lenient`, and the first reason.
#[derive(Debug, Clone, Default)]
struct Skipped {
    rows: u64,
    first: Option<String>,
}

pub struct BtfReader {
    path: PathBuf,
    /// Checked (`shrank`) for every line handed on.
    data: Mapped,
    header: Header,
    options: Options,
    /// Start of the first row.
    data_start: usize,
    /// Start of the next line to read.
    pos: usize,
    /// The current row, parsed in place (not moved in for every row).
    current: Current,
    /// Whether `current` holds a row (after `advance` returned true).
    has_row: bool,
    /// Time (ns) and raw time of the last row yielded, for the order check.
    last: Option<(i64, u64)>,
    /// After a seek: rows before this time are read but not yielded.
    floor: i64,
    skipped: Skipped,
    /// Meta lines among the rows (not part of the header).
    late_meta: u64,
    /// What the header said oddly, one sentence each.
    header_warnings: Vec<String>,
}

impl BtfReader {
    pub fn open(path: &Path, options: Options) -> Result<BtfReader, BtfError> {
        let file = File::open(path).map_err(|e| BtfError::io(path, e))?;
        let len = file.metadata().map_err(|e| BtfError::io(path, e))?.len();
        if len == 0 {
            return Err(BtfError::File {
                path: path.to_path_buf(),
                message: "empty file: no BTF header and no rows".into(),
            });
        }
        // Cut short under the map, the file reads as zeros from there on,
        // which `next_line` turns into an error.
        let data = Mapped::map(&file, path).map_err(|e| BtfError::io(path, e))?;
        let mut r = BtfReader {
            path: path.to_path_buf(),
            data,
            header: Header::default(),
            options,
            data_start: 0,
            pos: 0,
            current: Current::default(),
            has_row: false,
            last: None,
            floor: i64::MIN,
            skipped: Skipped::default(),
            late_meta: 0,
            header_warnings: Vec::new(),
        };
        r.read_header()?;
        Ok(r)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes read and the file's size.
    pub fn progress(&self) -> (u64, u64) {
        (self.pos as u64, self.data.len() as u64)
    }

    /// Rows skipped so far by `lenient`.
    pub fn skipped_rows(&self) -> u64 {
        self.skipped.rows
    }

    /// What went wrong without stopping the read, one sentence each.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.header_warnings.clone();
        if self.skipped.rows > 0 {
            w.push(format!(
                "{} malformed row{} skipped (--lenient), the first: {}",
                self.skipped.rows,
                if self.skipped.rows == 1 { "" } else { "s" },
                self.skipped.first.as_deref().unwrap_or("?")
            ));
        }
        if self.late_meta > 0 {
            w.push(format!(
                "{} meta line{} among the rows (after the header) ignored",
                self.late_meta,
                if self.late_meta == 1 { "" } else { "s" }
            ));
        }
        w
    }

    /// The current row, after `advance` returned true.
    #[inline]
    pub fn row(&self) -> Option<Row<'_>> {
        if !self.has_row {
            return None;
        }
        let c = &self.current;
        Some(Row {
            line: &self.data[c.start..c.end],
            fields: &c.fields,
            ts: c.ts,
            offset: c.start,
        })
    }

    /// Moves to the next row; false at the end of the file.
    pub fn advance(&mut self) -> Result<bool, BtfError> {
        loop {
            self.has_row = false;
            let Some((start, end)) = self.next_line()? else {
                return Ok(false);
            };
            let line = &self.data[start..end];
            // Rows begin with their time: the common case skips classifying.
            if !line.first().is_some_and(u8::is_ascii_digit) {
                match classify(line) {
                    LineKind::Blank | LineKind::Comment => continue,
                    LineKind::Meta(name, value) => {
                        self.meta_among_rows(start, name.to_string(), value.to_string())?;
                        continue;
                    }
                    LineKind::Row => {}
                }
            }
            match self.parse_row(start, end) {
                Ok(true) => {
                    self.has_row = true;
                    return Ok(true);
                }
                Ok(false) => continue,
                Err((column, message)) => self.reject(start, column, message)?,
            }
        }
    }

    /// Positions the reader so that the next `advance` yields the first row
    /// at or after `ns`: a binary search over the file for a line whose
    /// rows before are all earlier (rows are in time order), then a read
    /// from there that yields nothing before `ns`. Bounded by the file's
    /// size, not by what lies before `ns`.
    pub fn seek(&mut self, ns: i64) -> Result<(), BtfError> {
        let mut lo = self.data_start;
        let mut hi = self.data.len();
        while hi - lo > 4096 {
            let mid = lo + (hi - lo) / 2;
            let from = self.line_start_at_or_after(mid);
            match self.probe(from, hi) {
                Some((ts, after)) if ts < ns => lo = after,
                _ => hi = mid,
            }
        }
        self.pos = lo;
        self.has_row = false;
        self.last = None;
        self.floor = ns;
        Ok(())
    }

    /// The header: meta lines and comments up to the first row.
    fn read_header(&mut self) -> Result<(), BtfError> {
        let mut seen_scale: Option<(TimeScale, String)> = None;
        loop {
            let at = self.pos;
            let Some((start, end)) = self.next_line()? else {
                break;
            };
            let line = &self.data[start..end];
            match classify(line) {
                LineKind::Blank | LineKind::Comment => {}
                LineKind::Row => {
                    self.pos = at;
                    break;
                }
                LineKind::Meta(name, value) => {
                    let (name, value) = (name.to_string(), value.to_string());
                    match name.as_str() {
                        // A repeated header (the TA Simulator writes two)
                        // keeps the first version: 2.1 and 2.2 read alike.
                        "version" => match Version::parse(&value) {
                            Ok(v) => {
                                self.header.version.get_or_insert(v);
                            }
                            Err(m) => self.header_problem(start, 10, m)?,
                        },
                        "timeScale" => match value.parse::<TimeScale>() {
                            Ok(s) => match &seen_scale {
                                None => {
                                    seen_scale = Some((s, value.clone()));
                                    self.header.time_scale = s;
                                    self.header.time_scale_given = true;
                                }
                                Some((first, _)) if *first != s => self.header_problem(
                                    start,
                                    12,
                                    format!(
                                        "#timeScale {s} contradicts the earlier #timeScale {first}"
                                    ),
                                )?,
                                Some(_) => {}
                            },
                            Err(m) => self.header_problem(start, 12, m)?,
                        },
                        _ => {}
                    }
                    self.header.meta.push((name, value));
                }
            }
        }
        self.data_start = self.pos;
        if self.header.version.is_none() {
            let message = if self.header.meta.is_empty() {
                "missing header: no `#version` line before the first row (a BTF file begins with `#version 2.1` or `#version 2.2`, then `#timeScale`)"
            } else {
                "no `#version` line in the header (a BTF file says `#version 2.1` or `#version 2.2`)"
            };
            if !self.options.lenient {
                return Err(BtfError::File {
                    path: self.path.clone(),
                    message: message.into(),
                });
            }
            self.header_warnings
                .push(format!("{message}; read as BTF 2.2 (--lenient)"));
        }
        Ok(())
    }

    /// A header line that cannot be used: an error, or a warning when lenient.
    fn header_problem(
        &mut self,
        start: usize,
        column: usize,
        message: String,
    ) -> Result<(), BtfError> {
        if self.options.lenient {
            let line = self.line_at(start);
            self.header_warnings
                .push(format!("line {line}: {message} (ignored, --lenient)"));
            return Ok(());
        }
        Err(self.error_at(start, column, message))
    }

    /// A meta line after the first row: harmless unless it changes the
    /// version or the time scale, which cannot change in the middle.
    fn meta_among_rows(
        &mut self,
        start: usize,
        name: String,
        value: String,
    ) -> Result<(), BtfError> {
        let changes = match name.as_str() {
            "timeScale" => value.parse::<TimeScale>().ok() != Some(self.header.time_scale),
            "version" => self
                .header
                .version
                .as_ref()
                .is_some_and(|v| v.text != value),
            _ => false,
        };
        if changes {
            let m = format!(
                "#{name} {value} among the rows: the {name} cannot change after the first row"
            );
            self.header_problem(start, 1, m)?;
        } else {
            self.late_meta += 1;
        }
        Ok(())
    }

    /// The next line's bounds (without its end of line), moving past it.
    fn next_line(&mut self) -> Result<Option<(usize, usize)>, BtfError> {
        loop {
            let start = self.pos;
            if start >= self.data.len() {
                return Ok(None);
            }
            let rest = &self.data[start..];
            let window = &rest[..rest.len().min(MAX_LINE + 1)];
            let newline = memchr::memchr(b'\n', window);
            // The line's bytes are read: zeros if the file was cut short.
            self.data.check()?;
            let end = match newline {
                Some(i) => {
                    self.pos = start + i + 1;
                    start + i
                }
                None if rest.len() <= MAX_LINE => {
                    self.pos = self.data.len();
                    self.data.len()
                }
                None => {
                    let message = format!(
                        "line longer than {} MiB: not a BTF row (a row is eight short fields)",
                        MAX_LINE >> 20
                    );
                    if !self.options.lenient {
                        return Err(self.error_at(start, 1, message));
                    }
                    let next =
                        memchr::memchr(b'\n', rest).map_or(self.data.len(), |i| start + i + 1);
                    self.skip(start, 1, message);
                    self.pos = next;
                    continue;
                }
            };
            let end = if end > start && self.data[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            return Ok(Some((start, end)));
        }
    }

    /// Parses the row in `start..end` into `current`; false when it lies
    /// before the seek floor. Errors are (column, message).
    fn parse_row(&mut self, start: usize, end: usize) -> Result<bool, (usize, String)> {
        let line = &self.data[start..end];
        let c = &mut self.current;
        row::parse_into(line, &mut c.fields).map_err(|e| (e.column, e.message))?;
        let fields = &c.fields;
        let ts = self.header.time_scale.to_ns(fields.time).ok_or_else(|| {
            (
                1,
                format!(
                    "time {} {} is beyond what 64-bit nanoseconds hold",
                    fields.time, self.header.time_scale
                ),
            )
        })?;
        if let Some((last, raw)) = self.last {
            if ts < last {
                return Err((
                    1,
                    format!(
                        "time {} is earlier than the previous row's {raw}: BTF rows are in time order",
                        fields.time
                    ),
                ));
            }
        }
        if ts < self.floor {
            return Ok(false);
        }
        self.last = Some((ts, fields.time));
        (c.start, c.end, c.ts) = (start, end, ts);
        Ok(true)
    }

    /// A malformed row: an error, or skipped and counted when lenient.
    fn reject(&mut self, start: usize, column: usize, message: String) -> Result<(), BtfError> {
        if !self.options.lenient {
            return Err(self.error_at(start, column, message));
        }
        self.skip(start, column, message);
        Ok(())
    }

    fn skip(&mut self, start: usize, column: usize, message: String) {
        self.skipped.rows += 1;
        if self.skipped.first.is_none() {
            let line = self.line_at(start);
            self.skipped.first = Some(format!("line {line}, column {column}: {message}"));
        }
    }

    fn error_at(&self, start: usize, column: usize, message: String) -> BtfError {
        BtfError::At {
            path: self.path.clone(),
            line: self.line_at(start),
            column,
            message,
        }
    }

    /// The 1-based line number of the line starting at byte `start`, counted
    /// when needed (errors are rare; rows are not counted on the way).
    pub fn line_at(&self, start: usize) -> u64 {
        memchr::memchr_iter(b'\n', &self.data[..start]).count() as u64 + 1
    }

    fn line_start_at_or_after(&self, at: usize) -> usize {
        if at == 0 || self.data[at - 1] == b'\n' {
            return at;
        }
        memchr::memchr(b'\n', &self.data[at..]).map_or(self.data.len(), |i| at + i + 1)
    }

    /// The time of the first parsable row starting in `from..limit`, and
    /// where the line after it starts. Lines that do not parse are passed
    /// over here; reading reports them when it reaches them.
    fn probe(&self, mut from: usize, limit: usize) -> Option<(i64, usize)> {
        while from < limit {
            let rest = &self.data[from..];
            let end = memchr::memchr(b'\n', &rest[..rest.len().min(MAX_LINE + 1)])
                .map_or(self.data.len().min(from + MAX_LINE + 1), |i| from + i);
            let next = (end + 1).min(self.data.len());
            let line = &self.data[from..end];
            if classify(line) == LineKind::Row {
                if let Ok(f) = row::parse(line.strip_suffix(b"\r").unwrap_or(line)) {
                    if let Some(ts) = self.header.time_scale.to_ns(f.time) {
                        return Some((ts, next));
                    }
                }
            }
            from = next;
        }
        None
    }
}
