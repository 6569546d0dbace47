//! Who a realm says it is in its hello: display name, tab id, and the
//! options read from the adapter's own script URL (`?name=`, `?token=`).

use daebug_protocol::text;

/// The value of `key` in a URL's query string, percent-decoded (`+` is a
/// space, as in forms). `None` when absent.
pub fn query_param(url: &str, key: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or("");
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(k) == key).then(|| decode(v))
    })
}

/// A form-encoded query part: `+` is a space, escapes are decoded, bad
/// ones kept as written, bytes that are no UTF-8 each a U+FFFD. (By hand,
/// not the `percent-encoding` crate: it and `from_utf8_lossy` cost about
/// 1.5 KB of the `.wasm`, the adapter's budget (docs/architecture.md).)
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |i: usize| b.get(i).and_then(|&c| (c as char).to_digit(16));
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
            (b'+', ..) => out.push(b' '),
            (c, ..) => out.push(c),
        }
        i += 1;
    }
    match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => lossy(e.as_bytes()),
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The realm's `TextDecoder` (the glue itself needs one to load):
    /// UTF-8, bad sequences replaced as `String::from_utf8_lossy` does
    /// (both follow the WHATWG Encoding standard).
    type TextDecoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextDecoder;
    #[wasm_bindgen(method)]
    fn decode(this: &TextDecoder, bytes: &[u8]) -> String;
}

