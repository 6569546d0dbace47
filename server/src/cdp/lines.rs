//! Pure: what the browser says, as a line of the log. Of the DevTools
//! events the bridge hears, two carry what no page event reports: an
//! exception the page never saw as `error` or `unhandledrejection`
//! (`Runtime.exceptionThrown`), and the browser's own messages
//! (`Log.entryAdded`: failed loads, CORS and private-network refusals,
//! interventions). Console calls (`Runtime.consoleAPICalled`) are the
//! adapter's to report and are not read here; nor is what Chromium tells
//! a page of its workers (`Log.entryAdded` from source `worker`: their
//! console and their uncaught errors, each already said in the worker's
//! own session and its adapter's log), nor the browser's own request for
//! a site's `favicon.ico` (docs/browser-bridge.md, "What the log shows").

use daebug_protocol::{BackgroundEvent, EventType, Level};
use serde_json::Value;

/// Where in a target the line came from, to find its realm.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// An execution context (a frame's or a worker's realm).
    Context(i64),
    /// The target as a whole: its main realm.
    Target,
}

/// What a line is about, to tell whether the adapter said it already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum About {
    /// An uncaught exception, by its message without `Uncaught `.
    Exception(String),
    /// A request or resource, by its URL.
    Request(String),
    /// Anything else, by its text.
    Message(String),
}

/// One thing the browser said about a realm.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserLine {
    pub message: String,
    /// The exception's stack, for the hub to map as any stack.
    pub stack: Option<String>,
    pub level: Level,
    pub about: About,
}

impl BrowserLine {
    /// As a background event: `Text browser` in the log.
    pub fn into_event(self, ts: String) -> BackgroundEvent {
        BackgroundEvent {
            kind: EventType::Browser,
            level: self.level,
            source: Some(SOURCE.into()),
            ts,
            message: self.message,
            stack: self.stack,
        }
    }
}

/// The event source (and fence info `Text browser`).
pub const SOURCE: &str = "browser";

/// The line a DevTools event makes, and where it came from; `None` for
/// events that make none.
pub fn line_of(method: &str, params: &Value) -> Option<(Place, BrowserLine)> {
    match method {
        "Runtime.exceptionThrown" => exception(params.get("exceptionDetails")?),
        "Log.entryAdded" => log_entry(params.get("entry")?),
        _ => None,
    }
}

fn exception(details: &Value) -> Option<(Place, BrowserLine)> {
    let text = details
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("Uncaught");
    let description = details
        .pointer("/exception/description")
        .and_then(Value::as_str);
    let first = description.and_then(|d| d.lines().next()).unwrap_or("");
    // `text` is `Uncaught` (or `Uncaught (in promise)`), sometimes with
    // the message already; the description starts with the message.
    let message = if first.is_empty() || text.contains(first) {
        text.to_string()
    } else {
        format!("{text} {first}")
    };
    let stack = description
        .filter(|d| d.contains("\n    at "))
        .map(str::to_string);
    let place = details
        .get("executionContextId")
        .and_then(Value::as_i64)
        .map_or(Place::Target, Place::Context);
    let about = About::Exception(without_uncaught(&message).to_string());
    Some((
        place,
        BrowserLine {
            message,
            stack,
            level: Level::Error,
            about,
        },
    ))
}

fn log_entry(entry: &Value) -> Option<(Place, BrowserLine)> {
    let text = entry.get("text").and_then(Value::as_str)?.trim_end();
    let source = entry
        .get("source")
        .and_then(Value::as_str)
        .unwrap_or("other");
    // A worker's console and errors, copied to its page: the worker's own
    // session said them, in the worker's realm.
    if source == "worker" || entry.get("workerId").is_some() {
        return None;
    }
    let level = match entry.get("level").and_then(Value::as_str) {
        Some("error") => Level::Error,
        Some("warning") => Level::Warn,
        Some("verbose") => return None,
        _ => Level::Info,
    };
    let url = entry
        .get("url")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty());
    let mut message = format!("{source}: {text}");
    if let Some(u) = url.filter(|u| !text.contains(u)) {
        message.push_str(&format!(" ({u})"));
    }
    if source == "network" && url.is_some_and(is_favicon) {
        return None;
    }
    let about = match url {
        Some(u) if source == "network" => About::Request(u.to_string()),
        _ => About::Message(text.to_string()),
    };
    Some((
        Place::Target,
        BrowserLine {
            message,
            stack: None,
            level,
            about,
        },
    ))
}

/// Whether `url` is a site's `/favicon.ico`, which the browser asks for
/// itself once a page has loaded (a page that names no icon): not the
/// page's request. An icon the page names elsewhere (`<link rel=icon>`)
/// stays the page's.
fn is_favicon(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    path == "/favicon.ico"
}

/// When the browser says it happened (ms since the epoch), for events
/// that make a line: what `Log.enable` and `Runtime.enable` replay from
/// before the bridge attached is older than that.
pub fn timestamp(method: &str, params: &Value) -> Option<f64> {
    match method {
        "Runtime.exceptionThrown" => params.get("timestamp")?.as_f64(),
        "Log.entryAdded" => params.pointer("/entry/timestamp")?.as_f64(),
        _ => None,
    }
}

