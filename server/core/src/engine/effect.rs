//! What the engine asks for: the outputs of [`super::LogEngine::handle`].

use super::input::{BackgroundEvent, JobId, Outcome};
use super::text::TextEdit;
use super::time::Millis;
use crate::prepare::Prepared;

/// The result of handling one input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// Sorted, non-overlapping edits of the text that was passed in.
    pub edits: Vec<TextEdit>,
    /// Things for the shell to do, in order.
    pub effects: Vec<Effect>,
}

/// A request from the engine to the world around it.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this block to the realm.
    Dispatch {
        /// The job's id, unique within the log.
        job: JobId,
        /// What the realm runs, and how its positions map back to the block.
        prepared: Prepared,
        /// How long the realm may take (`timeout=` or the default).
        timeout_ms: u64,
        /// Fence option `depth=N`, when given.
        depth: Option<u32>,
        /// Fence option `full`.
        full: bool,
    },
    /// Run a prelude again in the realm's new document: sent at once to
    /// the connection that just came, before any waiting job; its result
    /// is a note under the lifecycle line, not a reply.
    Prelude {
        job: JobId,
        prepared: Prepared,
        timeout_ms: u64,
        depth: Option<u32>,
        full: bool,
    },
    /// A fan-out log (`debug/all.md`) asks every connected realm to run
    /// this block ([`super::Input::Submit`] in each realm's log); it
    /// answers with [`super::Input::FannedOut`], then one
    /// [`super::Input::Answer`] per realm.
    FanOut {
        job: JobId,
        agent: String,
        /// The block's fence info string, as written.
        info: String,
        code: String,
    },
    /// The reply to the [`super::Input::Submit`] of `ticket` was written.
    Answered { ticket: u64, answer: Answer },
    /// Tell the realm to stop waiting for this job.
    Cancel { job: JobId },
    /// Feed the engine a [`super::Input::Tick`] at this time (replaces any
    /// earlier request; absent means no tick is needed).
    WakeAt(Millis),
    /// Write `text` to `path`, relative to the log's folder (the full text
    /// of a reply too large to inline).
    Archive { path: String, text: String },
    /// The log's state changed (for the registry).
    State(LogState),
    /// Something worth a line on the hub's console.
    Notice(String),
}

/// How a block another door submitted ended: what its door answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub job: JobId,
    /// The reply as written in the log (LF endings).
    pub reply: String,
    pub state: LogState,
    /// The value or error (a timeout's or cancel's error as written).
    pub outcome: Outcome,
    /// The job's events.
    pub events: Vec<BackgroundEvent>,
    /// As the reply header says: the realm's time for a result, the limit
    /// for a timeout, the wait for a cancel.
    pub duration_ms: u64,
    /// Why the log does not show this reply yet (its write failed; it is
    /// kept and written when it can). `None` when it is in the log.
    pub unwritten: Option<String>,
}

/// The state of a log as the registry shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogState {
    Idle,
    Executing,
    Completed,
    Failed,
    Timeout,
}

impl LogState {
    pub fn as_str(self) -> &'static str {
        match self {
            LogState::Idle => "idle",
            LogState::Executing => "executing",
            LogState::Completed => "completed",
            LogState::Failed => "failed",
            LogState::Timeout => "timeout",
        }
    }
}
