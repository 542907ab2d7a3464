//! The payload of one event under canonical field names, in buffers reused
//! from event to event (no allocation per event once warm).

use crate::value::{Scalar, Sink};

/// A top-level payload value. Strings point into `Fields::text`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val {
    Int(i64),
    /// An unsigned value above `i64::MAX`.
    BigUnsigned(u64),
    Float(f64),
    Str {
        start: u32,
        end: u32,
    },
    /// An array or structure: present, but not a scalar.
    Compound,
}

/// Decoded members, by position in their class's canonical name list.
#[derive(Debug, Default)]
pub struct Fields {
    vals: Vec<(u16, Val)>,
    text: Vec<u8>,
}

impl Fields {
    /// A sink that refills these buffers from a payload walk.
    pub fn sink(&mut self) -> Capture<'_> {
        self.vals.clear();
        self.text.clear();
        Capture {
            fields: self,
            depth: 0,
            member: 0,
        }
    }
}

/// An event's payload under canonical names: the class's names and the values.
#[derive(Debug, Clone, Copy)]
pub struct Payload<'a> {
    pub names: &'a [Box<str>],
    pub fields: &'a Fields,
}

impl<'a> Payload<'a> {
    pub fn get(&self, name: &str) -> Option<Val> {
        let i = self.names.iter().position(|n| &**n == name)? as u16;
        self.fields
            .vals
            .iter()
            .find(|(m, _)| *m == i)
            .map(|(_, v)| *v)
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Val::Int(i) => Some(i),
            _ => None,
        }
    }

    /// An unsigned value (addresses, masks): any integer, as its 64 bits.
    pub fn uint(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            Val::Int(i) => Some(i as u64),
            Val::BigUnsigned(u) => Some(u),
            _ => None,
        }
    }

    pub fn str(&self, name: &str) -> Option<&'a [u8]> {
        match self.get(name)? {
            Val::Str { start, end } => Some(&self.fields.text[start as usize..end as usize]),
            _ => None,
        }
    }

    /// The value as a `Scalar`, for constraint checks.
    pub fn scalar(&self, name: &str) -> Option<Scalar<'a>> {
        Some(match self.get(name)? {
            Val::Int(i) => Scalar::Signed(i),
            Val::BigUnsigned(u) => Scalar::Unsigned(u),
            Val::Float(f) => Scalar::Float(f),
            Val::Str { start, end } => Scalar::Str(&self.fields.text[start as usize..end as usize]),
            Val::Compound => return None,
        })
    }
}

/// Captures top-level members; nested values only mark their member.
pub struct Capture<'f> {
    fields: &'f mut Fields,
    depth: u32,
    member: u16,
}

impl<'d> Sink<'d> for Capture<'_> {
    fn scalar(&mut self, _: Option<&str>, v: Scalar<'d>) {
        if self.depth != 1 {
            return;
        }
        let val = match v {
            Scalar::Signed(i) => Val::Int(i),
            Scalar::Unsigned(u) => i64::try_from(u).map_or(Val::BigUnsigned(u), Val::Int),
            Scalar::Float(f) => Val::Float(f),
            Scalar::Str(s) => {
                let start = self.fields.text.len() as u32;
                self.fields.text.extend_from_slice(s);
                Val::Str {
                    start,
                    end: self.fields.text.len() as u32,
                }
            }
        };
        self.fields.vals.push((self.member, val));
        self.member += 1;
    }

    fn open(&mut self, _: Option<&str>, _: bool) {
        if self.depth == 1 {
            self.fields.vals.push((self.member, Val::Compound));
            self.member += 1;
        }
        self.depth += 1;
    }

    fn close(&mut self, _: bool) {
        self.depth -= 1;
    }
}

/// Collects top-level member names.
#[derive(Default)]
pub struct NameSink {
    pub names: Vec<String>,
    depth: u32,
}

impl<'d> Sink<'d> for NameSink {
    fn scalar(&mut self, name: Option<&str>, _: Scalar<'d>) {
        if self.depth == 1 {
            self.names.push(name.unwrap_or_default().to_string());
        }
    }

    fn open(&mut self, name: Option<&str>, _: bool) {
        if self.depth == 1 {
            self.names.push(name.unwrap_or_default().to_string());
        }
        self.depth += 1;
    }

    fn close(&mut self, _: bool) {
        self.depth -= 1;
    }
}
