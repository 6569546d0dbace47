//! Pure, time passed in: the browser bridge's lines for one log, less
//! what any adapter already reported (docs/browser-bridge.md, "Not
//! twice"). The bridge often hears a thing before the adapter's report of
//! it arrives (the adapter sends events outside a job within 20 ms), so
//! each line waits: until the adapter's next batch of events sent after it
//! ([`SETTLE`] after the line, so it was sent after the adapter saw the
//! same thing: a batch carries all the adapter held), or at most [`HOLD`].
//! It is let go unless an adapter event said the same meanwhile or within
//! [`REMEMBER`] before, in this realm or any other ([`Said`] is the hub's
//! one record: a same-process iframe's failed request is its page's
//! `Log` entry, and the iframe's adapter reported it). Two lines alike are
//! two events: each is written.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
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
/// How long an adapter event counts as said.
pub const REMEMBER: Duration = Duration::from_secs(10);
/// Lines held at most in one log (a flood is thinned later).
const KEPT: usize = 256;
/// Adapter events remembered at most, for all realms together.
const SAID_KEPT: usize = 2_048;

/// What the adapters of every realm said lately that a bridge line could
/// repeat: errors and the browser's events (failed requests, reports), as
/// text (message and stack). Console calls are not kept: the browser's
/// own messages never repeat one (what Chromium copies of a worker's
/// console to its page is not read, `cdp/lines.rs`). Shared by the log
/// tasks of one hub.
#[derive(Debug, Clone, Default)]
pub struct Said(Arc<Mutex<VecDeque<(Instant, EventType, String)>>>);

impl Said {
    /// Events an adapter sent, at `now`.
    pub fn record(&self, events: &[BackgroundEvent], now: Instant) {
        let mut said = self.lock();
        forget(&mut said, now);
        for e in events.iter().filter(|e| e.kind != EventType::Console) {
            let mut text = e.message.clone();
            if let Some(s) = &e.stack {
                text.push('\n');
                text.push_str(s);
            }
            said.push_back((now, e.kind, text));
        }
        while said.len() > SAID_KEPT {
            said.pop_front();
        }
    }

    /// Whether an adapter, in any realm, said what the line says lately.
    pub fn said(&self, line: &BrowserLine, now: Instant) -> bool {
        let mut said = self.lock();
        forget(&mut said, now);
        reported(line, &said)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(Instant, EventType, String)>> {
        // A log task that panicked holding it left a whole record.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn forget(said: &mut VecDeque<(Instant, EventType, String)>, now: Instant) {
    while said.front().is_some_and(|(at, _, _)| *at + REMEMBER < now) {
        said.pop_front();
    }
}

#[derive(Debug, Default)]
pub struct BrowserSeen {
    held: VecDeque<(Instant, BrowserLine)>,
    /// What the adapters said lately (this hub's one record).
    said: Said,
    /// Lines that came by then are due: a batch of the adapter's came
    /// [`SETTLE`] after them.
    settled: Option<Instant>,
    /// Lines not held because [`KEPT`] were waiting: counted, and said
    /// with the next lines let go.
    overflow: u32,
}

impl BrowserSeen {
    /// The lines of one log, told apart from what `said` records.
    pub fn new(said: Said) -> Self {
        BrowserSeen {
            said,
            ..BrowserSeen::default()
        }
    }

    /// A line from the bridge.
    pub fn handle_line(&mut self, line: BrowserLine, now: Instant) {
        if self.held.len() < KEPT {
            self.held.push_back((now, line));
        } else {
            self.overflow = self.overflow.saturating_add(1);
        }
    }

    /// Events this log's adapter sent (in a job's progress or result, or
    /// on their own): all it held when it sent them.
    pub fn handle_adapter(&mut self, events: &[BackgroundEvent], now: Instant) {
        self.settled = now.checked_sub(SETTLE).max(self.settled);
        self.said.record(events, now);
        // What it said now rules out held lines at once.
        let said = &self.said;
        self.held.retain(|(_, l)| !said.said(l, now));
    }

    /// The lines whose wait is over and that no adapter said, and how
    /// many lines were dropped unheld since the last call (a flood past
    /// [`KEPT`] waiting).
    pub fn poll(&mut self, now: Instant) -> (Vec<BrowserLine>, u32) {
        let mut out = Vec::new();
        while let Some((at, _)) = self.held.front() {
            if now < *at + HOLD && self.settled.is_none_or(|s| *at > s) {
                break;
            }
            let (_, line) = self.held.pop_front().expect("front");
            if !self.said.said(&line, now) {
                out.push(line);
            }
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
    fn two_lines_alike_are_two_events() {
        // The trial's worker printed `out: {"left":2,"doneToday":1}` twice
        // in a row; one of the two was dropped without a word.
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        seen.handle_line(line(FAVICON, About::Request("u".into())), t0);
        seen.handle_line(line(FAVICON, About::Request("u".into())), t0);
        assert_eq!(seen.poll_lines(t0 + HOLD).len(), 2);
        seen.handle_line(line(FAVICON, About::Request("u".into())), t0 + HOLD);
        assert_eq!(seen.poll_lines(t0 + HOLD * 2).len(), 1);
    }

    #[test]
    fn what_another_realms_adapter_said_is_left_out_too() {
        // A same-process iframe's failed request comes as its page's
        // `Log` entry; the iframe's adapter reported it in its own log.
        let t0 = Instant::now();
        let said = Said::default();
        let mut page = BrowserSeen::new(said.clone());
        let mut frame = BrowserSeen::new(said.clone());
        let url = "http://h/frame-missing.json";
        page.handle_line(
            line(
                &format!("network: Failed to load resource: the server responded with a status of 404 (Not Found) ({url})"),
                About::Request(url.into()),
            ),
            t0,
        );
        frame.handle_adapter(
            &[event(
                EventType::Browser,
                &format!("GET {url} → 404 Not Found (3 ms)"),
            )],
            t0 + Duration::from_millis(20),
        );
        assert!(page.poll_lines(t0 + HOLD).is_empty());
        // A page of another hub (another record) is not told.
        let mut other = BrowserSeen::default();
        other.handle_line(line("network: x", About::Request(url.into())), t0);
        assert_eq!(other.poll_lines(t0 + HOLD).len(), 1);
    }

    #[test]
    fn console_calls_are_not_what_the_browser_says() {
        let t0 = Instant::now();
        let mut seen = BrowserSeen::default();
        seen.handle_adapter(
            &[event(EventType::Console, "deprecation: x is deprecated")],
            t0,
        );
        seen.handle_line(
            line(
                "deprecation: x is deprecated",
                About::Message("x is deprecated".into()),
            ),
            t0,
        );
        assert_eq!(seen.poll_lines(t0 + HOLD).len(), 1);
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
