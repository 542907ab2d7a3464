//! One data line of a BTF file: `time,source,source instance,target type,
//! target,target instance,action[,note]`. Fields are trimmed of blanks
//! (the format ignores whitespace in the data section); the note is the rest
//! of the line, commas included. Parsing borrows nothing: fields are byte
//! ranges of the line, so a row can be kept while the file is mapped.

/// A byte range of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn of<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        &line[self.start as usize..self.end as usize]
    }
}

/// A parsed data line: the time still in the file's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fields {
    pub time: u64,
    pub source: Span,
    pub source_instance: i64,
    pub target_type: Span,
    pub target: Span,
    pub target_instance: i64,
    pub action: Span,
    /// Absent on 7-field rows; present (maybe empty) after an 8th comma.
    pub note: Option<Span>,
}

/// What is wrong with a line, and where (1-based byte column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    pub column: usize,
    pub message: String,
}

const NAMES: [&str; 7] = [
    "time",
    "source",
    "source instance",
    "target type",
    "target",
    "target instance",
    "action",
];

/// Parses one line (without its end of line).
pub fn parse(line: &[u8]) -> Result<Fields, RowError> {
    match plain(line) {
        Some(f) => Ok(f),
        None => general(line),
    }
}

/// Parses one line into `fields`, as `parse` does: the reader's way, which
/// spares moving the fields through a `Result` and into place for every
/// row (those moves were a tenth of the reading time). `fields` is left
/// unspecified on error.
#[inline]
pub fn parse_into(line: &[u8], fields: &mut Fields) -> Result<(), RowError> {
    match plain(line) {
        Some(f) => *fields = f,
        None => *fields = general(line)?,
    }
    Ok(())
}

/// The row as writers write it (no blanks around fields, plain numbers of
/// at most 18 digits, no empty field), split and converted in one scan of
/// its bytes; `None` for anything else, which `general` parses or explains.
/// Rows are short: a word-at-a-time scan (`comma`) beats a vectorised
/// search per comma here.
#[inline]
fn plain(line: &[u8]) -> Option<Fields> {
    let mut at = 0;
    let time = digits(line, &mut at)?;
    let source = name(line, &mut at)?;
    let source_instance = integer(line, &mut at)?;
    let target_type = name(line, &mut at)?;
    let target = name(line, &mut at)?;
    let target_instance = integer(line, &mut at)?;
    let start = at;
    at = comma(line, at);
    let action = span(line, start, at)?;
    let note = if at < line.len() {
        let rest = at + 1;
        // A note with blanks at its ends is trimmed by `general`.
        if matches!(line.get(rest), Some(b' ' | b'\t')) || matches!(line.last(), Some(b' ' | b'\t'))
        {
            return None;
        }
        Some(Span {
            start: rest as u32,
            end: line.len() as u32,
        })
    } else {
        None
    };
    Some(Fields {
        time,
        source,
        source_instance,
        target_type,
        target,
        target_instance,
        action,
        note,
    })
}

/// A field of digits ending at a comma, which `at` moves past.
#[inline]
fn digits(line: &[u8], at: &mut usize) -> Option<u64> {
    let start = *at;
    let mut v: u64 = 0;
    while let Some(&b) = line.get(*at) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        // Wrapping: 18 digits cannot overflow, and a longer field (whose
        // value here is thrown away, checked by `general`) must not panic
        // where overflows are checked (debug builds, fuzzing).
        v = v.wrapping_mul(10).wrapping_add(u64::from(d));
        *at += 1;
    }
    let n = *at - start;
    (n > 0 && n <= 18 && line.get(*at) == Some(&b',')).then(|| {
        *at += 1;
        v
    })
}

/// A field of digits with an optional minus sign, ending at a comma.
#[inline]
fn integer(line: &[u8], at: &mut usize) -> Option<i64> {
    let neg = line.get(*at) == Some(&b'-');
    if neg {
        *at += 1;
    }
    let v = digits(line, at)? as i64;
    Some(if neg { -v } else { v })
}

