//! Time as the engine sees it: passed in, never read from a clock.
//!
//! Two readings travel together in [`Now`]: a monotonic count of
//! milliseconds for deadlines and elapsed time, and the hub's local
//! wall-clock time of day for the `HH:MM:SS` stamps written into logs.

use std::fmt;
use std::time::Duration;

/// Milliseconds on a monotonic scale with an arbitrary origin (the shell
/// uses the hub's start). Only differences between two values mean anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Millis(pub u64);

impl Millis {
    /// `self - earlier`, or zero if `earlier` is later (never panics).
    pub fn since(self, earlier: Millis) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// `self + ms`, saturating.
    pub fn plus(self, ms: u64) -> Millis {
        Millis(self.0.saturating_add(ms))
    }

    /// `self - earlier` as a duration, or zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Millis) -> Duration {
        Duration::from_millis(self.since(earlier))
    }

    /// The same, for the parts that had instants (never panics either).
    pub fn duration_since(self, earlier: Millis) -> Duration {
        self.saturating_duration_since(earlier)
    }
}

/// A deadline `d` after a reading (saturating; sub-millisecond parts are
/// dropped, as the scale has none).
impl std::ops::Add<Duration> for Millis {
    type Output = Millis;

    fn add(self, d: Duration) -> Millis {
        self.plus(d.as_millis().min(u64::MAX as u128) as u64)
    }
}

/// A local time of day, printed as `HH:MM:SS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockTime {
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
}

impl ClockTime {
    /// Parses exactly `HH:MM:SS` with a valid hour, minute and second.
    pub fn parse(s: &str) -> Option<ClockTime> {
        let b = s.as_bytes();
        if b.len() != 8 || b[2] != b':' || b[5] != b':' {
            return None;
        }
        let two = |i: usize| -> Option<u8> {
            let (hi, lo) = (b[i], b[i + 1]);
            (hi.is_ascii_digit() && lo.is_ascii_digit()).then(|| (hi - b'0') * 10 + (lo - b'0'))
        };
        let (hour, minute, second) = (two(0)?, two(3)?, two(6)?);
        (hour < 24 && minute < 60 && second < 60).then_some(ClockTime {
            hour,
            minute,
            second,
        })
    }
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

/// The moment an input is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// For deadlines, elapsed time and the placeholder refresh cadence.
    pub mono: Millis,
    /// For the stamps written into the log.
    pub clock: ClockTime,
}

/// Durations as the log shows them: `Nms` below two seconds, else seconds
/// with one decimal (`7.0s`).
pub fn format_duration(ms: u64) -> String {
    if ms < 2000 {
        format!("{ms}ms")
    } else {
        // Integer arithmetic keeps the rounding exact: tenths, half up.
        format_timeout(ms)
    }
}

/// A timeout as the log shows it: seconds with one decimal (`60.0s`).
pub fn format_timeout(ms: u64) -> String {
    let tenths = ms.saturating_add(50) / 100;
    format!("{}.{}s", tenths / 10, tenths % 10)
}

/// Parses a fence option value such as `120s`, `500ms`, `2m` or a bare
/// number of seconds. Zero and values above a day are refused so a typo
/// cannot park a realm forever.
pub fn parse_timeout(value: &str) -> Option<u64> {
    const DAY_MS: u64 = 24 * 60 * 60 * 1000;
    let (digits, unit_ms) = if let Some(n) = value.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = value.strip_suffix('s') {
        (n, 1000)
    } else if let Some(n) = value.strip_suffix('m') {
        (n, 60_000)
    } else {
        (value, 1000)
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 9 {
        return None;
    }
    let ms = digits.parse::<u64>().ok()?.checked_mul(unit_ms)?;
    (ms > 0 && ms <= DAY_MS).then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(format_duration(0), "0ms");
        assert_eq!(format_duration(1999), "1999ms");
        assert_eq!(format_duration(2000), "2.0s");
        assert_eq!(format_duration(7049), "7.0s");
        assert_eq!(format_duration(7050), "7.1s");
        assert_eq!(format_duration(60_000), "60.0s");
        assert_eq!(format_duration(u64::MAX), "18446744073709551.6s");
    }

    #[test]
    fn clock_round_trip() {
        let t = ClockTime::parse("09:05:07").unwrap();
        assert_eq!(t.to_string(), "09:05:07");
        for bad in [
            "9:05:07", "24:00:00", "10:60:00", "10:00:60", "aa:bb:cc", "10-00-00", "",
        ] {
            assert_eq!(ClockTime::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout("120s"), Some(120_000));
        assert_eq!(parse_timeout("500ms"), Some(500));
        assert_eq!(parse_timeout("2m"), Some(120_000));
        assert_eq!(parse_timeout("90"), Some(90_000));
        for bad in ["", "s", "0s", "-1s", "1.5s", "2h", "99999999999s", "25m0"] {
            assert_eq!(parse_timeout(bad), None, "{bad}");
        }
    }
}
