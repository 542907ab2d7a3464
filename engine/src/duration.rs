//! Durations written for people, the same way in every table and sentence.

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

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn units() {
        assert_eq!(human(999), "999 ns");
        assert_eq!(human(-5), "-5 ns");
        assert_eq!(human(1_500), "1.500 us");
        assert_eq!(human(3_002_100), "3.002 ms");
        assert_eq!(human(-2_000_000_000), "-2.000 s");
    }
}
