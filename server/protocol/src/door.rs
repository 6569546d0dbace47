//! The JSON every door speaks (docs/doors.md), beside the realm wire:
//! what `GET /api/realms`, `POST /api/realms/{stem}/eval`, `GET
//! /api/realms/{stem}/log` and `GET /api/events` carry, what the CLI
//! reads back, what the MCP tools return, and `debug/.hub`. Plain data,
//! shared by the hub, its doors and their clients (the `door` feature).

use serde::{Deserialize, Serialize};

use crate::{BackgroundEvent, JobError};

/// One realm, as `GET /api/realms` lists it (the registry's line, as data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RealmInfo {
    /// Names its log: `debug/<stem>.md`.
    pub stem: String,
    /// `page`, `worker` or `node`.
    pub kind: String,
    /// What it said its name is (`?name=`, the title, the script's name).
    pub name: String,
    pub url: String,
    /// As the registry shows it: `idle`, `executing`, `completed`,
    /// `failed`, `timeout`, `unresponsive`, `disconnected`.
    pub state: String,
    /// When it last did something: connected, answered a block, left
    /// (`HH:MM:SS`, the hub's local time); the same as its `debug.md`
    /// line's `last`.
    pub last: String,
    /// Its last heartbeat (`HH:MM:SS`): a connected realm answers one
    /// every 5 s.
    #[serde(default)]
    pub heard: String,
    /// Its log, relative to the root: `debug/<stem>.md`.
    pub log: String,
    /// Panels, asks and picks waiting for a person (docs/log-format.md, "Panels").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<crate::person::Waiting>,
    /// Why its log cannot be written now (`No space left on device (os
    /// error 28)`); replies are kept and written when it can.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_error: Option<String>,
}

/// The body of `POST /api/realms/{stem}/eval`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalRequest {
    pub code: String,
    /// `js` (default) or `ts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Seconds (`5`, `0.5`) or a fence option's value (`"90s"`, `"500ms"`,
    /// `"2m"`); the hub's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Timeout>,
    /// The name the log's request header gives the caller (default: the
    /// door's, `cli`, `mcp` or `dashboard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// A timeout as a number of seconds or as a fence option writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Timeout {
    Seconds(f64),
    Text(String),
}

impl Eq for Timeout {}

/// The answer of `POST /api/realms/{stem}/eval`: the reply as the log
/// has it, and its parts as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReply {
    /// The block ran to a value.
    pub ok: bool,
    /// `completed`, `failed` or `timeout` (the registry's words).
    pub state: String,
    /// The reply exactly as written in the log (header, fences, notes).
    pub text: String,
    /// The value: the JSON the realm sent, or a string for a value shown
    /// as text (a function, a DOM node...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
    /// Console calls, errors and browser events during the block.
    pub events: Vec<BackgroundEvent>,
    pub duration_ms: u64,
    /// The realm's log, relative to the root.
    pub log: String,
    /// The pictures the reply shows, relative to `debug/`
    /// (`archive/shop-3f2a-1.png`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
    /// Why the log does not show this reply yet: `the log could not be
    /// written: No space left on device (os error 28); the reply is kept
    /// and written when it can`. Absent when the log has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_error: Option<String>,
}

/// What `GET /api/events` sends (one server-sent event each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HubEvent {
    /// The list of realms changed (one connected, left, changed state).
    Realms,
    /// A log's text changed (the hub wrote it, or someone saved it).
    Log { stem: String },
}

/// A door's request the hub refuses, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum DoorError {
    #[error("no realm is named or starts with `{realm}`; `daebug list` (or GET /api/realms) shows the realms")]
    NoSuchRealm { realm: String },
    #[error("`{realm}` starts the names of several realms ({}); give more of the name", stems.join(", "))]
    Ambiguous { realm: String, stems: Vec<String> },
    #[error("{message}")]
    BadRequest { message: String },
    #[error("the hub is stopping")]
    Stopping,
    /// Only through a hub reached over its HTTP API (`daebug mcp`
    /// attached): it gave no answer a door could use (nothing listens, it
    /// refused the call for a reason of its own such as its token, or its
    /// answer was not the API's). In-process doors never return it.
    #[error("{message}")]
    Unanswered { message: String },
    /// Only through a hub reached over its HTTP API: none runs there (no
    /// `debug/.hub`, or nothing listens where it says). In-process doors
    /// never return it.
    #[error("no hub: {message}")]
    NoHub { message: String },
}

/// `debug/.hub`: where a running hub is, for its clients (the CLI, the
/// MCP bridge). Written by the hub once it listens, removed when it stops;
/// never served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HubFile {
    /// `http://host:port`, a loopback host when bound to every address.
    pub url: String,
    /// The address it is bound to.
    pub host: String,
    pub port: u16,
    pub pid: u32,
    /// The token every request must present, when there is one.
    pub token: Option<String>,
}

/// Where [`HubFile`] is, relative to the root.
pub const HUB_FILE: &str = "debug/.hub";

/// A realm's log, relative to the root.
pub fn log_path(stem: &str) -> String {
    format!("debug/{stem}.md")
}

/// `GET /api/realms/{realm}/log?format=json`: a read of the log, as
/// `read_log` gives it (see `doors/reading.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogReply {
    /// The log's text from where the read starts, or a digest of it.
    pub text: String,
    /// Lines of the log before what was read.
    pub left_out: usize,
    /// Pass as `since` to read only what is added after this read.
    pub cursor: String,
    /// Whether `text` is a digest (over the budget).
    #[serde(default)]
    pub digest: bool,
    /// Why the read did not start where it was asked to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
