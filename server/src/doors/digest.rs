//! A text over an agent's budget of tokens, as a digest (docs/doors.md,
//! "Reading a log"): what it holds counted, not cut. Pure.
//!
//! - [`digest`]: a read of a log (`read_log`): the blocks and replies, the
//!   events by kind, those the log shows and those it only counts (a
//!   flood note: left out, or dropped at the realm's rate limit), the
//!   distinct messages with their repeats, the first and last lines, and
//!   the file with the whole text.
//! - [`reply_digest`]: an `eval` reply: its outcome, every event the
//!   realm reported, by kind (the ones it sent, of which the log shows
//!   ten, and the ones it only counted), the distinct messages of those it
//!   sent with their repeats, the first and last lines, the archive files
//!   the reply links, and where the whole reply is in the log.
//!
//! Each is made with shorter lists until it fits the budget; the counts
//! and where the whole text is always stay.

use std::fmt::Write as _;

use daebug_protocol::BackgroundEvent;

use super::json::EvalReply;
use daebug_core::engine::markdown::{blocks, exec_info, Block};
use daebug_core::engine::render::{event_info, thousands};

/// Distinct messages a digest lists at most.
const MESSAGES: usize = 20;
/// Lines a digest shows from the start and from the end.
const LINES: usize = 8;
/// Characters of one line a digest shows.
const LINE_CHARS: usize = 160;
/// The lists' lengths, longest first, tried until the digest fits.
const SIZES: [(usize, usize); 6] = [(MESSAGES, LINES), (10, 4), (5, 2), (3, 1), (1, 0), (0, 0)];

/// Tokens, as estimated: characters ÷ 4.
pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Events counted: by kind and by message (in the order first seen),
/// and those only counted (no message known).
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    /// `console.log`, `window.onerror`, … with how many.
    kinds: Vec<(String, u64)>,
    /// (kind, first line of the message), with how many.
    messages: Vec<((String, String), u64)>,
    /// Events with a message, all kinds.
    listed: u64,
    /// Left out to keep within a cap (the realm's, or the log's ten).
    omitted: u64,
    /// Dropped at the realm's rate limit.
    limited: u64,
}

impl Tally {
    /// One event of fence info `info` (`Text console.log`) whose message
    /// starts with `first`.
    fn add(&mut self, info: &str, first: &str) {
        let kind = info.split_once(' ').map_or(info, |(_, k)| k).to_string();
        let first: String = first.trim().chars().take(LINE_CHARS).collect();
        self.listed += 1;
        match self.kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.kinds.push((kind.clone(), 1)),
        }
        let key = (kind, first);
        match self.messages.iter_mut().find(|(m, _)| *m == key) {
            Some((_, n)) => *n += 1,
            None => self.messages.push((key, 1)),
        }
    }

    fn add_event(&mut self, e: &BackgroundEvent) {
        self.add(&event_info(e), e.message.lines().next().unwrap_or(""));
    }

    fn total(&self) -> u64 {
        self.listed + self.omitted + self.limited
    }

    /// `5,000 events: 50 sent (50 console.log); 4,950 not sent: …`:
    /// the counts line, `listed` saying what happened to those with a
    /// message (`shown`, `sent`).
    fn counts(&self, listed: &str, out: &mut String) {
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|(k, n)| format!("{} {k}", thousands(*n)))
            .collect();
        let _ = write!(
            out,
            "{} events: {} {listed}",
            thousands(self.total()),
            thousands(self.listed)
        );
        if !kinds.is_empty() {
            let _ = write!(out, " ({})", kinds.join(", "));
        }
        let not = self.omitted + self.limited;
        if not > 0 {
            let per_second = daebug_protocol::REALM_EVENTS_PER_SECOND;
            let _ = write!(
                out,
                "; {} not {listed}, only counted (messages unknown): {} over a cap, {} over the realm's {per_second}/s limit",
                thousands(not),
                thousands(self.omitted),
                thousands(self.limited)
            );
        }
        out.push('\n');
    }

    /// The distinct messages, most repeated first, at most `most`.
    fn messages(&self, of: &str, most: usize, out: &mut String) {
        if self.messages.is_empty() || most == 0 {
            return;
        }
        let mut sorted: Vec<&((String, String), u64)> = self.messages.iter().collect();
        sorted.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let several = self.kinds.len() > 1;
        let _ = writeln!(out, "{} distinct messages {of}:", sorted.len());
        for ((kind, message), n) in sorted.iter().take(most) {
            match several {
                true => {
                    let _ = writeln!(out, "  {n}× {message}  ({kind})");
                }
                false => {
                    let _ = writeln!(out, "  {n}× {message}");
                }
            }
        }
        if sorted.len() > most {
            let _ = writeln!(out, "  … and {} more", sorted.len() - most);
        }
    }
}

