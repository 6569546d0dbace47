//! Pure: the browser's targets the bridge is attached to, and which
//! realm (log stem) each of their places is. A place is learned by
//! asking it for the marker the adapter sets (`daebug.realm.stem`, under
//! `Symbol.for("daebug.toolkit")`), once, and forgotten when its context
//! goes (a reload makes new contexts; the tab keeps its stem).

use std::collections::HashMap;

use super::lines::Place;

/// The expression that reads a realm's stem (`""` without the adapter).
pub const MARKER: &str =
    "(() => { try { return globalThis[Symbol.for('daebug.toolkit')]?.realm?.stem || '' } catch { return '' } })()";

/// Target types whose realms can be daebug's.
pub fn wanted(kind: &str) -> bool {
    matches!(kind, "page" | "iframe" | "worker")
}

#[derive(Debug, Default)]
struct Target {
    /// Each place's stem, once learned.
    stems: HashMap<Place, String>,
    /// When the bridge attached (ms since the epoch).
    since_ms: f64,
    /// `page`, `iframe` or `worker`.
    kind: String,
}

/// Room for the browser's clock and ours reading a little apart.
const REPLAY_SLACK_MS: f64 = 1_000.0;

/// The attached targets, by session id.
#[derive(Debug, Default)]
pub struct Targets {
    sessions: HashMap<String, Target>,
}

impl Targets {
    pub fn attached(&mut self, session: &str, kind: &str, now_ms: f64) {
        let t = self.sessions.entry(session.to_string()).or_default();
        t.since_ms = now_ms;
        t.kind = kind.to_string();
    }

    /// The sessions of pages and frames (what can be screenshotted).
    pub fn pages(&self) -> Vec<String> {
        self.sessions
            .iter()
            .filter(|(_, t)| t.kind != "worker")
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// Every attached session: pages and frames first, then workers.
    pub fn all(&self) -> Vec<String> {
        let mut all = self.pages();
        all.extend(
            self.sessions
                .iter()
                .filter(|(_, t)| t.kind == "worker")
                .map(|(s, _)| s.clone()),
        );
        all
    }

    /// Whether something the browser says happened at `at_ms` is older
    /// than the session: replayed on `enable`, reported before.
    pub fn is_replay(&self, session: &str, at_ms: f64) -> bool {
        self.sessions
            .get(session)
            .is_some_and(|t| at_ms + REPLAY_SLACK_MS < t.since_ms)
    }

    pub fn detached(&mut self, session: &str) {
        self.sessions.remove(session);
    }

    pub fn is_attached(&self, session: &str) -> bool {
        self.sessions.contains_key(session)
    }

    /// The stem of a place, when learned.
    pub fn stem(&self, session: &str, place: &Place) -> Option<&str> {
        self.sessions
            .get(session)?
            .stems
            .get(place)
            .map(String::as_str)
    }

    /// What asking the place for the marker answered.
    pub fn learned(&mut self, session: &str, place: Place, stem: String) {
        if let Some(t) = self.sessions.get_mut(session) {
            t.stems.insert(place, stem);
        }
    }

    /// A context went away (`Runtime.executionContextDestroyed`), or all
    /// of them (`executionContextsCleared`, `None`: a new document).
    pub fn context_gone(&mut self, session: &str, context: Option<i64>) {
        let Some(t) = self.sessions.get_mut(session) else {
            return;
        };
        match context {
            Some(id) => {
                t.stems.remove(&Place::Context(id));
            }
            None => t.stems.clear(),
        }
    }

    /// The session and its main place that is this realm, for commands
    /// aimed at it (a page's main frame, a worker).
    pub fn session_of(&self, stem: &str) -> Option<&str> {
        self.sessions
            .iter()
            .find(|(_, t)| t.stems.get(&Place::Target).is_some_and(|s| s == stem))
            .map(|(s, _)| s.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_learned_and_forgotten_with_their_contexts() {
        let mut t = Targets::default();
        t.attached("S", "page", 10_000.0);
        t.attached("W", "worker", 10_000.0);
        assert_eq!(t.pages(), ["S"]);
        assert_eq!(t.all(), ["S", "W"]);
        assert!(t.is_replay("S", 8_000.0));
        assert!(!t.is_replay("S", 9_500.0), "within the slack");
        assert!(!t.is_replay("T", 0.0), "not attached");
        t.learned("S", Place::Target, "shop-3f2a".into());
        t.learned("S", Place::Context(4), "frame-91bc".into());
        assert_eq!(t.stem("S", &Place::Context(4)), Some("frame-91bc"));
        assert_eq!(t.session_of("shop-3f2a"), Some("S"));
        assert_eq!(t.session_of("frame-91bc"), None, "not a main place");
        t.context_gone("S", Some(4));
        assert_eq!(t.stem("S", &Place::Context(4)), None);
        assert_eq!(t.stem("S", &Place::Target), Some("shop-3f2a"));
        t.context_gone("S", None);
        assert_eq!(t.stem("S", &Place::Target), None);
        t.learned("S", Place::Target, "shop-3f2a".into());
        t.detached("S");
        assert_eq!(t.session_of("shop-3f2a"), None);
        // Nothing is learned for a session not attached.
        t.learned("S", Place::Target, "x".into());
        assert!(!t.is_attached("S"));
        assert!(wanted("page") && wanted("worker") && wanted("iframe"));
        assert!(!wanted("browser_ui") && !wanted("service_worker"));
    }
}
