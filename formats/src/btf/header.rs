//! The meta lines of a BTF file: `#name value` (`#version 2.2.0`,
//! `#timeScale us`, `#creator ...`, anything else kept as written) before
//! the first row. A `#` followed by a blank (or nothing) is a comment, which
//! may stand anywhere.

use super::time::TimeScale;

/// What a line is, before the data rows are parsed.
#[derive(Debug, PartialEq, Eq)]
pub enum LineKind<'a> {
    Blank,
    Comment,
    /// `#name value`: the name and the value, trimmed.
    Meta(&'a str, &'a str),
    Row,
}

pub fn classify(line: &[u8]) -> LineKind<'_> {
    let t = trim_start(line);
    match t.first() {
        None => LineKind::Blank,
        Some(b'#') => match t.get(1) {
            Some(c) if c.is_ascii_alphabetic() => {
                // Meta names and values are ASCII in practice; anything else
                // is kept lossily through the checked conversion below.
                let body = std::str::from_utf8(&t[1..]).unwrap_or("");
                let (name, value) = body
                    .split_once([' ', '\t'])
                    .map_or((body, ""), |(n, v)| (n, v.trim()));
                LineKind::Meta(name.trim_end(), value)
            }
            _ => LineKind::Comment,
        },
        Some(_) => LineKind::Row,
    }
}

fn trim_start(line: &[u8]) -> &[u8] {
    let i = line
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(line.len());
    &line[i..]
}

/// The BTF versions read: 2.1.x and 2.2.x.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub text: String,
    pub major: u32,
    pub minor: u32,
}

impl Version {
    pub fn parse(text: &str) -> Result<Version, String> {
        let mut parts = text.split('.');
        let num = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
        match (num(parts.next()), num(parts.next())) {
            (Some(2), Some(minor @ (1 | 2))) => Ok(Version {
                text: text.to_string(),
                major: 2,
                minor,
            }),
            (Some(_), Some(_)) => Err(format!(
                "BTF version {text} is not read (versions 2.1 and 2.2 are)"
            )),
            _ => Err(format!("`{text}` is not a BTF version (2.1.x or 2.2.x)")),
        }
    }
}

/// The header: every meta line before the first row, in order, and what the
/// reader takes from them.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// `(name, value)` of every meta line, as written (repeated ones too).
    pub meta: Vec<(String, String)>,
    /// The first `#version`.
    pub version: Option<Version>,
    pub time_scale: TimeScale,
    /// Whether `#timeScale` was given (nanoseconds otherwise).
    pub time_scale_given: bool,
}

impl Header {
    /// The first value of a meta line (`creator`, `creationDate`, ...).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.meta
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert_eq!(
            classify(b"#version 2.2.0"),
            LineKind::Meta("version", "2.2.0")
        );
        assert_eq!(
            classify(b"#creator  TA Simulator (14.01.0.73) "),
            LineKind::Meta("creator", "TA Simulator (14.01.0.73)")
        );
        assert_eq!(
            classify(b"#signalAccesses"),
            LineKind::Meta("signalAccesses", "")
        );
        assert_eq!(classify(b"# Some useful information"), LineKind::Comment);
        assert_eq!(classify(b"#"), LineKind::Comment);
        assert_eq!(classify(b"# | | |"), LineKind::Comment);
        assert_eq!(classify(b"   "), LineKind::Blank);
        assert_eq!(classify(b""), LineKind::Blank);
        assert_eq!(classify(b"0,SIM,-1,STI,X,0,trigger"), LineKind::Row);
    }

    #[test]
    fn versions() {
        assert_eq!(Version::parse("2.1.4").unwrap().minor, 1);
        assert_eq!(Version::parse("2.2").unwrap().minor, 2);
        assert_eq!(
            Version::parse("3.0.1").unwrap_err(),
            "BTF version 3.0.1 is not read (versions 2.1 and 2.2 are)"
        );
        assert_eq!(
            Version::parse("two").unwrap_err(),
            "`two` is not a BTF version (2.1.x or 2.2.x)"
        );
    }
}
