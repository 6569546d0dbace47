//! What the engine is told: the inputs of [`super::LogEngine::handle`].

use daebug_protocol::BackgroundEvent;
use serde::{Deserialize, Serialize};

/// Identifies one dispatched block. Unique per engine; the shell seeds the
/// first one so ids stay unique across hub restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(pub u64);

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

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
    /// Events captured so far during a job (the whole list, not a delta).
    Progress {
        job: JobId,
        #[serde(default)]
        events: Vec<BackgroundEvent>,
        /// Events the realm dropped because of its caps.
        #[serde(default)]
        dropped: u32,
    },
    /// The job settled in the realm.
    Result {
        job: JobId,
        outcome: Outcome,
        #[serde(default)]
        events: Vec<BackgroundEvent>,
        #[serde(default)]
        dropped: u32,
        /// Measured inside the realm.
        duration_ms: u64,
    },
    /// Events captured outside any job.
    Background {
        events: Vec<BackgroundEvent>,
        #[serde(default)]
        dropped: u32,
    },
    /// Time passed: a deadline or the placeholder refresh may be due.
    Tick,
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
    /// Plain JSON text; the engine lays it out (compact or indented).
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
