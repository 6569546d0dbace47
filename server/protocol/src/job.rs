//! Jobs: what a realm is asked to run and how it answers.

use serde::{Deserialize, Serialize};

use crate::event::BackgroundEvent;

/// Identifies one dispatched block. Unique per log; the hub seeds the first
/// one so ids stay unique across hub restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(pub u64);

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// How a job settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok(Value),
    Error(JobError),
}

/// A completion value as the realm rendered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// Plain JSON text; the hub lays it out (compact or indented).
    Json(String),
    /// An inspect-style rendering of a value JSON cannot carry.
    Text(String),
}

/// A thrown value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobError {
    pub name: String,
    pub message: String,
    #[serde(default)]
    pub stack: Option<String>,
}

/// Events captured so far while a job runs (the whole list, not a delta).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobProgress {
    pub job: JobId,
    #[serde(default)]
    pub events: Vec<BackgroundEvent>,
    /// Events the realm left out because of its caps (shown as omitted).
    #[serde(default)]
    pub dropped: u32,
    /// Events the realm dropped at its rate limit
    /// ([`crate::REALM_EVENTS_PER_SECOND`]), counted apart.
    #[serde(default, skip_serializing_if = "crate::is_zero")]
    pub limited: u32,
    /// Time since the job started, measured in the realm.
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// How a job settled, with the events it caused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub job: JobId,
    pub outcome: Outcome,
    #[serde(default)]
    pub events: Vec<BackgroundEvent>,
    #[serde(default)]
    pub dropped: u32,
    /// Dropped at the realm's rate limit, see [`JobProgress::limited`].
    #[serde(default, skip_serializing_if = "crate::is_zero")]
    pub limited: u32,
    /// Measured inside the realm.
    pub duration_ms: u64,
}

/// A picture a job made, encoded by the browser: sent before the job's
/// [`JobResult`], so the hub saves it and its reply shows it
/// (docs/wire-protocol.md, "Images").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RealmImage {
    pub job: JobId,
    /// What it was (`canvas`, `image`, `snapshot`, …) or the `name` the
    /// block gave it.
    pub label: String,
    /// The encoding's media type (`image/png`, or a Blob's own type).
    pub mime: String,
    /// Pixels; 0 when the realm could not tell (an SVG Blob in a worker).
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
    /// The encoded size in bytes.
    pub bytes: u64,
    /// The encoded bytes in base64; absent when the realm refused to send
    /// them (over [`crate::MAX_IMAGE_BYTES`]) or could not make them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Why the realm could not make it (a value that was a picture whose
    /// pixels the browser would not give); the reply says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `daebug.screenshot(selector?)` during a job: the hub takes the picture
/// through the browser bridge (`--cdp`) and puts it in the job's reply
/// (docs/wire-protocol.md, "Screenshots").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenshotAsk {
    pub job: JobId,
    /// Numbers the realm's asks, for the answer.
    pub ask: u32,
    /// A CSS selector: the first match's box; absent: the whole page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// The hub's answer to a [`ScreenshotAsk`], sent once the picture is in
/// the job's reply (or why there is none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenshotAnswer {
    pub ask: u32,
    /// Where it was saved, relative to the log's folder (`archive/…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
    /// Why there is no picture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The console's `getEventListeners(target)` or `queryObjects(C)` in a
/// realm: what only DevTools knows, asked of the browser bridge (`--cdp`;
/// docs/wire-protocol.md, "Inspecting"). The realm keeps the argument in
/// the map `globalThis[Symbol.for("daebug.asked")]` under `ask`; the
/// bridge puts the answer in `globalThis[Symbol.for("daebug.answered")]`
/// under `ask` before the hub answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectAsk {
    /// Numbers the realm's asks, for the answer.
    pub ask: u32,
    pub what: Inspect,
}

/// What an [`InspectAsk`] wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inspect {
    /// `getEventListeners(target)`: `{ type: [{ listener, useCapture,
    /// passive, once, type }] }`.
    Listeners,
    /// `queryObjects(C)`: the live objects whose prototype is
    /// `C.prototype` (or `C` itself when it is no function).
    Objects,
    /// A command of the browser's debugger for the realm's own target
    /// (logpoints, `monitor`, `daebug.scopes`; docs/log-format.md,
    /// "Logpoints"): the argument is `{ method, params }`, the answer the
    /// browser's result as it came.
    Debugger,
    /// A person's input, made by the browser (`Input.dispatchMouseEvent`,
    /// `Input.dispatchKeyEvent`, `Input.insertText`) for an action of a
    /// running block in a page (`daebug.click`, `fill`, `press`, …;
    /// docs/actions.md): the argument is `{ method, params }`, the answer
    /// the browser's result as it came. Refused while a person is asked.
    Input,
}

impl Inspect {
    /// The console helper's name, for what the block is told.
    pub fn helper(self) -> &'static str {
        match self {
            Inspect::Listeners => "getEventListeners",
            Inspect::Objects => "queryObjects",
            Inspect::Debugger => "the debugger",
            Inspect::Input => "trusted input",
        }
    }
}

/// The hub's answer to an [`InspectAsk`]: the answer is in the realm
/// now, or why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectAnswer {
    pub ask: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
