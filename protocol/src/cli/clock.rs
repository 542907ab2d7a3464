//! How tables and text write times for people: from the trace's start (the
//! default, so that two commands on one trace show the same numbers), on
//! the trace's own clock (babeltrace2's `--clock-seconds`), or as a UTC date
//! and time of day (what Trace Compass shows). Machine output (JSON, CSV,
//! exports, `dump --format jsonl`) always keeps absolute ns.

use std::path::Path;

use anyhow::bail;
use clap::ValueEnum;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Clock {
    /// Seconds from the trace's first event (each host's own).
    #[default]
    Relative,
    /// Seconds on the trace's clock.
    Absolute,
    /// UTC date and time, for clocks that count from the Unix epoch.
    Wall,
}

#[derive(clap::Args, Clone, Copy)]
pub struct ClockArg {
    /// How tables and text write times: seconds from the trace's first
    /// event (relative), seconds on the trace's clock (absolute), or the
    /// UTC date and time (wall). JSON, CSV and exports always give
    /// absolute ns.
    #[arg(long, value_enum, default_value_t)]
    pub clock: Clock,
}

/// 2000-01-01T00:00:00Z in ns: a clock whose times start earlier counts
/// from something other than the Unix epoch (a boot, a simulation's start).
const EPOCH_2000_NS: i64 = 946_684_800 * 1_000_000_000;

impl Clock {
    /// Refuses `wall` for a trace whose first time is not a date.
    pub fn check(self, first_ts: Option<i64>, trace: &Path) -> anyhow::Result<()> {
        match (self, first_ts) {
            (Clock::Wall, Some(first)) if first < EPOCH_2000_NS => bail!(
                "{}: --clock wall: the trace's clock does not count from the Unix epoch \
                 (its first event is at {} s, not a date: a clock from boot or from a \
                 simulation's start); use --clock relative or absolute",
                trace.display(),
                seconds(first)
            ),
            _ => Ok(()),
        }
    }

    /// `ts` as this clock writes it, `origin` being the trace's (or its
    /// host's) first event.
    pub fn show(self, ts: i64, origin: i64) -> String {
        match self {
            Clock::Relative => seconds(ts - origin),
            Clock::Absolute => seconds(ts),
            Clock::Wall => wall(ts),
        }
    }

    /// What the numbers of [`Clock::show`] are, for a column header.
    pub fn unit(self) -> &'static str {
        match self {
            Clock::Relative => "s from start",
            Clock::Absolute => "s",
            Clock::Wall => "UTC",
        }
    }

    /// `ts` with its unit, for a sentence.
    pub fn phrase(self, ts: i64, origin: i64) -> String {
        let unit = match self {
            Clock::Relative => "s from the trace's start",
            Clock::Absolute => "s on the trace's clock",
            Clock::Wall => "UTC",
        };
        format!("{} {unit}", self.show(ts, origin))
    }
}

/// ns as seconds with every digit: "-0.000001500", "12.345678901".
fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    format!("{sign}{}.{:09}", abs / 1_000_000_000, abs % 1_000_000_000)
}

/// ns since the Unix epoch as "2024-03-05 14:07:09.123456789".
fn wall(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000);
    let (days, of_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{frac:09}",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01: counted in
/// 400-year eras (146,097 days each) from 0000-03-01, so that the leap day
/// ends a year.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_keep_every_digit_and_the_sign() {
        assert_eq!(seconds(12_345_678_901), "12.345678901");
        assert_eq!(seconds(-1_500), "-0.000001500");
        assert_eq!(seconds(0), "0.000000000");
    }

    #[test]
    fn wall_times_are_utc_dates() {
        // Checked with `date -u -d @SECONDS`.
        assert_eq!(wall(0), "1970-01-01 00:00:00.000000000");
        assert_eq!(
            wall(1_709_647_629_123_456_789),
            "2024-03-05 14:07:09.123456789"
        );
        assert_eq!(
            wall(951_782_400_000_000_001),
            "2000-02-29 00:00:00.000000001"
        );
        assert_eq!(wall(-1), "1969-12-31 23:59:59.999999999");
    }

    #[test]
    fn relative_is_from_the_origin() {
        assert_eq!(
            Clock::Relative.show(3_000_000_500, 1_000_000_000),
            "2.000000500"
        );
        assert_eq!(
            Clock::Absolute.show(3_000_000_500, 1_000_000_000),
            "3.000000500"
        );
    }

    #[test]
    fn wall_needs_a_date() {
        let p = Path::new("t");
        assert!(Clock::Wall.check(Some(5_000_000_000), p).is_err());
        assert!(Clock::Wall.check(Some(EPOCH_2000_NS), p).is_ok());
        assert!(Clock::Absolute.check(Some(5), p).is_ok());
    }
}
