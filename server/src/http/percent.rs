//! Percent-decoding as the hub reads requests: strict, so a path or a
//! query value it cannot read exactly is refused, never guessed at.

/// Percent-decode one path segment (or query value, `+` staying a `+`);
/// `None` on a bad escape (`%2`, `%g0`, `%+f`) or non-UTF-8: a request the
/// hub cannot read exactly is refused, not guessed at.
pub fn decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let escapes_ok = bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if !escapes_ok {
        return None;
    }
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_escapes_and_non_utf8_are_refused() {
        assert_eq!(decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(decode("%2e%2E").as_deref(), Some(".."));
        assert_eq!(decode("%2"), None);
        assert_eq!(decode("%g0"), None);
        assert_eq!(decode("%+f"), None);
        assert_eq!(decode("%c3"), None);
    }
}
