//! The window logic of a log's transaction, pure (no disk): what the hub
//! knows of a file's end ([`Seen`]), the lines that show the text before
//! the engine's horizon has not moved ([`Anchor`]), when a window is not
//! enough ([`touches_first_line`]), and what a late write into a replaced
//! file was ([`LateWrite`]). [`super::log_file`] does the IO.

use daebug_core::engine::text::Eol;

/// How much text before the engine's horizon a window starts with: the
/// engine looks a few lines back from its footer (blank lines at the
/// seam), and these bytes must match for the window to be used at all.
const ANCHOR_MARGIN: usize = 4096;

/// The end of a file as the hub knows it: the text from byte `base` on.
/// (`base` is 0 when the hub read or wrote the whole file.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub base: usize,
    pub text: String,
}

impl Seen {
    /// The file's whole length in bytes.
    pub fn file_len(&self) -> usize {
        self.base + self.text.len()
    }
}

/// Lines the hub saw at a known place, just before and at the engine's
/// horizon. Found there again, they show that the text before the engine's
/// horizon has not moved, so reading can start at `at`.
#[derive(Debug)]
pub struct Anchor {
    /// A line start: where a window read begins.
    pub at: usize,
    /// The text from `at` to the end of the horizon's line.
    pub bytes: String,
    /// The file's line endings, decided by its first line: a window must
    /// agree, or the engine would write the other kind.
    pub eol: Eol,
}

/// The anchor for the next read, from the text the hub now knows and the
/// engine's horizon in it. Without a horizon there, there is none: the
/// next read is whole (an old anchor's bytes may still be in place while
/// what the engine looks for moved above them).
pub fn anchor(seen: &Seen, horizon: Option<usize>, old: Option<Anchor>) -> Option<Anchor> {
    let h = horizon?.checked_sub(seen.base)?;
    let bytes = seen.text.as_bytes();
    if h > bytes.len() {
        return None;
    }
    let end = bytes[h..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| h + i + 1);
    let from = bytes[..h.saturating_sub(ANCHOR_MARGIN)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    // Line endings are decided by the file's first line, which only a
    // whole read sees.
    let eol = match (seen.base, old) {
        (0, _) => Eol::detect(&seen.text),
        (_, Some(a)) => a.eol,
        (_, None) => return None,
    };
    Some(Anchor {
        at: seen.base + from,
        bytes: seen.text[from..end].to_string(),
        eol,
    })
}

/// Whether an edit starts on the first line of a window.
pub fn touches_first_line(window: &str, edits: &[daebug_core::engine::TextEdit]) -> bool {
    let first = window.find('\n').map_or(window.len(), |i| i + 1);
    edits.iter().any(|e| e.range.start < first)
}

/// What became of a file the hub replaced, since it knew its text (an
/// agent wrote through a handle opened before the hub's rename).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LateWrite {
    /// Nothing changed, or a rewrite through an old handle is under way
    /// (the file was emptied or cut short).
    Unchanged,
    /// Text was appended.
    Appended(String),
    /// Something else: the whole text as it is now.
    Rewritten(String),
}

/// The text appended to what the hub knew, from the replaced file's text
/// after `known.base`. (The bytes before the base must also be checked:
/// they are not in `from_base`.)
pub fn appended<'a>(known: &Seen, from_base: &'a str) -> Option<&'a str> {
    from_base
        .strip_prefix(known.text.as_str())
        .filter(|extra| !extra.is_empty())
}

/// Whether the log at the path (`at_path`) already holds what was
/// appended to a replaced file: an agent read that file (its text and the
/// append) and saved the log from that read. Appending it again would
/// write it twice.
pub fn already_holds(known: &Seen, extra: &str, at_path: &[u8]) -> bool {
    at_path.get(known.base..).is_some_and(|tail| {
        tail.starts_with(known.text.as_bytes())
            && tail[known.text.len()..].starts_with(extra.as_bytes())
    })
}

