//! Background events on their way from a realm to its log, bounded in
//! the hub whatever the realm sends (docs/log-format.md, "Floods"): at
//! most [`EVENTS_PER_SECOND`] events a second are kept (the rest are
//! counted, and the count is written), and they are written at most once
//! per [`FLUSH_EVERY`], so a chatty page costs a few writes a second, not
//! one per message.
//!
//! Pure: events and `now` in, batches out; the log task owns the timer.

use std::time::Duration;

use crate::engine::Millis;
use daebug_protocol::BackgroundEvent;

pub use crate::engine::render::EVENTS_PER_SECOND;

/// The shortest time between two background writes of one log.
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);

/// Events held for one write at most; past it they count as dropped by
/// the realm (a write shows the first 2 and the last 8 anyway).
const MAX_HELD: usize = 1_000;

/// What to write: the events, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flush {
    pub events: Vec<BackgroundEvent>,
    /// Dropped before the hub (the realm's own limits) or past
    /// [`MAX_HELD`].
    pub dropped: u32,
    /// Dropped by the realm at its rate limit.
    pub limited: u32,
    /// Dropped here, over [`EVENTS_PER_SECOND`].
    pub over_rate: u32,
}

/// See the module docs.
#[derive(Debug, Default)]
pub struct BackgroundGate {
    held: Vec<BackgroundEvent>,
    dropped: u32,
    limited: u32,
    over_rate: u32,
    /// The current one-second window and how many events it kept.
    window: Option<(Millis, u32)>,
    last_flush: Option<Millis>,
}

impl BackgroundGate {
    /// A realm's batch of background events arrived.
    pub fn offer(&mut self, events: Vec<BackgroundEvent>, dropped: u32, limited: u32, now: Millis) {
        self.dropped = self.dropped.saturating_add(dropped);
        self.limited = self.limited.saturating_add(limited);
        for e in events {
            let (start, kept) = match self.window {
                Some((start, kept)) if now.duration_since(start) < Duration::from_secs(1) => {
                    (start, kept)
                }
                _ => (now, 0),
            };
            if kept >= EVENTS_PER_SECOND {
                self.over_rate = self.over_rate.saturating_add(1);
                self.window = Some((start, kept));
            } else if self.held.len() >= MAX_HELD {
                self.dropped = self.dropped.saturating_add(1);
                self.window = Some((start, kept + 1));
            } else {
                self.held.push(e);
                self.window = Some((start, kept + 1));
            }
        }
    }

    /// When the held events should be written (`None`: nothing held);
    /// `now` when the first batch after a quiet spell waits.
    pub fn due(&self, now: Millis) -> Option<Millis> {
        if self.held.is_empty() && self.dropped == 0 && self.limited == 0 && self.over_rate == 0 {
            return None;
        }
        Some(match self.last_flush {
            Some(at) => at + FLUSH_EVERY,
            // The first batch after a quiet spell goes at once.
            None => now,
        })
    }

    /// Takes what is held (for a write now: when due, or before another
    /// input of the realm, so the log keeps the order things happened in).
    pub fn take(&mut self, now: Millis) -> Option<Flush> {
        self.due(now)?;
        self.last_flush = Some(now);
        Some(Flush {
            events: std::mem::take(&mut self.held),
            dropped: std::mem::take(&mut self.dropped),
            limited: std::mem::take(&mut self.limited),
            over_rate: std::mem::take(&mut self.over_rate),
        })
    }

    /// Forgets when the last write was, after a quiet spell of at least
    /// [`FLUSH_EVERY`] (so a lone event is written at once).
    pub fn idle(&mut self, now: Millis) {
        if self.held.is_empty() && self.last_flush.is_some_and(|at| now >= at + FLUSH_EVERY) {
            self.last_flush = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_protocol::{EventType, Level};

    fn event(i: usize) -> BackgroundEvent {
        BackgroundEvent {
            kind: EventType::Console,
            level: Level::Log,
            source: None,
            ts: String::new(),
            message: format!("e{i}"),
            stack: None,
        }
    }

    #[test]
    fn a_flood_is_cut_at_the_rate_and_counted() {
        let t0 = Millis(1_000);
        let mut g = BackgroundGate::default();
        g.offer((0..1_000).map(event).collect(), 3, 0, t0);
        let f = g.take(t0).unwrap();
        assert_eq!(f.events.len(), EVENTS_PER_SECOND as usize);
        assert_eq!((f.dropped, f.over_rate), (3, 800));
        // The next second keeps 200 again.
        let t1 = t0 + Duration::from_secs(1);
        g.offer((0..300).map(event).collect(), 0, 0, t1);
        assert_eq!(g.due(t1), Some(t0 + FLUSH_EVERY));
        let f = g.take(t1).unwrap();
        assert_eq!((f.events.len(), f.over_rate), (200, 100));
        assert!(g.take(t1).is_none(), "nothing held");
    }

    #[test]
    fn writes_are_spaced_and_a_lone_event_goes_at_once() {
        let t0 = Millis(1_000);
        let mut g = BackgroundGate::default();
        assert_eq!(g.due(t0), None);
        g.offer(vec![event(1)], 0, 0, t0);
        assert_eq!(g.due(t0), Some(t0));
        g.take(t0).unwrap();
        let t1 = t0 + Duration::from_millis(10);
        g.offer(vec![event(2)], 0, 0, t1);
        assert_eq!(g.due(t1), Some(t0 + FLUSH_EVERY));
        g.take(t0 + FLUSH_EVERY).unwrap();
        let t3 = t0 + FLUSH_EVERY * 3;
        g.idle(t3);
        g.offer(vec![event(3)], 0, 0, t3);
        assert_eq!(g.due(t3), Some(t3));
    }
}
