//! A model's times as written: a JSON integer of nanoseconds, or a string of
//! a number and a unit (`"1ms"`, `"250us"`, `"1.5ms"`, `"2s"`, `"100ns"`),
//! read by `crate::duration::parse`. An error says the expected form in
//! the user's words and what was found.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::duration::{self, ParseError};

/// What a time field holds, for its error messages.
pub(super) trait Kind {
    /// The expected form, as the error says it.
    const EXPECTED: &'static str;
}

/// A length of time (`deadline`).
pub(super) struct Span;

impl Kind for Span {
    const EXPECTED: &'static str = "a duration such as 1000000 (ns), \"1ms\" or \"250us\"";
}

/// A time on the trace clock (`time_range`).
pub(super) struct Instant;

impl Kind for Instant {
    const EXPECTED: &'static str =
        "a time on the trace clock such as 1500000000 (ns), \"1.5s\" or \"250ms\"";
}

/// Nanoseconds read from an integer or from a number with a unit.
pub(super) struct Nanos<K>(pub(super) i64, PhantomData<K>);

impl<'de, K: Kind> Deserialize<'de> for Nanos<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<K>(PhantomData<K>);
        impl<K: Kind> Visitor<'_> for V<K> {
            type Value = Nanos<K>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(K::EXPECTED)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Nanos<K>, E> {
                Ok(Nanos(v, PhantomData))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Nanos<K>, E> {
                i64::try_from(v)
                    .map(|v| Nanos(v, PhantomData))
                    .map_err(|_| {
                        E::custom(format!("expected {}, found {v} (too large)", K::EXPECTED))
                    })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Nanos<K>, E> {
                duration::parse(v)
                    .map(|v| Nanos(v, PhantomData))
                    .map_err(|e| {
                        let why = match e {
                            ParseError::Form => String::new(),
                            e => format!(" ({e})"),
                        };
                        E::custom(format!("expected {}, found \"{v}\"{why}", K::EXPECTED))
                    })
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}
