//! `/daebug.js` as served: the loader with the shared hooks spliced in
//! ([`with_hooks`]) is assembled and hashed once, when the hub builds its
//! routes, and split where its own URL goes. A request only writes its URL
//! between the two halves, and its ETag is the halves' hash carried on
//! over that URL: another URL (`?name=`, another host) is another file to
//! a cache, and nothing of the ~150 KB is assembled or hashed again.

use std::sync::LazyLock;

use axum::http::HeaderMap;

use super::assets::{fnv1a_from, with_hooks, ADAPTER_FILES, FNV_START};
use super::state::HttpState;

/// Where the hub writes the loader's own URL (a JSON string literal).
const SELF_PLACEHOLDER: &str = "\"__DAEBUG_SELF__\"";

/// The assembled loader, split at its URL's place.
pub struct Loader {
    head: String,
    tail: String,
    /// FNV-1a of the two halves, the URL's place left out.
    hash: u64,
}

static LOADER: LazyLock<Loader> = LazyLock::new(|| {
    let shim = std::str::from_utf8(ADAPTER_FILES[0].body).unwrap_or_default();
    Loader::new(&with_hooks(shim))
});

impl Loader {
    fn new(text: &str) -> Loader {
        let (head, tail) = text.split_once(SELF_PLACEHOLDER).unwrap_or((text, ""));
        let hash = fnv1a_from(fnv1a_from(FNV_START, head.as_bytes()), tail.as_bytes());
        Loader {
            head: head.to_owned(),
            tail: tail.to_owned(),
            hash,
        }
    }

    /// The one loader, assembled on first use ([`assemble`] at start).
    pub fn get() -> &'static Loader {
        &LOADER
    }

    /// The loader for a page that asked by `url` (its URL as a JSON
    /// string literal is all a request adds).
    pub fn served(&self, url: &str) -> Served {
        let quoted = serde_json::to_string(url).unwrap_or_else(|_| "\"\"".into());
        Served {
            etag: format!("\"{:016x}\"", fnv1a_from(self.hash, quoted.as_bytes())),
            quoted,
        }
    }

    /// The whole text as served from `url` (the browser bridge evaluates
    /// it in the documents and workers it reaches: `cdp/reach.rs`).
    pub fn at(&self, url: &str) -> String {
        self.text(&self.served(url))
    }

    /// The whole text for `served`.
    pub fn text(&self, served: &Served) -> String {
        let mut out =
            String::with_capacity(self.head.len() + served.quoted.len() + self.tail.len());
        out.push_str(&self.head);
        out.push_str(&served.quoted);
        out.push_str(&self.tail);
        out
    }
}

/// One request's part: its URL, quoted, and the ETag of its text.
pub struct Served {
    quoted: String,
    pub etag: String,
}

/// Assembles the loader now (the hub's start), not at the first page.
pub fn assemble() {
    LazyLock::force(&LOADER);
}

/// The URL a request asked for the loader by: `Host` was checked by the
/// guard before this runs; without one, the hub's own address stands in.
/// As a classic script (the tag that captures from a page's first line)
/// the loader has no `import.meta.url`: it loads the adapter from next to
/// itself and passes the URL's options (`?name=`, `?token=`) on.
pub fn url_of(state: &HttpState, headers: &HeaderMap, uri: &axum::http::Uri) -> String {
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(String::from)
        .or_else(|| {
            let rest = state.script_url.strip_prefix("http://")?;
            Some(rest.split('/').next()?.to_string())
        })
        .unwrap_or_default();
    let path = uri.path_and_query().map_or("/daebug.js", |p| p.as_str());
    format!("http://{host}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_written_between_the_halves() {
        let loader = Loader::new("a \"__DAEBUG_SELF__\" b");
        let served = loader.served("http://h/daebug.js?name=x");
        assert_eq!(loader.text(&served), "a \"http://h/daebug.js?name=x\" b");
    }

    #[test]
    fn the_etag_follows_the_template_and_the_url() {
        let one = Loader::new("a \"__DAEBUG_SELF__\" b");
        let other = Loader::new("a \"__DAEBUG_SELF__\" c");
        let etag = |l: &Loader, url| l.served(url).etag;
        assert_eq!(etag(&one, "http://h/x"), etag(&one, "http://h/x"));
        assert_ne!(etag(&one, "http://h/x"), etag(&one, "http://h/y"));
        assert_ne!(etag(&one, "http://h/x"), etag(&other, "http://h/x"));
    }

    #[test]
    fn the_served_loader_has_its_hooks() {
        let loader = Loader::get();
        let text = loader.text(&loader.served("http://127.0.0.1:1/daebug.js"));
        assert!(text.contains("function hooks(self)"));
        assert!(!text.contains("__DAEBUG_SELF__"));
    }
}
