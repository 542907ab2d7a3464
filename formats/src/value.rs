//! Field values as readers hand them out: a stream of scalars and nesting
//! marks (`Sink`), so that a consumer that writes JSON or sums integers never
//! builds a tree; and `Value`, the tree, for consumers that want one.

/// One decoded value. Strings are raw bytes borrowed from the trace: they are
/// usually UTF-8, but a trace is allowed to lie.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'d> {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Str(&'d [u8]),
}

impl Scalar<'_> {
    /// The value as a signed integer, when it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Scalar::Signed(v) => Some(v),
            Scalar::Unsigned(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }
}

/// Receives the fields of an event in declaration order. `name` is `None` for
/// array elements. `list` tells arrays/sequences from structures.
pub trait Sink<'d> {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>);
    fn open(&mut self, name: Option<&str>, list: bool);
    fn close(&mut self, list: bool);
}

/// A decoded field as a tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Struct(Vec<(String, Value)>),
}

impl Value {
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Signed(v) => Some(v),
            Value::Unsigned(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A member of a structure value.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(m) => m.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Builds `Value` trees from a walk.
#[derive(Default)]
pub struct ValueBuilder {
    stack: Vec<(Option<String>, Value)>,
    done: Option<Value>,
}

impl ValueBuilder {
    pub fn finish(self) -> Option<Value> {
        self.done
    }

    fn push(&mut self, name: Option<&str>, v: Value) {
        match self.stack.last_mut() {
            Some((_, Value::Struct(m))) => m.push((name.unwrap_or_default().to_string(), v)),
            Some((_, Value::List(l))) => l.push(v),
            _ => self.done = Some(v),
        }
    }
}

impl<'d> Sink<'d> for ValueBuilder {
    fn scalar(&mut self, name: Option<&str>, v: Scalar<'d>) {
        let v = match v {
            Scalar::Unsigned(u) => Value::Unsigned(u),
            Scalar::Signed(i) => Value::Signed(i),
            Scalar::Float(f) => Value::Float(f),
            Scalar::Str(s) => Value::Str(String::from_utf8_lossy(s).into_owned()),
        };
        self.push(name, v);
    }

    fn open(&mut self, name: Option<&str>, list: bool) {
        let v = if list {
            Value::List(Vec::new())
        } else {
            Value::Struct(Vec::new())
        };
        self.stack.push((name.map(str::to_string), v));
    }

    fn close(&mut self, _list: bool) {
        if let Some((name, v)) = self.stack.pop() {
            self.push(name.as_deref(), v);
        }
    }
}
