//! `daebug check` (docs/log-format.md, "Logs as tests"), the pure half: a recorded
//! log read into its blocks and their recorded outcomes, and one outcome
//! compared with another. The command (`server/src/cmd/check.rs`) replays
//! each block through a door and compares the reply it gets with the
//! recorded one by these same rules.
//!
//! Compared: a reply's value (JSON structurally, text as written), or its
//! error's first line (`TypeError: x is not a function`; frames may move
//! with the app's code), or that it timed out. Not compared: timestamps,
//! durations, console output and background events, notes.

use similar::TextDiff;

use crate::engine::markdown::{blocks, exec_info, parse_header, Block, HeaderKind};
use crate::lang::Lang;

/// A block of a recorded log and what its reply said.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// 1-based, in the log's order.
    pub index: usize,
    /// The 1-based line of its opening fence.
    pub line: usize,
    pub code: String,
    pub lang: Lang,
    /// A fence option `timeout=…`, as written.
    pub timeout: Option<String>,
    /// `None`: the log has no reply for it (not compared).
    pub outcome: Option<Outcome>,
}

/// What a reply said, as compared.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A `JSON` value fence.
    Json(serde_json::Value),
    /// A `Text` value fence's text (a function, a node, a long string…).
    Text(String),
    /// The error's first line, `Name: message`.
    Error(String),
    /// `(**TIMEOUT** after …)`.
    Timeout,
    /// A reply with no result to compare (cancelled, a result lost).
    Other(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Json(v) => {
                write!(f, "{}", serde_json::to_string_pretty(v).unwrap_or_default())
            }
            Outcome::Text(t) => write!(f, "{t}"),
            Outcome::Error(e) => write!(f, "{e}"),
            Outcome::Timeout => write!(f, "a timeout"),
            Outcome::Other(s) => write!(f, "{s}"),
        }
    }
}

/// The 1-based line number of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The blocks of a recorded log, in order, each with its reply's outcome,
/// and the stem of the realm that answered (the first reply's).
pub fn recorded_blocks(text: &str) -> (Vec<Recorded>, Option<String>) {
    let mut out: Vec<Recorded> = Vec::new();
    let mut stem: Option<String> = None;
    // The realm the last request went to: its reply header names it.
    let mut to: Option<String> = None;
    let mut pending_header = false;
    // A reply header whose first fence is the outcome.
    let mut reply: Option<(String, usize)> = None;
    let pieces: Vec<Block<'_>> = blocks(text, 0).collect();
    for piece in pieces {
        match piece {
            Block::Line(line) => {
                let Some(h) = parse_header(line.text.trim_end()) else {
                    continue;
                };
                let HeaderKind::To {
                    to: target, suffix, ..
                } = h.kind
                else {
                    continue;
                };
                if to.as_deref() == Some(h.from) && reply_waits(&out) {
                    stem.get_or_insert_with(|| h.from.to_string());
                    reply = Some((suffix.to_string(), out.len() - 1));
                    // A reply whose header says how it ended needs no fence.
                    if let Some(o) = outcome_of_suffix(suffix) {
                        if let Some(last) = out.last_mut() {
                            last.outcome = Some(o);
                        }
                        reply = None;
                    }
                    pending_header = false;
                } else {
                    to = Some(target.to_string());
                    pending_header = true;
                }
            }
            Block::Fence(f) => {
                let body = &text[f.body_start..f.body_end];
                if let Some((_, at)) = reply.take() {
                    if let Some(last) = out.get_mut(at) {
                        last.outcome = Some(outcome_of_fence(f.info, body));
                    }
                    continue;
                }
                let Some(info) = exec_info(f.info) else {
                    continue;
                };
                if !pending_header && to.is_none() {
                    continue;
                }
                let timeout = f
                    .info
                    .split_whitespace()
                    .find_map(|t| t.strip_prefix("timeout="))
                    .map(String::from);
                out.push(Recorded {
                    index: out.len() + 1,
                    line: line_of(text, f.start),
                    code: body.to_string(),
                    lang: info.lang,
                    timeout,
                    outcome: None,
                });
            }
        }
    }
    (out, stem)
}

/// Whether the last block still waits for its reply.
fn reply_waits(out: &[Recorded]) -> bool {
    out.last().is_some_and(|b| b.outcome.is_none())
}

/// An outcome the reply header alone tells.
fn outcome_of_suffix(suffix: &str) -> Option<Outcome> {
    if suffix.contains("**TIMEOUT**") {
        return Some(Outcome::Timeout);
    }
    if suffix.contains("**CANCELLED**") || suffix.contains("result lost") {
        return Some(Outcome::Other(suffix.trim_matches(['(', ')']).to_string()));
    }
    None
}

