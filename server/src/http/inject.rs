//! The adapter's tag in HTML the hub serves: added so the page connects,
//! unless the page already loads the hub's own script.
//!
//! "Already loads" means a `<script>` element whose `src` names the hub's
//! `/daebug.js`, not any mention of the name: a page whose inline script,
//! text or comment says `daebug.js` (a blob worker's source, a docs page)
//! still gets the tag. The scan follows HTML's tokenizer rules only as far
//! as that question needs (comments, and the raw text of `<script>`,
//! `<style>`, `<textarea>`, `<title>` and the like, where a `<script` is
//! text); a full HTML parser crate would be a large dependency for one
//! attribute of one element.

/// What [`inject_adapter`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Injection {
    /// The tag was added.
    Added(Vec<u8>),
    /// The page already loads the hub's script (this `src`): left as it is.
    AlreadyLoads { html: Vec<u8>, src: String },
}

/// Adds `tag` (`http::files::injected_tag`) to an HTML document so the
/// page connects, unless it already loads the hub's script: after
/// `<head…>`, else before `<body…>`, else after any BOM and doctype.
pub fn inject_adapter(html: Vec<u8>, tag: &str, hub: &HubScriptAt<'_>) -> Injection {
    let loaded = script_sources(&html).find(|src| hub.is_hub_script(src));
    if let Some(src) = loaded {
        return Injection::AlreadyLoads { html, src };
    }
    let at = match find_tag(&html, b"<head") {
        Some(start) => find(&html[start..], b">").map_or(html.len(), |end| start + end + 1),
        None => find_tag(&html, b"<body").unwrap_or_else(|| document_start(&html)),
    };
    let mut out = Vec::with_capacity(html.len() + tag.len());
    out.extend_from_slice(&html[..at]);
    out.extend_from_slice(tag.as_bytes());
    out.extend_from_slice(&html[at..]);
    Injection::Added(out)
}

/// The hub's script as a page the hub served at `page_path` names it: a
/// path that resolves to `/daebug.js` from the page, or an absolute URL
/// to `/daebug.js` whose authority `is_hub(authority, default_port)`
/// accepts (the hub's own host and port).
pub struct HubScriptAt<'a> {
    pub page_path: &'a str,
    pub is_hub: &'a dyn Fn(&str, u16) -> bool,
}

impl HubScriptAt<'_> {
    /// Whether `src`, as written in the page, is the hub's script.
    pub fn is_hub_script(&self, src: &str) -> bool {
        let src = src.trim();
        let src = src.split(['?', '#']).next().unwrap_or("");
        let lower = src.to_ascii_lowercase();
        let (rest, default_port) = if let Some(r) = lower.strip_prefix("http://") {
            (Some(r), 80)
        } else if let Some(r) = lower.strip_prefix("https://") {
            (Some(r), 443)
        } else if let Some(r) = lower.strip_prefix("//") {
            (Some(r), 80)
        } else {
            (None, 0)
        };
        match rest {
            Some(r) => {
                let (authority, path) = r.split_at(r.find('/').unwrap_or(r.len()));
                path == "/daebug.js" && (self.is_hub)(authority, default_port)
            }
            None if lower.contains(':') => false,
            None => resolve(self.page_path, src) == "/daebug.js",
        }
    }
}

/// `rel` resolved against the directory of `page` (both URL paths).
fn resolve(page: &str, rel: &str) -> String {
    let mut segments: Vec<&str> = match rel.starts_with('/') {
        true => Vec::new(),
        false => {
            let dir = &page[..page.rfind('/').map_or(0, |i| i + 1)];
            dir.split('/').filter(|s| !s.is_empty()).collect()
        }
    };
    for s in rel.split('/') {
        match s {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    format!("/{}", segments.join("/"))
}

/// The `src` of every `<script>` start tag in `html`, skipping comments
/// and the text of raw-text elements.
fn script_sources(html: &[u8]) -> impl Iterator<Item = String> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(lt) = find(&html[at..], b"<").map(|i| at + i) {
            let rest = &html[lt..];
            if rest.starts_with(b"<!--") {
                at = find(&rest[4..], b"-->").map_or(html.len(), |e| lt + 4 + e + 3);
                continue;
            }
            let Some((name, attrs, end)) = start_tag(html, lt) else {
                at = lt + 1;
                continue;
            };
            at = end;
            let name = name.to_ascii_lowercase();
            if RAW_TEXT.contains(&name.as_str()) {
                let close = format!("</{name}");
                at = find(&html[end..], close.as_bytes()).map_or(html.len(), |e| end + e);
            }
            if name == "script" {
                if let Some(src) = attribute(attrs, "src") {
                    return Some(src);
                }
            }
        }
        None
    })
}

