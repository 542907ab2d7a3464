use super::*;

/// Host 1 is the reference: a message `(from_reference, sent, received)`.
fn feed(h: &mut Hull, from_reference: bool, sent: i64, received: i64) {
    if from_reference {
        h.add(true, sent, received);
    } else {
        h.add(false, received, sent);
    }
}

/// The estimate as Trace Compass prints it: the other host's time is
/// `alpha·t + beta` of the reference's.
fn alpha_beta(h: &Hull) -> (f64, f64) {
    (h.estimate.slope(), h.estimate.offset)
}

fn close(got: (f64, f64), want: (f64, f64)) -> bool {
    (got.0 - want.0).abs() < 1e-12 && (got.1 - want.1).abs() < 1e-12
}

/// A message (from the reference?, sent, received), then the quality and
/// (alpha, beta) expected after it.
type Step = (bool, i64, i64, Quality, (f64, f64));

// Trace Compass's SyncTest.testFullyIncremental: each message, then the
// quality and (alpha, beta) it expects.
#[test]
fn trace_compass_fully_incremental_case() {
    use Quality::*;
    let steps: [Step; 10] = [
        (false, 1, 1, Incomplete, (1.0, 0.0)),
        (true, 1, 3, Incomplete, (1.0, 0.0)),
        (false, 2, 3, Approximate, (1.0, 0.5)),
        (true, 3, 5, Accurate, (0.75, 1.25)),
        (true, 4, 8, Accurate, (0.75, 1.25)),
        (false, 4, 5, Accurate, (1.125, 0.875)),
        (false, 4, 6, Accurate, (1.125, 0.875)),
        (true, 6, 7, Accurate, (0.725, 1.275)),
        (true, 7, 4, Accurate, (0.375, 1.625)),
        // The lines cross: failed, the last correction kept.
        (false, 7, 3, Failed, (0.375, 1.625)),
    ];
    let mut h = Hull::default();
    assert_eq!(h.quality, Absent);
    for (i, (from_reference, sent, received, quality, ab)) in steps.into_iter().enumerate() {
        feed(&mut h, from_reference, sent, received);
        assert_eq!(h.quality, quality, "after message {}", i + 1);
        assert!(
            close(alpha_beta(&h), ab),
            "after message {}: {:?}, Trace Compass has {ab:?}",
            i + 1,
            alpha_beta(&h)
        );
    }
    assert_eq!(h.matches, 10);
    assert!(
        h.correction() != Correction::IDENTITY,
        "failed keeps a correction"
    );
}

// SyncTest.testOneHull: messages one way only never bound a line.
#[test]
fn trace_compass_one_hull_case() {
    let mut h = Hull::default();
    for (sent, received) in [(1, 3), (2, 5), (3, 5), (4, 7)] {
        feed(&mut h, true, sent, received);
        assert_eq!(h.quality, Quality::Incomplete);
    }
    assert!(close(alpha_beta(&h), (1.0, 0.0)));
    assert_eq!(h.correction(), Correction::IDENTITY);
}

// SyncTest.testDisjoint: the other way too, but the hulls never interleave.
#[test]
fn trace_compass_disjoint_case() {
    let mut h = Hull::default();
    for (sent, received) in [(1, 3), (2, 5), (3, 5), (4, 7)] {
        feed(&mut h, true, sent, received);
    }
    for (sent, received) in [(7, 6), (8, 6), (10, 8)] {
        feed(&mut h, false, sent, received);
        assert_eq!(h.quality, Quality::Approximate);
    }
    assert!(close(alpha_beta(&h), (1.0, 2.5)), "{:?}", alpha_beta(&h));
}

/// A small deterministic generator (no dependency for one test).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

/// Packets both ways between a reference and a host whose clock runs
/// `drift` fast and `offset` ahead, with network delays of 15 µs plus a
/// random part: the correction found puts the other host's times back on
/// the reference's within 1 µs.
#[test]
fn recovers_a_known_offset_and_drift_within_a_microsecond() {
    let origin: i64 = 1_764_000_000_000_000_000;
    for (drift, offset) in [
        (0.0, 2_500_000_000.0),
        (42e-6, -73_000_123_456.0),
        (-7e-6, 1e6),
    ] {
        let truth = Correction { drift, offset };
        let other = |t: i64| truth.apply(t);
        let mut rng = Lcg(drift.to_bits() ^ 7);
        let mut h = Hull::default();
        for i in 0..20_000i64 {
            let t = origin + i * 500_000 + rng.next(100_000) as i64;
            // Heavy-tailed: most packets wait, a few go straight through.
            let delay = 15_000 + (rng.next(1000) * rng.next(1000) / 10) as i64;
            if i % 2 == 0 {
                feed(&mut h, true, t, other(t + delay));
            } else {
                feed(&mut h, false, other(t), t + delay);
            }
        }
        assert_eq!(
            h.quality,
            Quality::Accurate,
            "drift {drift}, offset {offset}"
        );
        let back = h.correction();
        for k in 0..=10 {
            let t = origin + k * 1_000_000_000;
            let error = back.apply(other(t)) - t;
            assert!(
                error.abs() < 1_000,
                "drift {drift}, offset {offset}: {error} ns off at {k} s ({back:?})"
            );
        }
    }
}
