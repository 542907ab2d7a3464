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

    /// A type specifier: `integer {...}`, `struct name`, `uint32_t`, ...
    fn type_spec(&mut self) -> Result<TypeDecl, MetadataError> {
        let Some(Tok::Ident(kw)) = self.peek().cloned() else {
            let found = self.describe();
            return self.err(format!("expected a type, found {found}"));
        };
        match kw.as_str() {
            "integer" => {
                self.pos += 1;
                self.expect_punct("{")?;
                let attrs = self.attributes()?;
                Ok(TypeDecl::Int(self.int_decl(attrs)?))
            }
            "floating_point" => {
                self.pos += 1;
                self.expect_punct("{")?;
                let attrs = self.attributes()?;
                let (mut exp, mut mant, mut align, mut order) = (None, None, None, None);
                for (k, v, line) in attrs {
                    match k.as_str() {
                        "exp_dig" => exp = Some(uint(&[k], &v, line)? as u32),
                        "mant_dig" => mant = Some(uint(&[k], &v, line)? as u32),
                        "align" => align = Some(uint(&[k], &v, line)? as u32),
                        "byte_order" => order = byte_order(&v, line)?,
                        _ => {}
                    }
                }
                let (Some(exp_dig), Some(mant_dig)) = (exp, mant) else {
                    return self.err("floating_point needs exp_dig and mant_dig");
                };
                let size = exp_dig + mant_dig;
                Ok(TypeDecl::Float {
                    exp_dig,
                    mant_dig,
                    align: align.unwrap_or(if size % 8 == 0 { 8 } else { 1 }),
                    byte_order: order,
                })
            }
            "string" => {
                self.pos += 1;
                let mut enc = Encoding::Utf8;
                if self.eat_punct("{") {
                    for (k, v, line) in self.attributes()? {
                        if k == "encoding" {
                            enc = encoding(&v, line)?;
                        }
                    }
                }
                Ok(TypeDecl::Str(enc))
            }
            "enum" => {
                self.pos += 1;
                self.enum_spec()
            }
            "struct" => {
                if let Some(t) = self.pointer_alias() {
                    return Ok(t);
                }
                self.pos += 1;
                self.struct_spec()
            }
            "variant" => {
                self.pos += 1;
                self.variant_spec()
            }
            _ => {
                // A named type: the longest run of identifiers that names an alias,
                // leaving the declarator (if any) behind.
                let start = self.pos;
                let mut words = Vec::new();
                while let Some(w) = self.alias_word(words.len()) {
                    words.push(w);
                }
                for n in (1..=words.len()).rev() {
                    if let Some(t) = self.aliases.get(&words[..n].join(" ")) {
                        self.pos = start + n;
                        return Ok(t.clone());
                    }
                }
                self.err(format!("unknown type `{}`", words.join(" ")))
            }
        }
    }

    /// `name = value;` pairs of `integer {...}` and friends, after the `{`.
    fn attributes(&mut self) -> Result<Vec<(String, Value, u32)>, MetadataError> {
        let mut out = Vec::new();
        loop {
            if self.eat_punct("}") {
                return Ok(out);
            }
            if self.eat_punct(";") {
                continue;
            }
            let line = self.line();
            let k = self.ident()?;
            self.expect_punct("=")?;
            let v = self.value()?;
            self.expect_punct(";")?;
            out.push((k, v, line));
        }
    }

    fn int_decl(&self, attrs: Vec<(String, Value, u32)>) -> Result<IntDecl, MetadataError> {
        let mut size = None;
        let mut d = IntDecl {
            size: 0,
            align: 0,
            signed: false,
            byte_order: None,
            base: 10,
            encoding: Encoding::None,
            clock: None,
        };
        let mut align = None;
        for (k, v, line) in attrs {
            match k.as_str() {
                "size" => size = Some(uint(&[k], &v, line)? as u32),
                "align" => align = Some(uint(&[k], &v, line)? as u32),
                "signed" => d.signed = boolean(&v, line)?,
                "byte_order" => d.byte_order = byte_order(&v, line)?,
                "encoding" => d.encoding = encoding(&v, line)?,
                "base" => {
                    d.base = match &v {
                        Value::Int(i) => *i as u32,
                        Value::Path(p) => match p.join(".").as_str() {
                            "decimal" | "dec" | "d" | "i" | "u" => 10,
                            "hexadecimal" | "hex" | "x" | "X" | "p" => 16,
                            "octal" | "oct" | "o" => 8,
                            "binary" | "b" => 2,
                            other => {
                                return Err(MetadataError::at(
                                    line,
                                    format!("unknown base `{other}`"),
                                ))
                            }
                        },
                        Value::Str(_) => return Err(MetadataError::at(line, "bad base")),
                    }
                }
                "map" => {
                    // map = clock.NAME.value
                    if let Value::Path(p) = &v {
                        if p.len() == 3 && p[0] == "clock" && p[2] == "value" {
                            d.clock = Some(p[1].clone());
                        } else {
                            return Err(MetadataError::at(
                                line,
                                format!("bad map `{}`", p.join(".")),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        let Some(size) = size else {
            return self.err("integer without size");
        };
        if size == 0 || size > 64 {
            return self.err(format!("integer size {size} is not in 1..=64"));
        }
        d.size = size;
        d.align = align.unwrap_or(if size % 8 == 0 { 8 } else { 1 });
        if !d.align.is_power_of_two() {
            return self.err(format!("alignment {} is not a power of two", d.align));
        }
        Ok(d)
    }

    fn enum_spec(&mut self) -> Result<TypeDecl, MetadataError> {
        let name = match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Some(s)
            }
            _ => None,
        };
        let container = if self.eat_punct(":") {
            self.type_spec()?
        } else if !self.is_punct("{") {
            // A reference to a declared enum.
            let n = name.clone().unwrap_or_default();
            return self
                .enums
                .get(&n)
                .cloned()
                .map_or_else(|| self.err(format!("unknown enum `{n}`")), Ok);
        } else {
            self.aliases.get("int").cloned().map_or_else(
                || self.err("enum without container type and no `int` alias"),
                Ok,
            )?
        };
        let TypeDecl::Int(container) = container else {
            return self.err("enum container must be an integer");
        };
        self.expect_punct("{")?;
        let mut mappings = Vec::new();
        let mut next: i128 = 0;
        loop {
            if self.eat_punct("}") {
                break;
            }
            let label = match self.peek().cloned() {
                Some(Tok::Ident(s)) | Some(Tok::Str(s)) => {
                    self.pos += 1;
                    s
                }
                _ => {
                    let found = self.describe();
                    return self.err(format!("expected an enumerator, found {found}"));
                }
            };
            let (lo, hi) = if self.eat_punct("=") {
                let lo = self.signed_int()?;
                let hi = if self.eat_punct("...") {
                    self.signed_int()?
                } else {
                    lo
                };
                (lo, hi)
            } else {
                (next, next)
            };
            if hi < lo {
                return self.err(format!(
                    "enumerator `{label}` has an empty range {lo} ... {hi}"
                ));
            }
            next = hi + 1;
            mappings.push(EnumMapping { label, lo, hi });
            if !self.eat_punct(",") {
                self.expect_punct("}")?;
                break;
            }
        }
        let t = TypeDecl::Enum {
            container,
            mappings,
        };
        if let Some(n) = name {
            self.enums.insert(n, t.clone());
        }
        Ok(t)
    }

    fn signed_int(&mut self) -> Result<i128, MetadataError> {
        let neg = self.eat_punct("-");
        if !neg {
            // Unary plus (C.2) changes nothing; only one sign is allowed.
            self.eat_punct("+");
        }
        match self.peek().cloned() {
            Some(Tok::Int(i)) => {
                self.pos += 1;
                Ok(if neg { -i } else { i })
            }
            _ => {
                let found = self.describe();
                self.err(format!("expected an integer, found {found}"))
            }
        }
    }

    fn struct_spec(&mut self) -> Result<TypeDecl, MetadataError> {
        let name = match self.peek() {
            Some(Tok::Ident(s)) if s != "align" => {
                let s = s.clone();
                self.pos += 1;
                Some(s)
            }
            _ => None,
        };
        if !self.eat_punct("{") {
            let n = name.unwrap_or_default();
            return self
                .structs
                .get(&n)
                .cloned()
                .map_or_else(|| self.err(format!("unknown struct `{n}`")), Ok);
        }
        let fields = self.fields()?;
        let mut min_align = 1;
        if self.is_ident("align") && matches!(self.peek_at(1), Some(Tok::Punct("("))) {
            self.pos += 2;
            let a = self.signed_int()?;
            self.expect_punct(")")?;
            if a <= 0 || !(a as u64).is_power_of_two() {
                return self.err(format!("struct alignment {a} is not a power of two"));
            }
            min_align = a as u32;
        }
        let t = TypeDecl::Struct { fields, min_align };
        if let Some(n) = name {
            self.structs.insert(n, t.clone());
        }
        Ok(t)
    }

    fn variant_spec(&mut self) -> Result<TypeDecl, MetadataError> {
        let name = match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Some(s)
            }
            _ => None,
        };
        let tag = if self.eat_punct("<") {
            let path = self.field_path()?;
            self.expect_punct(">")?;
            Some(path)
        } else {
            None
        };
        if !self.eat_punct("{") {
            let n = name.unwrap_or_default();
            let Some(TypeDecl::Variant { options, .. }) = self.variants.get(&n).cloned() else {
                return self.err(format!("unknown variant `{n}`"));
            };
            return Ok(TypeDecl::Variant {
                tag,
                options,
                ranges: None,
            });
        }
        let options = self.fields()?;
        let t = TypeDecl::Variant {
            tag,
            options,
            ranges: None,
        };
        if let Some(n) = name {
            self.variants.insert(n, t.clone());
        }
        Ok(t)
    }

    /// Field declarations of a struct or variant body, after the `{`.
    fn fields(&mut self) -> Result<Vec<(String, TypeDecl)>, MetadataError> {
        let mut fields: Vec<(String, TypeDecl)> = Vec::new();
        loop {
            if self.eat_punct("}") {
                return Ok(fields);
            }
            if self.at_end() {
                return self.err("unterminated struct or variant: expected `}`");
            }
            if self.eat_punct(";") {
                continue;
            }
            if self.is_ident("typealias") || self.is_ident("typedef") {
                self.declaration()?;
                continue;
            }
            let ty = self.type_spec()?;
            if self.eat_punct(";") {
                // `struct name {...};` declared inside a body: a type, not a field.
                continue;
            }
            loop {
                let line = self.line();
                let name = self.ident()?;
                let t = self.declarator_suffix(ty.clone())?;
                let name = strip_underscore(name);
                if fields.iter().any(|(n, _)| *n == name) {
                    return Err(MetadataError::at(line, format!("duplicate field `{name}`")));
                }
                fields.push((name, t));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct(";")?;
        }
    }

    /// A reference to another field (`len`, `stream.event.context.x`), with the
    /// same underscore stripping as field names so both sides compare equal.
    fn field_path(&mut self) -> Result<Vec<String>, MetadataError> {
        let mut path = vec![strip_underscore(self.ident()?)];
        while self.eat_punct(".") {
            path.push(strip_underscore(self.ident()?));
        }
        Ok(path)
    }

    /// `[N]` (array) and `[path]` (sequence) suffixes, possibly several.
    fn declarator_suffix(&mut self, ty: TypeDecl) -> Result<TypeDecl, MetadataError> {
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            match self.peek().cloned() {
                Some(Tok::Int(n)) => {
                    self.pos += 1;
                    if n < 0 {
                        return self.err("negative array length");
                    }
                    dims.push(Dim::Fixed(n as u64));
                }
                Some(Tok::Ident(_)) => dims.push(Dim::Path(self.field_path()?)),
                _ => {
                    let found = self.describe();
                    return self.err(format!("expected an array length, found {found}"));
                }
            }
            self.expect_punct("]")?;
        }
        // `a[2][3]` is an array of 2 arrays of 3: the innermost is the last.
        let mut t = ty;
        for d in dims.into_iter().rev() {
            t = match d {
                Dim::Fixed(len) => TypeDecl::Array {
                    elem: Box::new(t),
                    len,
                },
                Dim::Path(len) => TypeDecl::Sequence {
                    elem: Box::new(t),
                    len,
                },
            };
        }
        Ok(t)
    }
}
