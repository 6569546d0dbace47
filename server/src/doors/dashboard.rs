//! The dashboard (docs/doors.md, "Dashboard"): one page at `/_daebug/`
//! (and at `/` when the root has no `index.html`, in place of a welcome
//! page) listing the realms, showing the selected realm's log as the hub
//! renders it ([`crate::doors::log_html`], through `GET
//! /api/realms/{stem}/log?format=html`), live through `/api/events`, with
//! a box that sends a block as agent `dashboard`.
//!
//! Three plain files in `www/dashboard/`, compiled in like the adapter: no
//! front-end build and nothing fetched from anywhere but the hub. The page
//! is the hub's own, never a realm: it is served here, not by
//! [`crate::http::files`], so no adapter tag is injected into it. Its Content
//! Security Policy admits only the hub's own scripts, styles, images and
//! connections, so even markup that slipped into a rendered log could run
//! nothing.

use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{any, get};
use axum::Router;

use crate::http::assets::escape_html;
use crate::http::guard::plain_text;
use crate::http::state::HttpState;

/// Where the dashboard lives.
pub const PATH: &str = "/_daebug/";

/// The page's template; `{{script_url}}` is filled in at serve time (the
/// lines a person adds to a page or a worker to connect it).
const PAGE_TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../www/dashboard/index.html"
));

/// The page's script: plain JavaScript, an ES module.
const SCRIPT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../www/dashboard/dashboard.js"
));

/// Its panels for workers and Node processes (`person.js`).
const PERSON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../www/dashboard/person.js"
));

/// The page's stylesheet.
const STYLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../www/dashboard/dashboard.css"
));

/// The page's policy: its own files and the hub's API, nothing inline, no
/// frames (`data:` images for what a later reply may inline).
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The policy of a rendered log fetched on its own: a sandboxed document
/// that loads nothing but the hub's images.
pub const FRAGMENT_CSP: &str = "default-src 'none'; img-src 'self'; sandbox";

