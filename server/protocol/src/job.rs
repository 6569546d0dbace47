//! Jobs: what a realm is asked to run and how it answers.

use serde::{Deserialize, Serialize};

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
