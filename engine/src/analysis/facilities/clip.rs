//! Intervals kept for a range: the state machines run from before the range
//! (the replay) so they know the state at its start, and keep only what
//! overlaps it, cut to it.

/// The range asked for, [start, end].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: i64,
    pub end: i64,
}

impl Range {
    /// [from, to] cut to the range, if they overlap.
    pub fn clip(&self, from: i64, to: i64) -> Option<(i64, i64)> {
        let (a, b) = (from.max(self.start), to.min(self.end));
        (a < b || (a == b && from == to && self.contains(a))).then_some((a, b))
    }

    pub fn contains(&self, t: i64) -> bool {
        self.start <= t && t <= self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping() {
        let r = Range { start: 10, end: 20 };
        assert_eq!(r.clip(0, 15), Some((10, 15)));
        assert_eq!(r.clip(12, 30), Some((12, 20)));
        assert_eq!(r.clip(0, 10), None);
        assert_eq!(r.clip(20, 25), None);
        assert_eq!(r.clip(15, 15), Some((15, 15)));
    }
}