/// The outcome a reply's first fence shows.
fn outcome_of_fence(info: &str, body: &str) -> Outcome {
    let kind = info.split_whitespace().next().unwrap_or_default();
    let body = body.strip_suffix('\n').unwrap_or(body);
    match kind {
        "JSON" => match serde_json::from_str(body) {
            Ok(v) => Outcome::Json(v),
            Err(_) => Outcome::Text(body.to_string()),
        },
        "Error" => Outcome::Error(body.lines().next().unwrap_or_default().to_string()),
        _ => Outcome::Text(body.to_string()),
    }
}

/// The outcome of one reply as the log writes it (header, fences).
pub fn reply_outcome(reply: &str) -> Option<Outcome> {
    let mut pieces = blocks(reply, 0);
    let mut suffix = None;
    for piece in pieces.by_ref() {
        match piece {
            Block::Line(l) => {
                if let Some(h) = parse_header(l.text.trim_end()) {
                    if let HeaderKind::To { suffix: s, .. } = h.kind {
                        if let Some(o) = outcome_of_suffix(s) {
                            return Some(o);
                        }
                        suffix = Some(s);
                    }
                }
            }
            Block::Fence(f) if suffix.is_some() => {
                return Some(outcome_of_fence(f.info, &reply[f.body_start..f.body_end]));
            }
            Block::Fence(_) => {}
        }
    }
    None
}

/// How a replayed block's outcome differs from the recorded one, as
/// lines to print; `None` when they agree.
pub fn compare(recorded: &Outcome, now: &Outcome) -> Option<String> {
    if recorded == now {
        return None;
    }
    let kind = |o: &Outcome| match o {
        Outcome::Json(_) | Outcome::Text(_) => "a value",
        Outcome::Error(_) => "an error",
        Outcome::Timeout => "a timeout",
        Outcome::Other(_) => "no result",
    };
    let (was, is) = (recorded.to_string(), now.to_string());
    if kind(recorded) != kind(now) {
        return Some(format!(
            "recorded {}, now {}:\n  recorded: {}\n  now:      {}",
            kind(recorded),
            kind(now),
            indent(&was),
            indent(&is)
        ));
    }
    let what = match recorded {
        Outcome::Error(_) => "the error",
        _ => "the value",
    };
    if !was.contains('\n') && !is.contains('\n') {
        return Some(format!(
            "{what} differs:\n  recorded: {was}\n  now:      {is}"
        ));
    }
    let diff = TextDiff::from_lines(&was, &is);
    let body = diff
        .unified_diff()
        .context_radius(2)
        .header("recorded", "now")
        .to_string();
    Some(format!("{what} differs:\n{}", indent_all(&body)))
}

fn indent(text: &str) -> String {
    text.replace('\n', "\n            ")
}

fn indent_all(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A span of a log's lines (`--lines 40-120`, `40-`, `-120`, `57`):
/// 1-based, both ends included; the blocks whose opening fence lies in it
/// are replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    pub from: usize,
    pub to: usize,
}

impl LineSpan {
    /// Whether a block opening at `line` is in the span.
    pub fn holds(&self, line: usize) -> bool {
        (self.from..=self.to).contains(&line)
    }
}

impl std::str::FromStr for LineSpan {
    type Err = String;

    fn from_str(text: &str) -> Result<LineSpan, String> {
        let number = |t: &str, empty: usize| -> Result<usize, String> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(empty);
            }
            t.parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("`{t}` is not a line number (1 or more)"))
        };
        let (from, to) = match text.split_once('-') {
            Some((a, b)) => (number(a, 1)?, number(b, usize::MAX)?),
            None => {
                let n = number(text, 0)?;
                if n == 0 {
                    return Err("a span of lines: FROM-TO, FROM-, -TO or one line".into());
                }
                (n, n)
            }
        };
        if from > to {
            return Err(format!("the span starts after it ends ({from} > {to})"));
        }
        Ok(LineSpan { from, to })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LOG: &str = "\
# shop-3f2a

> **agent** to shop-3f2a at 10:00:00
```js
1 + 1
```

> **shop-3f2a** to agent at 10:00:00 (1ms)
```JSON
2
```
```Text console.log
not compared
```

> **shop-3f2a** background at 10:00:01
```Text console.log
also not compared
```

> **agent** to shop-3f2a at 10:00:02
```ts timeout=5s
null.x
```

> **shop-3f2a** to agent at 10:00:02 (**ERROR** after 3ms)
```Error
TypeError: Cannot read properties of null (reading 'x')
    at <cell>:1:6
```

> **claude** to shop-3f2a at 10:00:03
```js
await new Promise(() => {})
```

> **shop-3f2a** to claude at 10:00:03 (**TIMEOUT** after 1.0s)
```Error
TimeoutError: no result within 1.0s.
```

> **agent** to shop-3f2a at 10:00:04
```js
({ a: [1, 2] })
```

> **shop-3f2a** to agent at 10:00:04 (2ms)
```JSON
{ \"a\": [1, 2] }
```

> **agent** to shop-3f2a at 10:00:05
```js
'never answered'
```