/// A replaced file whose text is now `whole` and is not an append. When
/// it is shorter than the hub's window starts, `starts_log` says whether
/// the log starts with it (a rewrite that has only reached the window).
pub fn rewrite(known: &Seen, whole: String, starts_log: bool) -> LateWrite {
    // Emptied, or cut short: a rewrite through the old handle is under
    // way; its text is compared with what the hub knew once it is whole.
    // (Cut short before the window, it is taken for the same text.)
    let cut_short = whole.len() < known.file_len()
        && (whole.len() <= known.base && starts_log
            || whole
                .get(known.base..)
                .is_some_and(|tail| known.text.starts_with(tail)));
    if cut_short || whole.trim().is_empty() {
        return LateWrite::Unchanged;
    }
    LateWrite::Rewritten(whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use daebug_core::engine::text::TextEdit;

    fn seen(base: usize, text: &str) -> Seen {
        Seen {
            base,
            text: text.into(),
        }
    }

    #[test]
    fn an_anchor_ends_with_the_horizon_line_and_starts_at_a_line() {
        let long = "x".repeat(ANCHOR_MARGIN);
        let text = format!("head\n{long}\nmiddle\nFOOTER\nafter\n");
        let h = text.find("FOOTER").unwrap();
        let a = anchor(&seen(0, &text), Some(h), None).unwrap();
        assert!(a.bytes.ends_with("FOOTER\n"), "{:?}", a.bytes);
        assert!(a.at == 0 || text.as_bytes()[a.at - 1] == b'\n');
        assert!(h - a.at >= ANCHOR_MARGIN.min(h));
        assert_eq!(a.eol, Eol::detect(&text));
        // No horizon, or a window without a known line ending: no anchor.
        assert!(anchor(&seen(0, &text), None, None).is_none());
        assert!(anchor(&seen(10, "FOOTER\n"), Some(10), None).is_none());
        let old = anchor(&seen(0, &text), Some(h), None);
        assert_eq!(anchor(&seen(10, "FOOTER\n"), Some(10), old).unwrap().at, 10);
        // A horizon before the window is none.
        assert!(anchor(&seen(10, "FOOTER\n"), Some(3), None).is_none());
    }

    #[test]
    fn an_edit_on_the_first_line_needs_the_whole_text() {
        let edit = |at: usize| TextEdit {
            range: at..at,
            insert: "x".into(),
        };
        assert!(touches_first_line("ab\ncd\n", &[edit(1)]));
        assert!(!touches_first_line("ab\ncd\n", &[edit(3)]));
        assert!(!touches_first_line("ab\ncd\n", &[]));
    }

    #[test]
    fn an_append_is_not_rescued_twice() {
        let known = seen(2, "ab\n");
        // The log was saved from a read of the replaced file and its append.
        assert!(already_holds(&known, "c\n", b"..ab\nc\nd\n"));
        // The hub's own write (its edits) without it: append.
        assert!(!already_holds(&known, "c\n", b"..aB\n"));
        assert!(!already_holds(&known, "c\n", b"..ab\n"));
        assert!(!already_holds(&known, "c\n", b"."));
    }

    #[test]
    fn late_writes_are_appends_rewrites_or_still_under_way() {
        let known = seen(4, "tail\n");
        assert_eq!(appended(&known, "tail\nmore\n"), Some("more\n"));
        assert_eq!(appended(&known, "tail\n"), None);
        assert_eq!(appended(&known, "tale\nmore\n"), None);
        // (whole text now, whether the log starts with it) → what it was.
        let cases: &[(&str, bool, LateWrite)] = &[
            ("", false, LateWrite::Unchanged),
            ("   \n", false, LateWrite::Unchanged),
            ("hea", true, LateWrite::Unchanged),
            ("hea", false, LateWrite::Rewritten("hea".into())),
            ("headta", false, LateWrite::Unchanged),
            ("headtx", false, LateWrite::Rewritten("headtx".into())),
            (
                "other text\n",
                false,
                LateWrite::Rewritten("other text\n".into()),
            ),
        ];
        for (whole, starts, want) in cases {
            assert_eq!(
                rewrite(&known, whole.to_string(), *starts),
                *want,
                "{whole:?}"
            );
        }
    }
}
