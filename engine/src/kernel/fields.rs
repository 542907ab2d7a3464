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

/// The payload fields the kernel model and the vocabulary read, numbered:
/// their positions in a class's names are found once per class (`Known`),
/// so that reading one is an index, not a comparison of names (the model
/// reads up to ten of a `sched_switch`'s fifteen fields per event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    PrevTid,
    NextTid,
    PrevState,
    PrevComm,
    PrevPrio,
    NextComm,
    NextPrio,
    Tid,
    Comm,
    Prio,
    ChildTid,
    ParentTid,
    ChildComm,
    ChildPid,
    Filename,
    Newprio,
    Name,
    Pid,
    PerfTid,
    PerfCpu,
}

/// The canonical names of `K`'s fields, in its order.
const KNOWN_NAMES: [&str; 20] = [
    "prev_tid",
    "next_tid",
    "prev_state",
    "prev_comm",
    "prev_prio",
    "next_comm",
    "next_prio",
    "tid",
    "comm",
    "prio",
    "child_tid",
    "parent_tid",
    "child_comm",
    "child_pid",
    "filename",
    "newprio",
    "name",
    "pid",
    "perf_tid",
    "perf_cpu",
];

/// Where each of `K`'s fields is in a class's canonical names (the first
/// of that name, as `Payload::get` finds it); `u16::MAX` when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known([u16; KNOWN_NAMES.len()]);

impl Known {
    pub fn of(names: &[Box<str>]) -> Known {
        Known(KNOWN_NAMES.map(|k| {
            names
                .iter()
                .position(|n| &**n == k)
                .and_then(|i| u16::try_from(i).ok())
                .unwrap_or(u16::MAX)
        }))
    }
}

/// Decoded members, by position in their class's canonical name list.
#[derive(Debug, Default)]
pub struct Fields {
    vals: Vec<(u16, Val)>,
    text: Vec<u8>,
    /// The positions of `K`'s fields in the names these values go with,
    /// when the caller gave them (`set_known`); else names are compared.
    known: Option<Known>,
}

impl Fields {
    /// Says where `K`'s fields are among the names of the payload just
    /// captured (`Known::of` those names).
    pub fn set_known(&mut self, known: Known) {
        self.known = Some(known);
    }

    /// A sink that refills these buffers from a payload walk.
    pub fn sink(&mut self) -> Capture<'_> {
        self.vals.clear();
        self.text.clear();
        self.known = None;
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
        self.member(i)
    }

    /// The value of member `i`: members are captured in order, one value
    /// each, so it is at index `i` (searched for otherwise, to be safe).
    #[inline]
    fn member(&self, i: u16) -> Option<Val> {
        let vals = &self.fields.vals;
        match vals.get(i as usize) {
            Some((m, v)) if *m == i => Some(*v),
            _ => vals.iter().find(|(m, _)| *m == i).map(|(_, v)| *v),
        }
    }

    /// One of the fields the model reads: `get` of its name, by index when
    /// the positions are known.
    #[inline]
    pub fn at(&self, k: K) -> Option<Val> {
        match &self.fields.known {
            Some(Known(idx)) => match idx[k as usize] {
                u16::MAX => None,
                i => self.member(i),
            },
            None => self.get(KNOWN_NAMES[k as usize]),
        }
    }

    /// `int` of one of the fields the model reads.
    #[inline]
    pub fn int_at(&self, k: K) -> Option<i64> {
        match self.at(k)? {
            Val::Int(i) => Some(i),
            _ => None,
        }
    }

    /// `str` of one of the fields the model reads.
    #[inline]
    pub fn str_at(&self, k: K) -> Option<&'a [u8]> {
        match self.at(k)? {
            Val::Str { start, end } => Some(&self.fields.text[start as usize..end as usize]),
            _ => None,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `at` finds what `get` finds by name, with the positions known or not,
    /// for present, repeated, nested and absent fields.
    #[test]
    fn known_fields_equal_lookups_by_name() {
        let names: Vec<Box<str>> = [
            "perf_tid",
            "prev_comm",
            "prev_tid",
            "nest",
            "prev_tid",
            "tid",
        ]
        .into_iter()
        .map(Into::into)
        .collect();
        let mut fields = Fields::default();
        {
            let mut s = fields.sink();
            s.open(None, false);
            s.scalar(Some("perf_tid"), Scalar::Signed(-1));
            s.scalar(Some("prev_comm"), Scalar::Str(b"sh"));
            s.scalar(Some("prev_tid"), Scalar::Unsigned(7));
            s.open(Some("nest"), false);
            s.scalar(Some("x"), Scalar::Unsigned(1));
            s.close(false);
            s.scalar(Some("prev_tid"), Scalar::Unsigned(8));
            s.scalar(Some("tid"), Scalar::Unsigned(u64::MAX));
            s.close(false);
        }
        let all = [
            K::PrevTid,
            K::NextTid,
            K::PrevState,
            K::PrevComm,
            K::PrevPrio,
            K::NextComm,
            K::NextPrio,
            K::Tid,
            K::Comm,
            K::Prio,
            K::ChildTid,
            K::ParentTid,
            K::ChildComm,
            K::ChildPid,
            K::Filename,
            K::Newprio,
            K::Name,
            K::Pid,
            K::PerfTid,
            K::PerfCpu,
        ];
        assert_eq!(all.len(), KNOWN_NAMES.len());
        for known in [false, true] {
            if known {
                fields.set_known(Known::of(&names));
            }
            let p = Payload {
                names: &names,
                fields: &fields,
            };
            for k in all {
                let name = KNOWN_NAMES[k as usize];
                assert_eq!(p.at(k), p.get(name), "{name}, known {known}");
                assert_eq!(p.int_at(k), p.int(name));
                assert_eq!(p.str_at(k), p.str(name));
            }
            assert_eq!(p.int_at(K::PrevTid), Some(7));
            assert_eq!(p.int_at(K::PerfTid), Some(-1));
            assert_eq!(p.str_at(K::PrevComm), Some(&b"sh"[..]));
            assert_eq!(p.at(K::Tid), Some(Val::BigUnsigned(u64::MAX)));
            assert_eq!(p.at(K::NextTid), None);
        }
    }
}
