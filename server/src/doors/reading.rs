//! What a door returns of a log, as a budget of tokens (docs/doors.md,
//! "Reading a log"): the last lines by default, only what was added since
//! a cursor, and a digest when the text is over a budget. Pure: the log's
//! text and how much of its history was moved to history files in; the
//! slice, the cursor and the digest (`digest.rs`) out.
//!
//! A cursor names a place in the log's whole history, history files
//! included: `<offset>.<hash>`, the byte offset counted from the start of
//! the log's body as if no history had been moved, and a hash of the 64
//! bytes before it. It is put where the hub will not rewrite what comes
//! before: at the running block's executing region (it becomes the reply),
//! else at the footer (late replies and events go above it), else at the
//! end. A save that rewrote the log from an older read shifts text: the
//! cursor is found again by its hash, nearest its offset first.

use super::digest::{digest, tokens};
use daebug_core::engine::markdown::{blocks, Block};
use daebug_core::engine::template::FOOTER;

/// Lines `read_log` returns when asked for no `tail` and no `since`.
pub const DEFAULT_TAIL: usize = 200;
/// Bytes before a cursor that its hash covers.
const CURSOR_CONTEXT: usize = 64;

/// What is asked of a log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogQuery {
    /// Only the last N lines.
    pub tail: Option<usize>,
    /// Only what was added after this cursor (returned by an earlier read).
    pub since: Option<String>,
    /// Tokens (characters ÷ 4): over it, a digest instead of the text.
    pub budget: Option<usize>,
}

/// A log as a door reads it.
#[derive(Debug, Clone, Copy)]
pub struct LogText<'a> {
    pub stem: &'a str,
    pub text: &'a str,
    /// Where the body starts (after the title, intro and history links).
    pub body_start: usize,
    /// Bytes moved to history files so far.
    pub archived: u64,
}

/// What a read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRead {
    /// The log's text from where the read starts, or a digest of it.
    pub text: String,
    /// Lines of the log before what was read.
    pub left_out: usize,
    /// Pass as `since` to read only what is added after this read.
    pub cursor: String,
    /// Whether `text` is a digest (the text was over the budget).
    pub digest: bool,
    /// Why the read did not start where it was asked to, if it did not.
    pub note: Option<String>,
}

/// Reads `log` as `query` asks; with neither `tail` nor `since`, the last
/// `default_tail` lines (all of it when `None`).
pub fn read(log: LogText<'_>, query: &LogQuery, default_tail: Option<usize>) -> LogRead {
    let text = log.text;
    let end = settled_end(log);
    let cursor = cursor_at(log, end);
    let mut note = None;
    let start = match (&query.since, query.tail.or(default_tail)) {
        (Some(since), _) => match find(log, since) {
            Found::At(at) => at,
            Found::Moved(at) => {
                note = Some("part of what was added since the cursor was moved to a history file (see the log's head); reading from the log's body".to_string());
                at
            }
            Found::Lost => {
                note = Some(format!(
                    "the cursor {since} is no longer in the log (a save rewrote it, or it is not this log's); reading its last {DEFAULT_TAIL} lines"
                ));
                tail_start(text, DEFAULT_TAIL)
            }
        },
        (None, Some(n)) => tail_start(text, n),
        (None, None) => 0,
    };
    let mut slice = &text[start..];
    // Only what was added: the footer, which the hub writes back below
    // every reply, is no news (nor the blank line before it).
    if query.since.is_some() {
        if let Some(before) = slice
            .strip_suffix(FOOTER)
            .or_else(|| slice.trim_end_matches(['\n', '\r']).strip_suffix(FOOTER))
        {
            let kept = before.trim_end_matches(['\n', '\r']).len();
            // Up to the end of the last line kept (LF or CRLF).
            let end = before[kept..].find('\n').map_or(kept, |i| kept + i + 1);
            slice = &slice[..end];
        }
    }
    let left_out = text[..start].matches('\n').count();
    let over = query.budget.filter(|&b| tokens(slice) > b);
    let (text, digest) = match over {
        Some(budget) => (digest(slice, budget, log.stem), true),
        None => (slice.to_string(), false),
    };
    LogRead {
        text,
        left_out,
        cursor,
        digest,
        note,
    }
}

/// Where the hub may still rewrite the log: the running block's executing
/// region (it becomes the reply), else the footer, else the end.
fn settled_end(log: LogText<'_>) -> usize {
    let text = log.text;
    let header = format!("> **{}** to ", log.stem);
    let mut previous: Option<(usize, &str)> = None;
    let mut footer = None;
    for b in blocks(text, log.body_start) {
        let Block::Line(line) = b else {
            previous = None;
            continue;
        };
        if line.text.starts_with("executing") {
            if let Some((at, _)) = previous.filter(|(_, p)| p.starts_with(&header)) {
                return at;
            }
        }
        if line.text == FOOTER {
            footer = Some(line.start);
        }
        previous = Some((line.start, line.text));
    }
    match footer {
        Some(at) => at,
        // A last line without its newline may still grow.
        None => text
            .rfind('\n')
            .map_or(log.body_start, |i| i + 1)
            .max(log.body_start),
    }
}

