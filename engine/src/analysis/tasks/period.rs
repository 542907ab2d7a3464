//! Period inference from release times, robust to release jitter, missed
//! releases and extra wake-ups, after the regression-based approach of
//! Vădineanu & Nasri (RTSS 2020): a candidate period from the median
//! inter-arrival, each release given a job index by walking the releases
//! (a release far from a multiple of the period is left out of the fit, a
//! gap of several periods is a missed release), then the period and offset
//! by least squares of release time on job index; the residuals are the
//! release jitter. A lasting change of rhythm ends a phase and starts
//! another, so a task that changes period mid-trace gets two.

/// A stretch of releases that follow one period.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// Releases `first..end` (indices into the releases given) belong to it.
    pub first: usize,
    pub end: usize,
    /// ns, from the regression.
    pub period: f64,
    /// Largest minus smallest residual (ns): the release jitter.
    pub jitter: i64,
    /// Standard deviation of the residuals (ns).
    pub spread: f64,
    /// Releases in the fit (the others were extra wake-ups).
    pub fitted: usize,
    /// Periods with no release (gaps of several periods).
    pub missed: usize,
}

/// A release within this share of a period of where the period puts it is
/// on time; release jitter up to 10 % of the period stays well inside.
const TOLERANCE: f64 = 0.25;
/// Inter-arrivals the candidate period is the median of.
const WINDOW: usize = 9;
/// This many releases in a row off the rhythm (or all after a gap of
/// several periods) end a phase.
const BREAK: usize = 5;

fn median(v: &mut [i64]) -> i64 {
    v.sort_unstable();
    v[v.len() / 2]
}

/// Least squares of `r` on `k`: (period, residuals).
fn regress(fit: &[(u64, i64)], origin: i64) -> (f64, Vec<f64>) {
    let n = fit.len() as f64;
    let (mut sk, mut sr, mut skk, mut skr) = (0.0, 0.0, 0.0, 0.0);
    for &(k, r) in fit {
        let (k, r) = (k as f64, (r - origin) as f64);
        sk += k;
        sr += r;
        skk += k * k;
        skr += k * r;
    }
    let den = n * skk - sk * sk;
    if den <= 0.0 {
        return (0.0, vec![0.0; fit.len()]);
    }
    let slope = (n * skr - sk * sr) / den;
    let intercept = (sr - slope * sk) / n;
    let residuals = fit
        .iter()
        .map(|&(k, r)| (r - origin) as f64 - (intercept + slope * k as f64))
        .collect();
    (slope, residuals)
}

/// One phase from release `start`: (its fit as (index, release) pairs by
/// job number, where the next phase starts).
fn walk(r: &[i64], start: usize) -> (Vec<(u64, i64)>, usize) {
    let w = WINDOW.min(r.len() - 1 - start);
    let mut gaps: Vec<i64> = (start..start + w).map(|i| r[i + 1] - r[i]).collect();
    let candidate = median(&mut gaps) as f64;
    let mut fit = vec![(0u64, r[start])];
    if candidate <= 0.0 {
        return (fit, start + 1);
    }
    let (mut k, mut last) = (0u64, r[start]);
    let mut off: Option<(usize, usize)> = None; // (first release off rhythm, how many)
    let mut prev_on = true;
    for (j, &rj) in r.iter().enumerate().skip(start + 1) {
        let period = if fit.len() >= 4 {
            (last - r[start]) as f64 / k as f64
        } else {
            candidate
        };
        let x = (rj - last) as f64 / period;
        let m = x.round();
        let on_time = m >= 1.0 && (x - m).abs() <= TOLERANCE;
        if on_time {
            k += m as u64;
            last = rj;
            fit.push((k, rj));
        }
        // Only a release one period after a release on time ends a run
        // off the rhythm: two quick ones summing to about a period do not.
        if on_time && m == 1.0 && prev_on {
            off = None;
        } else {
            let (first, n) = off.unwrap_or((j, 0));
            off = Some((first, n + 1));
            if n + 1 >= BREAK {
                fit.retain(|&(_, t)| t < r[first]);
                return (fit, first);
            }
        }
        prev_on = on_time;
    }
    (fit, r.len())
}

fn phase(first: usize, end: usize, fit: &[(u64, i64)]) -> Phase {
    let (period, residuals) = regress(fit, fit[0].1);
    let lo = residuals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = residuals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let dof = (fit.len() as f64 - 2.0).max(1.0);
    let spread = (residuals.iter().map(|e| e * e).sum::<f64>() / dof).sqrt();
    let last_k = fit.last().map_or(0, |f| f.0) as usize;
    Phase {
        first,
        end,
        period,
        jitter: (hi - lo).round() as i64,
        spread,
        fitted: fit.len(),
        missed: last_k + 1 - fit.len(),
    }
}

