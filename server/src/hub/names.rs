//! Names the hub makes up: log stems, tab ids and access tokens.

/// Longest name part of a stem; keeps file names and registry lines short.
const MAX_NAME: usize = 32;

/// `<sanitized-name>-<id>`: lowercase ASCII alphanumerics with single `-`
/// separators. An empty name becomes the realm kind (`page`, `worker`).
pub fn stem(name: &str, fallback: &str, id: &str) -> String {
    let mut s = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
        if s.len() >= MAX_NAME {
            break;
        }
    }
    let s = s.trim_end_matches('-');
    let s = if s.is_empty() { fallback } else { s };
    format!("{s}-{id}")
}

/// Whether `id` is a tab id the hub hands out: 4 lowercase hex digits.
pub fn is_tab_id(id: &str) -> bool {
    id.len() == 4 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A fresh random tab id.
pub fn tab_id() -> String {
    hex(2)
}

/// The `n`th id for the worker `name` of tab `tab`: the same on every
/// reload of the tab (and across hub restarts), so the worker's log goes
/// on; `n` counts past ids another live instance or realm holds.
pub fn worker_id(tab: &str, name: &str, n: u32) -> String {
    // FNV-1a: stable across builds and platforms, unlike std's hasher.
    let mut h: u32 = 0x811c_9dc5;
    for b in tab
        .bytes()
        .chain([0])
        .chain(name.bytes())
        .chain([0])
        .chain(n.to_le_bytes())
    {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("{:04x}", (h ^ (h >> 16)) & 0xffff)
}

/// A token for a hub listening beyond loopback: 128 random bits.
pub fn token() -> String {
    hex(16)
}

/// The stem of the fan-out log `debug/all.md`: a block appended to it runs
/// in every connected realm. No realm's stem is one word.
pub const FAN_OUT_STEM: &str = "all";

/// Whether `name` (a file name in `debug/`) is a log the hub owns:
/// `<stem>.md` with a stem as [`stem`] makes them (name, `-`, tab id).
/// Anything else there (a person's `notes.md`) is left alone.
pub fn log_stem(file_name: &str) -> Option<&str> {
    let stem = file_name.strip_suffix(".md")?;
    let (name, id) = stem.rsplit_once('-')?;
    let ok = !name.is_empty()
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && is_tab_id(id);
    ok.then_some(stem)
}

fn hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS generator only fails on exotic platforms; fall back to a
    // hashed clock reading there rather than refuse to start.
    if getrandom::fill(&mut buf).is_err() {
        use std::hash::{BuildHasher, RandomState};
        let n = RandomState::new().hash_one(std::time::SystemTime::now());
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (n >> ((i % 8) * 8)) as u8;
        }
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("Shop", "page", "3f2a"), "shop-3f2a");
        assert_eq!(
            stem("  My Shop — Checkout!! ", "page", "0001"),
            "my-shop-checkout-0001"
        );
        assert_eq!(stem("", "worker", "91bc"), "worker-91bc");
        assert_eq!(stem("日本", "page", "91bc"), "page-91bc");
        assert_eq!(stem("/w.js", "worker", "91bc"), "w-js-91bc");
        let long = stem(&"a".repeat(100), "page", "0000");
        assert_eq!(long.len(), MAX_NAME + 5);
    }

    #[test]
    fn ids() {
        assert!(is_tab_id("3f2a"));
        assert!(!is_tab_id("3F2A"));
        assert!(!is_tab_id("3f2"));
        assert!(!is_tab_id("../x"));
        assert!(is_tab_id(&tab_id()));
        assert!(is_tab_id(&worker_id("3f2a", "w.js", 0)));
        assert_eq!(worker_id("3f2a", "w.js", 0), worker_id("3f2a", "w.js", 0));
        assert_ne!(worker_id("3f2a", "w.js", 0), worker_id("3f2a", "w.js", 1));
        assert_ne!(worker_id("3f2a", "w.js", 0), worker_id("3f2b", "w.js", 0));
        assert_eq!(token().len(), 32);
        assert_ne!(token(), token());
    }

    #[test]
    fn log_stems() {
        assert_eq!(log_stem("shop-3f2a.md"), Some("shop-3f2a"));
        assert_eq!(log_stem("my-shop-3f2a.md"), Some("my-shop-3f2a"));
        assert_eq!(log_stem("notes.md"), None);
        assert_eq!(log_stem("shop-3f2.md"), None);
        assert_eq!(log_stem("-3f2a.md"), None);
        assert_eq!(log_stem(".shop-3f2a.md.tmp"), None);
        assert_eq!(log_stem("Shop.md"), None);
        assert_eq!(log_stem("notes.txt"), None);
        assert_eq!(log_stem(".md"), None);
    }
}
