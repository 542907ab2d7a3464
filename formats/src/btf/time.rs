//! BTF time stamps: integers in the unit of `#timeScale`, scaled to the
//! engine's nanoseconds with integer arithmetic (no rounding through floats).

use std::fmt;
use std::str::FromStr;

/// The unit of a BTF file's time stamps (`#timeScale`); nanoseconds when the
/// header does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeScale {
    Ps,
    #[default]
    Ns,
    Us,
    Ms,
    S,
}

impl TimeScale {
    /// Nanoseconds of `t` time units: exact for ns and coarser units (an
    /// error on overflow), truncated for picoseconds, which nanoseconds
    /// cannot hold (the order of rows is kept; rows less than 1 ns apart
    /// may share a time).
    pub fn to_ns(self, t: u64) -> Option<i64> {
        let ns = match self {
            TimeScale::Ps => t / 1000,
            TimeScale::Ns => t,
            TimeScale::Us => t.checked_mul(1_000)?,
            TimeScale::Ms => t.checked_mul(1_000_000)?,
            TimeScale::S => t.checked_mul(1_000_000_000)?,
        };
        i64::try_from(ns).ok()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TimeScale::Ps => "ps",
            TimeScale::Ns => "ns",
            TimeScale::Us => "us",
            TimeScale::Ms => "ms",
            TimeScale::S => "s",
        }
    }
}

impl FromStr for TimeScale {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "ps" => TimeScale::Ps,
            "ns" => TimeScale::Ns,
            "us" => TimeScale::Us,
            "ms" => TimeScale::Ms,
            "s" => TimeScale::S,
            _ => return Err(format!("unknown time scale `{s}` (ps, ns, us, ms or s)")),
        })
    }
}

impl fmt::Display for TimeScale {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_is_exact() {
        assert_eq!(TimeScale::Us.to_ns(1_013_468), Some(1_013_468_000));
        assert_eq!(TimeScale::Ms.to_ns(3), Some(3_000_000));
        assert_eq!(
            TimeScale::S.to_ns(9_223_372_036),
            Some(9_223_372_036_000_000_000)
        );
        // Beyond i64 nanoseconds (~292 years).
        assert_eq!(TimeScale::S.to_ns(9_223_372_037), None);
        assert_eq!(TimeScale::Us.to_ns(u64::MAX / 10), None);
        assert_eq!(TimeScale::Ns.to_ns(u64::MAX), None);
        assert_eq!(TimeScale::Ps.to_ns(1_999), Some(1));
        assert_eq!(
            TimeScale::Ps.to_ns(u64::MAX),
            Some((u64::MAX / 1000) as i64)
        );
        // A value a float would round: 2^53 + 1 µs.
        let t = (1u64 << 53) + 1;
        assert_eq!(TimeScale::Us.to_ns(t), Some(t as i64 * 1000));
    }

    #[test]
    fn names() {
        for s in ["ps", "ns", "us", "ms", "s"] {
            assert_eq!(s.parse::<TimeScale>().unwrap().to_string(), s);
        }
        assert_eq!(
            "ks".parse::<TimeScale>().unwrap_err(),
            "unknown time scale `ks` (ps, ns, us, ms or s)"
        );
    }
}
