//! Statistics over durations (nanoseconds).
//!
//! Conventions:
//! - `stddev` is the **sample** standard deviation (divides by n − 1); it is 0
//!   for a single duration.
//! - Percentiles are **nearest-rank**: pXX is the smallest duration such that at
//!   least XX % of the durations are less than or equal to it, i.e. the value
//!   at rank ⌈XX·n/100⌉ (1-based) of the sorted durations. Always one of the
//!   durations, never interpolated.
//! - A deadline is missed when a duration is strictly greater than it.
//! - The sum is exact (128-bit); `total` saturates at the `i64` limits.
//!
//! Numerics: two passes. The mean is the exact 128-bit sum divided once; the
//! deviations are taken from the integer part of the mean in integers before
//! going to floating point, so durations far from zero (or huge) do not lose
//! the variance the way a sum-of-squares formula would.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Stats {
    pub count: u64,
    pub min: i64,
    pub max: i64,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 when `count` is 1.
    pub stddev: f64,
    /// Nearest-rank percentiles.
    pub p50: i64,
    pub p90: i64,
    pub p99: i64,
    /// Sum of the durations, saturated to the `i64` range.
    pub total: i64,
    /// Durations strictly greater than the deadline; `None` without a deadline.
    pub deadline_misses: Option<u64>,
}

/// Statistics of `durations` (any order); `None` when there are none.
pub fn compute(durations: &[i64], deadline: Option<i64>) -> Option<Stats> {
    if durations.is_empty() {
        return None;
    }
    let n = durations.len();
    let mut sorted = durations.to_vec();
    sorted.sort_unstable();

    let sum: i128 = durations.iter().map(|&d| i128::from(d)).sum();
    let n128 = n as i128;
    // mean = q + r / n exactly, with 0 <= r < n (floored division).
    let q = sum.div_euclid(n128);
    let r = sum.rem_euclid(n128);
    let frac = r as f64 / n as f64;
    let mean = q as f64 + frac;

    let stddev = if n < 2 {
        0.0
    } else {
        let ss: f64 = durations
            .iter()
            .map(|&d| {
                let dev = (i128::from(d) - q) as f64 - frac;
                dev * dev
            })
            .sum();
        (ss / (n - 1) as f64).sqrt()
    };

    Some(Stats {
        count: n as u64,
        min: sorted[0],
        max: sorted[n - 1],
        mean,
        stddev,
        p50: nearest_rank(&sorted, 50),
        p90: nearest_rank(&sorted, 90),
        p99: nearest_rank(&sorted, 99),
        total: sum.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
        deadline_misses: deadline.map(|dl| durations.iter().filter(|&&d| d > dl).count() as u64),
    })
}

