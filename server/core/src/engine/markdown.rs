//! The little Markdown the engine needs: fenced blocks and the header lines
//! of requests and replies.
//!
//! Fences follow CommonMark: an opener is three or more backticks or tildes
//! indented at most three spaces; it is closed by a line of the same
//! character at least as long, with nothing but whitespace after it. A
//! fence that never closes runs to the end of the text (a draft).

use super::text::{lines_from, Line};
use super::time::{parse_timeout, ClockTime};

/// A fence opener line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FenceOpen<'a> {
    /// `` ` `` or `~`.
    pub ch: u8,
    /// How many of them.
    pub len: usize,
    /// The info string, trimmed.
    pub info: &'a str,
}

fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|&b| b == b' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// Parses a fence opener.
pub fn fence_open(line: &str) -> Option<FenceOpen<'_>> {
    let rest = strip_indent(line)?;
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = rest[len..].trim();
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some(FenceOpen { ch, len, info })
}

/// Whether `line` closes a fence opened by `open`.
pub fn closes(line: &str, open: &FenceOpen<'_>) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let run = rest.bytes().take_while(|&b| b == open.ch).count();
    run >= open.len && rest[run..].trim().is_empty()
}

/// A fenced block found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence<'a> {
    /// Start of the opener line.
    pub start: usize,
    /// Start of the line after the closing fence, or the text's end.
    pub next: usize,
    pub info: &'a str,
    /// Start of the first content line.
    pub body_start: usize,
    /// Start of the closing line (the text's end when unclosed).
    pub body_end: usize,
    /// False for a draft: no closing line before the end.
    pub closed: bool,
    /// Whether the closing line ends with a newline.
    pub terminated: bool,
}

/// A top-level piece of Markdown: a line outside fences, or a whole fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block<'a> {
    Line(Line<'a>),
    Fence(Fence<'a>),
}

impl Block<'_> {
    pub fn start(&self) -> usize {
        match self {
            Block::Line(l) => l.start,
            Block::Fence(f) => f.start,
        }
    }

    pub fn next(&self) -> usize {
        match self {
            Block::Line(l) => l.next,
            Block::Fence(f) => f.next,
        }
    }
}

/// The blocks of `text` from `start` (a line start) to its end.
pub fn blocks(text: &str, start: usize) -> impl Iterator<Item = Block<'_>> {
    let mut lines = lines_from(text, start).peekable();
    std::iter::from_fn(move || {
        let line = lines.next()?;
        let Some(open) = fence_open(line.text) else {
            return Some(Block::Line(line));
        };
        let mut fence = Fence {
            start: line.start,
            next: text.len(),
            info: open.info,
            body_start: line.next,
            body_end: text.len(),
            closed: false,
            terminated: false,
        };
        for inner in lines.by_ref() {
            if closes(inner.text, &open) {
                fence.next = inner.next;
                fence.body_end = inner.start;
                fence.closed = true;
                fence.terminated = inner.terminated;
                break;
            }
        }
        Some(Block::Fence(fence))
    })
}

pub use crate::lang::{ExecInfo, Lang};

/// Whether a fence with this info string is executable, and its options.
pub fn exec_info(info: &str) -> Option<ExecInfo> {
    if let Some(target) = super::agent_data::target(info) {
        return Some(ExecInfo {
            lang: Lang::Js,
            timeout: None,
            depth: None,
            full: false,
            prelude: false,
            data: Some(target),
        });
    }
    let mut tokens = info.split_whitespace().peekable();
    let lang = match tokens.peek() {
        None => Lang::Js,
        Some(t) if t.contains('=') => Lang::Js,
        Some(t) => {
            let lang = match t.to_ascii_lowercase().as_str() {
                "js" | "javascript" | "mjs" => Lang::Js,
                "ts" | "typescript" => Lang::Ts,
                _ => return None,
            };
            tokens.next();
            lang
        }
    };
    let (mut timeout, mut depth, mut full, mut prelude) = (None, None, false, false);
    for token in tokens {
        if let Some(value) = token.strip_prefix("timeout=") {
            timeout = Some(parse_timeout(value).ok_or_else(|| token.to_string()));
        } else if let Some(value) = token.strip_prefix("depth=") {
            depth = Some(parse_depth(value).ok_or_else(|| token.to_string()));
        } else if token == "full" {
            full = true;
        } else if token == "prelude" {
            prelude = true;
        }
    }
    Some(ExecInfo {
        lang,
        timeout,
        depth,
        full,
        prelude,
        data: None,
    })
}

