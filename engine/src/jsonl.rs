//! Events as JSON text (`sextant dump --format jsonl`): integers as numbers,
//! enums as their value, text as strings, arrays as lists, structures as objects,
//! variants as their selected field. Written straight from the decoder's
//! values, without building a tree.

use std::io::Write;

use crate::value::{Scalar, Sink};

/// Writes one JSON value per walk into `out`.
pub struct JsonSink<'o> {
    pub out: &'o mut Vec<u8>,
    /// Per open container: whether it already has a member.
    first: Vec<bool>,
}

impl<'o> JsonSink<'o> {
    pub fn new(out: &'o mut Vec<u8>) -> Self {
        JsonSink {
            out,
            first: Vec::new(),
        }
    }

    fn member(&mut self, name: Option<&str>) {
        if let Some(first) = self.first.last_mut() {
            if !*first {
                self.out.push(b',');
            }
            *first = false;
            if let Some(n) = name {
                write_str(self.out, n.as_bytes());
                self.out.push(b':');
            }
        }
    }
}

impl<'d> Sink<'d> for JsonSink<'_> {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
        self.member(name);
        match v {
            Scalar::Unsigned(u) => {
                let _ = write!(self.out, "{u}");
            }
            Scalar::Signed(i) => {
                let _ = write!(self.out, "{i}");
            }
            Scalar::Float(f) if f.is_finite() => {
                let _ = write!(self.out, "{f:?}");
            }
            // JSON has no NaN or infinities.
            Scalar::Float(_) => self.out.extend_from_slice(b"null"),
            Scalar::Str(s) => write_str(self.out, s),
        }
    }

    fn open(&mut self, name: Option<&str>, list: bool) {
        self.member(name);
        self.out.push(if list { b'[' } else { b'{' });
        self.first.push(true);
    }

    fn close(&mut self, list: bool) {
        self.first.pop();
        self.out.push(if list { b']' } else { b'}' });
    }
}

/// A JSON string; bytes that are not UTF-8 become U+FFFD.
pub fn write_str(out: &mut Vec<u8>, s: &[u8]) {
    let text = String::from_utf8_lossy(s);
    serde_json::to_writer(&mut *out, text.as_ref()).expect("writing to a Vec cannot fail");
}
