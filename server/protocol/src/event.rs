//! Background events: what a realm captured outside the direct result of a
//! job (console calls, global errors, unhandled rejections).
//!
//! These are part of the wire contract (docs/wire-protocol.md) and are also what the
//! hub's log engine renders into fenced blocks.

use serde::{Deserialize, Serialize};

/// What produced an event: a console method or a global error hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventType {
    /// `console.log/info/warn/error/debug`.
    Console,
    /// A global `error` event or an `unhandledrejection`.
    Error,
    /// What the browser saw that is neither: a failed request
    /// (`source: "network"`), a dialog answered for the page (`"dialog"`),
    /// a `ReportingObserver` report (`"report"`).
    Browser,
}

/// Severity, as the console method's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Log,
    Info,
    Warn,
    Error,
}

/// One captured event (docs/wire-protocol.md, "Realm → hub"):
/// `{type, level, source, ts, message, stack}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackgroundEvent {
    /// Console call or global error.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// Console level; global errors use `error`.
    pub level: Level,
    /// Where a global error came from: `window.onerror` or
    /// `unhandledrejection`; for a console event the method when it is not
    /// told by the level (`console.table`); for a browser event what it
    /// is (`network`, `dialog`, `report`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Realm-local wall time `HH:MM:SS`, for people reading the wire; the
    /// log shows events in arrival order and does not repeat it.
    #[serde(default)]
    pub ts: String,
    /// The serialised console arguments or the error message.
    pub message: String,
    /// The stack, when the realm had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}