/// A digest of a read of `stem`'s log over its budget: see the module.
pub fn digest(text: &str, budget: usize, stem: &str) -> String {
    let about = LogAbout::of(text, stem);
    fitted(budget, |most, show| {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "(digest: {} lines, {} tokens, over the budget of {budget}; the whole text is in debug/{stem}.md)",
            text.lines().count(),
            tokens(text)
        );
        let _ = writeln!(
            out,
            "{} blocks run, {} replies ({} failed or timed out), {} background blocks",
            about.blocks_run, about.replies, about.failed, about.background
        );
        about.tally.counts("shown", &mut out);
        about.tally.messages("shown", most, &mut out);
        lines(text, show, &mut out);
        out
    })
}

/// A digest of an `eval` reply over its budget: see the module.
pub fn reply_digest(reply: &EvalReply, budget: usize) -> String {
    let text = &reply.text;
    let header = text.lines().next().unwrap_or("");
    // The realm sent `reply.events`; the log shows ten of them at most,
    // and its note counts the rest with those the realm left out.
    let shown = blocks(text, 0)
        .filter(|b| matches!(b, Block::Fence(f) if is_event(f.info)))
        .count() as u64;
    let (omitted, limited) = text
        .lines()
        .filter(|l| l.starts_with("... ("))
        .map(note_counts)
        .fold((0, 0), |(o, l), (a, b)| (o + a, l + b));
    let mut tally = Tally::default();
    reply.events.iter().for_each(|e| tally.add_event(e));
    let sent_not_shown = tally.listed.saturating_sub(shown);
    tally.omitted = omitted.saturating_sub(sent_not_shown);
    tally.limited = limited;
    let outcome = outcome(reply);
    let archives: Vec<&str> = text.lines().filter(|l| l.contains("](archive/")).collect();
    fitted(budget, |most, show| {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "(digest of a reply of {} lines, {} tokens, over the budget of {budget}; all of it: {}, the reply `{}`)",
            text.lines().count(),
            tokens(text),
            reply.log,
            cut(header)
        );
        let _ = writeln!(out, "{outcome}");
        tally.counts("sent", &mut out);
        tally.messages("of those sent", most, &mut out);
        lines(text, show, &mut out);
        for a in &archives {
            let _ = writeln!(out, "{}", cut(a));
        }
        out
    })
}

/// The first of `make(messages, lines)` over [`SIZES`] that fits
/// `budget`, else the shortest.
fn fitted(budget: usize, make: impl Fn(usize, usize) -> String) -> String {
    let mut out = String::new();
    for (most, show) in SIZES {
        out = make(most, show);
        if tokens(&out) <= budget {
            break;
        }
    }
    out
}

/// What a reply came to, in one line: its state and time, and its value
/// or error.
fn outcome(reply: &EvalReply) -> String {
    let what = match (&reply.value, &reply.error) {
        (_, Some(e)) => format!("error: {}: {}", e.name, e.message),
        (Some(serde_json::Value::String(s)), None) => format!("value: {s}"),
        (Some(v), None) => format!("value: {v}"),
        (None, None) => "no value".to_string(),
    };
    format!(
        "{} in {} ms; {}",
        reply.state,
        reply.duration_ms,
        cut(what.lines().next().unwrap_or(""))
    )
}

