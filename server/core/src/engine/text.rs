//! Lines, line endings and text edits: the engine's view of a file.
//!
//! Every offset the engine handles is a byte offset at a line start or at
//! the end of the text; both are always UTF-8 boundaries because `\n` is
//! ASCII, which is what keeps slicing panic-free on any input.

use std::ops::Range;

/// One replacement: `range` of the old text becomes `insert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: Range<usize>,
    pub insert: String,
}

/// Applies edits that are sorted and do not overlap (as the engine emits
/// them). Edits that do not fit the text are skipped rather than panicking;
/// the shell only applies an engine's output to the text it was given.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.insert.len()).sum::<usize>());
    let mut at = 0;
    for edit in edits {
        let Range { start, end } = edit.range;
        if start < at
            || end < start
            || text.get(at..start).is_none()
            || text.get(start..end).is_none()
        {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&edit.insert);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The smallest single edit turning `old` into `new`, offset by `base`
/// (the position of `old` in the whole file). `None` when they are equal.
pub fn diff(base: usize, old: &str, new: &str) -> Option<TextEdit> {
    if old == new {
        return None;
    }
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    Some(TextEdit {
        range: base + prefix..base + old.len() - suffix,
        insert: new[prefix..new.len() - suffix].to_string(),
    })
}

/// The line ending a file uses, so inserted text matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    Lf,
    CrLf,
}

impl Eol {
    /// Decided by the first line ending in the text; LF when there is none.
    pub fn detect(text: &str) -> Eol {
        match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => Eol::CrLf,
            _ => Eol::Lf,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }

    /// `text` (written with `\n`) in this ending.
    pub fn convert(self, text: &str) -> String {
        match self {
            Eol::Lf => text.to_string(),
            Eol::CrLf => text.replace('\n', "\r\n"),
        }
    }
}

/// One line of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset of the next line (after the terminator), or the text's end.
    pub next: usize,
    /// The content without `\n` or `\r\n`.
    pub text: &'a str,
    /// Whether the line ends with a newline (the last one may not).
    pub terminated: bool,
}

impl Line<'_> {
    /// Only spaces, tabs (or nothing).
    pub fn is_blank(&self) -> bool {
        self.text.bytes().all(|b| b == b' ' || b == b'\t')
    }
}

fn line_at(text: &str, start: usize) -> Line<'_> {
    let rest = &text[start..];
    let (len, next, terminated) = match rest.find('\n') {
        Some(i) => (i, start + i + 1, true),
        None => (rest.len(), text.len(), false),
    };
    let mut content = &rest[..len];
    if terminated {
        content = content.strip_suffix('\r').unwrap_or(content);
    }
    Line {
        start,
        next,
        text: content,
        terminated,
    }
}

/// Lines from `start` (a line start) to the end of `text`.
pub fn lines_from(text: &str, start: usize) -> impl Iterator<Item = Line<'_>> {
    let mut at = start.min(text.len());
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let line = line_at(text, at);
        at = line.next;
        Some(line)
    })
}

/// Lines ending at or before `end` (a line start or the text's end),
/// last first. Cost is proportional to how far the caller iterates.
pub fn lines_back(text: &str, end: usize) -> impl Iterator<Item = Line<'_>> {
    let mut end = end.min(text.len());
    std::iter::from_fn(move || {
        if end == 0 {
            return None;
        }
        // The line ending at `end` starts after the previous '\n', ignoring
        // the terminator of the line itself.
        let search = if text.as_bytes()[end - 1] == b'\n' {
            end - 1
        } else {
            end
        };
        let start = text[..search].rfind('\n').map_or(0, |i| i + 1);
        end = start;
        Some(line_at(text, start))
    })
}

/// The start of the line containing `pos`.
pub fn line_start(text: &str, pos: usize) -> usize {
    let pos = pos.min(text.len());
    text.as_bytes()[..pos]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// Where a run of whitespace-only lines that reaches `end` begins; `end`
/// itself when the line before it has content.
pub fn blank_run_start(text: &str, end: usize) -> usize {
    let mut start = end;
    for line in lines_back(text, end) {
        if !line.is_blank() {
            break;
        }
        start = line.start;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_forward_and_back_agree() {
        for text in ["", "a", "a\n", "a\r\nb", "a\n\nb\n", "\n\n", "é\r\n€\n"] {
            let fwd: Vec<_> = lines_from(text, 0).collect();
            let mut back: Vec<_> = lines_back(text, text.len()).collect();
            back.reverse();
            assert_eq!(fwd, back, "{text:?}");
        }
        let l: Vec<_> = lines_from("x\r\ny", 0).map(|l| l.text).collect();
        assert_eq!(l, ["x", "y"]);
    }

    #[test]
    fn diff_is_minimal_and_applies() {
        let cases = [
            ("abc", "abXc"),
            ("hello", "help"),
            ("", "x"),
            ("x", ""),
            ("aaa", "aa"),
            ("é", "è"),
        ];
        for (old, new) in cases {
            let edit = diff(0, old, new).unwrap();
            assert_eq!(apply(old, &[edit]), new, "{old:?} -> {new:?}");
        }
        assert_eq!(diff(0, "same", "same"), None);
        let e = diff(10, "abcdef", "abXYef").unwrap();
        assert_eq!(e.range, 12..14);
        assert_eq!(e.insert, "XY");
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)]
    fn apply_skips_bad_edits() {
        let bad = TextEdit {
            range: 5..2,
            insert: "x".into(),
        };
        assert_eq!(apply("abc", &[bad]), "abc");
        let out_of_range = TextEdit {
            range: 1..99,
            insert: "x".into(),
        };
        assert_eq!(apply("abc", &[out_of_range]), "abc");
    }

    #[test]
    fn blank_runs() {
        let t = "a\n\n  \n";
        assert_eq!(blank_run_start(t, t.len()), 2);
        assert_eq!(blank_run_start("a\n", 2), 2);
        assert_eq!(line_start("ab\ncd", 4), 3);
    }
}
