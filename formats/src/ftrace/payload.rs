//! Fields of an event payload, parsed when visited.
//!
//! * `key=value key2=value2`: a value runs to the next ` ident=` (or the
//!   ` ==> ` of `sched_switch`), so values may hold spaces. A `...comm` field
//!   runs to the last ` ...pid=` after it (`prev_comm` to ` prev_pid=`, `comm`
//!   to ` pid=`), so a task name may also hold `=`. A trailing annotation is
//!   split off: `runtime=54322 [ns]` gives `runtime`, `vec=1 [action=TIMER]`
//!   gives `vec` and `action`.
//! * syscall arguments `name: value, name: value`: values are printed in hex
//!   by the kernel (`%lx`, or `0x%lx`; kernels ≥ 6 print values below 10 in
//!   decimal, which reads the same), so they are read as hex.
//! * any other payload: one field `raw` holding it.
//!
//! Numbers become `Signed` (decimal) or `Unsigned` (hex, and decimals beyond
//! `i64`); everything else `Str`. Task names, `prev_state` and a few other
//! textual fields stay strings even when they look like numbers.

use memchr::{memchr, memmem};

use super::line::{is_ident, parse_dec, parse_hex};
use crate::value::{Scalar, Sink};

/// Fields printed with `%p`/`%lx` (hex without `0x`).
const HEX_FIELDS: &[&[u8]] = &[
    b"hrtimer",
    b"timer",
    b"ptr",
    b"work",
    b"page",
    b"skbaddr",
    b"clone_flags",
];

/// Fields that are text whatever they look like.
const STR_FIELDS: &[&[u8]] = &[b"prev_state", b"name", b"filename", b"function"];

/// `key=value ...`, or `raw`.
pub(crate) fn visit_kv<'s, S: Sink<'s>>(p: &'s [u8], sink: &mut S) {
    if p.is_empty() {
        return;
    }
    if ident_eq_at(p, 0).is_none() {
        sink.scalar(Some("raw"), Scalar::Str(p));
        return;
    }
    let mut at = 0;
    while at < p.len() {
        // `ident_eq_at` holds at `at`: at the start and after every boundary.
        let Some(eq) = ident_eq_at(p, at) else {
            // Cannot happen by construction; keep what is left rather than lose it.
            sink.scalar(Some("raw"), Scalar::Str(&p[at..]));
            return;
        };
        let name = &p[at..eq];
        let vstart = eq + 1;
        let (vend, next) = value_end(p, name, vstart);
        emit(name, &p[vstart..vend], sink);
        at = next;
    }
}

/// Where the value of `name` starting at `vstart` ends, and where the next
/// field starts.
fn value_end(p: &[u8], name: &[u8], vstart: usize) -> (usize, usize) {
    if let Some(x) = name.strip_suffix(b"comm") {
        // ` <x>pid=`, built on the stack.
        let mut buf = [0u8; 64];
        let needle_len = x.len() + 5;
        if needle_len <= buf.len() {
            buf[0] = b' ';
            buf[1..1 + x.len()].copy_from_slice(x);
            buf[1 + x.len()..needle_len].copy_from_slice(b"pid=");
            if let Some(off) = memmem::rfind(&p[vstart..], &buf[..needle_len]) {
                let e = vstart + off;
                return (e, e + 1);
            }
        }
    }
    let mut i = vstart;
    while let Some(off) = memchr(b' ', &p[i..]) {
        let s = i + off;
        if ident_eq_at(p, s + 1).is_some() {
            return (s, s + 1);
        }
        if p[s..].starts_with(b" ==> ") && ident_eq_at(p, s + 5).is_some() {
            return (s, s + 5);
        }
        i = s + 1;
    }
    (p.len(), p.len())
}

/// If an identifier followed by `=` starts at `at`, the position of the `=`.
fn ident_eq_at(p: &[u8], at: usize) -> Option<usize> {
    let n = p.get(at..)?.iter().take_while(|&&c| is_ident(c)).count();
    (n > 0 && p.get(at + n) == Some(&b'=')).then_some(at + n)
}

