//! A linear clock correction, `t ↦ slope·t + offset`, kept as the slope's
//! distance from 1 (`drift`) so that it stays exact where it matters:
//! traced clocks count nanoseconds since 1970 (about 1.4·10¹⁸), where an
//! f64 slope of 0.99994 applied as such would be off by hundreds of
//! nanoseconds, while `drift·t` and `offset` nearly cancel and their
//! rounding errors stay far below a nanosecond.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    /// slope − 1.
    pub drift: f64,
    /// Nanoseconds added after scaling.
    pub offset: f64,
}

impl Correction {
    /// Times left as they are.
    pub const IDENTITY: Correction = Correction {
        drift: 0.0,
        offset: 0.0,
    };

    pub fn slope(&self) -> f64 {
        1.0 + self.drift
    }

    /// The corrected time of `t`, to the nanosecond.
    pub fn apply(&self, t: i64) -> i64 {
        t + (self.drift * t as f64 + self.offset).round() as i64
    }

    /// The correction that undoes this one.
    pub fn inverse(&self) -> Correction {
        let slope = self.slope();
        Correction {
            drift: -self.drift / slope,
            offset: -self.offset / slope,
        }
    }

    /// `self(inner(t))`.
    pub fn after(&self, inner: &Correction) -> Correction {
        Correction {
            drift: self.drift + inner.drift + self.drift * inner.drift,
            offset: self.slope() * inner.offset + self.offset,
        }
    }

    pub fn is_identity(&self) -> bool {
        *self == Correction::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_and_composition_undo_each_other_near_epoch_times() {
        let c = Correction {
            drift: -5.862e-5,
            offset: 7.98e13,
        };
        let t = 1_361_214_076_535_112_167;
        assert_eq!(c.inverse().apply(c.apply(t)), t);
        assert_eq!(c.inverse().after(&c).apply(t), t);
        let twice = c.after(&c);
        assert!((twice.apply(t) - c.apply(c.apply(t))).abs() <= 1);
    }
}
