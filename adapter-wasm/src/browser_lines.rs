//! What the browser reports besides console calls and errors, as the lines
//! the log shows (docs/log-format.md, "Background blocks"): resources that did
//! not load and the browser's own reports (request lines are the loader's:
//! `adapter-shim/hooks.js`). Pure, so the wording is tested natively.

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
