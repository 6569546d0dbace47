//! One block, every realm: `debug/all.md` (docs/log-format.md, "Every
//! realm at once").
//!
//! A block appended to the fan-out log is not sent to a realm. The shell
//! asks each connected realm's log to run it ([`super::Input::Submit`]):
//! that log writes it as a chunk of the agent's ([`chunk`]) once it has
//! nothing of its own to run, so each realm's log records it and answers
//! it as any block. Each reply, as written there, comes back
//! ([`super::Input::Answer`]) and goes under the block in `all.md`, one
//! after another, each labelled by its own reply header.

use super::input::JobError;
use super::time::{format_timeout, ClockTime};

/// Time a fan-out job gives its realms beyond the block's own timeout:
/// each realm's log times the block out by itself, and that reply should
/// arrive before `all.md` stops waiting for it.
pub const FAN_OUT_GRACE_MS: u64 = 5_000;

/// A block another door asked a log to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    pub ticket: u64,
    pub agent: String,
    pub info: String,
    /// Shared: the engine's snapshot before each run copies the queue.
    pub code: std::sync::Arc<str>,
}

/// The chunk `s` becomes in the log of `stem` (LF endings): a request
/// header and the block, fenced with more backticks than any run in the
/// code, so the code cannot close it.
pub fn chunk(stem: &str, s: &Submission, at: ClockTime) -> String {
    let fence = super::markdown::fence_for(&s.code);
    // A backtick fence's info string may not hold a backtick (one copied
    // from a tilde fence might): such a token is no option anyway.
    let info: Vec<&str> = s
        .info
        .split_whitespace()
        .filter(|t| !t.contains('`'))
        .collect();
    let info = info.join(" ");
    let mut code = s.code.replace("\r\n", "\n");
    if !code.is_empty() && !code.ends_with('\n') {
        code.push('\n');
    }
    format!(
        "> **{}** to {stem} at {at}\n{fence}{info}\n{code}{fence}\n",
        s.agent
    )
}

/// What the fan-out log's running job knows of its realms.
#[derive(Debug, Clone, Default)]
pub struct Gathering {
    /// The stems asked (`None` until the shell said).
    pub asked: Option<Vec<String>>,
    /// The stems that answered, in order.
    pub answered: Vec<String>,
    /// Their replies, one after another (LF endings).
    pub replies: String,
    /// How many of them did not end with a value.
    pub failed: usize,
}

impl Gathering {
    /// The realms asked that did not answer yet.
    pub fn missing(&self) -> Vec<&str> {
        self.asked
            .iter()
            .flatten()
            .filter(|s| !self.answered.contains(s))
            .map(String::as_str)
            .collect()
    }

    /// Every realm asked has answered (false until the shell said whom
    /// it asked).
    pub fn complete(&self) -> bool {
        self.asked.is_some() && self.missing().is_empty()
    }

    /// Adds one realm's reply; false when it is no answer this job waits
    /// for (a realm not asked, or one that already answered).
    pub fn add(&mut self, stem: &str, reply: &str, ok: bool) -> bool {
        let asked = self
            .asked
            .as_ref()
            .is_none_or(|a| a.iter().any(|s| s == stem));
        if !asked || self.answered.iter().any(|s| s == stem) {
            return false;
        }
        self.answered.push(stem.to_string());
        self.replies.push_str(reply);
        if !reply.ends_with('\n') {
            self.replies.push('\n');
        }
        if !ok {
            self.failed += 1;
        }
        true
    }
}

/// The error of a fan-out block when no realm is connected.
pub fn no_realm() -> JobError {
    JobError {
        name: "Error".into(),
        message: "no realm is connected, so this block ran nowhere; load the adapter in a page (see debug.md) and append the block again".into(),
        stack: None,
    }
}

/// The error of a fan-out block that stopped waiting (a timeout after
/// `limit_ms`, or a `cancel` line) before every realm answered.
pub fn missing(missing: &[&str], limit_ms: Option<u64>) -> JobError {
    let why = match limit_ms {
        Some(ms) => format!("no reply within {}", format_timeout(ms)),
        None => "cancelled by a `cancel` line before a reply came".into(),
    };
    let name = if limit_ms.is_some() {
        "TimeoutError"
    } else {
        "CancelledError"
    };
    JobError {
        name: name.into(),
        message: format!(
            "{why} from {}; the block still runs or waits there, and its reply is added below when it comes (it is in that realm's log too)",
            missing.join(", ")
        ),
        stack: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(info: &str, code: &str) -> Submission {
        Submission {
            ticket: 1,
            agent: "cli".into(),
            info: info.into(),
            code: code.into(),
        }
    }

    #[test]
    fn a_chunk_is_a_request_and_its_block() {
        let at = ClockTime::parse("10:00:05").unwrap();
        let table = [
            (
                "js",
                "1 + 1",
                "> **cli** to s at 10:00:05\n```js\n1 + 1\n```\n",
            ),
            ("", "x\n", "> **cli** to s at 10:00:05\n```\nx\n```\n"),
            (
                "ts timeout=5s",
                "const a = '```';\n  ````\n",
                "> **cli** to s at 10:00:05\n`````ts timeout=5s\nconst a = '```';\n  ````\n`````\n",
            ),
            ("js", "", "> **cli** to s at 10:00:05\n```js\n```\n"),
            (
                "js `x`  depth=2",
                "1",
                "> **cli** to s at 10:00:05\n```js depth=2\n1\n```\n",
            ),
        ];
        for (info, code, want) in table {
            assert_eq!(chunk("s", &sub(info, code), at), want, "{info:?} {code:?}");
        }
    }

    #[test]
    fn a_gathering_takes_each_asked_realm_once() {
        let mut g = Gathering::default();
        assert!(!g.complete());
        g.asked = Some(vec!["a-1".into(), "b-2".into()]);
        assert!(g.add("a-1", "> **a-1** to agent at 10:00:00 (1ms)\n", true));
        assert!(!g.add("a-1", "again\n", true));
        assert!(!g.add("c-3", "not asked\n", true));
        assert_eq!(g.missing(), ["b-2"]);
        assert!(g.add(
            "b-2",
            "> **b-2** to agent at 10:00:00 (**ERROR** after 1ms)",
            false
        ));
        assert!(g.complete());
        assert_eq!(g.failed, 1);
        assert!(g.replies.ends_with("1ms)\n"));
        let none = Gathering {
            asked: Some(vec![]),
            ..Gathering::default()
        };
        assert!(none.complete());
    }
}