/// `8` → 8: a `depth=` value, 1 to [`daebug_protocol::MAX_DEPTH`].
fn parse_depth(value: &str) -> Option<u32> {
    if value.is_empty() || value.len() > 2 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = value.parse().ok()?;
    (1..=daebug_protocol::MAX_DEPTH).contains(&n).then_some(n)
}

/// A request, reply or background header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    /// The name between `**`: the agent for a request, the stem for a reply.
    pub from: &'a str,
    pub kind: HeaderKind<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderKind<'a> {
    /// `> **from** to <to> at HH:MM:SS` followed by an optional
    /// parenthesised `suffix` (duration, ERROR, TIMEOUT, late…).
    To {
        to: &'a str,
        at: ClockTime,
        suffix: &'a str,
    },
    /// `> **from** background at HH:MM:SS`.
    Background { at: ClockTime },
    /// A lifecycle line: `> **from** reloaded at HH:MM:SS — …` (also
    /// `navigated`, `closed`; see `lifecycle.rs`).
    Lifecycle { at: ClockTime },
}

/// Parses `> **name** to target at HH:MM:SS (suffix)` and
/// `> **name** background at HH:MM:SS`.
pub fn parse_header(line: &str) -> Option<Header<'_>> {
    let rest = line.strip_prefix("> **")?;
    let close = rest.find("**")?;
    let from = &rest[..close];
    if from.is_empty() || from.trim() != from {
        return None;
    }
    let rest = &rest[close + 2..];
    if let Some(at) = super::lifecycle::parse_rest(rest).or_else(|| parse_human_rest(rest)) {
        return Some(Header {
            from,
            kind: HeaderKind::Lifecycle { at },
        });
    }
    if let Some(at) = rest.strip_prefix(" background at ") {
        let at = ClockTime::parse(at.trim_end())?;
        return Some(Header {
            from,
            kind: HeaderKind::Background { at },
        });
    }
    let rest = rest.strip_prefix(" to ")?;
    let at_pos = rest.find(" at ")?;
    let to = &rest[..at_pos];
    if to.is_empty() || to.contains(char::is_whitespace) {
        return None;
    }
    let rest = &rest[at_pos + 4..];
    let at = ClockTime::parse(rest.get(..8)?)?;
    let suffix = rest[8..].trim();
    if !(suffix.is_empty() || (suffix.starts_with('(') && suffix.ends_with(')'))) {
        return None;
    }
    Some(Header {
        from,
        kind: HeaderKind::To { to, at, suffix },
    })
}