> Write code in a fenced JS block below to execute against this page.
";

    #[test]
    fn a_log_reads_as_blocks_and_their_outcomes() {
        let (blocks, stem) = recorded_blocks(LOG);
        assert_eq!(stem.as_deref(), Some("shop-3f2a"));
        let got: Vec<_> = blocks
            .iter()
            .map(|b| {
                (
                    b.index,
                    b.line,
                    b.code.as_str(),
                    b.lang,
                    b.timeout.as_deref(),
                    b.outcome.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    1,
                    4,
                    "1 + 1\n",
                    Lang::Js,
                    None,
                    Some(Outcome::Json(json!(2)))
                ),
                (
                    2,
                    22,
                    "null.x\n",
                    Lang::Ts,
                    Some("5s"),
                    Some(Outcome::Error(
                        "TypeError: Cannot read properties of null (reading 'x')".into()
                    ))
                ),
                (
                    3,
                    33,
                    "await new Promise(() => {})\n",
                    Lang::Js,
                    None,
                    Some(Outcome::Timeout)
                ),
                (
                    4,
                    43,
                    "({ a: [1, 2] })\n",
                    Lang::Js,
                    None,
                    Some(Outcome::Json(json!({"a": [1, 2]})))
                ),
                (5, 53, "'never answered'\n", Lang::Js, None, None),
            ]
        );
    }

    #[test]
    fn a_reply_reads_as_its_outcome() {
        let cases = [
            ("> **s-1** to cli at 10:00:00 (3ms)\n```JSON\n\"Shop\"\n```\n", Some(Outcome::Json(json!("Shop")))),
            ("> **s-1** to cli at 10:00:00 (3ms)\n```Text\nƒ f()\n```\n", Some(Outcome::Text("ƒ f()".into()))),
            (
                "> **s-1** to cli at 10:00:00 (**ERROR** after 1ms)\n```Error\nError: no\n    at <cell>:1:7\n```\n",
                Some(Outcome::Error("Error: no".into())),
            ),
            ("> **s-1** to cli at 10:00:00 (**TIMEOUT** after 1.0s)\n```Error\nTimeoutError: …\n```\n", Some(Outcome::Timeout)),
            ("no reply here\n", None),
        ];
        for (reply, want) in cases {
            assert_eq!(reply_outcome(reply), want, "{reply}");
        }
    }

    #[test]
    fn outcomes_compare_by_value_and_error_line() {
        let same = [
            (
                Outcome::Json(json!({"a": 1, "b": 2})),
                Outcome::Json(json!({"a": 1, "b": 2})),
            ),
            (
                Outcome::Error("TypeError: x".into()),
                Outcome::Error("TypeError: x".into()),
            ),
            (Outcome::Timeout, Outcome::Timeout),
        ];
        for (a, b) in same {
            assert_eq!(compare(&a, &b), None);
        }
        let differ = [
            (
                Outcome::Json(json!(2)),
                Outcome::Json(json!(3)),
                "the value differs:\n  recorded: 2\n  now:      3",
            ),
            (
                Outcome::Error("TypeError: x".into()),
                Outcome::Json(json!(1)),
                "recorded an error, now a value",
            ),
            (
                Outcome::Json(json!(1)),
                Outcome::Error("Error: boom".into()),
                "recorded a value, now an error",
            ),
            (
                Outcome::Error("TypeError: x".into()),
                Outcome::Error("RangeError: y".into()),
                "the error differs",
            ),
            (
                Outcome::Timeout,
                Outcome::Json(json!(1)),
                "recorded a timeout, now a value",
            ),
            (
                Outcome::Text("a".into()),
                Outcome::Json(json!("a")),
                "the value differs",
            ),
        ];
        for (a, b, want) in differ {
            let got = compare(&a, &b).expect("a difference");
            assert!(got.contains(want), "{got}");
        }
        let multi = compare(
            &Outcome::Json(json!({"items": [1, 2, 3]})),
            &Outcome::Json(json!({"items": [1, 2, 4]})),
        )
        .unwrap();
        assert!(
            multi.contains("-    3") && multi.contains("+    4"),
            "{multi}"
        );
    }

    #[test]
    fn spans_of_lines() {
        let span = |t: &str| t.parse::<LineSpan>();
        for (text, from, to) in [
            ("40-120", 40, 120),
            ("40-", 40, usize::MAX),
            ("-120", 1, 120),
            ("57", 57, 57),
            (" 3 - 4 ", 3, 4),
        ] {
            assert_eq!(span(text), Ok(LineSpan { from, to }), "{text}");
        }
        for bad in ["", "0", "a-3", "5-2", "1-0"] {
            assert!(span(bad).is_err(), "{bad}");
        }
        // `-` alone is the whole log.
        assert_eq!(
            span("-"),
            Ok(LineSpan {
                from: 1,
                to: usize::MAX
            })
        );
        let s = span("10-20").unwrap();
        assert!(s.holds(10) && s.holds(20) && !s.holds(9) && !s.holds(21));
    }
}