/// The cursor of byte `at` (a line start in the body).
fn cursor_at(log: LogText<'_>, at: usize) -> String {
    let offset = log.archived + (at - log.body_start) as u64;
    let before = &log.text[at.saturating_sub(CURSOR_CONTEXT).max(log.body_start)..at];
    format!("{offset}.{:08x}", fnv(before.as_bytes()))
}

enum Found {
    At(usize),
    /// Part of what followed the cursor is in a history file now.
    Moved(usize),
    Lost,
}

/// Where `cursor` stands in `log`.
fn find(log: LogText<'_>, cursor: &str) -> Found {
    let parsed = cursor
        .split_once('.')
        .and_then(|(o, h)| Some((o.parse::<u64>().ok()?, u32::from_str_radix(h, 16).ok()?)));
    let Some((offset, hash)) = parsed else {
        return Found::Lost;
    };
    let text = log.text;
    if offset < log.archived {
        return Found::Moved(log.body_start);
    }
    let expected = log.body_start as u64 + (offset - log.archived);
    // The bytes its hash covers, as far as they are in the log's body (a
    // history file holds the rest, byte for byte).
    let covered = (offset.min(CURSOR_CONTEXT as u64)) as usize;
    let holds = |at: usize| {
        let from = at.saturating_sub(covered);
        match from >= log.body_start {
            true => fnv(&text.as_bytes()[from..at]) == hash,
            // Straddles the history file: the offset alone says.
            false => at as u64 == expected,
        }
    };
    let line_start = |at: usize| at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n');
    if let Ok(at) = usize::try_from(expected) {
        if at <= text.len() && text.is_char_boundary(at) && line_start(at) && holds(at) {
            return Found::At(at);
        }
    }
    // Shifted by a save: the line start whose bytes before it match,
    // nearest the offset.
    let starts = std::iter::once(log.body_start).chain(
        text[log.body_start..]
            .match_indices('\n')
            .map(|(i, _)| log.body_start + i + 1),
    );
    starts
        .filter(|&at| at - log.body_start >= covered && holds(at))
        .min_by_key(|&at| (at as u64).abs_diff(expected))
        .map_or(Found::Lost, Found::At)
}