/// `Uncaught (in promise) TypeError: x` → `TypeError: x`.
pub fn without_uncaught(message: &str) -> &str {
    message
        .strip_prefix("Uncaught (in promise) ")
        .or_else(|| message.strip_prefix("Uncaught "))
        .unwrap_or(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unhandled_rejection_the_page_never_heard_of() {
        // As Chromium 156 sends it (the message already in `text`).
        let params = json!({"timestamp": 1.0, "exceptionDetails": {"exceptionId": 1,
            "text": "Uncaught (in promise) SyntaxError: Unexpected token 'd', \"daebug: not found\n\" is not valid JSON",
            "lineNumber": 0, "columnNumber": 0, "url": "http://127.0.0.1:8396/", "executionContextId": 1}});
        let (place, line) = line_of("Runtime.exceptionThrown", &params).unwrap();
        assert_eq!(place, Place::Context(1));
        assert!(line
            .message
            .starts_with("Uncaught (in promise) SyntaxError: Unexpected token"));
        assert_eq!(line.level, Level::Error);
        assert!(matches!(line.about, About::Exception(ref m) if m.starts_with("SyntaxError: ")));
    }

    #[test]
    fn an_exception_with_its_stack_in_the_description() {
        let params = json!({"exceptionDetails": {"text": "Uncaught",
            "exception": {"description": "TypeError: boom\n    at f (http://h/app.js:3:9)\n    at http://h/app.js:5:1"},
            "executionContextId": 7}});
        let (_, line) = line_of("Runtime.exceptionThrown", &params).unwrap();
        assert_eq!(line.message, "Uncaught TypeError: boom");
        assert_eq!(
            line.stack.as_deref(),
            Some("TypeError: boom\n    at f (http://h/app.js:3:9)\n    at http://h/app.js:5:1")
        );
        assert_eq!(line.about, About::Exception("TypeError: boom".into()));
    }

    #[test]
    fn the_browsers_own_messages() {
        let params = json!({"entry": {"source": "network", "level": "error",
            "text": "Failed to load resource: the server responded with a status of 404 (Not Found)",
            "url": "http://127.0.0.1:8396/logo.png", "networkRequestId": "25598.2"}});
        let (place, line) = line_of("Log.entryAdded", &params).unwrap();
        assert_eq!(place, Place::Target);
        assert_eq!(line.message, "network: Failed to load resource: the server responded with a status of 404 (Not Found) (http://127.0.0.1:8396/logo.png)");
        assert_eq!(
            line.about,
            About::Request("http://127.0.0.1:8396/logo.png".into())
        );
        let cors = json!({"entry": {"source": "javascript", "level": "error",
            "text": "Access to fetch at 'http://a/' from origin 'http://b' has been blocked by CORS policy",
            "url": "http://b/"}});
        let (_, line) = line_of("Log.entryAdded", &cors).unwrap();
        assert!(line.message.starts_with("javascript: Access to fetch"));
        assert!(matches!(line.about, About::Message(_)));
        // Verbose entries and other events make no line.
        assert!(line_of(
            "Log.entryAdded",
            &json!({"entry": {"source": "other", "level": "verbose", "text": "x"}})
        )
        .is_none());
        assert!(line_of("Runtime.consoleAPICalled", &json!({})).is_none());
    }

    #[test]
    fn what_a_worker_said_and_the_browsers_favicon_are_not_the_pages() {
        // As Chromium 156 tells a page of its worker's `console.log` (the
        // worker's session has it as `Runtime.consoleAPICalled`).
        let worker = json!({"entry": {"source": "worker", "level": "info", "text": "tick",
            "timestamp": 1795831097296.322, "url": "http://127.0.0.1:8302/daebug.js", "lineNumber": 0,
            "workerId": "B7A75771E285CE8F0EA0428D33ED034A"}});
        assert!(line_of("Log.entryAdded", &worker).is_none());
        let error = json!({"entry": {"source": "worker", "level": "error",
            "text": "Uncaught Error: worker boom", "url": "http://h/w.js",
            "workerId": "B7A75771E285CE8F0EA0428D33ED034A"}});
        assert!(line_of("Log.entryAdded", &error).is_none());
        for url in [
            "http://127.0.0.1:5173/favicon.ico",
            "http://127.0.0.1:5173/favicon.ico?v=2",
        ] {
            let favicon = json!({"entry": {"source": "network", "level": "error",
                "text": "Failed to load resource: the server responded with a status of 404 (Not Found)",
                "url": url, "networkRequestId": "25598.2"}});
            assert!(line_of("Log.entryAdded", &favicon).is_none(), "{url}");
        }
        for url in [
            "http://127.0.0.1:5173/icons/favicon.ico",
            "http://127.0.0.1:5173/favicon.ico.png",
        ] {
            let named = json!({"entry": {"source": "network", "level": "error",
                "text": "Failed to load resource: the server responded with a status of 404 (Not Found)",
                "url": url}});
            assert!(line_of("Log.entryAdded", &named).is_some(), "{url}");
        }
    }

    #[test]
    fn a_line_is_a_text_browser_event() {
        let (_, line) = line_of(
            "Runtime.exceptionThrown",
            &json!({"exceptionDetails": {"text": "Uncaught x"}}),
        )
        .unwrap();
        let e = line.into_event("t".into());
        assert_eq!(daebug_core::engine::render::event_info(&e), "Text browser");
    }
}
