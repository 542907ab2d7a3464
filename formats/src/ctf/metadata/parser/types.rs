//! TSDL type specifiers: integers, floats, strings, enumerations, structures,
//! variants, their attributes and declarators (CTF 1.8 §4, §7.3).

use super::*;

impl Parser {
    /// A type specifier: `integer {...}`, `struct name`, `uint32_t`, ...
    pub(super) fn type_spec(&mut self) -> Result<TypeDecl, MetadataError> {
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
    pub(super) fn declarator_suffix(&mut self, ty: TypeDecl) -> Result<TypeDecl, MetadataError> {
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
