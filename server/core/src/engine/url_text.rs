//! A page's URL as the log and the registry show it: page data that must
//! never make Markdown structure of its own. A leaf: the registry and the
//! lifecycle lines both use it.

/// Longest URL a line shows, in characters.
pub const MAX_URL: usize = 200;

/// Characters of a realm's URL that could make Markdown structure in a
/// line (a link, an autolink, code, emphasis, a line break) or
/// end the parenthesised URL early; they are percent-encoded, as in a URL.
/// Non-ASCII is encoded too (U+2028 and bidi controls included).
const MARKDOWN: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b']')
    .add(b'(')
    .add(b')')
    .add(b'`')
    .add(b'\\')
    .add(b'*')
    .add(b'_')
    .add(b'!')
    .add(b'|');

/// A realm's URL as a line shows it: one line, no Markdown of its
/// own, at most [`MAX_URL`] characters (cut with `…`).
pub fn shown_url(url: &str) -> String {
    let encoded = percent_encoding::utf8_percent_encode(url, MARKDOWN).to_string();
    match encoded.char_indices().nth(MAX_URL) {
        Some((cut, _)) => format!("{}…", &encoded[..cut]),
        None => encoded,
    }
}
