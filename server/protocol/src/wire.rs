//! The envelopes on a realm's WebSocket: JSON objects tagged by `"type"`.
//!
//! A realm opens `/ws` (with `?token=…` when the hub has a token: it is
//! checked on the upgrade, like every other request), sends [`RealmMsg::Hello`] and gets
//! [`HubMsg::Welcome`] with the stem of its log. From then on the hub sends
//! jobs, cancels and pings; the realm answers with started, progress,
//! result, background and pong. Anything a peer cannot parse is answered
//! with [`HubMsg::Error`] and otherwise ignored.

use serde::{Deserialize, Serialize};

use crate::event::BackgroundEvent;
use crate::job::{
    InspectAnswer, InspectAsk, JobId, JobProgress, JobResult, RealmImage, ScreenshotAnswer,
    ScreenshotAsk,
};

/// Where a realm lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RealmKind {
    Page,
    Worker,
    /// A Node process loaded with `node --import ./debug/daebug-node.mjs`.
    Node,
}

/// Realm → hub.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RealmMsg {
    /// The first message on a connection.
    Hello {
        /// The realm's [`crate::PROTOCOL_VERSION`].
        version: u32,
        kind: RealmKind,
        /// Display name (`?name=`, the page title, the worker's name...).
        name: String,
        /// The page's or worker script's URL.
        url: String,
        /// The tab id kept in `sessionStorage` (4 hex digits), so a reload
        /// continues the same log; empty when the realm has none yet.
        #[serde(default)]
        id: String,
        /// Jobs this realm is still running, when it reconnects after a
        /// dropped connection; their results are still expected.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        jobs: Vec<JobId>,
        /// A worker: the tab id of the page that started it (the loader
        /// passes it on), so the hub gives the same worker of the same tab
        /// the same log after a reload. Empty for a page.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        tab: String,
        /// Only on the first hello of a new document or worker: how it
        /// came. A page sends its navigation timing type (`navigate`,
        /// `reload`, `back_forward`, `prerender`), a worker `start`.
        /// Absent when the same document connects again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        navigation: Option<String>,
        /// A Node process: its pid, which the registry line shows. The
        /// process's `url` is its entry script's absolute path.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pid: Option<u32>,
    },
    /// The realm began running a job.
    Started { job: JobId },
    /// Events captured so far during a job.
    Progress(JobProgress),
    /// A picture a job made (`daebug.image`, `daebug.snapshot`, a value
    /// that is a canvas or an image), sent before that job's result.
    Image(RealmImage),
    /// `daebug.screenshot()` in a job: take it through the browser bridge.
    Screenshot(ScreenshotAsk),
    /// `getEventListeners` / `queryObjects`: ask the browser bridge.
    Inspect(InspectAsk),
    /// The job settled.
    Result(JobResult),
    /// Events captured outside any job.
    Background {
        events: Vec<BackgroundEvent>,
        #[serde(default)]
        dropped: u32,
        /// Dropped at the realm's rate limit, see [`JobProgress::limited`].
        #[serde(default, skip_serializing_if = "crate::is_zero")]
        limited: u32,
    },
    /// The answer to [`HubMsg::Ping`].
    Pong { seq: u64 },
    /// The page reloads once the result that follows is sent
    /// (`daebug.reload()` in a block): no job goes to this connection
    /// after it; the next one waits for the new document.
    Reloading,
    /// The page is going away (`pagehide`): it closes its socket next. A
    /// page kept in the back/forward cache says this too, and connects
    /// again with a hello if it is shown again.
    Leaving {
        /// Where it navigates, when the page knew (the Navigation API's
        /// destination); `None` for a close, or a navigation it could not
        /// see.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        navigated_to: Option<String>,
    },
    /// A Node process is ending with this exit code (the log says
    /// `exited at HH:MM:SS (code 0)`). It closes its socket next, or simply
    /// dies. A process killed by a signal says nothing: its log says it
    /// exited once it stayed away past the grace.
    Exiting { code: i32 },
    /// Answer [`HubMsg::Flushed`] with the same `seq` once everything
    /// sent before this is in the log file: a Node process that dies of an
    /// uncaught error waits for it, so the log has the error first.
    Flush { seq: u64 },
    /// A request's or response's body for `debug/archive/<name>`, sent
    /// before the line that links it (docs/log-format.md, "Request
    /// bodies"); credentials already redacted by the realm.
    Body { name: String, text: String },
    /// The person in the loop: a `person::PersonNews` as JSON text (panels,
    /// asks and picks waiting; an answer). Text, so the adapter routes it
    /// without a codec of its own.
    Person { json: String },
}

/// Hub → realm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HubMsg {
    /// The answer to a hello: the log this realm writes to, and the tab id
    /// to keep (a new one when another live realm already had it).
    Welcome {
        version: u32,
        stem: String,
        id: String,
    },
    /// Run `code` once as the body of an async function made with no
    /// parameters (`new AsyncFunction(code)`). The hub prepared it (see the
    /// hub's `prepare` module): it names itself `daebug-cell-<job>` for stack
    /// traces, and the hub maps those frames back to the block's lines
    /// assuming V8's two header lines before the body.
    Job {
        job: JobId,
        code: String,
        timeout_ms: u64,
        /// Fence option `depth=N`: nesting levels the value shows (1 to
        /// [`crate::MAX_DEPTH`]); absent for the default,
        /// [`crate::DEFAULT_DEPTH`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth: Option<u32>,
        /// Fence option `full`: the whole value, without depth or item
        /// limits (still cycle-safe, still within [`crate::MAX_REPLY_BYTES`]).
        #[serde(default, skip_serializing_if = "crate::is_false")]
        full: bool,
    },
    /// Stop waiting for this job: it timed out or its log gave up on it.
    Cancel { job: JobId },
    /// A screenshot the realm asked for is in its job's reply, or why not.
    Screenshot(ScreenshotAnswer),
    /// The answer to an [`InspectAsk`] is in the realm, or why not.
    Inspected(InspectAnswer),
    /// Answer with a pong carrying the same `seq`.
    Ping { seq: u64 },
    /// What the realm sent before its [`RealmMsg::Flush`] with this `seq`
    /// is written (or could not be: the log is not writable now).
    Flushed { seq: u64 },
    /// A message the hub could not use, and why. The connection stays open
    /// unless the hello itself was refused.
    Error { message: String },
    /// A person acted in the dashboard on this realm's panel: a
    /// `person::PersonAct` as JSON text, for the toolkit's panel module.
    Person { json: String },
    /// The hub is shutting down; reconnect with backoff.
    Bye { reason: String },
}