/// 32-bit FNV-1a: a cursor's check of the bytes before it (not security:
/// a cursor only says where to read from).
fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Where the last `n` lines of `text` start.
fn tail_start(text: &str, n: usize) -> usize {
    text.len() - super::last_lines(text, n).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_core::engine::template::new_log;

    const STEM: &str = "shop-3f2a";

    fn log(text: &str, archived: u64) -> LogText<'_> {
        LogText {
            stem: STEM,
            text,
            body_start: daebug_core::engine::template::head_end(text, STEM).0,
            archived,
        }
    }

    fn with_lines(n: usize) -> String {
        let mut text = new_log(STEM);
        let footer = text.split_off(text.rfind("> Write code").unwrap());
        for i in 0..n {
            text.push_str(&format!("line {i}\n"));
        }
        text + &footer
    }

    #[test]
    fn no_tail_reads_the_last_lines_and_says_how_many_it_left_out() {
        let text = with_lines(500);
        let r = read(log(&text, 0), &LogQuery::default(), Some(DEFAULT_TAIL));
        assert_eq!(r.text.lines().count(), DEFAULT_TAIL);
        assert_eq!(r.left_out, text.lines().count() - DEFAULT_TAIL);
        assert!(r.text.ends_with(&format!("{FOOTER}\n")));
        let all = read(log(&text, 0), &LogQuery::default(), None);
        assert_eq!((all.text.as_str(), all.left_out), (text.as_str(), 0));
    }

    /// A cursor reads exactly what was added: late lines above the footer,
    /// a reply that replaced an executing region, after a save shifted the
    /// text above, and after history moved to a file.
    #[test]
    fn a_cursor_reads_exactly_what_was_added() {
        let text = with_lines(3);
        let first = read(log(&text, 0), &LogQuery::default(), None);
        assert_eq!(
            read_since(&text, 0, &first.cursor).text,
            "",
            "the footer is no news"
        );

        // A block and its executing region: the cursor stops before it.
        let (body, footer) = text.split_at(text.rfind(FOOTER).unwrap());
        let _ = footer;
        let running = format!(
            "{body}> **agent** to {STEM} at 10:00:00\n```js\n1+1\n```\n\n> **{STEM}** to agent at 10:00:00\nexecuting (0s)\n"
        );
        let r = read_since(&running, 0, &first.cursor);
        assert!(r.text.starts_with("> **agent**"), "{}", r.text);
        let mid = r.cursor.clone();
        // The reply replaces the region; background events follow.
        let done = format!(
            "{body}> **agent** to {STEM} at 10:00:00\n```js\n1+1\n```\n\n> **{STEM}** to agent at 10:00:00 (1ms)\n```JSON\n2\n```\n\n{FOOTER}\n"
        );
        let r = read_since(&done, 0, &mid);
        assert!(
            r.text
                .starts_with(&format!("> **{STEM}** to agent at 10:00:00 (1ms)")),
            "{}",
            r.text
        );
        let idle = r.cursor.clone();
        // A save shifted everything above (an edit in the prose): found
        // again by the bytes before it.
        let shifted = done.replacen("line 0", "line zero, edited", 1);
        let late = shifted.replace(
            &format!("{FOOTER}\n"),
            &format!("> **{STEM}** background at 10:00:01\n```Text console.log\nlater\n```\n\n{FOOTER}\n"),
        );
        let r = read_since(&late, 0, &idle);
        assert!(
            r.text.starts_with(&format!("> **{STEM}** background")),
            "{}",
            r.text
        );
        assert_eq!(r.note, None);
        // History moved: the body before the cursor is in a file now.
        let l = log(&late, 0);
        let cut = l.body_start + late[l.body_start..].find("> **agent**").unwrap();
        let moved = format!("{}{}", &late[..l.body_start], &late[cut..]);
        let archived = (cut - l.body_start) as u64;
        let r = read_since(&moved, archived, &idle);
        assert!(
            r.text.starts_with(&format!("> **{STEM}** background")),
            "{}",
            r.text
        );
        assert_eq!(r.note, None);
    }

    /// A CRLF log: the footer goes, the line before it stays whole.
    #[test]
    fn a_crlf_log_reads_since_a_cursor_without_its_footer() {
        let text = with_lines(3).replace('\n', "\r\n");
        let first = read(log(&text, 0), &LogQuery::default(), None);
        let added = text.replace(
            &format!("{FOOTER}\r\n"),
            &format!("later\r\n\r\n{FOOTER}\r\n"),
        );
        assert_eq!(read_since(&added, 0, &first.cursor).text, "later\r\n");
    }

    #[test]
    fn a_lost_cursor_says_so_and_reads_the_tail() {
        let text = with_lines(3);
        let r = read_since(&text, 0, "999999.deadbeef");
        assert!(r.note.is_some_and(|n| n.contains("no longer in the log")));
        let r = read_since(&text, 0, "garbage");
        assert!(r.note.is_some());
    }

    fn read_since(text: &str, archived: u64, cursor: &str) -> LogRead {
        let q = LogQuery {
            since: Some(cursor.into()),
            ..LogQuery::default()
        };
        read(log(text, archived), &q, Some(DEFAULT_TAIL))
    }

    /// A flood of one message over the budget: the digest counts it.
    #[test]
    fn a_flood_over_the_budget_is_a_digest() {
        let mut text = new_log(STEM);
        let footer = text.split_off(text.rfind("> Write code").unwrap());
        for i in 0..500 {
            text.push_str(&format!("> **{STEM}** background at 10:00:{:02}\n", i % 60));
            for _ in 0..10 {
                text.push_str("```Text console.log\ntick\n```\n");
            }
            text.push_str("... (8 more background events omitted) ...\n\n");
        }
        text.push_str("```Text console.error\nboom\n```\n\n");
        text.push_str(&footer);
        let q = LogQuery {
            tail: Some(100_000),
            budget: Some(500),
            ..LogQuery::default()
        };
        let r = read(log(&text, 0), &q, None);
        assert!(r.digest);
        assert!(
            tokens(&r.text) <= 500,
            "{} tokens:\n{}",
            tokens(&r.text),
            r.text
        );
        assert!(r.text.contains("5000× tick  (console.log)"), "{}", r.text);
        assert!(r.text.contains("1× boom  (console.error)"), "{}", r.text);
        assert!(r.text.contains("4,000 not shown"), "{}", r.text);
        assert!(r.text.contains("500 background blocks"), "{}", r.text);
        assert!(r.text.contains(&format!("debug/{STEM}.md")));
        // Under the budget: the text itself.
        let q = LogQuery {
            tail: Some(3),
            budget: Some(500),
            ..LogQuery::default()
        };
        assert!(!read(log(&text, 0), &q, None).digest);
    }
}
