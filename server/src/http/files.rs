//! Static serving of `--root`, with the adapter tag injected into HTML.
//!
//! The root holds the hub's own bookkeeping (`debug.md`, `debug/`) and
//! usually a project checkout (`.git`, `.env`), so serving is deny-first:
//! dotfiles, the registry and the logs are refused, no path may climb out
//! of the root (by `..`, encoded separators or symlinks), and every refusal
//! is a plain 404 so that nothing tells a prober what exists.

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::extract::State;
use axum::http::header::{ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::assets::escape_html;
use super::guard::plain_text;
use super::inject::{inject_adapter, HubScriptAt, Injection, WorkerScript};
use super::state::HttpState;
use super::token;

/// Why a request path is not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    /// Bad percent-encoding or not UTF-8: 400.
    Malformed,
    /// Hidden, private or outside the root: 404, like a missing file.
    Hidden,
}

/// A request path, decoded and checked.
#[derive(Debug)]
struct RequestPath {
    /// Decoded, non-empty segments, each a plain file name.
    segments: Vec<String>,
    /// The path ended with `/` (asks for a directory).
    dir: bool,
}

/// The fallback handler: serve a file (or directory index) from the root.
pub async fn serve(
    State(state): State<HttpState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        let mut res = plain_text(
            StatusCode::METHOD_NOT_ALLOWED,
            "daebug: only GET and HEAD are served".to_owned(),
        );
        res.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return res;
    }
    let res = match RequestPath::parse(uri.path()) {
        Ok(path) => {
            // A worker's script gets the adapter's loader (`inject.rs`).
            let worker = headers
                .get("sec-fetch-dest")
                .and_then(|d| d.to_str().ok())
                .and_then(WorkerScript::of_destination);
            serve_path(&state, &path, uri.query(), worker).await
        }
        Err(Refused::Malformed) => {
            plain_text(StatusCode::BAD_REQUEST, "daebug: malformed path".to_owned())
        }
        Err(Refused::Hidden) => not_found(),
    };
    if method == Method::HEAD {
        without_body(res)
    } else {
        res
    }
}

/// Serve a checked path: a file, a directory's `index.html`, or a
/// redirect that adds a directory's `/` (an index-less root is the
/// dashboard's: `doors/dashboard.rs`).
async fn serve_path(
    state: &HttpState,
    path: &RequestPath,
    query: Option<&str>,
    worker: Option<WorkerScript>,
) -> Response {
    let joined = path
        .segments
        .iter()
        .fold(state.root.clone(), |dir, segment| dir.join(segment));
    let Some(found) = resolve(&state.root, &joined).await else {
        return not_found();
    };
    let Ok(meta) = tokio::fs::metadata(&found).await else {
        return not_found();
    };
    if meta.is_dir() {
        if !path.dir {
            return redirect_to_dir(&path.segments, query);
        }
        return match resolve(&state.root, &found.join("index.html")).await {
            Some(index) => {
                serve_file(state, &index, &page_path(path, Some("index.html")), worker).await
            }
            None => not_found(),
        };
    }
    if path.dir || !meta.is_file() {
        // `/app.js/`, or a FIFO/socket that a read would hang on.
        return not_found();
    }
    serve_file(state, &found, &page_path(path, None), worker).await
}

/// The URL path of a file the hub serves, as the browser resolves links
/// from it: the request's segments (and `index` for a directory's).
fn page_path(path: &RequestPath, index: Option<&str>) -> String {
    let segments = path.segments.iter().map(String::as_str).chain(index);
    segments.fold(String::new(), |out, s| out + "/" + s)
}

