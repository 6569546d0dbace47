//! The JSON every door speaks (docs/doors.md) is `daebug_protocol::door`,
//! beside the realm wire; here, what the hub's doors add to it: a reply's
//! parts from the log's answer, a block's fence info and agent name.

pub use daebug_protocol::door::*;
use daebug_protocol::{Outcome, Value};

/// The parts of a reply a realm's log wrote, as a door answers them.
pub fn eval_reply(stem: &str, answered: daebug_core::engine::effect::Answer) -> EvalReply {
    let (value, error) = match answered.outcome {
        Outcome::Ok(Value::Json(json)) => {
            let v = serde_json::from_str(&json).unwrap_or(serde_json::Value::String(json));
            (Some(v), None)
        }
        Outcome::Ok(Value::Text(text)) => (Some(serde_json::Value::String(text)), None),
        Outcome::Error(e) => (None, Some(e)),
    };
    let images = daebug_core::engine::picture::image_paths(&answered.reply)
        .into_iter()
        .map(str::to_string)
        .collect();
    EvalReply {
        images,
        ok: answered.state == daebug_core::engine::LogState::Completed,
        state: answered.state.as_str().to_string(),
        text: answered.reply,
        value,
        error,
        events: answered.events,
        duration_ms: answered.duration_ms,
        log: log_path(stem),
        log_error: answered.unwritten,
    }
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
            if daebug_core::engine::time::parse_timeout(t)
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