/// A run of releases: the index of its first, the index past its last, and
/// its fit (job index, release time).
type Run = (usize, usize, Vec<(u64, i64)>);

/// The phases of `releases` (sorted) with at least `min_fitted` releases in
/// their fit; adjacent phases of the same period (within 1 %) are one.
pub fn phases(releases: &[i64], min_fitted: usize) -> Vec<Phase> {
    let mut fits: Vec<Run> = Vec::new();
    let mut start = 0;
    while start + 1 < releases.len() {
        let (fit, next) = walk(releases, start);
        if fit.len() >= min_fitted.max(3) {
            fits.push((start, next, fit));
        }
        start = next;
    }
    let mut out: Vec<Run> = Vec::new();
    for (first, end, fit) in fits {
        if let Some(prev) = out.last_mut() {
            let p1 = phase(prev.0, prev.1, &prev.2).period;
            let p2 = phase(first, end, &fit).period;
            if p1 > 0.0 && ((p1 - p2) / p1).abs() <= 0.01 {
                let (lk, lt) = *prev.2.last().expect("a fit is never empty");
                let gap = ((fit[0].1 - lt) as f64 / p1).round().max(1.0) as u64;
                let base = lk + gap;
                prev.2.extend(fit.iter().map(|&(k, t)| (base + k, t)));
                prev.1 = end;
                continue;
            }
        }
        out.push((first, end, fit));
    }
    out.iter().map(|(f, e, fit)| phase(*f, *e, fit)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the tests need no crate.
    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn periodic(period: i64, n: usize, jitter: f64, rng: &mut Rng) -> Vec<i64> {
        (0..n)
            .map(|k| 1_000_000 + k as i64 * period + (rng.unit() * jitter * period as f64) as i64)
            .collect()
    }

    #[test]
    fn exact_period_under_ten_percent_jitter() {
        let mut rng = Rng(7);
        for period in [1_000_000, 2_500_000, 10_000_000, 3_333_333] {
            let r = periodic(period, 400, 0.10, &mut rng);
            let p = phases(&r, 10);
            assert_eq!(p.len(), 1, "{period}: {p:?}");
            assert!(
                (p[0].period - period as f64).abs() / (period as f64) < 0.002,
                "{p:?}"
            );
            // The fitted line sits a little off the nominal releases.
            assert!(p[0].jitter <= period / 8, "{p:?}");
            assert_eq!(p[0].fitted, 400);
        }
    }

    #[test]
    fn missed_and_extra_releases_do_not_break_the_fit() {
        let mut rng = Rng(11);
        let mut r = periodic(5_000_000, 200, 0.05, &mut rng);
        // Overload: every 17th release lost; a stray wake-up now and then.
        r = r
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 17 != 16)
            .map(|x| x.1)
            .collect();
        for i in (3..r.len() - 1).step_by(23) {
            r.push(r[i] + 1_700_000);
        }
        r.sort_unstable();
        let p = phases(&r, 10);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!((p[0].period - 5e6).abs() < 5e3, "{p:?}");
        assert!(p[0].missed >= 10, "{p:?}");
    }

    #[test]
    fn a_change_of_period_gives_two_phases() {
        let mut rng = Rng(3);
        let mut r = periodic(10_000_000, 100, 0.02, &mut rng);
        let t = *r.last().unwrap();
        r.extend((1..=150).map(|k| t + k * 4_000_000));
        let p = phases(&r, 10);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(
            (p[0].period - 1e7).abs() < 1e5 && (p[1].period - 4e6).abs() < 4e4,
            "{p:?}"
        );
        // Slower afterwards: a gap of two periods each time is a new phase, not misses.
        let mut r = periodic(4_000_000, 100, 0.02, &mut rng);
        let t = *r.last().unwrap();
        r.extend((1..=60).map(|k| t + k * 8_000_000));
        let p = phases(&r, 10);
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn random_arrivals_have_a_large_spread() {
        let mut rng = Rng(5);
        let mut t = 0i64;
        let r: Vec<i64> = (0..300)
            .map(|_| {
                t += 10_000_000 + (rng.unit() * 10_000_000.0) as i64;
                t
            })
            .collect();
        // A short stretch may look regular; none is both tight and most
        // of the series (what a periodic task needs, `classify.rs`).
        for p in phases(&r, 10) {
            assert!(p.spread > 0.06 * p.period || p.fitted < 210, "{p:?}");
        }
    }
}
