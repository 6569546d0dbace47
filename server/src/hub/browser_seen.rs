//! Pure, time passed in: the browser bridge's lines for one log, less
//! what the adapter already reported. The bridge often hears a thing
//! before the adapter's report of it arrives (the adapter sends events
//! outside a job once the oldest has waited 3 s), so each line waits:
//! until the adapter's next batch of events sent after it ([`SETTLE`]
//! after the line, so it was sent after the adapter saw the same thing:
//! a batch carries all the adapter held), or at most [`HOLD`]. It is let
//! go unless an adapter event said the same meanwhile or within
//! [`REMEMBER`] before. The same line twice within [`SAME_LINE`] is one
//! (a browser may say a thing once per session it has).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use daebug_protocol::{BackgroundEvent, EventType};

use crate::cdp::lines::{without_uncaught, About, BrowserLine};

/// A bridge line's wait for the adapter's word on the same thing: a job's
/// progress interval (1 s; background events come within 20 ms) and some
/// room. Only the bridge's own lines wait; the adapter's never do.
pub const HOLD: Duration = Duration::from_millis(1_500);
/// A batch of the adapter's that arrives this long after a line was sent
/// after the adapter saw what the line is about.
pub const SETTLE: Duration = Duration::from_millis(250);
/// The same line again within this long is the same report.
pub const SAME_LINE: Duration = Duration::from_secs(1);
/// How long an adapter event (or a line let go) counts as said.
pub const REMEMBER: Duration = Duration::from_secs(10);
/// Lines and adapter events kept at most (a flood is thinned later).
const KEPT: usize = 256;

#[derive(Debug, Default)]
pub struct BrowserSeen {
    held: VecDeque<(Instant, BrowserLine)>,
    /// What the adapter said lately, as text (message and stack).
    said: VecDeque<(Instant, EventType, String)>,
    /// Lines let go lately.
    sent: VecDeque<(Instant, String)>,
    /// Lines that came by then are due: a batch of the adapter's came
    /// [`SETTLE`] after them.
    settled: Option<Instant>,
    /// Lines not held because [`KEPT`] were waiting: counted, and said
    /// with the next lines let go.
    overflow: u32,
}

impl BrowserSeen {
    /// A line from the bridge.
    pub fn handle_line(&mut self, line: BrowserLine, now: Instant) {
        self.forget(now);
        if self.held.len() < KEPT {
            self.held.push_back((now, line));
        } else {
            self.overflow = self.overflow.saturating_add(1);
        }
    }

    /// Events the adapter sent (in a job's progress or result, or on
    /// their own): all it held when it sent them.
    pub fn handle_adapter(&mut self, events: &[BackgroundEvent], now: Instant) {
        self.forget(now);
        self.settled = now.checked_sub(SETTLE).max(self.settled);
        for e in events {
            let mut text = e.message.clone();
            if let Some(s) = &e.stack {
                text.push('\n');
                text.push_str(s);
            }
            self.said.push_back((now, e.kind, text));
        }
        while self.said.len() > KEPT {
            self.said.pop_front();
        }
        // What it said now rules out held lines at once.
        let said = &self.said;
        self.held.retain(|(_, l)| !reported(l, said));
    }

    /// The lines whose wait is over and that the adapter did not say, and
    /// how many lines were dropped unheld since the last call (a flood
    /// past [`KEPT`] waiting).
    pub fn poll(&mut self, now: Instant) -> (Vec<BrowserLine>, u32) {
        self.forget(now);
        let mut out = Vec::new();
        while let Some((at, _)) = self.held.front() {
            if now < *at + HOLD && self.settled.is_none_or(|s| *at > s) {
                break;
            }
            let (_, line) = self.held.pop_front().expect("front");
            let again = self.sent.iter().any(|(_, m)| *m == line.message);
            if reported(&line, &self.said) || again {
                continue;
            }
            self.sent.push_back((now, line.message.clone()));
            out.push(line);
        }
        (out, std::mem::take(&mut self.overflow))
    }

    /// When [`Self::poll`] has something to let go (a drop is told with
    /// the lines held when it happened: the holder was full).
    pub fn next_wake(&self) -> Option<Instant> {
        let (at, _) = self.held.front()?;
        Some(match self.settled {
            Some(s) if *at <= s => *at,
            _ => *at + HOLD,
        })
    }

    fn forget(&mut self, now: Instant) {
        while self
            .said
            .front()
            .is_some_and(|(at, _, _)| *at + REMEMBER < now)
        {
            self.said.pop_front();
        }
        while self
            .sent
            .front()
            .is_some_and(|(at, _)| *at + SAME_LINE < now)
        {
            self.sent.pop_front();
        }
    }
}

