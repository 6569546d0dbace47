//! What the browser reports besides console calls and errors, as the lines
//! the log shows (docs/log-format.md, "Background blocks"): failed requests, the network summary of a job, and
//! the browser's own reports. Pure, so the wording is tested natively.

/// One request: `GET http://127.0.0.1:5173/api/stats → 404 Not Found (12 ms)`;
/// a request that got no answer names why: `→ failed: TypeError: Failed
/// to fetch (3 ms)`.
pub fn request(method: &str, url: &str, outcome: &RequestOutcome, ms: f64) -> String {
    let ms = ms.max(0.0).round() as u64;
    match outcome {
        RequestOutcome::Status(code, text) if text.is_empty() => {
            format!("{method} {url} → {code} ({ms} ms)")
        }
        RequestOutcome::Status(code, text) => format!("{method} {url} → {code} {text} ({ms} ms)"),
        RequestOutcome::Failed(why) => format!("{method} {url} → failed: {why} ({ms} ms)"),
    }
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestOutcome {
    /// An answer: the status and its text (`404`, `Not Found`).
    Status(u16, String),
    /// No answer: a network error, CORS, an abort; the reason.
    Failed(String),
}

impl RequestOutcome {
    /// Whether the request is worth an event of its own: it failed, or
    /// answered 400 or more.
    pub fn is_failure(&self) -> bool {
        match self {
            RequestOutcome::Status(code, _) => *code >= 400,
            RequestOutcome::Failed(_) => true,
        }
    }
}

/// A resource that did not load: `img http://127.0.0.1:8302/missing.png
/// failed to load`.
pub fn resource(tag: &str, url: &str) -> String {
    format!("{tag} {url} failed to load")
}

/// A `ReportingObserver` report: `deprecation: <message> (at
/// http://…/app.js:3:7)`.
pub fn report(kind: &str, message: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => format!("{kind}: {message} (at {at})"),
        _ => format!("{kind}: {message}"),
    }
}

/// A `securitypolicyviolation`: `Refused script-src-elem
/// https://cdn.example/x.js (policy: script-src 'self')`.
pub fn csp(directive: &str, blocked: &str, policy: &str) -> String {
    let blocked = if blocked.is_empty() {
        "inline"
    } else {
        blocked
    };
    format!("Refused {directive} {blocked} (policy: {policy})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_name_their_outcome() {
        let s = |c, t: &str| RequestOutcome::Status(c, t.into());
        assert_eq!(
            request("GET", "http://h/api", &s(404, "Not Found"), 12.4),
            "GET http://h/api → 404 Not Found (12 ms)"
        );
        assert_eq!(
            request("POST", "http://h/api", &s(200, ""), 0.2),
            "POST http://h/api → 200 (0 ms)"
        );
        assert_eq!(
            request(
                "GET",
                "http://x/",
                &RequestOutcome::Failed("TypeError: Failed to fetch".into()),
                3.0
            ),
            "GET http://x/ → failed: TypeError: Failed to fetch (3 ms)"
        );
        assert!(s(400, "").is_failure() && !s(399, "").is_failure());
        assert!(RequestOutcome::Failed(String::new()).is_failure());
    }

    #[test]
    fn reports_and_violations() {
        assert_eq!(
            report("deprecation", "old API", Some("http://h/a.js:3:7")),
            "deprecation: old API (at http://h/a.js:3:7)"
        );
        assert_eq!(report("intervention", "m", None), "intervention: m");
        assert_eq!(
            csp("script-src-elem", "", "script-src 'self'"),
            "Refused script-src-elem inline (policy: script-src 'self')"
        );
        assert_eq!(
            resource("img", "http://h/x.png"),
            "img http://h/x.png failed to load"
        );
    }
}