/// A field of anything but a comma, without blanks at its ends, ending at a
/// comma.
#[inline]
fn name(line: &[u8], at: &mut usize) -> Option<Span> {
    let start = *at;
    *at = comma(line, start);
    let s = span(line, start, *at)?;
    (*at < line.len()).then(|| {
        *at += 1;
        s
    })
}

/// The first comma at or after `at`, or the line's end: eight bytes at a
/// time (names such as `TASK_008_1MS` are a word or two long, where a byte
/// loop took a branch per byte), the last few bytes one by one.
#[inline]
fn comma(line: &[u8], mut at: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    const COMMAS: u64 = u64::from_le_bytes([b','; 8]);
    while let Some(chunk) = line.get(at..at + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ COMMAS;
        // A byte of `x` is zero where there is a comma; the lowest flagged
        // byte is always a true zero (a borrow only flags bytes above it).
        let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
        if zeros != 0 {
            return at + (zeros.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < line.len() && line[at] != b',' {
        at += 1;
    }
    at
}

/// `[start, end)` when it is not empty and has no blank at either end.
#[inline]
fn span(line: &[u8], start: usize, end: usize) -> Option<Span> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    (end > start && !blank(line[start]) && !blank(line[end - 1])).then_some(Span {
        start: start as u32,
        end: end as u32,
    })
}

/// Any line: fields trimmed, every error explained.
fn general(line: &[u8]) -> Result<Fields, RowError> {
    let mut cut = [0usize; 7];
    let mut n = 0;
    for i in memchr::memchr_iter(b',', line) {
        cut[n] = i;
        n += 1;
        if n == 7 {
            break;
        }
    }
    if n < 6 {
        return Err(RowError {
            column: line.len() + 1,
            message: format!(
                "truncated row: {} field{}, a BTF row has 7 or 8 (time, source, source instance, target type, target, target instance, action[, note])",
                n + 1,
                if n == 0 { "" } else { "s" }
            ),
        });
    }
    let field = |k: usize| -> Span {
        let start = if k == 0 { 0 } else { cut[k - 1] + 1 };
        let end = if k < n { cut[k] } else { line.len() };
        trim(line, start, end)
    };
    let spans: [Span; 7] = std::array::from_fn(field);
    for (k, s) in spans.iter().enumerate() {
        if s.start == s.end {
            let at = if k == 0 { 0 } else { cut[k - 1] + 1 };
            return Err(RowError {
                column: at + 1,
                message: format!("empty {}", NAMES[k]),
            });
        }
    }
    let note = (n == 7).then(|| trim(line, cut[6] + 1, line.len()));
    Ok(Fields {
        time: unsigned(line, spans[0], NAMES[0])?,
        source: spans[1],
        source_instance: signed(line, spans[2], NAMES[2])?,
        target_type: spans[3],
        target: spans[4],
        target_instance: signed(line, spans[5], NAMES[5])?,
        action: spans[6],
        note,
    })
}

fn trim(line: &[u8], mut start: usize, mut end: usize) -> Span {
    while start < end && matches!(line[start], b' ' | b'\t') {
        start += 1;
    }
    while end > start && matches!(line[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    Span {
        start: start as u32,
        end: end as u32,
    }
}

fn unsigned(line: &[u8], s: Span, what: &str) -> Result<u64, RowError> {
    let text = s.of(line);
    let mut v: u64 = 0;
    for (i, &b) in text.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(bad_number(line, s, i, what, "a non-negative integer"));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or_else(|| RowError {
                column: s.start as usize + 1,
                message: format!("{what} `{}` is too large", String::from_utf8_lossy(text)),
            })?;
    }
    Ok(v)
}

fn signed(line: &[u8], s: Span, what: &str) -> Result<i64, RowError> {
    let text = s.of(line);
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, 1),
        _ => (false, 0),
    };
    if digits == text.len() {
        return Err(bad_number(line, s, 0, what, "an integer"));
    }
    let mut v: i64 = 0;
    for (i, &b) in text.iter().enumerate().skip(digits) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(bad_number(line, s, i, what, "an integer"));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(d)))
            .ok_or_else(|| RowError {
                column: s.start as usize + 1,
                message: format!("{what} `{}` is too large", String::from_utf8_lossy(text)),
            })?;
    }
    Ok(if neg { -v } else { v })
}

