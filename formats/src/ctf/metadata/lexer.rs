//! Tokens of the TSDL metadata language (CTF 1.8 §7).
//!
//! The lexer keeps the line of every token so that parse errors can name the
//! metadata line, which is what a user opens in an editor.

use super::MetadataError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    /// Integer literal; kept as i128 so both `0xffffffffffffffff` and `-1` fit.
    Int(i128),
    Str(String),
    Punct(&'static str),
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
}

const PUNCTS: [&str; 18] = [
    ":=", "...", "{", "}", "[", "]", "(", ")", ";", ",", "=", ":", "<", ">", ".", "-", "+", "*",
];

pub fn tokenize(src: &str) -> Result<Vec<Token>, MetadataError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_ascii_whitespace() || c == 0 => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start_line = line;
                i += 2;
                loop {
                    match bytes.get(i) {
                        None => return Err(MetadataError::at(start_line, "unterminated comment")),
                        Some(b'*') if bytes.get(i + 1) == Some(&b'/') => {
                            i += 2;
                            break;
                        }
                        Some(b'\n') => {
                            line += 1;
                            i += 1
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                let start_line = line;
                i += 1;
                let mut s = Vec::new();
                loop {
                    match bytes.get(i) {
                        None => return Err(MetadataError::at(start_line, "unterminated string")),
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let (escaped, used) = escape(&bytes[i + 1..], line)?;
                            escaped.push_to(&mut s);
                            i += 1 + used;
                        }
                        Some(&b) => {
                            if b == b'\n' {
                                line += 1;
                            }
                            s.push(b);
                            i += 1;
                        }
                    }
                }
                out.push(Token {
                    tok: Tok::Str(String::from_utf8_lossy(&s).into_owned()),
                    line,
                });
            }
            b'\'' => {
                // A character constant (C.1.5) is an integer: its code.
                let (code, used) = match bytes.get(i + 1) {
                    Some(b'\\') => {
                        let (escaped, used) = escape(&bytes[i + 2..], line)?;
                        (escaped.code(), used + 1)
                    }
                    Some(b'\'') | Some(b'\n') | None => {
                        return Err(MetadataError::at(
                            line,
                            "empty or unterminated character constant: the spec expects one character or escape sequence between quotes",
                        ))
                    }
                    Some(_) => {
                        let c = src[i + 1..].chars().next().unwrap_or('\0');
                        (c as u32, c.len_utf8())
                    }
                };
                if bytes.get(i + 1 + used) != Some(&b'\'') {
                    return Err(MetadataError::at(
                        line,
                        "character constant of more than one character: the spec expects one character or escape sequence between quotes",
                    ));
                }
                out.push(Token {
                    tok: Tok::Int(code as i128),
                    line,
                });
                i += used + 2;
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let text = &src[start..i];
                out.push(Token {
                    tok: Tok::Int(parse_int(text).ok_or_else(|| {
                        MetadataError::at(line, format!("bad integer literal `{text}`"))
                    })?),
                    line,
                });
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(src[start..i].to_string()),
                    line,
                });
            }
            _ => {
                let rest = &src[i..];
                let p = PUNCTS
                    .iter()
                    .find(|p| rest.starts_with(**p))
                    .ok_or_else(|| {
                        let ch = rest.chars().next().unwrap_or('?');
                        MetadataError::at(line, format!("unexpected character `{ch}`"))
                    })?;
                out.push(Token {
                    tok: Tok::Punct(p),
                    line,
                });
                i += p.len();
            }
        }
    }
    Ok(out)
}

/// What an escape sequence stands for: octal and hexadecimal escapes are
/// bytes, universal character names (`\u`, `\U`) are characters.
#[derive(Debug, Clone, Copy)]
enum Escaped {
    Byte(u8),
    Char(char),
}

impl Escaped {
    fn code(self) -> u32 {
        match self {
            Escaped::Byte(b) => b as u32,
            Escaped::Char(c) => c as u32,
        }
    }

    fn push_to(self, s: &mut Vec<u8>) {
        match self {
            Escaped::Byte(b) => s.push(b),
            Escaped::Char(c) => s.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
}

/// The escape sequence starting after a backslash (C.1.5: simple, octal,
/// hexadecimal escapes and universal character names), and how many bytes
/// it took.
fn escape(rest: &[u8], line: u32) -> Result<(Escaped, usize), MetadataError> {
    const EXPECTED: &str = "the spec (C.1.5) allows \\' \\\" \\? \\\\ \\a \\b \\f \\n \\r \\t \\v, \\ and 1 to 3 octal digits, \\x and hexadecimal digits, \\u and 4 or \\U and 8 hexadecimal digits";
    let Some(&e) = rest.first() else {
        return Err(MetadataError::at(line, "unterminated escape sequence"));
    };
    let simple = match e {
        b'\'' | b'"' | b'?' | b'\\' => Some(e),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(11),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((Escaped::Byte(c), 1));
    }
    let digits = |from: usize, radix: u32, most: usize| {
        let n = rest[from..]
            .iter()
            .take(most)
            .take_while(|b| (**b as char).is_digit(radix))
            .count();
        let text = std::str::from_utf8(&rest[from..from + n]).unwrap_or("");
        (u32::from_str_radix(text, radix).ok(), n)
    };
    let byte = |v: Option<u32>| v.and_then(|v| u8::try_from(v).ok()).map(Escaped::Byte);
    let (code, used) = match e {
        b'0'..=b'7' => {
            let (v, n) = digits(0, 8, 3);
            (byte(v), n)
        }
        b'x' => {
            let (v, n) = digits(1, 16, usize::MAX);
            (byte(v.filter(|_| n > 0)), n + 1)
        }
        b'u' | b'U' => {
            let want = if e == b'u' { 4 } else { 8 };
            let (v, n) = digits(1, 16, want);
            let c = v.filter(|_| n == want).and_then(char::from_u32);
            (c.map(Escaped::Char), n + 1)
        }
        _ => (None, 1),
    };
    match code {
        Some(c) => Ok((c, used)),
        None => Err(MetadataError::at(
            line,
            format!(
                "invalid escape sequence `\\{}`: {EXPECTED}",
                String::from_utf8_lossy(&rest[..used.max(1).min(rest.len())])
            ),
        )),
    }
}

/// Decimal, hexadecimal (`0x`), octal (leading `0`) and binary (`0b`), with the C
/// suffixes `u`, `l`, `ul`, `ull` that some tracers emit.
fn parse_int(text: &str) -> Option<i128> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    i128::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_comments() {
        let toks =
            tokenize("a := 0x1F; /* c\n */ b = -010; // x\n s = \"q\\\"\"; r = 2 ... 5;").unwrap();
        let kinds: Vec<_> = toks.iter().map(|t| t.tok.clone()).collect();
        assert_eq!(kinds[2], Tok::Int(31));
        assert_eq!(kinds[7], Tok::Int(8));
        assert_eq!(kinds[11], Tok::Str("q\"".into()));
        assert!(kinds.contains(&Tok::Punct("...")));
        assert_eq!(toks[5].line, 2);
    }

    #[test]
    fn errors_name_the_line() {
        let e = tokenize("a;\nb;\n /* never closed").unwrap_err();
        assert_eq!(e.line, 3);
        let e = tokenize("a;\n$").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
