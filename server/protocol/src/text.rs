//! Substring search by plain byte comparison, for the code the adapter
//! shares with the hub. `str::find`/`contains`/`split_once` with a `&str`
//! pattern bring in core's two-way searcher (about 5 KB of the adapter's
//! `.wasm`, the 64 KB budget of docs/architecture.md, "The adapter's budget"); the needles here are short and the
//! texts stack lines and URLs, where a naive scan is as quick.
//!
//! A match of a UTF-8 needle in UTF-8 text starts and ends on character
//! boundaries, so the byte offsets returned slice the text safely.
//!
//! The adapter's code (here, `stack`, and adapter-wasm) slices text with
//! `str::get` and `split_at_checked`, never `&s[a..b]` or `split_at`: those
//! link core's slicing panic, whose message formats a `char` with `{:?}`
//! and so brings in Unicode's printable and grapheme tables (about 4 KB
//! gzipped of the adapter). The indices are boundaries either way.

/// Byte offset of the first `needle` in `text`.
pub fn find(text: &str, needle: &str) -> Option<usize> {
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    (0..=t.len().checked_sub(n.len())?).find(|&i| &t[i..i + n.len()] == n)
}

/// Byte offset of the last `needle` in `text`.
pub fn rfind(text: &str, needle: &str) -> Option<usize> {
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    (0..=t.len().checked_sub(n.len())?)
        .rev()
        .find(|&i| &t[i..i + n.len()] == n)
}

/// Whether `text` holds `needle`.
pub fn contains(text: &str, needle: &str) -> bool {
    find(text, needle).is_some()
}

/// `text` split around its first `needle`, as `str::split_once`.
pub fn split_once<'a>(text: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let (head, rest) = text.split_at_checked(find(text, needle)?)?;
    Some((head, rest.get(needle.len()..)?))
}

/// `text` split around its last `needle`, as `str::rsplit_once`.
pub fn rsplit_once<'a>(text: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let (head, rest) = text.split_at_checked(rfind(text, needle)?)?;
    Some((head, rest.get(needle.len()..)?))
}

/// `text` with every `needle` replaced by `with`, as `str::replace`
/// (`needle` not empty).
pub fn replace(text: &str, needle: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((head, tail)) = split_once(rest, needle) {
        out.push_str(head);
        out.push_str(with);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `parts` joined by `sep`, as `[S]::join`, whose specialised copy loop
/// (one per element type) is larger in the `.wasm` than this.
pub fn join<S: AsRef<str>>(parts: &[S], sep: &str) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(p.as_ref());
    }
    out
}

/// The characters in `text`, as `text.chars().count()` (core's counts
/// them word by word, with more code): the bytes that start one.
pub fn chars(text: &str) -> usize {
    text.bytes().filter(|b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_what_str_finds() {
        let texts = ["", "a", "abcabc", "é:é:1", "x://y://z", "ab"];
        for t in texts {
            assert_eq!(chars(t), t.chars().count(), "{t:?}");
            let parts: Vec<&str> = t.split(':').collect();
            assert_eq!(join(&parts, ", "), parts.join(", "), "{t:?}");
        }
        let needles = ["", "a", "bc", "é:", "://", "abc", "z"];
        for t in texts {
            for n in needles {
                assert_eq!(find(t, n), t.find(n), "{t:?} {n:?}");
                assert_eq!(rfind(t, n), t.rfind(n), "{t:?} {n:?}");
                assert_eq!(contains(t, n), t.contains(n), "{t:?} {n:?}");
                assert_eq!(split_once(t, n), t.split_once(n), "{t:?} {n:?}");
                assert_eq!(rsplit_once(t, n), t.rsplit_once(n), "{t:?} {n:?}");
                if !n.is_empty() {
                    assert_eq!(replace(t, n, "<>"), t.replace(n, "<>"), "{t:?} {n:?}");
                }
            }
        }
    }
}
