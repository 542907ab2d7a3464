//! The clock correction between two hosts from the messages they
//! exchanged: the fully incremental convex-hull algorithm (Poirier, Roy,
//! Dagenais, "Accurate offline synchronization of distributed traces using
//! kernel-level events", ACM SIGOPS OSR 44(3), 2010; Jabbarifar et al.'s
//! incremental form), as Trace Compass runs it, so that both give the same
//! correction on the same trace.
//!
//! Each message is a point: x its time on the reference host, y its time
//! on the other. A message the reference sent was received later, so its
//! point lies above the true line `y = α·x + β`; one it received lies
//! below. The line of maximum slope below the sent points' lower hull and
//! above the received points' upper hull, and the line of minimum slope,
//! bound every line that agrees with all messages; the correction is their
//! bisector. Points that can no longer bound a line are dropped as they
//! arrive, so memory stays small on long traces.

use serde::{Deserialize, Serialize};

use super::Correction;

/// How far a pair's correction can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Quality {
    /// Both bounding lines exist and do not cross: every message agrees.
    Accurate,
    /// Messages went both ways but one bounding line is still missing
    /// (too few points on one side): a correction, not yet bounded.
    Approximate,
    /// Messages went only one way: no correction can be bounded.
    Incomplete,
    /// The bounding lines crossed (messages contradict any linear
    /// correction: clock jumps, wrong matches); the last correction before
    /// that is kept.
    Failed,
    /// No message matched between the two hosts.
    Absent,
}

impl Quality {
    /// Whether the pair's correction may chain hosts to the reference
    /// (Trace Compass chains failed pairs too, with their last correction).
    pub fn usable(self) -> bool {
        matches!(
            self,
            Quality::Accurate | Quality::Approximate | Quality::Failed
        )
    }
}

#[derive(Debug, Clone, Copy)]
struct Point {
    x: i64,
    y: i64,
}

/// Twice the signed area of (p, a, b): positive when they turn
/// counter-clockwise. Exact: times differ by far less than 2⁶³.
fn cross(p: Point, a: Point, b: Point) -> i128 {
    let (px, py) = (i128::from(p.x), i128::from(p.y));
    (i128::from(a.x) - px) * (i128::from(b.y) - py)
        - (i128::from(a.y) - py) * (i128::from(b.x) - px)
}

/// Two points of a bounding line: [0] the one on the opposite hull (none
/// yet), [1] the newest point of this line's own side.
type Line = [Option<usize>; 2];

/// The state of one host pair.
#[derive(Debug, Clone)]
pub struct Hull {
    points: Vec<Point>,
    /// Points of messages the reference received, kept on their hull.
    upper: Vec<usize>,
    /// Points of messages the reference sent.
    lower: Vec<usize>,
    /// The line of maximum slope (its own side: sent points).
    lmax: Line,
    /// The line of minimum slope (its own side: received points).
    lmin: Line,
    pub matches: usize,
    /// Messages that moved a bounding line.
    pub accurate_matches: usize,
    pub quality: Quality,
    /// The other host's time from the reference's: `y = x + drift·x + beta`.
    pub estimate: Correction,
    /// Slope of the maximum line minus that of the minimum one: how wide
    /// the set of agreeing corrections still is.
    pub accuracy: f64,
}

impl Default for Hull {
    fn default() -> Self {
        Hull {
            points: Vec::new(),
            upper: Vec::new(),
            lower: Vec::new(),
            lmax: [None; 2],
            lmin: [None; 2],
            matches: 0,
            accurate_matches: 0,
            quality: Quality::Absent,
            estimate: Correction::IDENTITY,
            accuracy: 0.0,
        }
    }
}

impl Hull {
    /// Takes one message: `reference` its time on the reference host,
    /// `other` on the other, `sent_by_reference` its direction.
    pub fn add(&mut self, sent_by_reference: bool, reference: i64, other: i64) {
        self.matches += 1;
        let id = self.points.len();
        let p = Point {
            x: reference,
            y: other,
        };
        self.points.push(p);
        // The received side bounds the minimum line and turns one way, the
        // sent side the other: `turn` flips the cross products' sign.
        let turn: i128 = if sent_by_reference { -1 } else { 1 };
        let (own_max, line) = if sent_by_reference {
            (true, self.lmax)
        } else {
            (false, self.lmin)
        };
        let qualifies = match line {
            [Some(a), Some(b)] => cross(p, self.points[a], self.points[b]) * turn > 0,
            _ => true,
        };
        if qualifies {
            self.accurate_matches += 1;
            let side = self.side(own_max);
            let mut kept = std::mem::take(side);
            while kept.len() >= 2 {
                let (a, b) = (kept[kept.len() - 2], kept[kept.len() - 1]);
                if cross(p, self.points[a], self.points[b]) * turn > 0 {
                    kept.pop();
                } else {
                    break;
                }
            }
            kept.push(id);
            *self.side(own_max) = kept;
            self.line(own_max)[1] = Some(id);
        }
        self.adjust(own_max, turn);
        let other_line = *self.line_ref(!own_max);
        let own_side = if own_max { &self.lower } else { &self.upper };
        if other_line[1].is_some() && !other_line[0].is_some_and(|a| own_side.contains(&a)) {
            self.adjust(!own_max, -turn);
        }
        if qualifies {
            self.estimate_now();
        }
    }