/// The dashboard's routes: the page, its files, a person's answers, and a
/// 404 for the rest of `/_daebug/` (so a `_daebug/` folder in the root is
/// not served half here, half there); and `/` when the root has no
/// `index.html`.
pub fn routes(doors: Option<super::Doors>) -> Router<HttpState> {
    Router::new()
        .route("/", any(root))
        .route("/_daebug", get(add_slash))
        .route(PATH, get(serve_page))
        .route(
            "/_daebug/dashboard.js",
            get(|| async { file(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/_daebug/person.js",
            get(|| async { file(PERSON, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/_daebug/dashboard.css",
            get(|| async { file(STYLE, "text/css; charset=utf-8") }),
        )
        .route(
            "/_daebug/files/archive/{name}",
            get({
                let doors = doors.clone();
                move |name| archive_file(doors.clone(), name)
            }),
        )
        .route(
            "/_daebug/person",
            axum::routing::post({
                let doors = doors.clone();
                move |req| super::person::answer(doors.clone(), req)
            }),
        )
        .route("/_daebug/{*rest}", any(not_here))
}

/// A file of `debug/archive/` a log links (a picture, a long reply, a
/// log's moved history), for the rendered log's images and links
/// ([`crate::doors::log_html::local_url`]). Only that folder, only names a
/// reply's line could hold; served inert: its own type or plain text,
/// `nosniff`, and a sandbox policy, so an SVG or a page's text can run
/// nothing. `debug/` itself stays unserved.
async fn archive_file(
    doors: Option<super::Doors>,
    axum::extract::Path(name): axum::extract::Path<String>,
) -> Response {
    let missing = || {
        plain_text(
            StatusCode::NOT_FOUND,
            format!("daebug: no such archive file: {name}"),
        )
    };
    let Some(doors) = &doors else {
        return missing();
    };
    let path = format!("archive/{name}");
    let content_type = match daebug_core::engine::picture::mime_of(&path) {
        "application/octet-stream" if path.ends_with(".txt") || path.ends_with(".md") => {
            "text/plain; charset=utf-8"
        }
        "application/octet-stream" => return missing(),
        image => image,
    };
    let Some(bytes) = doors.picture(&path).await else {
        return missing();
    };
    let mut res = bytes.into_response();
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
    );
    headers.insert(
        axum::http::header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    res
}

/// The dashboard's HTML, telling a person how to connect a page too.
pub fn page(script_url: &str) -> String {
    PAGE_TEMPLATE.replace("{{script_url}}", &escape_html(script_url))
}

/// The page as a response (also at an index-less root: [`root`]).
pub fn page_response(script_url: &str) -> Response {
    let mut res = page(script_url).into_response();
    let headers = res.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    res
}

async fn serve_page(State(state): State<HttpState>, req: Request) -> Response {
    // A person opening the dashboard gets the key its answers carry.
    super::person::with_cookie(page_response(&state.script_url), req.headers())
}

/// `/`: the root's own `index.html` when it has one; else a fresh user
/// lands here, and the dashboard tells them how to connect a page (never
/// injected: it is the hub's, not a realm), with a person's key as at its
/// own path.
async fn root(
    State(state): State<HttpState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let script_url = state.script_url.clone();
    let res = crate::http::files::serve(State(state), method.clone(), uri, headers.clone()).await;
    if res.status() != StatusCode::NOT_FOUND || !(method == Method::GET || method == Method::HEAD) {
        return res;
    }
    let page = super::person::with_cookie(page_response(&script_url), &headers);
    match method == Method::HEAD {
        true => crate::http::files::without_body(page),
        false => page,
    }
}

/// `/_daebug` → `/_daebug/`, keeping the query (`?token=…`).
async fn add_slash(req: Request) -> Redirect {
    match req.uri().query() {
        Some(query) => Redirect::permanent(&format!("{PATH}?{query}")),
        None => Redirect::permanent(PATH),
    }
}

fn file(body: &'static str, content_type: &'static str) -> Response {
    let mut res = body.into_response();
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    // They change whenever the hub is rebuilt: always revalidate.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

async fn not_here() -> Response {
    plain_text(
        StatusCode::NOT_FOUND,
        format!("daebug: no such dashboard file; the dashboard is at {PATH}"),
    )
}

#[cfg(test)]
mod tests {
    use axum::http::{Method, StatusCode};

    use super::*;
    use crate::http::test_util::{body_text, header, request, router_beside};

    /// The dashboard beside the hub's own side over `root`, behind its
    /// checks, as the hub's router (`app/router.rs`) mounts it (no doors).
    fn router_with(
        root: &std::path::Path,
        allow_origins: &[&str],
        script_url: &str,
        token: Option<&str>,
    ) -> Router {
        router_beside(root, allow_origins, script_url, token, routes(None))
    }

    fn router_at(root: &std::path::Path, allow_origins: &[&str], script_url: &str) -> Router {
        router_with(root, allow_origins, script_url, None)
    }

    fn router_for(allow_origins: &[&str]) -> (tempfile::TempDir, Router) {
        let dir = tempfile::tempdir().expect("tempdir");
        let app = router_at(dir.path(), allow_origins, "http://127.0.0.1:8302/daebug.js");
        (dir, app)
    }

    /// The page, as served at `uri`, is the dashboard and not a realm.
    async fn assert_dashboard(app: &Router, uri: &str) -> String {
        let res = request(app, Method::GET, uri, &[]).await;
        assert_eq!(res.status(), StatusCode::OK, "{uri}");
        assert_eq!(header(&res, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&res, "content-security-policy"), PAGE_CSP);
        let body = body_text(res).await;
        assert!(body.contains("👾 daebug"), "{body}");
        assert!(body.contains(r#"src="/_daebug/dashboard.js""#), "{body}");
        // The adapter's tag is shown as text, never injected.
        assert!(
            body.contains(r#"&lt;script src="http://127.0.0.1:8302/daebug.js"&gt;&lt;/script&gt;"#),
            "{body}"
        );
        assert!(
            body.contains(r#"import "http://127.0.0.1:8302/daebug.js";"#),
            "{body}"
        );
        assert!(!body.contains("<script src=\"http"), "no realm: {body}");
        assert!(!body.contains("{{"), "template filled: {body}");
        body
    }

    #[tokio::test]
    async fn served_at_its_path_and_at_an_index_less_root() {
        let (dir, app) = router_for(&[]);
        assert_dashboard(&app, "/_daebug/").await;
        assert_dashboard(&app, "/").await;
        // A root with its own index.html keeps `/`; the dashboard stays.
        std::fs::write(dir.path().join("index.html"), "<head></head><p>mine</p>").expect("write");
        let body = body_text(request(&app, Method::GET, "/", &[]).await).await;
        assert!(body.contains("<p>mine</p>"), "{body}");
        assert!(!body.contains("👾 daebug"), "{body}");
        assert_dashboard(&app, "/_daebug/").await;
    }

    #[tokio::test]
    async fn the_script_url_is_the_hubs() {
        let (dir, _) = router_for(&[]);
        let app = router_at(dir.path(), &[], "http://127.0.0.1:40123/daebug.js");
        let body = body_text(request(&app, Method::GET, "/_daebug/", &[]).await).await;
        assert!(body.contains("http://127.0.0.1:40123/daebug.js"), "{body}");
    }

    #[tokio::test]
    async fn its_files_are_embedded() {
        let (dir, app) = router_for(&[]);
        for (uri, content_type, needle) in [
            (
                "/_daebug/dashboard.js",
                "text/javascript; charset=utf-8",
                "new EventSource(\"/_daebug/api/events\")",
            ),
            (
                "/_daebug/dashboard.js",
                "text/javascript; charset=utf-8",
                "agent: AGENT",
            ),
            (
                "/_daebug/dashboard.css",
                "text/css; charset=utf-8",
                ".executing",
            ),
        ] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{uri}");
            assert_eq!(header(&res, "content-type"), content_type);
            assert!(body_text(res).await.contains(needle), "{uri}");
        }
        assert!(SCRIPT.contains("const AGENT = \"dashboard\";"));
        // The rest of `/_daebug/` is not the root's, and a POST is not served.
        std::fs::create_dir_all(dir.path().join("_daebug")).expect("mkdir");
        std::fs::write(dir.path().join("_daebug/x.txt"), "root's").expect("write");
        let res = request(&app, Method::GET, "/_daebug/x.txt", &[]).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        assert!(body_text(res).await.contains("/_daebug/"));
        let res = request(&app, Method::POST, "/_daebug/", &[]).await;
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    }

    #[tokio::test]
    async fn a_foreign_host_is_refused() {
        let (_dir, app) = router_for(&[]);
        for uri in ["/_daebug/", "/_daebug/dashboard.js"] {
            let res = request(&app, Method::GET, uri, &[("host", "evil.example")]).await;
            assert_eq!(res.status(), StatusCode::FORBIDDEN, "{uri}");
        }
    }

    #[tokio::test]
    async fn with_a_token_the_page_sets_the_cookie_its_requests_carry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let app = router_with(
            dir.path(),
            &[],
            "http://127.0.0.1:8302/daebug.js?token=T0K",
            Some("T0K"),
        );
        for uri in ["/_daebug/", "/", "/_daebug/dashboard.js"] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{uri}");
        }
        for uri in ["/_daebug/?token=T0K", "/?token=T0K"] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{uri}");
            let cookie = header(&res, "set-cookie");
            assert!(cookie.starts_with("daebug_token=T0K;"), "{uri}: {cookie}");
            assert!(cookie.contains("HttpOnly"), "{cookie}");
            let body = body_text(res).await;
            assert!(body.contains("daebug.js?token=T0K"), "{body}");
        }
        // The page's script and its API calls carry no query: the cookie.
        let res = request(
            &app,
            Method::GET,
            "/_daebug/dashboard.js",
            &[("cookie", "daebug_token=T0K")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        // `/_daebug` adds its slash and keeps the token.
        let res = request(&app, Method::GET, "/_daebug?token=T0K", &[]).await;
        assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
        assert_eq!(header(&res, "location"), "/_daebug/?token=T0K");
    }

    #[tokio::test]
    async fn archive_files_are_served_inert_and_nothing_else_of_debug() {
        use std::sync::Arc;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("root");
        let archive = root.join("debug/archive");
        std::fs::create_dir_all(&archive).expect("mkdir");
        std::fs::write(archive.join("shop-3f2a-1.png"), b"\x89PNG...").expect("write");
        std::fs::write(archive.join("shop-3f2a-2.svg"), "<svg onload=alert(1)/>").expect("write");
        std::fs::write(archive.join("shop-3f2a-3.txt"), "<b>long</b>").expect("write");
        std::fs::write(archive.join("shop-3f2a-4.bin"), "x").expect("write");
        std::fs::write(root.join("debug/shop-3f2a.md"), "the log").expect("write");
        let doors = crate::doors::Doors::new(
            tokio::sync::mpsc::unbounded_channel().0,
            tokio::sync::broadcast::channel(4).0,
            root.join("debug"),
            tokio_util::sync::CancellationToken::new(),
        );
        let state = HttpState {
            root: root.clone(),
            guard: Arc::new(crate::http::guard::Guard::new(
                "127.0.0.1:8302".parse().expect("address"),
                &[],
            )),
            script_url: "http://127.0.0.1:8302/daebug.js".into(),
            token: None,
            left_alone: Default::default(),
        };
        let (guard, token) = (state.guard.clone(), state.token.clone());
        let app = routes(Some(doors))
            .with_state(state.clone())
            .merge(crate::http::site(state));
        let app = crate::http::guarded(app, guard, token.as_deref());
        for (uri, content_type) in [
            ("/_daebug/files/archive/shop-3f2a-1.png", "image/png"),
            ("/_daebug/files/archive/shop-3f2a-2.svg", "image/svg+xml"),
            (
                "/_daebug/files/archive/shop-3f2a-3.txt",
                "text/plain; charset=utf-8",
            ),
        ] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{uri}");
            assert_eq!(header(&res, "content-type"), content_type, "{uri}");
            assert_eq!(header(&res, "x-content-type-options"), "nosniff");
            assert!(header(&res, "content-security-policy").contains("sandbox"));
        }
        for uri in [
            "/_daebug/files/archive/shop-3f2a-4.bin",
            "/_daebug/files/archive/missing.png",
            "/_daebug/files/archive/..%2Fshop-3f2a.md",
            "/_daebug/files/shop-3f2a.md",
            "/_daebug/files/archive/",
            "/debug/archive/shop-3f2a-1.png",
        ] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
        }
        let res = request(
            &app,
            Method::GET,
            "/_daebug/files/archive/shop-3f2a-1.png",
            &[("host", "evil.example")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
    }
}