/// The first and last `show` lines of `text` (all of them when that is
/// most of it).
fn lines(text: &str, show: usize, out: &mut String) {
    if show == 0 {
        return;
    }
    let all: Vec<&str> = text.lines().collect();
    let mut list = |title: &str, lines: &[&str]| {
        let _ = writeln!(out, "{title}:");
        for l in lines {
            let _ = writeln!(out, "  {}", cut(l));
        }
    };
    if all.len() <= 2 * show {
        list("lines", &all);
    } else {
        list("first lines", &all[..show]);
        list("last lines", &all[all.len() - show..]);
    }
}

fn cut(line: &str) -> String {
    line.chars().take(LINE_CHARS).collect()
}

/// What a log's text holds, counted once for every size of the digest.
struct LogAbout {
    blocks_run: usize,
    replies: usize,
    failed: usize,
    background: usize,
    tally: Tally,
}

impl LogAbout {
    fn of(text: &str, stem: &str) -> LogAbout {
        let reply = format!("> **{stem}** to ");
        let background_header = format!("> **{stem}** background at ");
        let mut about = LogAbout {
            blocks_run: 0,
            replies: 0,
            failed: 0,
            background: 0,
            tally: Tally::default(),
        };
        for b in blocks(text, 0) {
            match b {
                Block::Fence(f) if exec_info(f.info).is_some() => about.blocks_run += 1,
                Block::Fence(f) if is_event(f.info) => {
                    let body = &text[f.body_start..f.body_end];
                    about.tally.add(f.info, body.lines().next().unwrap_or(""));
                }
                Block::Fence(_) => {}
                Block::Line(l) => {
                    if l.text.starts_with(&reply) {
                        about.replies += 1;
                        if l.text.contains("(**ERROR**") || l.text.contains("(**TIMEOUT**") {
                            about.failed += 1;
                        }
                    } else if l.text.starts_with(&background_header) {
                        about.background += 1;
                    } else if l.text.starts_with("... (") {
                        let (o, lim) = note_counts(l.text);
                        about.tally.omitted += o;
                        about.tally.limited += lim;
                    }
                }
            }
        }
        about
    }
}

/// The events a flood note counts: left out, and dropped at the rate
/// limit. "... (12 more background events omitted; 1,300 background
/// events dropped at the 100/s limit) ..." is (12, 1,300); the rate in it,
/// a number followed by `/s`, is neither.
fn note_counts(note: &str) -> (u64, u64) {
    let inner = note
        .trim()
        .trim_start_matches("... (")
        .trim_end_matches(") ...");
    let mut counts = (0, 0);
    for part in inner.split(';') {
        let Some(number) = part.split_whitespace().next() else {
            continue;
        };
        let Ok(n) = number.replace(',', "").parse::<u64>() else {
            continue;
        };
        if part.contains("dropped at") {
            counts.1 += n;
        } else if part.contains("omitted") {
            counts.0 += n;
        }
    }
    counts
}