/// Elements whose content is text up to their end tag.
const RAW_TEXT: [&str; 7] = [
    "script", "style", "textarea", "title", "xmp", "noembed", "noframes",
];

/// A start tag at `lt`: its name, its attributes' text and where it ends.
fn start_tag(html: &[u8], lt: usize) -> Option<(String, &[u8], usize)> {
    let rest = &html[lt + 1..];
    let name_len = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    if name_len == 0 || !rest[0].is_ascii_alphabetic() {
        return None;
    }
    let name = String::from_utf8_lossy(&rest[..name_len]).into_owned();
    // The tag ends at the first `>` outside a quoted value.
    let mut quote = None;
    for (i, &b) in rest.iter().enumerate().skip(name_len) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), b) if b == q => quote = None,
            (None, b'>') => return Some((name, &rest[name_len..i], lt + 1 + i + 1)),
            _ => {}
        }
    }
    None
}

/// The value of the attribute `name` in a start tag's attribute text.
fn attribute(attrs: &[u8], name: &str) -> Option<String> {
    let mut i = 0;
    while i < attrs.len() {
        while i < attrs.len() && (attrs[i].is_ascii_whitespace() || attrs[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < attrs.len() && !attrs[i].is_ascii_whitespace() && !b"=/>".contains(&attrs[i]) {
            i += 1;
        }
        let key = &attrs[start..i];
        while i < attrs.len() && attrs[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = None;
        if attrs.get(i) == Some(&b'=') {
            i += 1;
            while i < attrs.len() && attrs[i].is_ascii_whitespace() {
                i += 1;
            }
            let (from, to) = match attrs.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let from = i + 1;
                    let to = attrs[from..]
                        .iter()
                        .position(|&b| b == q)
                        .map_or(attrs.len(), |p| from + p);
                    i = (to + 1).min(attrs.len());
                    (from, to)
                }
                _ => {
                    let from = i;
                    while i < attrs.len() && !attrs[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    (from, i)
                }
            };
            value = Some(&attrs[from..to]);
        }
        if key.is_empty() {
            i += 1;
            continue;
        }
        if key.eq_ignore_ascii_case(name.as_bytes()) {
            return Some(decode_entities(&String::from_utf8_lossy(
                value.unwrap_or(b""),
            )));
        }
    }
    None
}

/// The few character references a URL in an attribute is likely to hold.
fn decode_entities(value: &str) -> String {
    value
        .replace("&amp;", "&")
        .replace("&#47;", "/")
        .replace("&sol;", "/")
}

/// Where content may start: after a UTF-8 BOM and a `<!doctype …>` (a
/// script before the doctype would put the page in quirks mode).
fn document_start(html: &[u8]) -> usize {
    let bom = if html.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let rest = &html[bom..];
    let blank = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let rest = &rest[blank..];
    if rest.len() >= 9 && rest[..9].eq_ignore_ascii_case(b"<!doctype") {
        if let Some(end) = find(rest, b">") {
            return bom + blank + end + 1;
        }
    }
    bom
}

/// The first `<name` that opens that tag (followed by `>`, `/` or
/// whitespace, so `<head` does not match `<header`), case-insensitively.
fn find_tag(html: &[u8], name: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = find(&html[from..], name) {
        let start = from + at;
        match html.get(start + name.len()) {
            Some(b'>' | b'/') => return Some(start),
            Some(b) if b.is_ascii_whitespace() => return Some(start),
            None => return None,
            _ => from = start + 1,
        }
    }
    None
}

/// ASCII-case-insensitive byte search.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Whether a request's `Sec-Fetch-Dest` is a worker's script (dedicated
/// or shared; a module worker's imports come with it too): the requests
/// whose JavaScript [`with_worker_adapter`] is for. A service worker's is
/// [`WorkerScript::Service`]'s: it may not `import()`.
pub fn is_worker_destination(dest: &str) -> bool {
    dest.eq_ignore_ascii_case("worker") || dest.eq_ignore_ascii_case("sharedworker")
}

/// A worker's script a request asks for, by its `Sec-Fetch-Dest`: the
/// line it gets after its last line differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerScript {
    /// A dedicated or shared worker's ([`with_worker_adapter`]).
    Worker,
    /// A service worker's (`super::service_worker`).
    Service,
}

impl WorkerScript {
    /// The kind of worker script `Sec-Fetch-Dest: dest` asks for, if any.
    pub fn of_destination(dest: &str) -> Option<WorkerScript> {
        if is_worker_destination(dest) {
            Some(WorkerScript::Worker)
        } else if dest.eq_ignore_ascii_case("serviceworker") {
            Some(WorkerScript::Service)
        } else {
            None
        }
    }

    /// `script` with the line that loads daebug in this kind of worker;
    /// `query` is the loader URL's query (the token), if any.
    pub fn with_adapter(self, script: &str, query: Option<&str>) -> String {
        let with_query = |path: &str| match query {
            Some(q) => format!("{path}?{q}"),
            None => path.to_owned(),
        };
        match self {
            WorkerScript::Worker => with_worker_adapter(script, &with_query("/daebug.js")),
            WorkerScript::Service => super::service_worker::with_service_worker_adapter(
                script,
                &with_query("/daebug-sw.js"),
            ),
        }
    }
}

/// A worker's script (or a module of its graph) with the adapter's loader
/// (`src`, as [`super::files::injected_tag`] names it) appended, so a
/// worker with no daebug line is a realm (README, "Connect … a worker").
///
/// Appended, on a line of its own after the last one: every line and
/// column of the worker's code stays where its stack traces and source
/// map say (a one-line bundle too), a `"use strict"` stays a directive,
/// and the worker's own URL is the URL it was started with. A dynamic
/// `import()`, which a classic script and a module may both make (the
/// request does not say which this is), whose failure is caught: a hub
/// that is down changes nothing. The loader starts at most once in a
/// realm, whatever else loads it (the README's first line too). As with
/// that line, the adapter starts once the worker's top-level code has run
/// (a module's top-level `await` included).
pub fn with_worker_adapter(script: &str, src: &str) -> String {
    let quoted = serde_json::to_string(src).unwrap_or_else(|_| "\"/daebug.js\"".into());
    format!("{script}\n;import({quoted}).catch(() => {{}}); // daebug (README, \"Connect … a worker\")\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAG: &str = r#"<script src="/daebug.js"></script>"#;

    /// The hub at 127.0.0.1:8302, as a page at `page` sees it.
    fn hub_at(page: &str) -> HubScriptAt<'_> {
        HubScriptAt {
            page_path: page,
            is_hub: &|authority: &str, default: u16| {
                let (host, port) = authority
                    .rsplit_once(':')
                    .map_or((authority, default), |(h, p)| (h, p.parse().unwrap_or(0)));
                port == 8302 && ["127.0.0.1", "localhost"].contains(&host)
            },
        }
    }

    fn inject(html: &str) -> String {
        match inject_adapter(html.as_bytes().to_vec(), TAG, &hub_at("/index.html")) {
            Injection::Added(out) => String::from_utf8(out).expect("utf-8"),
            Injection::AlreadyLoads { html, .. } => {
                format!("(left) {}", String::from_utf8(html).unwrap())
            }
        }
    }

    #[test]
    fn injection_places() {
        assert_eq!(inject("<HEAD>x"), format!("<HEAD>{TAG}x"));
        assert_eq!(
            inject("<header>h</header><BODY class=a>"),
            format!("<header>h</header>{TAG}<BODY class=a>")
        );
        assert_eq!(
            inject("\u{feff}<!DOCTYPE html>\n<p>hi"),
            format!("\u{feff}<!DOCTYPE html>{TAG}\n<p>hi")
        );
        assert_eq!(inject("<p>hi"), format!("{TAG}<p>hi"));
        // A truncated `<head` is no tag: the start is the safe place.
        assert_eq!(inject("<head"), format!("{TAG}<head"));
    }

    /// Only a `<script>` whose `src` is the hub's script leaves a page
    /// alone; any other mention of the name gets the tag.
    #[test]
    fn a_mention_of_daebug_js_is_not_a_script_that_loads_it() {
        let added = [
            // In an inline script (a blob worker's source).
            "<head><script>const w = 'import \"http://127.0.0.1:8302/daebug.js\"';</script></head>",
            // A `<script src>` written inside an inline script's text.
            "<head><script>document.write('<script src=\"/daebug.js\"></scr' + 'ipt>')</script></head>",
            // In text, a comment, a title, a textarea, an attribute.
            "<head><title><script src=/daebug.js></title></head><body>add daebug.js</body>",
            "<head><!-- <script src=\"/daebug.js\"></script> --></head>",
            "<body><textarea><script src=\"/daebug.js\"></script></textarea></body>",
            "<head><link rel=preload href=\"/daebug.js\"></head>",
            "<head><script data-note=\"daebug.js\" src=\"/app.js\"></script></head>",
            // Another server's, or another file that ends in the name.
            "<head><script src=\"http://127.0.0.1:9999/daebug.js\"></script></head>",
            "<head><script src=\"https://cdn.example/daebug.js\"></script></head>",
            "<head><script src=\"/vendor/daebug.js\"></script></head>",
            "<head><script src=\"/my-daebug.js\"></script></head>",
        ];
        for page in added {
            assert!(
                inject(page).contains(TAG) && !inject(page).starts_with("(left)"),
                "{page}"
            );
        }
        let left = [
            "<head><script src=\"/daebug.js\"></script></head>",
            "<head><script type=module src='/daebug.js?name=x'></script></head>",
            "<HEAD><SCRIPT SRC=daebug.js></SCRIPT></HEAD>",
            "<head><script src=\"./daebug.js#x\"></script></head>",
            "<head><script src=\"http://127.0.0.1:8302/daebug.js?token=a&amp;b\"></script></head>",
            "<head><script src=\"//localhost:8302/daebug.js\"></script></head>",
            "<head><script async\nsrc = \"/daebug.js\"></script></head>",
        ];
        for page in left {
            assert!(inject(page).starts_with("(left)"), "{page}");
        }
    }

    #[test]
    fn relative_sources_resolve_from_the_page() {
        let hub = hub_at("/docs/guide/index.html");
        assert!(!hub.is_hub_script("daebug.js"));
        assert!(hub.is_hub_script("../../daebug.js"));
        assert!(hub.is_hub_script("/daebug.js"));
        assert!(!hub.is_hub_script("javascript:daebug.js"));
        match inject_adapter(
            b"<head><script src=\"../../daebug.js\"></script>".to_vec(),
            TAG,
            &hub,
        ) {
            Injection::AlreadyLoads { src, .. } => assert_eq!(src, "../../daebug.js"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_worker_script_gets_the_loader_after_its_last_line() {
        let script = "\"use strict\";\nself.onmessage = (e) => postMessage(e.data);\n//# sourceMappingURL=w.js.map";
        let out = with_worker_adapter(script, "/daebug.js?token=a\"b");
        // Every line and column of the worker's own code where it was.
        assert!(out.starts_with(script), "{out}");
        assert_eq!(
            &out[script.len()..],
            "\n;import(\"/daebug.js?token=a\\\"b\").catch(() => {}); // daebug (README, \"Connect … a worker\")\n"
        );
        assert!(is_worker_destination("worker") && is_worker_destination("SharedWorker"));
        for other in ["serviceworker", "script", "document", "empty", ""] {
            assert!(!is_worker_destination(other), "{other}");
        }
        assert_eq!(
            WorkerScript::of_destination("ServiceWorker"),
            Some(WorkerScript::Service)
        );
        assert_eq!(WorkerScript::of_destination("script"), None);
        let sw = WorkerScript::Service.with_adapter("x = 1;", Some("token=t"));
        assert!(
            sw.contains("importScripts(\"/daebug-sw.js?token=t\")"),
            "{sw}"
        );
    }
}