/// Read and answer one regular file at the URL path `page`, whose last
/// segment picks the type; a script a worker fetches (`worker`) with the
/// adapter's loader after it.
async fn serve_file(
    state: &HttpState,
    file: &Path,
    page: &str,
    worker: Option<WorkerScript>,
) -> Response {
    let name = page.rsplit('/').next().unwrap_or("");
    match tokio::fs::metadata(file).await {
        Ok(meta) if meta.is_file() => {}
        _ => return not_found(),
    }
    let bytes = match tokio::fs::read(file).await {
        Ok(bytes) => bytes,
        Err(err) => {
            tracing::debug!("cannot read {}: {err}", file.display());
            return not_found();
        }
    };
    let content_type = content_type(name);
    if content_type.starts_with("text/html") {
        return html_response(with_adapter(state, bytes, page));
    }
    // A test file's `node:test` and `node:assert` are daebug's here.
    let bytes = match content_type.starts_with("text/javascript") {
        true => std::str::from_utf8(&bytes)
            .ok()
            .and_then(super::node_specifiers::rewrite)
            .map_or(bytes, String::into_bytes),
        false => bytes,
    };
    let bytes = match (
        worker.filter(|_| content_type.starts_with("text/javascript")),
        String::from_utf8(bytes),
    ) {
        (Some(kind), Ok(script)) => kind
            .with_adapter(&script, adapter_query(state).as_deref())
            .into_bytes(),
        (_, Ok(text)) => text.into_bytes(),
        (_, Err(e)) => e.into_bytes(),
    };
    let mut res = Body::from(bytes).into_response();
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

impl RequestPath {
    /// Decode and check `raw` (the URI path, still percent-encoded).
    fn parse(raw: &str) -> Result<RequestPath, Refused> {
        let mut segments = Vec::new();
        for raw_segment in raw.split('/').filter(|s| !s.is_empty()) {
            let segment = super::percent::decode(raw_segment).ok_or(Refused::Malformed)?;
            if segment.contains(['/', '\\', '\0']) || (cfg!(windows) && segment.contains(':')) {
                // An encoded separator or a drive prefix: an escape attempt.
                return Err(Refused::Hidden);
            }
            segments.push(segment);
        }
        if is_private(segments.iter().map(String::as_str)) {
            return Err(Refused::Hidden);
        }
        Ok(RequestPath {
            segments,
            dir: raw.ends_with('/'),
        })
    }
}

/// Whether a root-relative path is never served: any segment starting with
/// `.` (dotfiles, and `.`/`..` themselves), `debug.md` and `debug/` at the
/// root. Case-insensitive, and blind to Windows' trailing dots/spaces and
/// `::$DATA` streams, since some filesystems treat those as the same file.
fn is_private<'a>(mut segments: impl Iterator<Item = &'a str>) -> bool {
    let Some(first) = segments.next() else {
        return false;
    };
    let stem = first
        .split(':')
        .next()
        .unwrap_or(first)
        .trim_end_matches(['.', ' ']);
    first.starts_with('.')
        || stem.eq_ignore_ascii_case("debug.md")
        || stem.eq_ignore_ascii_case("debug")
        || segments.any(|s| s.starts_with('.'))
}

/// The canonical form of `path` if it exists, lies inside `root` (after
/// following symlinks) and is not private there.
async fn resolve(root: &Path, path: &Path) -> Option<PathBuf> {
    let canonical = tokio::fs::canonicalize(path).await.ok()?;
    let inside = canonical.strip_prefix(root).ok()?;
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if is_private(parts.iter().map(String::as_str)) {
        return None;
    }
    Some(canonical)
}

/// What a path segment in a `Location` header keeps unescaped (RFC 3986
/// `pchar` without `%`).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@');

/// Percent-encode one path segment for a `Location` header.
fn percent_encode(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string()
}

/// `/dir` → 308 `/dir/`, so relative links in its index resolve. Built from
/// the decoded segments, never the raw path: `//evil.example` must not
/// become a protocol-relative redirect.
fn redirect_to_dir(segments: &[String], query: Option<&str>) -> Response {
    let mut location = String::new();
    for segment in segments {
        location.push('/');
        location.push_str(&percent_encode(segment));
    }
    location.push('/');
    if let Some(query) = query {
        location.push('?');
        location.push_str(query);
    }
    let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
    if let Ok(location) = HeaderValue::from_str(&location) {
        res.headers_mut().insert(LOCATION, location);
    }
    res
}