/// Whether a fence's info string is a captured event's (`Text
/// console.log`, `Error window.onerror`, …).
fn is_event(info: &str) -> bool {
    let mut words = info.split_whitespace();
    matches!(
        (words.next(), words.next()),
        (Some("Text" | "Error" | "JSON"), Some(_))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_protocol::{EventType, Level};

    const STEM: &str = "shop-3f2a";

    #[test]
    fn a_flood_note_counts_the_events_not_the_rate() {
        let note = "... (12 more background events omitted; 1,300 background events dropped at the 100/s limit) ...";
        assert_eq!(note_counts(note), (12, 1_300));
        assert_eq!(
            note_counts("... (3 background events dropped at the 100/s limit) ..."),
            (0, 3)
        );
        assert_eq!(
            note_counts("... (1 more background event omitted) ..."),
            (1, 0)
        );
    }

    fn event(message: &str) -> BackgroundEvent {
        BackgroundEvent {
            kind: EventType::Console,
            level: Level::Log,
            source: None,
            ts: "10:00:00".into(),
            message: message.into(),
            stack: None,
        }
    }

    /// 5,000 `console.log` calls of three messages in one block: the
    /// realm sent 50 (its cap), the log shows ten and a note; the digest
    /// counts all 5,000, lists the three messages with their repeats among
    /// those sent, says what was only counted, and where the reply is.
    #[test]
    fn a_flooded_reply_is_summarised_not_cut() {
        let events: Vec<BackgroundEvent> = (0..50)
            .map(|i| event(&format!("cart {}: 3 items, total 42.00 EUR", i % 3)))
            .collect();
        let shown = daebug_core::engine::render::events(
            &events,
            daebug_core::engine::render::Drops::new(50, 4_900),
        );
        let header = format!("> **{STEM}** to mcp at 10:00:05 (1200ms)");
        let reply = EvalReply {
            ok: true,
            state: "completed".into(),
            text: format!("{header}\n{shown}```JSON\n\"done\"\n```\n"),
            value: Some(serde_json::json!("done")),
            error: None,
            events,
            duration_ms: 1200,
            log: format!("debug/{STEM}.md"),
            images: Vec::new(),
            log_error: None,
        };
        let budget = 150;
        assert!(tokens(&reply.text) > budget);
        let d = reply_digest(&reply, budget);
        assert!(tokens(&d) <= budget, "{} tokens:\n{d}", tokens(&d));
        assert!(d.contains("completed in 1200 ms; value: done"), "{d}");
        assert!(
            d.contains("5,000 events: 50 sent (50 console.log); 4,950 not sent, only counted (messages unknown): 50 over a cap, 4,900 over the realm's 100/s limit"),
            "{d}"
        );
        assert!(d.contains("3 distinct messages of those sent:"), "{d}");
        assert!(d.contains("17× cart 0: 3 items"), "{d}");
        assert!(d.contains("16× cart 2: 3 items"), "{d}");
        assert!(
            d.contains(&format!("debug/{STEM}.md, the reply `{header}`")),
            "{d}"
        );
        // A larger budget shows the first and last lines too.
        let d = reply_digest(&reply, 400);
        assert!(
            d.contains("first lines:") && d.contains("last lines:"),
            "{d}"
        );
        assert!(d.contains("  ```JSON"), "{d}");
    }

    /// A log's flood over the budget: counted by kind, shown and not.
    #[test]
    fn a_flooded_log_is_summarised() {
        let mut text = String::new();
        for i in 0..500 {
            text.push_str(&format!("> **{STEM}** background at 10:00:{:02}\n", i % 60));
            for _ in 0..10 {
                text.push_str("```Text console.log\ntick\n```\n");
            }
            text.push_str("... (8 more background events omitted; 1,000 background events dropped at the 100/s limit) ...\n\n");
        }
        text.push_str("```Error window.onerror\nboom\n```\n\n");
        let d = digest(&text, 500, STEM);
        assert!(tokens(&d) <= 500, "{} tokens:\n{d}", tokens(&d));
        assert!(d.contains("5000× tick  (console.log)"), "{d}");
        assert!(d.contains("1× boom  (window.onerror)"), "{d}");
        assert!(
            d.contains("509,001 events: 5,001 shown (5,000 console.log, 1 window.onerror); 504,000 not shown, only counted (messages unknown): 4,000 over a cap, 500,000 over"),
            "{d}"
        );
        assert!(d.contains("500 background blocks"), "{d}");
        assert!(d.contains(&format!("debug/{STEM}.md")), "{d}");
    }

    /// However small the budget, the counts and where the text is stay.
    #[test]
    fn a_tiny_budget_keeps_the_counts() {
        let text = "```Text console.log\ntick\n```\n".repeat(100);
        let d = digest(&text, 1, STEM);
        assert!(d.contains("100 events: 100 shown"), "{d}");
        assert!(d.contains(&format!("debug/{STEM}.md")), "{d}");
        assert!(!d.contains("× tick"), "{d}");
    }
}
