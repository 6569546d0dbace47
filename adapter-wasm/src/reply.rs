//! How much of a value a job's reply carries (docs/log-format.md,
//! "Values"): the walk's limits for the fence options `depth=N` and
//! `full`, and the cap on the reply's text. Pure, so it is tested natively.
//!
//! Strings of a reply are sent whole: the hub shows what fits inline and
//! archives the rest, so the realm cuts only at [`MAX_REPLY_BYTES`], where
//! the hub's frame limit would otherwise close the socket and lose the
//! reply; what it cuts there it says.

use daebug_protocol::{DEFAULT_DEPTH, MAX_DEPTH, MAX_REPLY_BYTES};

/// How a value is written into the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendered {
    /// Plain JSON text.
    Json(String),
    /// Inspect-style text.
    Text(String),
}

/// Levels `full` walks: the walk recurses, and the realm's stack must
/// hold it; deeper levels show as `[Object]` like any depth limit.
pub const FULL_DEPTH: usize = 100;

/// Items shown per collection without `full`.
pub const ITEMS: usize = 100;

/// Nodes one `full` walk may visit (a default walk stops at 10,000).
pub const FULL_NODES: usize = 1_000_000;

/// What a job's walk may show: nesting levels, items per collection and
/// characters per string (whole: the reply cap bounds them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobLimits {
    pub depth: usize,
    pub items: usize,
    pub string: usize,
}

/// The limits of a job with fence options `depth` (`depth=N`, 1 to 20;
/// anything else the hub refused before sending) and `full`.
pub fn job_limits(depth: Option<u32>, full: bool) -> JobLimits {
    if full {
        return JobLimits {
            depth: FULL_DEPTH,
            items: usize::MAX,
            string: usize::MAX,
        };
    }
    JobLimits {
        depth: depth.unwrap_or(DEFAULT_DEPTH).clamp(1, MAX_DEPTH) as usize,
        items: ITEMS,
        string: usize::MAX,
    }
}

/// Bytes `c` takes in the reply's frame, where the rendered text is a
/// JSON string (a quote or backslash is escaped, a control character
/// written `\u00XX`).
fn wire_bytes(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// `rendered` as it is sent: whole when its frame text fits in `max`
/// bytes, else its first part as text (cut JSON is no JSON) with a last
/// line that says how much was left out and why.
pub fn cap(rendered: Rendered, max: usize) -> Rendered {
    let text = match &rendered {
        Rendered::Json(t) | Rendered::Text(t) => t,
    };
    // Every char takes at least as many frame bytes as it has bytes.
    if text.len() * 6 <= max {
        return rendered;
    }
    let mut used = 0;
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        used += wire_bytes(c);
        if used > max {
            end = i;
            break;
        }
    }
    if end == text.len() {
        return rendered;
    }
    // `get`, not indexing: no slicing panic in the .wasm (see daebug_protocol::text).
    let (kept, left) = text.split_at_checked(end).unwrap_or((text, ""));
    Rendered::Text(format!(
        "{kept}\n... ({} more bytes not sent: a reply carries at most {} MiB)",
        left.len(),
        MAX_REPLY_BYTES >> 20
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_options_set_the_limits() {
        let l = |depth, full| job_limits(depth, full);
        assert_eq!(
            l(None, false),
            JobLimits {
                depth: 4,
                items: 100,
                string: usize::MAX
            }
        );
        assert_eq!(l(Some(8), false).depth, 8);
        assert_eq!(l(Some(20), false).depth, 20);
        // The hub refuses these; a realm sent one anyway stays in bounds.
        assert_eq!(l(Some(0), false).depth, 1);
        assert_eq!(l(Some(99), false).depth, 20);
        let full = l(Some(2), true);
        assert_eq!(
            (full.depth, full.items, full.string),
            (FULL_DEPTH, usize::MAX, usize::MAX)
        );
    }

    #[test]
    fn a_reply_within_the_cap_is_sent_as_it_is() {
        let json = Rendered::Json(format!("\"{}\"", "x".repeat(100)));
        // The JSON's own quotes travel escaped: 2 + 100 + 2 bytes.
        assert_eq!(cap(json.clone(), 104), json);
        let text = Rendered::Text("a\"b\\c\n".into());
        // 1 + 2 + 1 + 2 + 1 + 2 frame bytes.
        assert_eq!(cap(text.clone(), 9), text);
    }

    #[test]
    fn a_reply_over_the_cap_is_cut_and_says_so() {
        let json = Rendered::Json(format!("\"{}\"", "x".repeat(100)));
        match cap(json, 11) {
            Rendered::Text(t) => assert_eq!(
                t,
                "\"xxxxxxxxx\n... (92 more bytes not sent: a reply carries at most 64 MiB)"
            ),
            other => panic!("{other:?}"),
        }
        // Escapes count as they travel; a char is never split.
        match cap(Rendered::Text("\"\"é\u{1}z".into()), 6) {
            Rendered::Text(t) => assert!(t.starts_with("\"\"é\n... (2 more bytes"), "{t}"),
            other => panic!("{other:?}"),
        }
    }
}
