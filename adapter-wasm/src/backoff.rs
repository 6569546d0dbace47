//! How long to wait before reconnecting to the hub: exponential backoff
//! with jitter, so pages of a restarted hub do not all knock at once.

/// First wait, in milliseconds.
pub const BASE_MS: u64 = 250;
/// Longest wait, in milliseconds.
pub const CAP_MS: u64 = 10_000;

/// Reconnection attempts since the last good connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backoff {
    attempt: u32,
}

impl Backoff {
    /// The wait before the next attempt. `random` in `[0, 1)` spreads it
    /// over the upper half of the exponential step ("equal jitter"): never
    /// zero, never above the cap.
    pub fn next_delay(&mut self, random: f64) -> u64 {
        let step = BASE_MS
            .saturating_mul(1u64 << self.attempt.min(16))
            .min(CAP_MS);
        self.attempt = self.attempt.saturating_add(1);
        let random = if random.is_finite() {
            random.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let half = step / 2;
        half + (half as f64 * random) as u64
    }

    /// A connection was established and welcomed: start over.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_then_caps() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..8).map(|_| b.next_delay(1.0)).collect();
        assert_eq!(waits, [250, 500, 1000, 2000, 4000, 8000, 10000, 10000]);
    }

    #[test]
    fn jitter_stays_in_the_upper_half() {
        let mut b = Backoff::default();
        assert_eq!(b.next_delay(0.0), 125);
        let mut b = Backoff::default();
        assert_eq!(b.next_delay(0.5), 187);
        let mut b = Backoff::default();
        assert_eq!(b.next_delay(f64::NAN), 187);
        for _ in 0..100 {
            let d = b.next_delay(0.999);
            assert!((d > 0) && d <= CAP_MS, "{d}");
        }
    }

    #[test]
    fn reset_starts_over() {
        let mut b = Backoff::default();
        for _ in 0..5 {
            b.next_delay(1.0);
        }
        b.reset();
        assert_eq!(b.next_delay(1.0), 250);
    }
}
