//! Small scans of the source text, for what the syntax tree does not
//! record: where modifiers and keywords sit between a member's decorators
//! and its name, what follows a node once comments and whitespace are
//! skipped, and whether a range crosses a line.

use oxc_ast::ast::Decorator;
use oxc_span::Span;

/// Where the modifiers and keywords of a class or member start: after its
/// decorators.
pub(super) fn member_head(span: Span, decorators: &[Decorator<'_>]) -> u32 {
    decorators
        .last()
        .map_or(span.start, |d| d.span.end.max(span.start))
}

/// The first offset at or after `at` that is not whitespace or a comment.
pub(super) fn skip_trivia(source: &str, mut at: usize) -> usize {
    let bytes = source.as_bytes();
    while let Some(&b) = bytes.get(at) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => at += 1,
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = source[at..].find('\n').map_or(source.len(), |i| at + i);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = source[at + 2..]
                    .find("*/")
                    .map_or(source.len(), |i| at + 2 + i + 2);
            }
            0x80.. => match source[at..].chars().next() {
                Some(c) if c.is_whitespace() || c == '\u{feff}' => at += c.len_utf8(),
                _ => break,
            },
            _ => break,
        }
    }
    at
}

/// The ASCII word (keyword) at `at`, or `""`.
pub(super) fn word_at(source: &str, at: usize) -> &str {
    let rest = source.get(at..).unwrap_or("");
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
        .count();
    &rest[..len]
}

/// Whether `start..end` of `source` holds a line terminator.
pub(super) fn has_line_break(source: &str, start: u32, end: u32) -> bool {
    source
        .get(start as usize..end as usize)
        .is_some_and(|s| s.contains(['\n', '\r', '\u{2028}', '\u{2029}']))
}
