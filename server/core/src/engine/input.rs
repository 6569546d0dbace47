//! What the engine is told: the inputs of [`super::LogEngine::handle`].

pub use daebug_protocol::{
    BackgroundEvent, JobError, JobId, JobProgress, JobResult, Outcome, Value,
};
use serde::{Deserialize, Serialize};

/// One thing that happened to a log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// The hub (re)started and reads the log for the first time: an
    /// executing region left by a hub that died is closed as lost.
    Startup,
    /// The file's text changed (the agent or a person wrote it).
    FileChanged,
    /// The realm took the job.
    Started { job: JobId },
    /// The realm's document reloads once the running job's result is in
    /// (`daebug.reload()` in the block): the new document's lifecycle
    /// line belongs to that job's door call.
    Reloading,
    /// Events captured so far during a job (the whole list, not a delta).
    Progress(JobProgress),
    /// The job settled in the realm.
    Result(JobResult),
    /// Events captured outside any job.
    Background {
        events: Vec<BackgroundEvent>,
        /// Left out before the hub (the realm's cap).
        #[serde(default)]
        dropped: u32,
        /// Dropped at the realm's rate limit.
        #[serde(default)]
        limited: u32,
        /// Dropped by the hub, over [`super::render::EVENTS_PER_SECOND`].
        #[serde(default)]
        over_rate: u32,
    },
    /// Pictures a job made, saved by the hub: its reply shows them (when
    /// the result comes, or the job ends otherwise).
    Images {
        job: JobId,
        pictures: Vec<super::picture::Picture>,
    },
    /// Time passed: a deadline or the placeholder refresh may be due.
    Tick,
    /// The realm left or came back. `away` says why jobs cannot run now
    /// (`None`: they can); it is shown in the executing placeholder, and
    /// the job keeps its timeout while it waits.
    Presence { away: Option<String> },
    /// The realm is gone for good while a job may run: its document
    /// navigated away or was closed. `what` says so (`the page navigated
    /// to <url>`); the running job's reply says it at once.
    Left { what: String },
    /// Something the hub did to the realm that the agent should know
    /// (a connection closed for a message over the limit): a note above
    /// the footer (while a job runs, it waits for the footer to be back).
    HubNote { text: String },
    /// The hub is stopping: the log's last line, `> **hub** stopped at
    /// HH:MM:SS`, above the footer (at the end while a block runs: its
    /// region is closed when a hub reads the log again).
    HubStopped,
    /// The realm's document came or went (a reload, a navigation, a close):
    /// a lifecycle line above the footer, or in the running job's region.
    /// A person answered a panel, an ask or a pick (docs/log-format.md, "Panels"): the
    /// `human answered` line and its value, where a lifecycle line goes.
    Human {
        title: String,
        #[serde(default)]
        value: serde_json::Value,
    },
    Lifecycle {
        what: super::lifecycle::Lifecycle,
        /// The document's URL (reloads and navigations).
        #[serde(default)]
        url: String,
        /// When it happened (`HH:MM:SS`), if not now: a close is known
        /// only after a grace.
        #[serde(default)]
        at: Option<String>,
    },
    /// Another door (`debug/all.md`) asks this log to run a block, written
    /// into the log as if `agent` had appended it, once the log has
    /// nothing of its own to run. The reply is an [`super::Effect::Answered`]
    /// with this `ticket`.
    Submit {
        ticket: u64,
        agent: String,
        /// The fence's info string (`js timeout=5s`).
        #[serde(default)]
        info: String,
        code: String,
    },
    /// A fan-out log's job was sent to these realms (their stems, none
    /// when no realm is connected); their answers follow.
    FannedOut { job: JobId, stems: Vec<String> },
    /// One realm's reply to a fan-out log's job, as written in its log.
    Answer {
        job: JobId,
        stem: String,
        reply: String,
        /// Whether the block ran to a value there.
        ok: bool,
    },
}