/// The value at rank ⌈p·n/100⌉ (1-based, at least 1) of `sorted`, non-empty.
fn nearest_rank(sorted: &[i64], p: usize) -> i64 {
    let n = sorted.len();
    let rank = (p * n).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn empty() {
        assert_eq!(compute(&[], Some(1)), None);
    }

    #[test]
    fn one() {
        let s = compute(&[42], Some(41)).unwrap();
        assert_eq!(
            s,
            Stats {
                count: 1,
                min: 42,
                max: 42,
                mean: 42.0,
                stddev: 0.0,
                p50: 42,
                p90: 42,
                p99: 42,
                total: 42,
                deadline_misses: Some(1),
            }
        );
    }

    #[test]
    fn two() {
        let s = compute(&[30, 10], None).unwrap();
        // mean 20; sample variance ((10)^2 + (10)^2) / 1 = 200
        assert_eq!(s.count, 2);
        assert_eq!((s.min, s.max, s.total), (10, 30, 40));
        assert_eq!(s.mean, 20.0);
        assert!(close(s.stddev, 200f64.sqrt(), 1e-15));
        // ranks: p50 ⌈1⌉ = 1 → 10; p90 ⌈1.8⌉ = 2 → 30; p99 → 30
        assert_eq!((s.p50, s.p90, s.p99), (10, 30, 30));
        assert_eq!(s.deadline_misses, None);
    }

    #[test]
    fn ten_hand_computed() {
        // 1..=10 shuffled
        let d = [7, 3, 10, 1, 9, 2, 8, 4, 6, 5];
        let s = compute(&d, Some(7)).unwrap();
        assert_eq!(s.mean, 5.5);
        // Σ(x-5.5)^2 = 82.5, / 9
        assert!(close(s.stddev, (82.5f64 / 9.0).sqrt(), 1e-15));
        // p50: rank 5 → 5; p90: rank 9 → 9; p99: rank ⌈9.9⌉ = 10 → 10
        assert_eq!((s.p50, s.p90, s.p99), (5, 9, 10));
        assert_eq!(s.total, 55);
        assert_eq!(s.deadline_misses, Some(3)); // 8, 9, 10; 7 is not a miss
    }

    #[test]
    fn hundred_percentile_boundaries() {
        let d: Vec<i64> = (1..=100).collect();
        let s = compute(&d, Some(100)).unwrap();
        assert_eq!((s.p50, s.p90, s.p99), (50, 90, 99));
        assert_eq!(s.deadline_misses, Some(0));
        let d: Vec<i64> = (1..=101).collect();
        let s = compute(&d, None).unwrap();
        // ranks ⌈50.5⌉ = 51, ⌈90.9⌉ = 91, ⌈99.99⌉ = 100
        assert_eq!((s.p50, s.p90, s.p99), (51, 91, 100));
    }

    #[test]
    fn stable_far_from_zero() {
        let base = 1_000_000_000_000i64;
        let s = compute(&[base + 4, base + 7, base + 13, base + 16], None).unwrap();
        assert_eq!(s.mean, (base + 10) as f64);
        // Σ dev² = 36 + 9 + 9 + 36 = 90, / 3 = 30
        assert!(close(s.stddev, 30f64.sqrt(), 1e-12), "{}", s.stddev);
        // Near the i64 limits: exact sum, saturated total.
        let s = compute(&[i64::MAX, i64::MAX - 2], None).unwrap();
        assert_eq!(s.total, i64::MAX);
        assert!(close(s.stddev, 2f64.sqrt(), 1e-12), "{}", s.stddev);
        let s = compute(&[i64::MIN, i64::MIN], None).unwrap();
        assert_eq!(s.total, i64::MIN);
        assert_eq!(s.stddev, 0.0);
        assert_eq!(s.mean, i64::MIN as f64);
    }

    #[test]
    fn negative_mean() {
        let s = compute(&[-3, -4], None).unwrap();
        assert_eq!(s.mean, -3.5);
        assert!(close(s.stddev, 0.5f64.sqrt(), 1e-15));
    }

    #[test]
    fn serializes_snake_case() {
        let s = compute(&[1, 2, 3], Some(2)).unwrap();
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["count"], 3);
        assert_eq!(v["deadline_misses"], 1);
        assert_eq!(v["p99"], 3);
        assert_eq!(v["stddev"], 1.0);
        let v = serde_json::to_value(compute(&[1], None).unwrap()).unwrap();
        assert!(v["deadline_misses"].is_null());
    }

    /// A 64-bit linear congruential generator (Knuth's MMIX constants).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 11
        }
    }

    /// The textbook way: f64 sums, float ranks.
    fn naive(d: &[i64], deadline: Option<i64>) -> Stats {
        let n = d.len();
        let mut s = d.to_vec();
        s.sort();
        let mean = d.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let var = if n > 1 {
            d.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let pct = |p: f64| s[((p / 100.0 * n as f64).ceil() as usize).max(1) - 1];
        Stats {
            count: n as u64,
            min: s[0],
            max: s[n - 1],
            mean,
            stddev: var.sqrt(),
            p50: pct(50.0),
            p90: pct(90.0),
            p99: pct(99.0),
            total: d.iter().sum(),
            deadline_misses: deadline.map(|dl| d.iter().filter(|&&x| x > dl).count() as u64),
        }
    }

    #[test]
    fn matches_naive_on_pseudo_random_data() {
        let mut rng = Lcg(0x5eed);
        for case in 0..300 {
            let n = 1 + (rng.next() % 400) as usize;
            // Ranges from a few ns to ~1 s, sometimes offset far from zero.
            let span = (((rng.next() % 1_000_000_000) as i64) >> (rng.next() % 30)) + 1;
            let offset = if case % 3 == 0 {
                (rng.next() % 1_000_000_000) as i64
            } else {
                0
            };
            let d: Vec<i64> = (0..n)
                .map(|_| offset + (rng.next() % span as u64) as i64)
                .collect();
            let deadline = (case % 2 == 0).then(|| offset + span / 2);
            let got = compute(&d, deadline).unwrap();
            let want = naive(&d, deadline);
            let ctx = format!("case {case}, n {n}, span {span}");
            assert_eq!(got.count, want.count, "{ctx}");
            assert_eq!(
                (got.min, got.max, got.total),
                (want.min, want.max, want.total),
                "{ctx}"
            );
            assert_eq!(
                (got.p50, got.p90, got.p99),
                (want.p50, want.p90, want.p99),
                "{ctx}"
            );
            assert_eq!(got.deadline_misses, want.deadline_misses, "{ctx}");
            assert!(
                close(got.mean, want.mean, 1e-12),
                "{ctx}: {} vs {}",
                got.mean,
                want.mean
            );
            assert!(
                (got.stddev - want.stddev).abs() <= 1e-9 * want.stddev.max(1.0),
                "{ctx}: {} vs {}",
                got.stddev,
                want.stddev
            );
        }
    }
}
