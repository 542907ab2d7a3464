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

const PUNCTS: [&str; 16] = [
    ":=", "...", "{", "}", "[", "]", "(", ")", ";", ",", "=", ":", "<", ">", ".", "-",
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
                            let e = *bytes.get(i + 1).ok_or_else(|| {
                                MetadataError::at(line, "unterminated string escape")
                            })?;
                            s.push(match e {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'r' => b'\r',
                                b'0' => 0,
                                other => other,
                            });
                            i += 2;
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
                // Character constants are legal TSDL but only ever used as values;
                // read them as integers.
                let v = *bytes
                    .get(i + 1)
                    .ok_or_else(|| MetadataError::at(line, "unterminated character constant"))?;
                if bytes.get(i + 2) != Some(&b'\'') {
                    return Err(MetadataError::at(line, "bad character constant"));
                }
                out.push(Token {
                    tok: Tok::Int(v as i128),
                    line,
                });
                i += 3;
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