fn bad_number(line: &[u8], s: Span, at: usize, what: &str, expected: &str) -> RowError {
    RowError {
        column: s.start as usize + at + 1,
        message: format!(
            "{what} `{}` is not {expected}",
            String::from_utf8_lossy(s.of(line))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-scan parser agrees with the general one on every row it
    /// takes, and takes the rows writers write.
    #[test]
    fn plain_rows_parse_as_the_general_parser_parses_them() {
        let pieces: [&[&str]; 8] = [
            &[
                "0",
                "17",
                "123456789012345678",
                "1234567890123456789",
                "99999999999999999999",
                " 5",
                "5 ",
                "-1",
                "",
                "1x",
            ],
            &["Core_0", "[0/0000]", " S", "S ", "", "a b", "T\tX"],
            &[
                "0",
                "-1",
                "12",
                "-",
                "",
                " 3",
                "1234567890123456789",
                "-123456789012345678",
            ],
            &["T", "R", "STI", " T"],
            &["TASK_1", "[1/0002]IDLE0", "x", ""],
            &["0", "-7", "3 ", "a"],
            &["start", "activate", "", "run ", "resume"],
            &[
                "",
                ",",
                ",note",
                ",a note, with a comma",
                ", padded ",
                ",tail\t",
                ",x,y,z",
            ],
        ];
        let mut checked = 0;
        let mut plain_rows = 0;
        // Every combination would be 10^7 rows: walk them with co-prime
        // strides so that each piece meets many others.
        for n in 0..20_000usize {
            let mut line = String::new();
            for (k, p) in pieces.iter().enumerate() {
                let i = (n * (2 * k + 1) + n / (k + 3)) % p.len();
                if k > 0 && k < 7 {
                    line.push(',');
                }
                line.push_str(p[i]);
            }
            let b = line.as_bytes();
            if let Some(f) = plain(b) {
                plain_rows += 1;
                assert_eq!(general(b), Ok(f), "{line:?}");
            }
            assert_eq!(parse(b), general(b), "{line:?}");
            checked += 1;
        }
        assert_eq!(checked, 20_000);
        assert!(plain_rows > 200, "only {plain_rows} plain rows");
        let l = b"126762,TASK_008_1MS,0,R,RUN_008_0,0,start";
        assert!(plain(l).is_some());
    }

    /// The word-at-a-time comma search finds what a byte loop finds, at
    /// every position of every comma in lines of every length up to 40.
    #[test]
    fn comma_search_agrees_with_a_byte_loop() {
        for len in 0..40usize {
            for mask in 0..(1u64 << len.min(8)) {
                // Commas where the mask says, spread over the line.
                let line: Vec<u8> = (0..len)
                    .map(|i| {
                        if mask >> (i * 5 % 8) & 1 == 1 && i % 3 != 1 {
                            b','
                        } else {
                            [b'a', 0xac, 0x2d, 0x2b, 0x80, 0x01][i % 6]
                        }
                    })
                    .collect();
                for at in 0..=len {
                    let want = (at..len).find(|&i| line[i] == b',').unwrap_or(len);
                    assert_eq!(comma(&line, at), want, "{line:?} from {at}");
                }
            }
        }
    }

    fn text(line: &[u8], s: Span) -> &str {
        std::str::from_utf8(s.of(line)).unwrap()
    }

    #[test]
    fn seven_and_eight_fields() {
        let l = b"100,Core_2,0,T,TASK_WritingActuator,0,start";
        let f = parse(l).unwrap();
        assert_eq!(f.time, 100);
        assert_eq!(text(l, f.source), "Core_2");
        assert_eq!(text(l, f.target_type), "T");
        assert_eq!(text(l, f.target), "TASK_WritingActuator");
        assert_eq!(text(l, f.action), "start");
        assert_eq!((f.source_instance, f.target_instance), (0, 0));
        assert_eq!(f.note, None);

        let l = b"0,SIM,-1,STI,SYS_WAKE-UP,0,trigger,a note, with a comma";
        let f = parse(l).unwrap();
        assert_eq!(f.source_instance, -1);
        assert_eq!(text(l, f.note.unwrap()), "a note, with a comma");

        // FreeRTOS writes an empty note after a trailing comma.
        let l = b"1013689,[0/0000],0,T,[0/0002]IDLE0,0,resume,";
        assert!(
            matches!(parse(l).unwrap().note, Some(s) if s.start == s.end && s.end as usize == l.len())
        );
    }

    #[test]
    fn blanks_are_ignored() {
        let l = b" 0 , S_1MS ,0, T ,T_1MS_0,\t0 , activate ";
        let f = parse(l).unwrap();
        assert_eq!(text(l, f.source), "S_1MS");
        assert_eq!(text(l, f.target_type), "T");
        assert_eq!(text(l, f.action), "activate");
        assert_eq!(f.time, 0);
    }

    #[test]
    fn errors_name_the_column() {
        let e = parse(b"100,Core_2,0,T,TASK").unwrap_err();
        assert_eq!(e.column, 20);
        assert!(
            e.message.starts_with("truncated row: 5 fields"),
            "{}",
            e.message
        );
        let e = parse(b"1x0,Core_2,0,T,A,0,start").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (2, "time `1x0` is not a non-negative integer")
        );
        let e = parse(b"-5,Core_2,0,T,A,0,start").unwrap_err();
        assert_eq!(e.column, 1);
        let e = parse(b"5,Core_2,a,T,A,0,start").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (10, "source instance `a` is not an integer")
        );
        let e = parse(b"5,Core_2,0,T,A,-,start").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (16, "target instance `-` is not an integer")
        );
        let e = parse(b"5,Core_2,0,,A,0,start").unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (12, "empty target type"));
        let e = parse(b"99999999999999999999,C,0,T,A,0,start").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (1, "time `99999999999999999999` is too large")
        );
        let e = parse(b"").unwrap_err();
        assert!(
            e.message.starts_with("truncated row: 1 field,"),
            "{}",
            e.message
        );
    }

    /// Found by the `btf` fuzz target (engine/fuzz/seeds/btf/
    /// finding-long-number.btf): a number field of 20 digits or more
    /// overflowed in the one-scan parser before `general` refused it, a
    /// panic where overflows are checked (debug builds, fuzzing).
    #[test]
    fn numbers_of_any_length_are_refused_without_overflow() {
        let long = "9".repeat(40);
        for row in [
            format!("{long},C,0,T,A,0,start"),
            format!("1,C,{long},T,A,0,start"),
            format!("1,C,-{long},T,A,0,start"),
            format!("1,C,0,T,A,{long},start"),
            format!("1,C,0,T,A,-{long},start"),
        ] {
            let e = parse(row.as_bytes()).unwrap_err();
            assert!(e.message.contains("too large"), "{row}: {}", e.message);
        }
        let seed = include_bytes!("../../../engine/fuzz/seeds/btf/finding-long-number.btf");
        let rows: Vec<&[u8]> = seed
            .split(|&b| b == b'\n')
            .filter(|l| l.first().is_some_and(u8::is_ascii_digit))
            .collect();
        assert!(
            rows.iter().any(|l| parse(l).is_err()),
            "the seed's long row"
        );
    }
}
