//! Durations for people: written the same way in every table and sentence
//! (`human`), and read from what people write in models (`parse`: "1ms",
//! "250us", "1.5ms", "2s", "100ns").

/// `ns` in ns, µs ("us"), ms or s, with three decimals above the ns.
pub fn human(ns: i64) -> String {
    let a = ns.unsigned_abs() as f64;
    if a < 1e3 {
        format!("{ns} ns")
    } else if a < 1e6 {
        format!("{:.3} us", ns as f64 / 1e3)
    } else if a < 1e9 {
        format!("{:.3} ms", ns as f64 / 1e6)
    } else {
        format!("{:.3} s", ns as f64 / 1e9)
    }
}

/// Units `parse` reads, with their size in ns as a power of ten.
const UNITS: [(&str, u32); 5] = [("ns", 0), ("us", 3), ("µs", 3), ("ms", 6), ("s", 9)];

/// Why a text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not a number followed by one of the units.
    #[error("not a number and a unit (ns, us, ms, s)")]
    Form,
    /// A fraction finer than a nanosecond ("1.5ns", "0.0000000001s").
    #[error("finer than a nanosecond")]
    Fraction,
    /// Beyond the ±292 years of an i64 of nanoseconds.
    #[error("too large")]
    Range,
}

/// A duration (or a time) written as a decimal number and a unit, with an
/// optional sign and one optional space before the unit: "1ms", "250us",
/// "1.5ms", "-2 s", "100ns" (ns, us or µs, ms, s). Exact: the decimals are
/// read as integers, never through a float, so "1.1ms" is 1,100,000 ns.
pub fn parse(text: &str) -> Result<i64, ParseError> {
    let (digits, scale) = UNITS
        .iter()
        .find_map(|(unit, scale)| Some((text.strip_suffix(unit)?, *scale)))
        .ok_or(ParseError::Form)?;
    let digits = digits.strip_suffix(' ').unwrap_or(digits);
    let (negative, digits) = match digits.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, digits),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) || digits.ends_with('.') {
        return Err(ParseError::Form);
    }
    // Decimals beyond the unit's power of ten are finer than a ns: only
    // zeros may stand there.
    let kept = fraction.len().min(scale as usize);
    if fraction[kept..].bytes().any(|b| b != b'0') {
        return Err(ParseError::Fraction);
    }
    let mut ns: i128 = 0;
    for b in whole.bytes().chain(fraction[..kept].bytes()) {
        ns = ns * 10 + i128::from(b - b'0');
        if ns > i128::from(i64::MAX) + 1 {
            return Err(ParseError::Range);
        }
    }
    let ns = ns * 10i128.pow(scale - kept as u32);
    let ns = if negative { -ns } else { ns };
    i64::try_from(ns).map_err(|_| ParseError::Range)
}

#[cfg(test)]
mod tests {
    use super::{human, parse, ParseError};

    #[test]
    fn units() {
        assert_eq!(human(999), "999 ns");
        assert_eq!(human(-5), "-5 ns");
        assert_eq!(human(1_500), "1.500 us");
        assert_eq!(human(3_002_100), "3.002 ms");
        assert_eq!(human(-2_000_000_000), "-2.000 s");
    }

    #[test]
    fn parses_a_number_and_a_unit() {
        assert_eq!(parse("1ms"), Ok(1_000_000));
        assert_eq!(parse("250us"), Ok(250_000));
        assert_eq!(parse("250µs"), Ok(250_000));
        assert_eq!(parse("1.5ms"), Ok(1_500_000));
        assert_eq!(parse("1.1ms"), Ok(1_100_000));
        assert_eq!(parse("2s"), Ok(2_000_000_000));
        assert_eq!(parse("100ns"), Ok(100));
        assert_eq!(parse("2 s"), Ok(2_000_000_000));
        assert_eq!(parse("-1.5s"), Ok(-1_500_000_000));
        assert_eq!(parse("0.000000001s"), Ok(1));
        assert_eq!(parse("1.50ns"), Err(ParseError::Fraction));
        assert_eq!(parse("1.000ns"), Ok(1));
        assert_eq!(parse("9223372036854775807ns"), Ok(i64::MAX));
        assert_eq!(parse("-9223372036854775808ns"), Ok(i64::MIN));
    }

    #[test]
    fn refuses_what_is_not_a_duration() {
        for bad in [
            "1 ms s", "1", "ms", "1.ms", ".5ms", "1m", "1  ms", "1e3ns", "+1ms", "1,5ms", "",
            "1 000ms",
        ] {
            assert_eq!(parse(bad), Err(ParseError::Form), "{bad:?}");
        }
        assert_eq!(parse("1.0000005ms"), Err(ParseError::Fraction));
        assert_eq!(parse("9223372036854775808ns"), Err(ParseError::Range));
        assert_eq!(parse("300y").unwrap_err(), ParseError::Form);
        assert_eq!(parse("10000000000s"), Err(ParseError::Range));
    }
}
