//! Requests the realm made (`fetch`, `XMLHttpRequest`), as the log needs
//! them. The loader keeps them in plain JavaScript (so a hooked request
//! costs the page almost nothing); the adapter turns one that failed into
//! its line, and a job's list into the `Text network` fence under its
//! reply. Pure: the records come in as data.

use daebug_protocol::text;
use daebug_protocol::{BackgroundEvent, EventType, Level};

use crate::browser_lines::{request, RequestOutcome};

/// A long list shows its first and last ones, as background events do.
const HEAD: usize = 2;
const TAIL: usize = 8;

/// One request as the loader keeps it (times in milliseconds of the
/// realm's clock).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    pub method: String,
    pub url: String,
    pub start: f64,
    /// `None` while it is on its way.
    pub end: Option<f64>,
    /// The status, `0` when there was no answer.
    pub status: u16,
    /// The status text, or why there was no answer.
    pub text: String,
    /// The request's and the response's body digests (docs/log-format.md,
    /// "Request bodies"), and the archive links of bodies that were cut.
    pub sent: String,
    pub answer: String,
    pub links: String,
}

impl RequestRecord {
    /// `GET http://…/api → 404 Not Found (12 ms)`, or `→ pending`; with
    /// the bodies' digests: `PATCH http://…/api/todos/6
    /// {"completed":true} → 204 No Content (38 ms)`.
    pub fn line(&self) -> String {
        let url = match self.sent.is_empty() {
            true => self.url.clone(),
            false => format!("{} {}", self.url, self.sent),
        };
        let Some(end) = self.end else {
            return format!("{} {url} → pending", self.method);
        };
        let outcome = match self.status {
            0 => RequestOutcome::Failed(self.text.clone()),
            code => {
                let words: Vec<&str> = [self.text.as_str(), self.answer.as_str()]
                    .into_iter()
                    .filter(|w| !w.is_empty())
                    .collect();
                RequestOutcome::Status(code, text::join(&words, " "))
            }
        };
        let line = request(&self.method, &url, &outcome, end - self.start);
        match self.links.is_empty() {
            true => line,
            false => format!("{line} {}", self.links),
        }
    }
}

/// A job's requests, one a line, first 2 / … / last 8 when long (with
/// those the loader did not list counted in); `None` when it made none.
pub fn summary(lines: &[String], unlisted: usize) -> Option<String> {
    if lines.is_empty() && unlisted == 0 {
        return None;
    }
    let hidden = lines.len().saturating_sub(HEAD + TAIL) + unlisted;
    let more = format!("... ({hidden} more requests) ...");
    let mut out: Vec<&str> = Vec::new();
    if lines.len() > HEAD + TAIL {
        out.extend(lines[..HEAD].iter().map(String::as_str));
        out.push(&more);
        out.extend(lines[lines.len() - TAIL..].iter().map(String::as_str));
    } else {
        out.extend(lines.iter().map(String::as_str));
        if hidden > 0 {
            out.push(&more);
        }
    }
    Some(text::join(&out, "\n"))
}

/// A `Text network` event.
pub fn network_event(message: String, ts: String) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Browser,
        level: Level::Log,
        source: Some("network".into()),
        ts,
        message,
        stack: None,
    }
}

/// Takes out of a job's events the failed requests its summary lists
/// (the same line): the reply shows each once, in the summary. A failure
/// the summary left out (among its `... (N more requests) ...`) stays.
pub fn drop_listed(events: &mut Vec<BackgroundEvent>, summary: &str) {
    let listed: Vec<&str> = summary.lines().collect();
    events.retain(|e| {
        !(e.kind == EventType::Browser
            && e.source.as_deref() == Some("network")
            && listed.contains(&e.message.as_str()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(url: &str, end: Option<f64>, status: u16, text: &str) -> RequestRecord {
        RequestRecord {
            method: "GET".into(),
            url: url.into(),
            start: 10.0,
            end,
            status,
            text: text.into(),
            sent: String::new(),
            answer: String::new(),
            links: String::new(),
        }
    }

    #[test]
    fn records_read_as_lines() {
        let cases = [
            (
                record("http://h/missing.json", Some(22.4), 404, "Not Found"),
                "GET http://h/missing.json → 404 Not Found (12 ms)",
            ),
            (
                record("http://h/slow", None, 0, ""),
                "GET http://h/slow → pending",
            ),
            (
                record("http://h/x", Some(13.0), 0, "aborted"),
                "GET http://h/x → failed: aborted (3 ms)",
            ),
        ];
        for (r, want) in cases {
            assert_eq!(r.line(), want);
        }
    }

    #[test]
    fn bodies_digests_stand_beside_the_request_and_the_status() {
        let mut r = record("http://h/api/todos/6", Some(48.0), 204, "No Content");
        r.method = "PATCH".into();
        r.sent = "{\"completed\":true}".into();
        assert_eq!(
            r.line(),
            "PATCH http://h/api/todos/6 {\"completed\":true} → 204 No Content (38 ms)"
        );
        let mut r = record("http://h/api/todos", Some(14.0), 200, "");
        r.answer = "[5 × {id, title}] (1.2 KB application/json)".into();
        r.links = "[body](archive/p-1.json)".into();
        assert_eq!(
            r.line(),
            "GET http://h/api/todos → 200 [5 × {id, title}] (1.2 KB application/json) (4 ms) [body](archive/p-1.json)"
        );
    }

    #[test]
    fn a_summary_keeps_the_first_and_last_and_counts_the_rest() {
        assert_eq!(summary(&[], 0), None);
        let lines: Vec<String> = (0..25).map(|i| format!("GET http://h/{i}")).collect();
        let s = summary(&lines, 0).unwrap();
        let got: Vec<&str> = s.lines().collect();
        assert_eq!(got.len(), 11);
        assert_eq!(
            got[..3],
            [
                "GET http://h/0",
                "GET http://h/1",
                "... (15 more requests) ..."
            ]
        );
        assert_eq!(got[10], "GET http://h/24");
        // Short, but the loader listed only so many.
        assert_eq!(
            summary(&lines[..2], 7).unwrap(),
            "GET http://h/0\nGET http://h/1\n... (7 more requests) ..."
        );
    }

    #[test]
    fn a_failure_the_summary_lists_is_shown_once() {
        let failed = "GET http://h/cart.json → 404 Not Found (4 ms)";
        let resource = "img http://h/logo.png failed to load";
        let mut events = vec![
            network_event(failed.into(), "t".into()),
            network_event(resource.into(), "t".into()),
            network_event(
                "GET http://h/older → 500 Internal Server Error (2 ms)".into(),
                "t".into(),
            ),
        ];
        let mut console = network_event(failed.into(), "t".into());
        console.kind = EventType::Console;
        console.source = None;
        events.push(console);
        drop_listed(
            &mut events,
            &format!("GET http://h/ok → 200 OK (1 ms)\n{failed}"),
        );
        let left: Vec<&str> = events.iter().map(|e| e.message.as_str()).collect();
        // The listed failure goes; a resource, an unlisted request and a
        // console line with the same words stay.
        assert_eq!(
            left,
            [
                resource,
                "GET http://h/older → 500 Internal Server Error (2 ms)",
                failed
            ]
        );
    }
}