    fn side(&mut self, max: bool) -> &mut Vec<usize> {
        if max {
            &mut self.lower
        } else {
            &mut self.upper
        }
    }

    fn line(&mut self, max: bool) -> &mut Line {
        if max {
            &mut self.lmax
        } else {
            &mut self.lmin
        }
    }

    fn line_ref(&self, max: bool) -> &Line {
        if max {
            &self.lmax
        } else {
            &self.lmin
        }
    }

    /// Moves the line's point on the opposite hull to the one that makes
    /// the line tightest, starting from where it was.
    fn adjust(&mut self, max: bool, turn: i128) {
        let opposite = if max { &self.upper } else { &self.lower };
        let mut line = *self.line_ref(max);
        let Some(end) = line[1] else { return };
        let end_point = self.points[end];
        let mut i = line[0]
            .and_then(|a| opposite.iter().position(|&q| q == a))
            .unwrap_or(0);
        let mut candidate = None;
        while i + 1 < opposite.len() {
            let (here, next) = (opposite[i], opposite[i + 1]);
            candidate = Some(here);
            if cross(self.points[here], self.points[next], end_point) * turn > 0 {
                if self.points[next].x < end_point.x {
                    i += 1;
                    continue;
                }
                line[0] = None;
            } else {
                line[0] = Some(here);
            }
            break;
        }
        if line[0].is_none() {
            line[0] = candidate;
        }
        if line[0].is_some_and(|a| self.points[a].x > end_point.x) {
            line[0] = None;
        }
        *self.line(max) = line;
    }

    /// The slope of a line, as a drift: 1 when it has one point.
    fn drift(&self, line: Line) -> f64 {
        let (Some(a), Some(b)) = (line[0], line[1]) else {
            return 0.0;
        };
        let (p, q) = (self.points[a], self.points[b]);
        let dx = i128::from(q.x) - i128::from(p.x);
        if dx == 0 {
            return 0.0;
        }
        let dy = i128::from(q.y) - i128::from(p.y);
        (dy - dx) as f64 / dx as f64
    }

    /// Where a line of slope `1 + drift` through the point `at` crosses x = 0.
    fn beta(&self, at: usize, drift: f64) -> f64 {
        let p = self.points[at];
        (p.y - p.x) as f64 - drift * p.x as f64
    }

    /// The bisector of the two bounding lines, and the quality it has.
    fn estimate_now(&mut self) {
        if self.lmax[0].is_none() && self.lmin[0].is_none() {
            if self.lmin[1].is_none() || self.lmax[1].is_none() {
                self.quality = Quality::Incomplete;
            }
            return;
        }
        // Once failed, the last correction before the failure is kept.
        if self.quality == Quality::Failed {
            return;
        }
        let (Some(max_end), Some(min_end)) = (self.lmax[1], self.lmin[1]) else {
            return;
        };
        let (max, min) = (self.drift(self.lmax), self.drift(self.lmin));
        let quality = if self.lmax[0].is_none() || self.lmin[0].is_none() {
            Quality::Approximate
        } else if max > min {
            Quality::Accurate
        } else {
            Quality::Failed
        };
        if quality != Quality::Failed {
            let (beta_min, beta_max) = (self.beta(max_end, max), self.beta(min_end, min));
            self.estimate = Correction {
                drift: (max + min) / 2.0,
                offset: (beta_min + beta_max) / 2.0,
            };
            self.accuracy = max - min;
        }
        self.quality = quality;
    }

    /// The correction of the other host's times onto the reference's.
    pub fn correction(&self) -> Correction {
        if self.quality.usable() {
            self.estimate.inverse()
        } else {
            Correction::IDENTITY
        }
    }
}

#[cfg(test)]
mod tests;
