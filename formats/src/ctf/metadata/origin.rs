//! Where a trace was recorded, read from its TSDL without parsing the
//! types: the `hostname` of its `env` block and its first clock's `uuid`.
//! Naming the hosts of a folder of hundreds of traces (`sextant sql`) only
//! needs those two values, and the full parse (every event's types) was
//! most of a repeated query's time.

use super::lexer::{tokenize, Tok, Token};
use super::MetadataError;

/// A trace's `env.hostname` (as text, as [`super::ast::EnvValue`] shows
/// it) and the `uuid` of its first clock that has one: what the full parse
/// gives for them.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origin {
    pub hostname: Option<String>,
    pub boot: Option<String>,
}

/// The origin the TSDL `text` declares. Only top-level `env` and `clock`
/// blocks count: a field of that name inside a type is not one.
pub fn origin(text: &str) -> Result<Origin, MetadataError> {
    let tokens = tokenize(text)?;
    let mut found = Origin::default();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Punct("{") => depth += 1,
            Tok::Punct("}") => depth = depth.saturating_sub(1),
            Tok::Ident(kw) if depth == 0 && is_open(&tokens, i + 1) => {
                let (entries, end) = entries(&tokens, i + 2);
                match kw.as_str() {
                    "env" if found.hostname.is_none() => {
                        found.hostname = value_of(&entries, "hostname").map(|v| v.text.clone());
                    }
                    // The full parse keeps a clock's uuid only when quoted.
                    "clock" if found.boot.is_none() => {
                        found.boot = value_of(&entries, "uuid")
                            .filter(|v| v.quoted)
                            .map(|v| v.text.clone());
                    }
                    _ => {}
                }
                // Past the block's closing brace (its `{` is not counted).
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(found)
}

fn is_open(tokens: &[Token], at: usize) -> bool {
    matches!(tokens.get(at).map(|t| &t.tok), Some(Tok::Punct("{")))
}

/// A block entry's value as text, and whether it was one quoted string.
struct Value {
    text: String,
    quoted: bool,
}

/// The `key = value;` entries of the block whose body starts at `start`,
/// with their values as text (strings, integers, dotted names), and the
/// position of the block's closing brace. Nested braces (a clock's type
/// assignments in other blocks) are skipped whole.
fn entries(tokens: &[Token], start: usize) -> (Vec<(String, Value)>, usize) {
    let mut out = Vec::new();
    let mut i = start;
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Punct("}") => return (out, i),
            Tok::Punct("{") => i = skip_block(tokens, i + 1),
            Tok::Ident(key)
                if matches!(tokens.get(i + 1).map(|t| &t.tok), Some(Tok::Punct("="))) =>
            {
                let (value, next) = value(tokens, i + 2);
                if let Some(v) = value {
                    out.push((key.clone(), v));
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (out, i)
}

/// Past the closing brace of a block whose body starts at `start`.
fn skip_block(tokens: &[Token], start: usize) -> usize {
    let mut depth = 1usize;
    let mut i = start;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct("{") => depth += 1,
            Tok::Punct("}") => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The value starting at `at`, up to its `;`, and the position after it.
fn value(tokens: &[Token], at: usize) -> (Option<Value>, usize) {
    let mut text = String::new();
    let mut i = at;
    let mut plain = true;
    while let Some(t) = tokens.get(i) {
        match &t.tok {
            Tok::Punct(";") => {
                let quoted = i == at + 1 && matches!(tokens[at].tok, Tok::Str(_));
                return (plain.then_some(Value { text, quoted }), i + 1);
            }
            Tok::Punct("}") => return (None, i),
            Tok::Str(s) => text.push_str(s),
            Tok::Int(n) => text.push_str(&n.to_string()),
            Tok::Ident(s) => text.push_str(s),
            Tok::Punct(p @ ("-" | ".")) => text.push_str(p),
            // A type or an expression: not a value the origin needs.
            Tok::Punct(_) => plain = false,
        }
        i += 1;
    }
    (None, i)
}

/// The first entry named `key`, as the full parse's lookups take it.
fn value_of<'a>(entries: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the full parse says of the same text.
    fn parsed(text: &str) -> Origin {
        let decl = super::super::parse_text(text).unwrap();
        let hostname = decl.env.iter().find(|(k, _)| k == "hostname");
        let hostname = hostname.map(|(_, v)| v.to_string());
        Origin {
            hostname,
            boot: decl.clocks.iter().find_map(|c| c.uuid.clone()),
        }
    }

    #[test]
    fn reads_env_and_the_first_clock_uuid_only_at_top_level() {
        let text = r#"
            /* env { hostname = "not-this"; } */
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            trace { major = 1; minor = 8; byte_order = le;
                packet.header := struct { uint32_t magic; }; };
            clock { name = "monotonic"; freq = 1000000000; offset = -5; };
            clock { name = monotonic_raw; uuid = "2a1bda29-ffc3-e248-8053-81ccaf830d2f";
                description = "raw"; };
            clock { name = "other"; uuid = "ffffffff-ffc3-e248-8053-81ccaf830d2f"; };
            env { domain = "kernel"; tracer_major = 2; hostname = "rig-7"; sysname = Linux; };
            stream { packet.context := struct { uint32_t env; uint32_t clock; }; };
            event { name = "env"; id = 1; fields := struct { uint32_t hostname; }; };
        "#;
        let light = origin(text).unwrap();
        assert_eq!(light.hostname.as_deref(), Some("rig-7"));
        assert_eq!(
            light.boot.as_deref(),
            Some("2a1bda29-ffc3-e248-8053-81ccaf830d2f")
        );
        assert_eq!(light, parsed(text));
    }

    #[test]
    fn says_nothing_the_text_does_not() {
        let text = "trace { major = 1; minor = 8; byte_order = be; };\n\
                    env { hostname = 42; };";
        assert_eq!(origin(text).unwrap(), parsed(text));
        assert_eq!(origin(text).unwrap().hostname.as_deref(), Some("42"));
        let none = "trace { major = 1; minor = 8; byte_order = be; };";
        assert_eq!(origin(none).unwrap(), Origin::default());
        assert!(origin("env { hostname = \"unterminated; };").is_err());
    }
}