/// Whether the adapter said what the line says: the same exception (an
/// error event whose text holds its message), a request to the same URL
/// (a network event naming it), or the same message.
fn reported(line: &BrowserLine, said: &VecDeque<(Instant, EventType, String)>) -> bool {
    said.iter().any(|(_, kind, text)| match &line.about {
        About::Exception(m) => {
            *kind == EventType::Error && {
                let first = m.lines().next().unwrap_or("");
                !first.is_empty() && without_uncaught(text).contains(first)
            }
        }
        About::Request(url) => *kind == EventType::Browser && text.contains(url.as_str()),
        About::Message(m) => text.contains(m.as_str()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_protocol::Level;

    fn line(message: &str, about: About) -> BrowserLine {
        BrowserLine {
            message: message.into(),
            stack: None,
            level: Level::Error,
            about,
        }
    }

    fn event(kind: EventType, message: &str) -> BackgroundEvent {
        BackgroundEvent {
            kind,
            level: Level::Error,
            source: None,
            ts: "t".into(),
            message: message.into(),
            stack: None,
        }
    }

    impl BrowserSeen {
        fn poll_lines(&mut self, now: Instant) -> Vec<BrowserLine> {
            self.poll(now).0
        }
    }

    const FAVICON: &str = "network: Failed to load resource: the server responded with a status of 404 (Not Found) (http://h/favicon.ico)";

    #[test]
    fn a_line_the_adapter_never_said_goes_after_the_hold() {
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        seen.handle_line(
            line(FAVICON, About::Request("http://h/favicon.ico".into())),
            t0,
        );
        assert_eq!(seen.next_wake(), Some(t0 + HOLD));
        assert!(seen
            .poll_lines(t0 + HOLD - Duration::from_millis(1))
            .is_empty());
        let out = seen.poll_lines(t0 + HOLD);
        assert_eq!(out.len(), 1);
        assert_eq!(seen.next_wake(), None);
    }

    #[test]
    fn what_the_adapter_said_before_or_during_the_hold_is_left_out() {
        let cases: [(&str, About, EventType, &str); 3] = [
            (
                "Uncaught TypeError: boom",
                About::Exception("TypeError: boom".into()),
                EventType::Error,
                "Uncaught TypeError: boom",
            ),
            (
                "network: Failed to load resource: the server responded with a status of 404 (Not Found) (http://h/missing.json)",
                About::Request("http://h/missing.json".into()),
                EventType::Browser,
                "GET http://h/missing.json → 404 Not Found (4 ms)",
            ),
            (
                "deprecation: x is deprecated",
                About::Message("x is deprecated".into()),
                EventType::Browser,
                "deprecation: x is deprecated (at a.js:1:1)",
            ),
        ];
        for (message, about, kind, said) in cases {
            let t0 = Instant::now();
            // Said after the line came, within the hold.
            let mut seen = BrowserSeen::default();
            seen.handle_line(line(message, about.clone()), t0);
            seen.handle_adapter(&[event(kind, said)], t0 + Duration::from_millis(900));
            assert!(seen.poll_lines(t0 + HOLD).is_empty(), "{message}");
            // Said before it.
            let mut seen = BrowserSeen::default();
            seen.handle_adapter(&[event(kind, said)], t0);
            seen.handle_line(line(message, about.clone()), t0 + Duration::from_secs(1));
            assert!(
                seen.poll_lines(t0 + Duration::from_secs(9)).is_empty(),
                "{message}"
            );
            // Said long before: it counts no more.
            let mut seen = BrowserSeen::default();
            seen.handle_adapter(&[event(kind, said)], t0);
            let later = t0 + REMEMBER + Duration::from_secs(1);
            seen.handle_line(line(message, about), later);
            assert_eq!(seen.poll_lines(later + HOLD).len(), 1, "{message}");
        }
    }

    #[test]
    fn an_error_of_another_kind_or_message_does_not_count() {
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        seen.handle_line(
            line(
                "Uncaught (in promise) SyntaxError: bad",
                About::Exception("SyntaxError: bad".into()),
            ),
            t0,
        );
        seen.handle_adapter(&[event(EventType::Console, "SyntaxError: bad")], t0);
        seen.handle_adapter(&[event(EventType::Error, "TypeError: other")], t0);
        assert_eq!(seen.poll_lines(t0 + HOLD).len(), 1);
    }

    #[test]
    fn the_same_line_twice_at_once_is_written_once() {
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        seen.handle_line(line(FAVICON, About::Request("u".into())), t0);
        seen.handle_line(line(FAVICON, About::Request("u".into())), t0);
        assert_eq!(seen.poll_lines(t0 + HOLD).len(), 1);
        // Later, the same thing again is news.
        seen.handle_line(line(FAVICON, About::Request("u".into())), t0 + HOLD);
        assert_eq!(seen.poll_lines(t0 + HOLD * 2).len(), 1);
    }

    #[test]
    fn an_adapter_batch_sent_after_a_line_lets_it_go_at_once() {
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        seen.handle_line(
            line(FAVICON, About::Request("http://h/favicon.ico".into())),
            t0,
        );
        // A batch right after the line may have left before the adapter
        // saw the same thing: no verdict yet.
        seen.handle_adapter(&[event(EventType::Console, "x")], t0 + SETTLE / 2);
        assert_eq!(seen.next_wake(), Some(t0 + HOLD));
        assert!(seen.poll_lines(t0 + SETTLE / 2).is_empty());
        // One later did not say it: the line goes now.
        let t1 = t0 + SETTLE * 2;
        seen.handle_adapter(&[event(EventType::Console, "y")], t1);
        assert_eq!(seen.next_wake(), Some(t0));
        assert_eq!(seen.poll_lines(t1).len(), 1);
    }

    #[test]
    fn a_flood_past_what_is_held_is_counted() {
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        for i in 0..KEPT + 3 {
            seen.handle_line(
                line(&format!("line {i}"), About::Message(format!("m{i}"))),
                t0,
            );
        }
        let (out, dropped) = seen.poll(t0 + HOLD);
        assert_eq!((out.len(), dropped), (KEPT, 3));
        assert_eq!(seen.poll(t0 + HOLD).1, 0, "told once");
    }
}
