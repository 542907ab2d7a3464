//! The field types of synthetic layouts, and their TSDL.

use std::fmt::Write as _;

use crate::ctf::types::ByteOrder;

#[derive(Debug, Clone, Copy)]
pub struct IntSpec {
    pub bits: u8,
    pub signed: bool,
    pub align: u32,
    /// `None`: the trace's byte order.
    pub order: Option<ByteOrder>,
    /// `encoding = UTF8`: byte-sized text in arrays and sequences.
    pub text: bool,
}

impl IntSpec {
    pub fn new(bits: u8, align: u32) -> IntSpec {
        IntSpec {
            bits,
            signed: false,
            align,
            order: None,
            text: false,
        }
    }

    pub fn signed(self) -> IntSpec {
        IntSpec {
            signed: true,
            ..self
        }
    }

    pub(super) fn tsdl(&self, map: Option<&str>) -> String {
        let mut s = format!(
            "integer {{ size = {}; align = {}; signed = {}; encoding = {}; base = 10;",
            self.bits,
            self.align,
            self.signed,
            if self.text { "UTF8" } else { "none" }
        );
        if let Some(o) = self.order {
            let _ = write!(s, " byte_order = {};", order_name(o));
        }
        if let Some(clock) = map {
            let _ = write!(s, " map = clock.{clock}.value;");
        }
        s.push_str(" }");
        s
    }
}

/// A field type of a synthetic layout.
#[derive(Debug, Clone)]
pub enum Ty {
    Int(IntSpec),
    /// An enumeration: labels with inclusive ranges.
    Enum(IntSpec, Vec<(String, i64, i64)>),
    Float {
        double: bool,
        align: u32,
        order: Option<ByteOrder>,
    },
    Str,
    /// Members and the `align(n)` attribute (1 for none).
    Struct(Vec<(String, Ty)>, u32),
    Array(Box<Ty>, u64),
    /// Elements, and the name of an earlier sibling holding the length.
    Seq(Box<Ty>, String),
    /// The name of an earlier sibling enum selecting the option, and the
    /// options (named as the enum's labels).
    Variant(String, Vec<(String, Ty)>),
}

impl Ty {
    /// Alignment in bits, by CTF 1.8's rules.
    pub(super) fn align(&self) -> u64 {
        match self {
            Ty::Int(i) | Ty::Enum(i, _) => i.align as u64,
            Ty::Float { align, .. } => *align as u64,
            Ty::Str => 8,
            Ty::Struct(fields, a) => fields
                .iter()
                .map(|(_, t)| t.align())
                .fold(*a as u64, u64::max),
            Ty::Array(e, _) | Ty::Seq(e, _) => match &**e {
                Ty::Int(i) if is_text(i) => 8,
                e => e.align(),
            },
            Ty::Variant(..) => 1,
        }
    }

    /// The TSDL of a declaration of this type named `name`.
    pub(super) fn declare(&self, name: &str, out: &mut String, indent: usize) {
        let pad = "\t".repeat(indent);
        if let Ty::Variant(tag, options) = self {
            let _ = writeln!(out, "{pad}variant <{tag}> {{");
            for (n, t) in options {
                t.declare(n, out, indent + 1);
            }
            let _ = writeln!(out, "{pad}}} {name};");
            return;
        }
        // Array and sequence dimensions, outermost first: `x[len][16]`.
        let mut dims = String::new();
        let mut t = self;
        loop {
            match t {
                Ty::Array(e, n) => {
                    let _ = write!(dims, "[{n}]");
                    t = e;
                }
                Ty::Seq(e, len) => {
                    let _ = write!(dims, "[{len}]");
                    t = e;
                }
                _ => break,
            }
        }
        let mut inner = String::new();
        t.type_spec(&mut inner, indent);
        let _ = writeln!(out, "{pad}{inner} {name}{dims};");
    }

    /// The TSDL type specifier (arrays, sequences and variants are declarators).
    pub(super) fn type_spec(&self, out: &mut String, indent: usize) {
        match self {
            Ty::Int(i) => out.push_str(&i.tsdl(None)),
            Ty::Enum(i, labels) => {
                let _ = write!(out, "enum : {} {{ ", i.tsdl(None));
                for (k, (l, lo, hi)) in labels.iter().enumerate() {
                    let sep = if k + 1 < labels.len() { "," } else { "" };
                    if lo == hi {
                        let _ = write!(out, "{l} = {lo}{sep} ");
                    } else {
                        let _ = write!(out, "{l} = {lo} ... {hi}{sep} ");
                    }
                }
                out.push('}');
            }
            Ty::Float {
                double,
                align,
                order,
            } => {
                let (e, m) = if *double { (11, 53) } else { (8, 24) };
                let _ = write!(
                    out,
                    "floating_point {{ exp_dig = {e}; mant_dig = {m}; align = {align};"
                );
                if let Some(o) = order {
                    let _ = write!(out, " byte_order = {};", order_name(*o));
                }
                out.push_str(" }");
            }
            Ty::Str => out.push_str("string"),
            Ty::Struct(fields, a) => {
                out.push_str("struct {\n");
                for (n, t) in fields {
                    t.declare(n, out, indent + 1);
                }
                let _ = write!(out, "{}}} align({a})", "\t".repeat(indent));
            }
            Ty::Array(..) | Ty::Seq(..) | Ty::Variant(..) => {
                unreachable!("declarators, not type specifiers")
            }
        }
    }
}

pub(super) fn is_text(i: &IntSpec) -> bool {
    i.text && i.bits == 8 && i.align <= 8
}

pub(super) fn order_name(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::Little => "le",
        ByteOrder::Big => "be",
    }
}
