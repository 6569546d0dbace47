//! The JSON every door speaks (docs/doors.md): what `GET /api/realms`,
//! `POST /api/realms/{stem}/eval` and `GET /api/events` carry, what the
//! CLI reads back, what the MCP tools return. Plain data, shared by the
//! hub and its clients.

use daebug_protocol::{BackgroundEvent, JobError, Outcome, Value};
use serde::{Deserialize, Serialize};

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
    /// When it was last heard from (`HH:MM:SS`, the hub's local time).
    pub last: String,
    /// Its log, relative to the root: `debug/<stem>.md`.
    pub log: String,
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
}

impl EvalReply {
    /// The parts of a reply a realm's log wrote.
    pub fn new(stem: &str, answered: crate::engine::effect::Answer) -> EvalReply {
        let (value, error) = match answered.outcome {
            Outcome::Ok(Value::Json(json)) => {
                let v = serde_json::from_str(&json).unwrap_or(serde_json::Value::String(json));
                (Some(v), None)
            }
            Outcome::Ok(Value::Text(text)) => (Some(serde_json::Value::String(text)), None),
            Outcome::Error(e) => (None, Some(e)),
        };
        let images = crate::engine::picture::image_paths(&answered.reply)
            .into_iter()
            .map(str::to_string)
            .collect();
        EvalReply {
            images,
            ok: answered.state == crate::engine::LogState::Completed,
            state: answered.state.as_str().to_string(),
            text: answered.reply,
            value,
            error,
            events: answered.events,
            duration_ms: answered.duration_ms,
            log: log_path(stem),
        }
    }
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

/// The fence info string of a block sent through a door: its language
/// and timeout as a fence would write them. A bad language or timeout is
/// refused here, before anything is written into the log.
pub fn fence_info(lang: Option<&str>, timeout: Option<&Timeout>) -> Result<String, DoorError> {
    let lang = match lang.map(str::to_ascii_lowercase).as_deref() {
        None | Some("js") | Some("javascript") | Some("mjs") => "js",
        Some("ts") | Some("typescript") => "ts",
        Some(other) => {
            return Err(DoorError::BadRequest {
                message: format!("unknown lang `{other}`: use js or ts"),
            })
        }
    };
    let timeout = match timeout {
        None => return Ok(lang.to_string()),
        Some(Timeout::Seconds(s)) if s.is_finite() && *s > 0.0 && *s <= 86_400.0 => {
            format!("{}ms", (s * 1000.0).ceil() as u64)
        }
        Some(Timeout::Text(t))
            if crate::engine::time::parse_timeout(t)
                .is_some_and(|ms| ms > 0 && ms <= 86_400_000) =>
        {
            t.trim().to_string()
        }
        Some(t) => {
            let shown = match t {
                Timeout::Seconds(s) => s.to_string(),
                Timeout::Text(t) => t.clone(),
            };
            return Err(DoorError::BadRequest {
                message: format!(
                    "invalid timeout `{shown}`: give seconds (5, 0.5) or 120s, 500ms, 2m; more than zero, at most a day"
                ),
            });
        }
    };
    Ok(format!("{lang} timeout={timeout}"))
}

/// The name a request header may carry: what the log's header parser
/// reads back as one name (letters, digits, `-`, `_`, `.`), else `door`.
pub fn agent_name(asked: Option<&str>, door: &str) -> String {
    let name: String = asked
        .unwrap_or(door)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect();
    if name.is_empty() {
        door.to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_info_from_a_doors_options() {
        let ok = [
            (None, None, "js"),
            (Some("TS"), None, "ts"),
            (None, Some(Timeout::Seconds(5.0)), "js timeout=5000ms"),
            (None, Some(Timeout::Seconds(0.25)), "js timeout=250ms"),
            (
                Some("js"),
                Some(Timeout::Text("90s".into())),
                "js timeout=90s",
            ),
        ];
        for (lang, timeout, want) in ok {
            assert_eq!(fence_info(lang, timeout.as_ref()).unwrap(), want);
        }
        let bad = [
            (Some("python"), None),
            (None, Some(Timeout::Seconds(0.0))),
            (None, Some(Timeout::Seconds(f64::NAN))),
            (None, Some(Timeout::Text("soon".into()))),
            (None, Some(Timeout::Text("2d".into()))),
        ];
        for (lang, timeout) in bad {
            assert!(
                matches!(
                    fence_info(lang, timeout.as_ref()),
                    Err(DoorError::BadRequest { .. })
                ),
                "{lang:?} {timeout:?}"
            );
        }
    }

    #[test]
    fn agent_names_stay_one_word() {
        assert_eq!(agent_name(None, "cli"), "cli");
        assert_eq!(agent_name(Some("claude code"), "mcp"), "claudecode");
        assert_eq!(agent_name(Some("**x**"), "mcp"), "x");
        assert_eq!(agent_name(Some("  "), "dashboard"), "dashboard");
    }
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

impl From<super::reading::LogRead> for LogReply {
    fn from(r: super::reading::LogRead) -> LogReply {
        LogReply {
            text: r.text,
            left_out: r.left_out,
            cursor: r.cursor,
            digest: r.digest,
            note: r.note,
        }
    }
}
