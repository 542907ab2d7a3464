//! Recursive-descent parser for TSDL (CTF 1.8 §7), producing `MetadataDecl`.
//!
//! Type names are resolved while parsing (a `typealias` must precede its use, as
//! the specification requires), so the result holds complete type trees. Field
//! references (sequence lengths, variant tags) stay paths; `ctf::layout`
//! resolves them against the scopes they are used in.

use std::collections::HashMap;

use super::ast::*;
use super::lexer::{Tok, Token};
use super::MetadataError;
use values::*;

#[cfg(test)]
mod tests;
mod types;
mod values;

pub fn parse(tokens: Vec<Token>) -> Result<MetadataDecl, MetadataError> {
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        aliases: HashMap::new(),
        structs: HashMap::new(),
        variants: HashMap::new(),
        enums: HashMap::new(),
        meta: MetadataDecl::default(),
    };
    while !p.at_end() {
        p.top_level()?;
    }
    Ok(p.meta)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    aliases: HashMap<String, TypeDecl>,
    structs: HashMap<String, TypeDecl>,
    variants: HashMap<String, TypeDecl>,
    enums: HashMap<String, TypeDecl>,
    meta: MetadataDecl,
}

impl Parser {
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn line(&self) -> u32 {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(1, |t| t.line)
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, MetadataError> {
        Err(MetadataError::at(self.line(), msg))
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|t| &t.tok)
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(i)) if i == s)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> Result<(), MetadataError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            let found = self.describe();
            self.err(format!("expected `{p}`, found {found}"))
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of metadata".into(),
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Int(i)) => format!("`{i}`"),
            Some(Tok::Str(s)) => format!("\"{s}\""),
            Some(Tok::Punct(p)) => format!("`{p}`"),
        }
    }

    fn ident(&mut self) -> Result<String, MetadataError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => {
                let found = self.describe();
                self.err(format!("expected an identifier, found {found}"))
            }
        }
    }

    /// A word of a type alias name: an identifier, or `*` of a pointer.
    fn alias_word(&self, n: usize) -> Option<String> {
        match self.peek_at(n)? {
            Tok::Ident(s) => Some(s.clone()),
            Tok::Punct("*") => Some("*".into()),
            _ => None,
        }
    }

    /// `struct NAME *` when a typealias declared it (§7.4).
    fn pointer_alias(&mut self) -> Option<TypeDecl> {
        let Some(Tok::Ident(name)) = self.peek_at(1) else {
            return None;
        };
        if !matches!(self.peek_at(2), Some(Tok::Punct("*"))) {
            return None;
        }
        let t = self.aliases.get(&format!("struct {name} *"))?.clone();
        self.pos += 3;
        Some(t)
    }

    fn top_level(&mut self) -> Result<(), MetadataError> {
        if self.eat_punct(";") {
            return Ok(());
        }
        let line = self.line();
        let Some(Tok::Ident(kw)) = self.peek().cloned() else {
            let found = self.describe();
            return self.err(format!("expected a declaration, found {found}"));
        };
        match kw.as_str() {
            "trace" | "env" | "clock" | "stream" | "event" | "callsite"
                if matches!(self.peek_at(1), Some(Tok::Punct("{"))) =>
            {
                self.pos += 2;
                let entries = self.block_entries()?;
                self.expect_punct(";")?;
                self.apply_block(&kw, entries, line)
            }
            _ => self.declaration(),
        }
    }

    /// `typealias`, `typedef`, or a type declared for its name only
    /// (`struct name {...};`, `enum name : int {...};`).
    fn declaration(&mut self) -> Result<(), MetadataError> {
        if self.is_ident("typealias") {
            self.pos += 1;
            let ty = self.type_spec()?;
            let ty = self.declarator_suffix(ty)?;
            self.expect_punct(":=")?;
            // The alias may be a pointer declarator (§7.4: `:= struct page *;`).
            let mut name = Vec::new();
            while let Some(w) = self.alias_word(0) {
                name.push(w);
                self.pos += 1;
            }
            if name.is_empty() {
                return self.err("expected an alias name after `:=`");
            }
            self.expect_punct(";")?;
            self.aliases.insert(name.join(" "), ty);
            return Ok(());
        }
        if self.is_ident("typedef") {
            self.pos += 1;
            let ty = self.type_spec()?;
            loop {
                let name = self.ident()?;
                let t = self.declarator_suffix(ty.clone())?;
                self.aliases.insert(name, t);
                if !self.eat_punct(",") {
                    break;
                }
            }
            return self.expect_punct(";");
        }
        // A named struct/variant/enum declaration registers itself in type_spec.
        self.type_spec()?;
        self.expect_punct(";")
    }

    /// Entries of a `trace`/`stream`/`event`/... block up to its closing brace.
    fn block_entries(&mut self) -> Result<Vec<(Vec<String>, BlockValue, u32)>, MetadataError> {
        let mut out = Vec::new();
        loop {
            if self.eat_punct("}") {
                return Ok(out);
            }
            if self.at_end() {
                return self.err("unterminated block: expected `}`");
            }
            if self.eat_punct(";") {
                continue;
            }
            if self.is_ident("typealias") || self.is_ident("typedef") {
                self.declaration()?;
                continue;
            }
            // Declarations of named types inside blocks (`struct x {...};`).
            if matches!(self.peek(), Some(Tok::Ident(k)) if k == "struct" || k == "variant" || k == "enum")
            {
                self.declaration()?;
                continue;
            }
            let line = self.line();
            let mut key = vec![self.ident()?];
            while self.eat_punct(".") {
                key.push(self.ident()?);
            }
            if self.eat_punct(":=") {
                let ty = self.type_spec()?;
                self.expect_punct(";")?;
                out.push((key, BlockValue::Type(ty), line));
            } else if self.eat_punct("=") {
                let v = self.value()?;
                self.expect_punct(";")?;
                out.push((key, BlockValue::Value(v), line));
            } else {
                let found = self.describe();
                return self.err(format!(
                    "expected `=` or `:=` after `{}`, found {found}",
                    key.join(".")
                ));
            }
        }
    }

    fn value(&mut self) -> Result<Value, MetadataError> {
        match self.peek().cloned() {
            Some(Tok::Int(i)) => {
                self.pos += 1;
                Ok(Value::Int(i))
            }
            Some(Tok::Punct(sign @ ("-" | "+"))) => {
                self.pos += 1;
                match self.peek().cloned() {
                    Some(Tok::Int(i)) => {
                        self.pos += 1;
                        Ok(Value::Int(if sign == "-" { -i } else { i }))
                    }
                    _ => self.err(format!(
                        "expected an integer constant after unary `{sign}` (spec C.2)"
                    )),
                }
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(Value::Str(s))
            }
            Some(Tok::Ident(_)) => {
                let mut path = vec![self.ident()?];
                while self.eat_punct(".") {
                    path.push(self.ident()?);
                }
                Ok(Value::Path(path))
            }
            _ => {
                let found = self.describe();
                self.err(format!("expected a value, found {found}"))
            }
        }
    }

    /// babeltrace2 warns about a type assigned to an attribute it does not know
    /// (`name := struct {...};`) and goes on; so do we.
    fn unknown_scope(&mut self, kind: &str, key: &[String], line: u32) {
        self.meta.warnings.push(format!(
            "line {line}: `{} := ...` is not a scope CTF 1.8 defines in `{kind}` blocks; ignored",
            key.join(".")
        ));
    }

    fn apply_block(
        &mut self,
        kind: &str,
        entries: Vec<(Vec<String>, BlockValue, u32)>,
        line: u32,
    ) -> Result<(), MetadataError> {
        let bad = |key: &[String], line: u32, what: &str| {
            Err(MetadataError::at(
                line,
                format!("`{}` in {kind} block: {what}", key.join(".")),
            ))
        };
        match kind {
            "trace" => {
                for (key, v, line) in entries {
                    match (key_str(&key).as_str(), v) {
                        ("major", BlockValue::Value(v)) => {
                            self.meta.trace.major = Some(version(&key, &v, 1, line)?)
                        }
                        ("minor", BlockValue::Value(v)) => {
                            self.meta.trace.minor = Some(version(&key, &v, 8, line)?)
                        }
                        ("uuid", BlockValue::Value(Value::Str(s))) => {
                            self.meta.trace.uuid = Some(parse_uuid(&s).ok_or_else(|| {
                                MetadataError::at(line, format!("bad trace uuid \"{s}\""))
                            })?)
                        }
                        ("byte_order", BlockValue::Value(v)) => {
                            self.meta.trace.byte_order =
                                Some(byte_order(&v, line)?.ok_or_else(|| {
                                    MetadataError::at(line, "trace byte_order cannot be native")
                                })?)
                        }
                        ("packet.header", BlockValue::Type(t)) => {
                            self.meta.trace.packet_header = Some(t)
                        }
                        (_, BlockValue::Value(_)) => {} // unknown attributes are ignored, as CTF allows
                        (_, BlockValue::Type(_)) => self.unknown_scope(kind, &key, line),
                    }
                }
            }
            "env" => {
                for (key, v, line) in entries {
                    let v = match v {
                        BlockValue::Value(Value::Int(i)) => EnvValue::Int(i),
                        BlockValue::Value(Value::Str(s)) => EnvValue::Str(s),
                        BlockValue::Value(Value::Path(p)) => EnvValue::Str(p.join(".")),
                        BlockValue::Type(_) => return bad(&key, line, "env entries are values"),
                    };
                    self.meta.env.push((key_str(&key), v));
                }
            }
            "clock" => {
                let mut c = ClockDecl {
                    name: String::new(),
                    freq: 1_000_000_000,
                    offset_s: 0,
                    offset: 0,
                    uuid: None,
                    description: None,
                };
                for (key, v, line) in entries {
                    let BlockValue::Value(v) = v else {
                        return bad(&key, line, "clock entries are values");
                    };
                    match (key_str(&key).as_str(), v) {
                        ("name", Value::Path(p)) => c.name = p.join("."),
                        ("name", Value::Str(s)) => c.name = s,
                        ("freq", v) => {
                            c.freq = uint(&key, &v, line)?;
                            if c.freq == 0 {
                                return bad(&key, line, "frequency must not be 0");
                            }
                        }
                        ("offset_s", Value::Int(i)) => c.offset_s = i,
                        ("offset", Value::Int(i)) => c.offset = i,
                        ("uuid", Value::Str(s)) => c.uuid = Some(s),
                        ("description", Value::Str(s)) => c.description = Some(s),
                        _ => {}
                    }
                }
                if c.name.is_empty() {
                    return Err(MetadataError::at(line, "clock block without a name"));
                }
                self.meta.clocks.push(c);
            }
            "stream" => {
                let mut s = StreamDecl::default();
                for (key, v, line) in entries {
                    match (key_str(&key).as_str(), v) {
                        ("id", BlockValue::Value(v)) => s.id = Some(uint(&key, &v, line)?),
                        ("packet.context", BlockValue::Type(t)) => s.packet_context = Some(t),
                        ("event.header", BlockValue::Type(t)) => s.event_header = Some(t),
                        ("event.context", BlockValue::Type(t)) => s.event_context = Some(t),
                        (_, BlockValue::Value(_)) => {}
                        (_, BlockValue::Type(_)) => self.unknown_scope(kind, &key, line),
                    }
                }
                self.meta.streams.push(s);
            }
            "event" => {
                let mut e = EventDecl {
                    line,
                    ..Default::default()
                };
                for (key, v, line) in entries {
                    match (key_str(&key).as_str(), v) {
                        ("name", BlockValue::Value(Value::Str(s))) => e.name = s,
                        ("name", BlockValue::Value(Value::Path(p))) => e.name = p.join("."),
                        ("id", BlockValue::Value(v)) => e.id = Some(uint(&key, &v, line)?),
                        ("stream_id", BlockValue::Value(v)) => {
                            e.stream_id = Some(uint(&key, &v, line)?)
                        }
                        ("context", BlockValue::Type(t)) => e.context = Some(t),
                        ("fields", BlockValue::Type(t)) => e.fields = Some(t),
                        (_, BlockValue::Value(_)) => {}
                        (_, BlockValue::Type(_)) => self.unknown_scope(kind, &key, line),
                    }
                }
                self.meta.events.push(e);
            }
            _ => {} // callsite: informational only
        }
        Ok(())
    }
}