/// An HTML page, never cached without revalidation.
fn html_response(html: Vec<u8>) -> Response {
    let mut res = Body::from(html).into_response();
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

/// The same response for HEAD: headers (with the real length), no body.
pub fn without_body(res: Response) -> Response {
    let (mut parts, body) = res.into_parts();
    if let Some(len) = axum::body::HttpBody::size_hint(&body).exact() {
        parts.headers.insert(CONTENT_LENGTH, HeaderValue::from(len));
    }
    Response::from_parts(parts, Body::empty())
}

/// The single answer to anything not served.
fn not_found() -> Response {
    plain_text(StatusCode::NOT_FOUND, "daebug: not found".to_owned())
}

/// The tag injected into HTML the hub serves: relative, so the page loads
/// the adapter from the address it was served from (which may not be
/// loopback), with the token when there is one. The page was only served to
/// someone who presented the token, so this shows it to no one new.
pub fn injected_tag(state: &HttpState) -> String {
    script_tag(&adapter_src(state))
}

/// The adapter's URL as a page or worker the hub serves loads it:
/// relative, with the token when there is one.
pub fn adapter_src(state: &HttpState) -> String {
    match adapter_query(state) {
        Some(q) => format!("/daebug.js?{q}"),
        None => "/daebug.js".to_owned(),
    }
}

/// The query of the adapter's URL: the token, when there is one.
pub fn adapter_query(state: &HttpState) -> Option<String> {
    state.token.as_ref().map(|t| token::query_param(t))
}

/// `<script src="…"></script>`: classic, not a module, so it runs before
/// the page's own scripts and capture starts at the page's first line.
/// The one place the tag is made (injected, printed at startup, and in the
/// registry).
pub fn script_tag(src: &str) -> String {
    format!(r#"<script src="{}"></script>"#, escape_html(src))
}

/// A page the hub serves, with the adapter's tag unless it already loads
/// the hub's script (the hub's output says so, once a page).
fn with_adapter(state: &HttpState, html: Vec<u8>, page: &str) -> Vec<u8> {
    let hub = HubScriptAt {
        page_path: page,
        is_hub: &|authority, default_port| state.guard.names_the_hub(authority, default_port),
    };
    match inject_adapter(html, &injected_tag(state), &hub) {
        Injection::Added(html) => html,
        Injection::AlreadyLoads { html, src } => {
            if state
                .left_alone
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(page.to_owned())
            {
                tracing::info!(
                    "daebug: {page} already loads the hub's script ({src}): served without adding the tag"
                );
            }
            html
        }
    }
}

/// The `Content-Type` for a file name, by extension.
fn content_type(name: &str) -> &'static str {
    let ext = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json; charset=utf-8",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "xml" => "application/xml; charset=utf-8",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::test_util::{body_text, header, request, router_for, router_with};

    const TAG: &str = r#"<script src="/daebug.js"></script>"#;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        std::fs::write(path, text).expect("write");
    }

    async fn get(app: &axum::Router, uri: &str) -> Response {
        request(app, Method::GET, uri, &[]).await
    }

    #[tokio::test]
    async fn index_html_gets_the_adapter_tag() {
        let (dir, app) = router_for(&[]);
        write(
            dir.path(),
            "index.html",
            "<!doctype html>\n<html><head lang=\"en\"><title>Shop</title></head><body></body></html>",
        );
        let res = get(&app, "/").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&res, "cache-control"), "no-cache");
        let body = body_text(res).await;
        assert_eq!(
            body,
            format!("<!doctype html>\n<html><head lang=\"en\">{TAG}<title>Shop</title></head><body></body></html>")
        );
        let again = body_text(get(&app, "/index.html").await).await;
        assert_eq!(again, body);
    }

    /// The state of a hub bound to every address, over `root`.
    fn lan_state(root: &Path, token: Option<&str>) -> HttpState {
        HttpState {
            root: root.canonicalize().expect("canonical root"),
            guard: std::sync::Arc::new(crate::http::guard::Guard::new(
                "0.0.0.0:8302".parse().expect("address"),
                &[],
            )),
            script_url: "http://127.0.0.1:8302/daebug.js?token=abc".to_owned(),
            left_alone: Default::default(),
            token: token.map(str::to_owned),
        }
    }

    #[test]
    fn injected_tag_is_relative_and_carries_the_token() {
        let root = Path::new("/");
        assert_eq!(injected_tag(&lan_state(root, None)), TAG);
        assert_eq!(
            injected_tag(&lan_state(root, Some("abc"))),
            r#"<script src="/daebug.js?token=abc"></script>"#
        );
        assert_eq!(
            injected_tag(&lan_state(root, Some("a&b\"<"))),
            r#"<script src="/daebug.js?token=a%26b%22%3C"></script>"#
        );
    }

    #[tokio::test]
    async fn served_html_gets_the_relative_tag_with_the_token() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "index.html", "<head></head>");
        let ws = axum::Router::new();
        let state = lan_state(dir.path(), Some("s3cret"));
        let (guard, token) = (state.guard.clone(), state.token.clone());
        let app = crate::http::guarded(ws.merge(crate::http::site(state)), guard, token.as_deref());
        let tagged = r#"<head><script src="/daebug.js?token=s3cret"></script></head>"#;
        let res = get(&app, "/?token=s3cret").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(body_text(res).await, tagged);
        // Served to another machine, the page still loads the adapter from
        // the address it came from, never from its own loopback.
        let res = request(
            &app,
            Method::GET,
            "/index.html",
            &[
                ("host", "192.168.1.5:8302"),
                ("cookie", "daebug_token=s3cret"),
            ],
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(body_text(res).await, tagged);
    }

    #[tokio::test]
    async fn without_a_token_the_tag_is_bare() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "index.html", "<head></head>");
        let app = router_with(dir.path(), &[], "http://127.0.0.1:8302/daebug.js", None);
        let res = get(&app, "/").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(body_text(res).await, format!("<head>{TAG}</head>"));
    }

    #[tokio::test]
    async fn page_that_loads_daebug_is_left_alone() {
        let (dir, app) = router_for(&[]);
        let page = "<head><script type=module src=\"/daebug.js?name=x\"></script></head>";
        write(dir.path(), "app.html", page);
        assert_eq!(body_text(get(&app, "/app.html").await).await, page);
    }

    #[tokio::test]
    async fn mime_types() {
        let (dir, app) = router_for(&[]);
        for (name, expected) in [
            ("app.js", "text/javascript; charset=utf-8"),
            ("lib.MJS", "text/javascript; charset=utf-8"),
            ("mod.wasm", "application/wasm"),
            ("style.css", "text/css; charset=utf-8"),
            ("data.json", "application/json; charset=utf-8"),
            ("notes.md", "text/markdown; charset=utf-8"),
            ("blob", "application/octet-stream"),
        ] {
            write(dir.path(), &format!("sub/{name}"), "x");
            let res = get(&app, &format!("/sub/{name}")).await;
            assert_eq!(res.status(), StatusCode::OK, "{name}");
            assert_eq!(header(&res, "content-type"), expected, "{name}");
            assert_eq!(header(&res, "cache-control"), "no-cache", "{name}");
        }
    }

    #[tokio::test]
    async fn percent_encoded_names_are_served() {
        let (dir, app) = router_for(&[]);
        write(dir.path(), "my page/ü.txt", "ok");
        let res = get(&app, "/my%20page/%C3%BC.txt").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(body_text(res).await, "ok");
    }

    #[tokio::test]
    async fn private_and_escaping_paths_are_not_found() {
        let (dir, app) = router_for(&[]);
        let root = dir.path();
        write(root, ".env", "SECRET=1");
        write(root, ".git/config", "[core]");
        write(root, "debug.md", "# registry");
        write(root, "debug/x.md", "# log");
        write(root, "sub/.hidden", "h");
        for uri in [
            "/.env",
            "/.git/config",
            "/.git/",
            "/%2egit/config",
            "/debug.md",
            "/DEBUG.MD",
            "/Debug.md",
            "/debug.md.",
            "/debug.md::$DATA",
            "/debug/x.md",
            "/DEBUG/x.md",
            "/debug",
            "/debug/",
            "/sub/.hidden",
            "/%2e%2e/etc/passwd",
            "/..%2fetc",
            "/..%2Fetc%2Fpasswd",
            "/../etc/passwd",
            "/sub/..%5c..%5cetc",
            "/a%00b",
            "/nope.txt",
        ] {
            let res = get(&app, uri).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
            assert_eq!(body_text(res).await, "daebug: not found\n", "{uri}");
        }
        let res = get(&app, "/bad%zzescape").await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
        let res = get(&app, "/%ff").await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn the_hub_file_is_never_served() {
        let (dir, app) = router_for(&[]);
        let root = dir.path();
        write(
            root,
            "debug/.hub",
            r#"{"url":"http://127.0.0.1:8302","token":"T"}"#,
        );
        write(root, ".hub", "a copy");
        for uri in [
            "/debug/.hub",
            "/debug/%2ehub",
            "/DEBUG/.hub",
            "/.hub",
            "/%2ehub",
            "/debug/../debug/.hub",
        ] {
            let res = get(&app, uri).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
            assert_eq!(body_text(res).await, "daebug: not found\n", "{uri}");
        }
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn symlinks_out_of_root_or_into_private_places_are_not_found() {
        let (dir, app) = router_for(&[]);
        let outside = tempfile::tempdir().expect("tempdir");
        write(outside.path(), "secret.txt", "secret");
        write(dir.path(), "debug/x.md", "# log");
        write(dir.path(), "ok.txt", "fine");
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, dir.path().join(name)).expect("symlink");
        };
        link(&outside.path().join("secret.txt"), "secret.txt");
        link(outside.path(), "outdir");
        link(&dir.path().join("debug"), "logs");
        link(&dir.path().join("ok.txt"), "alias.txt");
        for uri in [
            "/secret.txt",
            "/outdir/secret.txt",
            "/outdir/",
            "/logs/x.md",
        ] {
            assert_eq!(
                get(&app, uri).await.status(),
                StatusCode::NOT_FOUND,
                "{uri}"
            );
        }
        let res = get(&app, "/alias.txt").await;
        assert_eq!(
            res.status(),
            StatusCode::OK,
            "a link inside the root is fine"
        );
        assert_eq!(body_text(res).await, "fine");
    }

    #[tokio::test]
    async fn directories_redirect_then_serve_their_index() {
        let (dir, app) = router_for(&[]);
        write(dir.path(), "shop/index.html", "<head></head>");
        write(dir.path(), "empty/readme.txt", "r");
        let res = get(&app, "/shop?x=1").await;
        assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
        assert_eq!(header(&res, "location"), "/shop/?x=1");
        let res = get(&app, "/shop/").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(body_text(res).await, format!("<head>{TAG}</head>"));
        assert_eq!(get(&app, "/empty/").await.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            get(&app, "/empty/readme.txt/").await.status(),
            StatusCode::NOT_FOUND
        );
    }

    #[tokio::test]
    async fn redirect_never_leaves_the_host() {
        let (dir, app) = router_for(&[]);
        write(dir.path(), "evil.example/index.html", "x");
        let res = get(&app, "//evil.example").await;
        assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
        assert_eq!(header(&res, "location"), "/evil.example/");
    }

    #[tokio::test]
    async fn head_and_other_methods() {
        let (dir, app) = router_for(&[]);
        write(dir.path(), "index.html", "<head></head>");
        write(dir.path(), "app.js", "let x = 1;");
        let res = request(&app, Method::HEAD, "/app.js", &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            header(&res, "content-type"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(header(&res, "content-length"), "10");
        assert_eq!(body_text(res).await, "");
        let res = request(&app, Method::HEAD, "/", &[]).await;
        assert_eq!(
            header(&res, "content-length"),
            ("<head></head>".len() + TAG.len()).to_string()
        );
        assert_eq!(body_text(res).await, "");
        let res = request(&app, Method::POST, "/app.js", &[]).await;
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(header(&res, "allow"), "GET, HEAD");
    }

    #[test]
    fn decoding() {
        assert_eq!(percent_encode("a b/ü"), "a%20b%2F%C3%BC");
    }
}