/// `String::from_utf8_lossy(bytes)`, by the realm's decoder.
#[cfg(target_arch = "wasm32")]
fn lossy(bytes: &[u8]) -> String {
    let text = TextDecoder::new().decode(bytes);
    // The decoder drops a leading byte order mark; Rust keeps it.
    match bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        true => format!("\u{feff}{text}"),
        false => text,
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A page's display name: `?name=` on the script URL, else the document
/// title, else the page URL's path.
pub fn page_name(script_url: &str, title: &str, page_url: &str) -> String {
    first_non_empty([
        query_param(script_url, "name"),
        Some(title.to_string()),
        Some(url_path(page_url)),
    ])
}

/// A worker's display name: `?name=` on the script URL, else the name it
/// was created with, else its script's file name.
pub fn worker_name(script_url: &str, worker_name: &str, worker_url: &str) -> String {
    first_non_empty([
        query_param(script_url, "name"),
        Some(worker_name.to_string()),
        Some(file_name(worker_url)),
    ])
}

fn first_non_empty<const N: usize>(options: [Option<String>; N]) -> String {
    options
        .into_iter()
        .flatten()
        .map(|s| s.trim().to_string())
        .find(|s| !s.is_empty())
        .unwrap_or_else(|| "page".to_string())
}

/// The path of a URL (`http://h:1/a/b?x` → `/a/b`).
fn url_path(url: &str) -> String {
    let rest = text::split_once(url, "://").map_or(url, |(_, r)| r);
    // `get`, not indexing: no slicing panic in the .wasm (see daebug_protocol::text).
    let path = rest.find('/').and_then(|i| rest.get(i..)).unwrap_or("/");
    path.split(['?', '#']).next().unwrap_or("/").to_string()
}

/// The last path segment of a URL (`/js/w.js` → `w.js`).
fn file_name(url: &str) -> String {
    let path = url_path(url);
    path.rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .to_string()
}

/// The hub's WebSocket URL from the adapter's script URL: same host,
/// `ws`/`wss`, path `/ws`, and the script's `?token=` carried over.
pub fn ws_url(script_url: &str) -> String {
    let (scheme, rest) = text::split_once(script_url, "://").unwrap_or(("http", script_url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let ws = if scheme == "https" { "wss" } else { "ws" };
    match query_param(script_url, "token") {
        Some(t) => format!("{ws}://{host}/ws?token={}", encode(&t)),
        None => format!("{ws}://{host}/ws"),
    }
}

/// Percent-encodes everything but unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How the loader passes a page's tab id on to the workers it starts: the
/// worker URL's fragment (`w.js#daebug-tab=3f2a`), which loads the same
/// script, and which a worker without a fragment of its own can read.
const TAB_FRAGMENT: &str = "#daebug-tab=";

/// A worker's URL without the loader's fragment, and the tab id in it
/// (empty when there is none).
pub fn worker_tab(href: &str) -> (String, String) {
    match text::rsplit_once(href, TAB_FRAGMENT) {
        Some((url, tab)) if is_tab_id(tab) && !url.contains('#') => {
            (url.to_string(), tab.to_string())
        }
        _ => (href.to_string(), String::new()),
    }
}

/// Whether `id` is a tab id the hub hands out: 4 lowercase hex digits.
pub fn is_tab_id(id: &str) -> bool {
    id.len() == 4 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A tab id from 16 random bits.
pub fn tab_id(random: u16) -> String {
    format!("{random:04x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_params() {
        let u = "http://127.0.0.1:8302/daebug.js?name=check%20out&token=a%2Bb+c#frag";
        assert_eq!(query_param(u, "name").as_deref(), Some("check out"));
        assert_eq!(query_param(u, "token").as_deref(), Some("a+b c"));
        assert_eq!(query_param(u, "nope"), None);
        assert_eq!(query_param("http://h/x.js", "name"), None);
        assert_eq!(
            query_param("http://h/x.js?name", "name").as_deref(),
            Some("")
        );
        assert_eq!(
            query_param("http://h/x.js?name=%zz%4", "name").as_deref(),
            Some("%zz%4")
        );
        assert_eq!(
            query_param("http://h/x.js?name=%C3%A9%FF%E2%82+%2", "name").as_deref(),
            Some("é\u{fffd}\u{fffd} %2")
        );
    }

    #[test]
    fn page_names() {
        let script = "http://127.0.0.1:8302/daebug.js";
        assert_eq!(
            page_name(&format!("{script}?name=checkout"), "Shop", "http://h/"),
            "checkout"
        );
        assert_eq!(page_name(script, "  Shop  ", "http://h/"), "Shop");
        assert_eq!(
            page_name(script, "", "http://h:5173/app/index.html?x=1"),
            "/app/index.html"
        );
        assert_eq!(page_name(&format!("{script}?name="), "", "http://h"), "/");
    }

    #[test]
    fn worker_tabs() {
        assert_eq!(
            worker_tab("http://h/w.js?v=1#daebug-tab=3f2a"),
            ("http://h/w.js?v=1".to_string(), "3f2a".to_string())
        );
        for href in [
            "http://h/w.js",
            "http://h/w.js#x",
            "http://h/w.js#a#daebug-tab=3f2a",
            "http://h/w.js#daebug-tab=XYZ1",
        ] {
            assert_eq!(
                worker_tab(href),
                (href.to_string(), String::new()),
                "{href}"
            );
        }
    }

    #[test]
    fn worker_names() {
        let script = "http://127.0.0.1:8302/daebug.js";
        assert_eq!(
            worker_name(script, "indexer", "http://h/js/w.js"),
            "indexer"
        );
        assert_eq!(worker_name(script, "", "http://h/js/w.js?v=2"), "w.js");
        assert_eq!(
            worker_name(&format!("{script}?name=bg"), "indexer", "http://h/w.js"),
            "bg"
        );
        assert_eq!(worker_name(script, "", "http://h/"), "page");
    }

    #[test]
    fn ws_urls() {
        assert_eq!(
            ws_url("http://127.0.0.1:8302/daebug.js"),
            "ws://127.0.0.1:8302/ws"
        );
        assert_eq!(
            ws_url("https://h.example/daebug.js?name=x&token=a%20b"),
            "wss://h.example/ws?token=a%20b"
        );
        assert_eq!(ws_url("http://[::1]:9/daebug.js#x"), "ws://[::1]:9/ws");
    }

    #[test]
    fn tab_ids() {
        assert_eq!(tab_id(0x3f2a), "3f2a");
        assert_eq!(tab_id(7), "0007");
        assert!(is_tab_id(&tab_id(0xffff)));
        assert!(!is_tab_id("3F2A"));
        assert!(!is_tab_id("3f2"));
    }
}
