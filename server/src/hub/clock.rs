//! The hub's reading of time, handed to the engine as [`Now`].

use chrono::Timelike;
use tokio::time::Instant;

use daebug_core::engine::{ClockTime, Millis, Now};

/// Monotonic milliseconds since the hub started, plus local wall time.
/// Built on tokio's clock so tests with paused time drive it.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// The origin of [`Millis`].
    start: Instant,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            start: Instant::now(),
        }
    }

    pub fn now(&self) -> Now {
        Now {
            mono: self.millis(),
            clock: wall(),
        }
    }

    pub fn millis(&self) -> Millis {
        Millis(self.start.elapsed().as_millis() as u64)
    }

    /// The first [`Millis`] reading at or after `at` (a deadline the
    /// core is given: never due before `at`).
    pub fn millis_at(&self, at: Instant) -> Millis {
        let d = at.saturating_duration_since(self.start);
        Millis(d.as_millis() as u64 + u64::from(!d.subsec_nanos().is_multiple_of(1_000_000)))
    }

    /// The instant a [`Millis`] reading stands for (to sleep until it).
    pub fn instant(&self, at: Millis) -> Instant {
        self.start + std::time::Duration::from_millis(at.0)
    }
}

/// The local time of day, for stamps written into logs.
pub fn wall() -> ClockTime {
    let t = chrono::Local::now();
    ClockTime {
        hour: t.hour() as u8,
        minute: t.minute() as u8,
        second: t.second() as u8,
    }
}