fn emit<'s, S: Sink<'s>>(name: &[u8], v: &'s [u8], sink: &mut S) {
    let n = field_name(name);
    if !is_text_field(name) && v.last() == Some(&b']') {
        if let Some(b) = memmem::rfind(v, b" [") {
            let head = &v[..b];
            let inner = &v[b + 2..v.len() - 1];
            if !head.is_empty() && !head.contains(&b' ') {
                sink.scalar(Some(n), convert(name, head));
                if let Some(eq) = ident_eq_at(inner, 0) {
                    let iname = &inner[..eq];
                    sink.scalar(Some(field_name(iname)), convert(iname, &inner[eq + 1..]));
                }
                // Otherwise a unit (`[ns]`): dropped.
                return;
            }
        }
    }
    sink.scalar(Some(n), convert(name, v));
}

fn is_text_field(name: &[u8]) -> bool {
    name.ends_with(b"comm") || STR_FIELDS.contains(&name)
}

/// A key=value value to a scalar.
fn convert<'s>(name: &[u8], v: &'s [u8]) -> Scalar<'s> {
    if is_text_field(name) {
        return Scalar::Str(v);
    }
    if HEX_FIELDS.contains(&name) {
        let h = v.strip_prefix(b"0x").unwrap_or(v);
        if let Some(u) = parse_hex(h) {
            return Scalar::Unsigned(u);
        }
    }
    number(v).unwrap_or(Scalar::Str(v))
}

/// `0x...` → Unsigned, decimal → Signed (or Unsigned beyond i64).
fn number(v: &[u8]) -> Option<Scalar<'static>> {
    if let Some(h) = v.strip_prefix(b"0x").or_else(|| v.strip_prefix(b"0X")) {
        return parse_hex(h).map(Scalar::Unsigned);
    }
    if let Some(i) = parse_dec(v) {
        return Some(Scalar::Signed(i));
    }
    if !v.is_empty() && v.iter().all(u8::is_ascii_digit) {
        let (u, _) = super::line::digits(v, 0);
        return u.map(Scalar::Unsigned);
    }
    None
}

/// Syscall arguments `name: value, name: value`; falls back to `visit_kv`
/// (hence `raw`) when the payload has another shape.
pub(crate) fn visit_sys_args<'s, S: Sink<'s>>(p: &'s [u8], sink: &mut S) {
    if !SysArgs(p).all(|a| a.is_some()) {
        visit_kv(p, sink);
        return;
    }
    for (name, v) in SysArgs(p).flatten() {
        let h = v.strip_prefix(b"0x").unwrap_or(v);
        let s = parse_hex(h).map_or(Scalar::Str(v), Scalar::Unsigned);
        sink.scalar(Some(field_name(name)), s);
    }
}

/// Items `name: value` separated by `, ` outside double quotes; `None` for
/// an item of another shape.
struct SysArgs<'s>(&'s [u8]);

impl<'s> Iterator for SysArgs<'s> {
    type Item = Option<(&'s [u8], &'s [u8])>;

    fn next(&mut self) -> Option<Self::Item> {
        let p = self.0;
        if p.is_empty() {
            return None;
        }
        let mut quoted = false;
        let mut end = p.len();
        let mut i = 0;
        while i < p.len() {
            match p[i] {
                b'"' => quoted = !quoted,
                b'\\' if quoted => i += 1,
                b',' if !quoted && p.get(i + 1) == Some(&b' ') => {
                    end = i;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        let item = &p[..end];
        self.0 = &p[(end + 2).min(p.len())..];
        let n = item.iter().take_while(|&&c| is_ident(c)).count();
        Some(match item[n..].strip_prefix(b": ") {
            Some(v) if n > 0 => Some((&item[..n], v)),
            _ => None,
        })
    }
}

/// `func <-parent`.
pub(crate) fn visit_function<'s, S: Sink<'s>>(p: &'s [u8], sink: &mut S) {
    match memmem::find(p, b" <-") {
        Some(a) => {
            sink.scalar(Some("ip"), Scalar::Str(&p[..a]));
            sink.scalar(Some("parent_ip"), Scalar::Str(&p[a + 3..]));
        }
        None => sink.scalar(Some("raw"), Scalar::Str(p)),
    }
}

/// Identifiers are ASCII, checked by `is_ident`.
fn field_name(name: &[u8]) -> &str {
    std::str::from_utf8(name).unwrap_or("?")
}
