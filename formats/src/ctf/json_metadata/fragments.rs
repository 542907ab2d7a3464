//! Splitting the JSON text sequence into fragments, and `Ptr`: where in a
//! fragment a value is (a JSON pointer), with the typed accessors that turn
//! a wrong value into an error naming that place.

use serde_json::Value;

use super::{JsonMetadataError, RS};

/// The fragments of the sequence, numbered from 1, each parsed.
pub(super) fn split(text: &str) -> Result<Vec<(usize, Value)>, JsonMetadataError> {
    let mut out = Vec::new();
    // Text before the first separator is whitespace (checked by the caller's
    // detection); each later piece is one fragment.
    for (i, piece) in text.split(RS as char).skip(1).enumerate() {
        let n = i + 1;
        let value: Value = serde_json::from_str(piece).map_err(|e| JsonMetadataError {
            fragment: n,
            pointer: String::new(),
            message: format!(
                "invalid JSON at line {} column {} of the fragment: {e}",
                e.line(),
                e.column()
            ),
        })?;
        if !value.is_object() {
            return Err(JsonMetadataError {
                fragment: n,
                pointer: String::new(),
                message: "a fragment must be a JSON object".into(),
            });
        }
        out.push((n, value));
    }
    Ok(out)
}

/// A place in a fragment: the fragment's number and a JSON pointer.
#[derive(Debug, Clone)]
pub(super) struct Ptr {
    fragment: usize,
    pointer: String,
}

impl Ptr {
    pub fn root(fragment: usize) -> Ptr {
        Ptr {
            fragment,
            pointer: String::new(),
        }
    }

    /// The member `k` of the object here (RFC 6901 escapes `~` and `/`).
    pub fn key(&self, k: &str) -> Ptr {
        Ptr {
            fragment: self.fragment,
            pointer: format!(
                "{}/{}",
                self.pointer,
                k.replace('~', "~0").replace('/', "~1")
            ),
        }
    }

    pub fn index(&self, i: usize) -> Ptr {
        Ptr {
            fragment: self.fragment,
            pointer: format!("{}/{i}", self.pointer),
        }
    }

    pub fn error(&self, message: impl Into<String>) -> JsonMetadataError {
        JsonMetadataError {
            fragment: self.fragment,
            pointer: self.pointer.clone(),
            message: message.into(),
        }
    }

    /// The member `k` of `obj` (this place's value), or `null` when absent,
    /// so that the accessors below say it is missing.
    pub fn get<'v>(&self, obj: &'v Value, k: &str) -> &'v Value {
        obj.get(k).unwrap_or(&Value::Null)
    }

    pub fn required<'v>(&self, obj: &'v Value, k: &str) -> Result<&'v Value, JsonMetadataError> {
        obj.get(k)
            .ok_or_else(|| self.error(format!("missing required property `{k}`")))
    }

    pub fn str_field<'v>(&self, obj: &'v Value, k: &str) -> Result<&'v str, JsonMetadataError> {
        self.required(obj, k)?
            .as_str()
            .ok_or_else(|| self.key(k).error("expected a string"))
    }

    pub fn opt_str(&self, obj: &Value, k: &str) -> Result<Option<String>, JsonMetadataError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.key(k).error("expected a string")),
        }
    }

    pub fn opt_uint(&self, obj: &Value, k: &str) -> Result<Option<u64>, JsonMetadataError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.key(k).uint(v).map(Some),
        }
    }

    /// This place's value as a non-negative integer.
    pub fn uint(&self, v: &Value) -> Result<u64, JsonMetadataError> {
        match v {
            Value::Null => Err(self.error("missing required property")),
            v => v
                .as_u64()
                .ok_or_else(|| self.error(format!("expected a non-negative integer, found {v}"))),
        }
    }

    /// This place's value as an integer of either sign.
    pub fn int(&self, v: &Value) -> Result<i128, JsonMetadataError> {
        v.as_i64()
            .map(i128::from)
            .or_else(|| v.as_u64().map(i128::from))
            .ok_or_else(|| self.error(format!("expected an integer, found {v}")))
    }

    pub fn uuid(&self, v: &Value) -> Result<[u8; 16], JsonMetadataError> {
        let bytes = v
            .as_array()
            .filter(|a| a.len() == 16)
            .ok_or_else(|| self.error("expected a UUID: an array of 16 bytes"))?;
        let mut out = [0u8; 16];
        for (i, b) in bytes.iter().enumerate() {
            out[i] = b
                .as_u64()
                .and_then(|b| u8::try_from(b).ok())
                .ok_or_else(|| self.index(i).error("expected a byte (0 to 255)"))?;
        }
        Ok(out)
    }
}