/// The shortest fence of backticks that no run of backticks or tildes in
/// `content` can close or imitate: one longer than the longest run, at
/// least three. This is what keeps realm output from forging structure.
pub fn fence_for(content: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    let mut prev = 0u8;
    for b in content.bytes() {
        if (b == b'`' || b == b'~') && b == prev {
            run += 1;
        } else if b == b'`' || b == b'~' {
            run = 1;
        } else {
            run = 0;
        }
        prev = b;
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// The time of a person's answer line (`human.rs`) from its text after
/// `> **human**` (` answered "…" at 10:00:05`), or `None` when it is not
/// one. Here, with the other headers' readers, so that the writer of the
/// line and its reader do not depend on each other.
fn parse_human_rest(rest: &str) -> Option<ClockTime> {
    let quoted = rest.strip_prefix(" answered \"")?;
    let (title, at) = quoted.rsplit_once("\" at ")?;
    serde_json::from_str::<String>(&format!("\"{title}\"")).ok()?;
    ClockTime::parse(at).filter(|_| at.len() == 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openers_and_closers() {
        let o = fence_open("```js timeout=5s").unwrap();
        assert_eq!((o.ch, o.len, o.info), (b'`', 3, "js timeout=5s"));
        assert!(fence_open("   ~~~~").is_some());
        assert!(
            fence_open("    ```").is_none(),
            "indented code, not a fence"
        );
        assert!(fence_open("``").is_none());
        assert!(fence_open("``` a`b").is_none());
        let o = fence_open("````").unwrap();
        assert!(!closes("```", &o));
        assert!(closes("`````  ", &o));
        assert!(!closes("```` x", &o));
        assert!(!closes("~~~~", &o));
    }

    #[test]
    fn executable_info_strings() {
        for yes in [
            "",
            "js",
            "JS",
            "javascript",
            "mjs",
            "ts",
            "TypeScript",
            "timeout=5s",
            "js timeout=2m x=1",
        ] {
            assert!(exec_info(yes).is_some(), "{yes}");
        }
        for no in ["json", "text", "Error", "jsx", "python", "JSON console.log"] {
            assert!(exec_info(no).is_none(), "{no}");
        }
        assert_eq!(exec_info("ts").unwrap().lang, Lang::Ts);
        assert_eq!(
            exec_info("js timeout=2m").unwrap().timeout,
            Some(Ok(120_000))
        );
        assert_eq!(
            exec_info("timeout=soon").unwrap().timeout,
            Some(Err("timeout=soon".into()))
        );
    }

    /// `depth=N` and `full`, in any order with `timeout=`; a bad depth is
    /// kept as its token so the reply can name it.
    #[test]
    fn value_options() {
        let info = exec_info("js full depth=8 timeout=90s").unwrap();
        assert_eq!(
            (info.timeout, info.depth, info.full),
            (Some(Ok(90_000)), Some(Ok(8)), true)
        );
        let info = exec_info("ts").unwrap();
        assert_eq!((info.depth, info.full), (None, false));
        assert_eq!(exec_info("depth=1").unwrap().depth, Some(Ok(1)));
        assert_eq!(exec_info("js depth=20").unwrap().depth, Some(Ok(20)));
        for bad in ["0", "21", "99", "x", "", "-1", "8.5", "008", "1e1"] {
            let token = format!("depth={bad}");
            let info = exec_info(&format!("js {token}")).unwrap();
            assert_eq!(info.depth, Some(Err(token.clone())), "{bad}");
            let message = info.invalid().unwrap();
            assert!(message.contains(&format!("`{token}`")), "{message}");
            assert!(message.contains("depth=8 (1 to 20, 4 when absent)"));
        }
        // `fuller` is no option (unknown options are ignored, as before).
        assert!(!exec_info("js fuller").unwrap().full);
        // A bad timeout is named first, as before.
        let info = exec_info("js depth=0 timeout=soon").unwrap();
        assert!(info.invalid().unwrap().contains("`timeout=soon`"));
        assert_eq!(exec_info("js depth=3 full").unwrap().invalid(), None);
    }

    #[test]
    fn prelude_option() {
        assert!(exec_info("js prelude").unwrap().prelude);
        assert!(exec_info("ts timeout=5s prelude").unwrap().prelude);
        assert!(
            exec_info("prelude").is_none(),
            "an info string of its own is a language"
        );
        assert!(!exec_info("js").unwrap().prelude);
        assert!(!exec_info("js preludes").unwrap().prelude);
    }

    #[test]
    fn headers() {
        let h = parse_header("> **agent** to shop-3f2a at 10:00:00").unwrap();
        assert_eq!(h.from, "agent");
        assert!(matches!(
            h.kind,
            HeaderKind::To {
                to: "shop-3f2a",
                suffix: "",
                ..
            }
        ));
        let h = parse_header("> **shop** to agent at 10:00:00 (**ERROR** after 16ms)").unwrap();
        assert!(matches!(
            h.kind,
            HeaderKind::To {
                suffix: "(**ERROR** after 16ms)",
                ..
            }
        ));
        let h = parse_header("> **shop** background at 23:59:59").unwrap();
        assert!(matches!(h.kind, HeaderKind::Background { .. }));
        for no in [
            "**agent** to x at 10:00:00",
            "> **agent** to x at 10:00",
            "> **agent** to a b at 10:00:00",
            "> **agent** to x at 10:00:00 trailing",
            "> **** to x at 10:00:00",
        ] {
            assert!(parse_header(no).is_none(), "{no}");
        }
    }

    #[test]
    fn fences_outgrow_content() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ``` b"), "````");
        assert_eq!(fence_for("~~~~~"), "``````");
        assert_eq!(fence_for("`~`~"), "```");
    }

    #[test]
    fn block_scan() {
        let t = "a\n```js\nx\n```\nb\n~~~\nunclosed\n";
        let kinds: Vec<_> = blocks(t, 0)
            .map(|b| match b {
                Block::Line(l) => format!("line {}", l.text),
                Block::Fence(f) => format!("fence {} closed={}", f.info, f.closed),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "line a",
                "fence js closed=true",
                "line b",
                "fence  closed=false"
            ]
        );
    }
}
