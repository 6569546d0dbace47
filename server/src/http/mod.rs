//! The HTTP layer: everything a browser fetches from the hub.
//!
//! - [`guard`]: the Host check on every request (DNS rebinding) and the
//!   Origin rules for CORS and the WebSocket upgrade.
//! - [`assets`]: the adapter (`/daebug.js`, glue, `.wasm`), embedded in
//!   the binary; [`loader`]: `/daebug.js` assembled once, its URL written
//!   in per request.
//! - [`files`]: static serving of `--root`, refusing dotfiles, `debug.md`
//!   and `debug/`, and injecting the adapter tag into HTML.
//! - [`test_files`]: `/daebug-tests.json`, the files a test glob matches;
//!   [`node_specifiers`]: `node:test`/`node:assert` in served scripts.
//! - [`proxy`]: `--proxy URL`, the hub in front of an app's dev server:
//!   its own paths kept, the rest forwarded, HTML given the tag.
//! - [`token`]: with a token (a hub listening beyond loopback), the 401 for
//!   every request that does not present it, the adapter files excepted.
//!
//! [`site`] is the hub's own side; the hub's router (`app/router.rs`) mounts it beside
//! the WebSocket route and the doors' routes, all inside [`guarded`]: the
//! Host check (and the token check) as layers over everything, so no route
//! can be added that skips them.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;

pub mod assets;
pub mod files;
pub mod guard;
pub mod inject;
pub mod loader;
pub mod node_specifiers;
pub mod percent;
pub mod proxy;
pub mod service_worker;
pub mod state;
pub mod test_files;
pub mod token;

use state::HttpState;

/// The hub's own side: the adapter files, the test file lists, and
/// static files of the root as the fallback.
pub fn site(state: HttpState) -> Router {
    assets::routes()
        .merge(test_files::routes())
        .fallback(files::serve)
        .with_state(state)
}

/// `app` behind the Host check, then the token check when there is a
/// token: layers over everything, so no route can skip them.
pub fn guarded(app: Router, guard: Arc<guard::Guard>, token: Option<&str>) -> Router {
    let mut app = app;
    if let Some(t) = token {
        // Added first, so it runs after (inside) the Host check.
        let secret = Arc::new(token::Secret::new(t));
        app = app.layer(middleware::from_fn_with_state(secret, token::check_token));
    }
    app.layer(middleware::from_fn_with_state(guard, check_host))
}

/// Refuse any request whose `Host` (or absolute-form target) does not name
/// this hub, or that repeats `Host` or `Origin`, before any route sees it.
/// Every refusal, whoever makes it (a route, axum's own rejections), goes
/// out with `X-Content-Type-Options: nosniff`.
async fn check_host(State(guard): State<Arc<guard::Guard>>, req: Request, next: Next) -> Response {
    if let Some(refusal) = guard::refuse_repeated(req.headers()) {
        return refusal;
    }
    let target_ok = req
        .uri()
        .authority()
        .is_none_or(|authority| guard.authority_allowed(authority.as_str()));
    if !(target_ok && guard.host_allowed(req.headers())) {
        return guard.refuse_host(req.headers());
    }
    let mut res = next.run(req).await;
    if res.status().is_client_error() || res.status().is_server_error() {
        res.headers_mut().insert(
            axum::http::header::X_CONTENT_TYPE_OPTIONS,
            axum::http::HeaderValue::from_static("nosniff"),
        );
    }
    res
}

/// Helpers for the HTTP tests: a router over a temporary root, and requests
/// that look like a browser's.
#[cfg(test)]
pub(crate) mod test_util {
    use std::path::Path;
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{Method, Request};
    use axum::response::Response;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    use super::guard::Guard;
    use super::state::HttpState;

    /// The default script URL and Host of the test hub.
    pub const HOST: &str = "127.0.0.1:8302";

    /// The hub's own side on `127.0.0.1:8302` over a fresh temporary
    /// root, behind its checks, with a stand-in `/ws` route (the doors'
    /// routes are tested in their own files).
    pub fn router_for(allow_origins: &[&str]) -> (tempfile::TempDir, Router) {
        let dir = tempfile::tempdir().expect("tempdir");
        let app = router_at(dir.path(), allow_origins, "http://127.0.0.1:8302/daebug.js");
        (dir, app)
    }

    /// A hub on `127.0.0.1:8302` over `root`.
    pub fn router_at(root: &Path, allow_origins: &[&str], script_url: &str) -> Router {
        router_with(root, allow_origins, script_url, None)
    }

    /// [`router_at`], requiring `token` when there is one.
    pub fn router_with(
        root: &Path,
        allow_origins: &[&str],
        script_url: &str,
        token: Option<&str>,
    ) -> Router {
        router_beside(root, allow_origins, script_url, token, Router::new())
    }

    /// [`router_with`] with `routes` mounted beside the hub's own side, as
    /// the hub's router (`app/router.rs`) mounts the doors' (the dashboard's tests).
    pub fn router_beside(
        root: &Path,
        allow_origins: &[&str],
        script_url: &str,
        token: Option<&str>,
        routes: Router<HttpState>,
    ) -> Router {
        let allow: Vec<String> = allow_origins.iter().map(|s| s.to_string()).collect();
        let guard = Arc::new(Guard::new(HOST.parse().expect("address"), &allow));
        let state = HttpState {
            root: root.canonicalize().expect("canonical root"),
            guard: Arc::clone(&guard),
            script_url: script_url.to_owned(),
            token: token.map(str::to_owned),
            left_alone: Default::default(),
        };
        let ws = Router::new().route("/ws", get(|| async { "ws" }));
        let app = ws
            .merge(routes.with_state(state.clone()))
            .merge(super::site(state));
        super::guarded(app, guard, token)
    }

    /// Send `method uri` with `Host: 127.0.0.1:8302` unless `headers` names
    /// another host.
    pub async fn request(
        app: &Router,
        method: Method,
        uri: &str,
        headers: &[(&str, &str)],
    ) -> Response {
        let mut req = Request::builder().method(method).uri(uri);
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req = req.header("host", HOST);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        send(app, req.body(Body::empty()).expect("request")).await
    }

    /// Send a prepared request.
    pub async fn send(app: &Router, req: Request<Body>) -> Response {
        match app.clone().oneshot(req).await {
            Ok(res) => res,
            Err(never) => match never {},
        }
    }

    /// A header's value, or `""` when absent.
    pub fn header(res: &Response, name: &str) -> String {
        res.headers()
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default()
    }

    /// The whole body as text.
    pub async fn body_text(res: Response) -> String {
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .expect("body");
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Method, Request, StatusCode};

    use super::test_util::{body_text, header, request, router_for, send};

    #[tokio::test]
    async fn foreign_host_is_refused_everywhere() {
        let (dir, app) = router_for(&[]);
        std::fs::write(dir.path().join("app.js"), "1").expect("write");
        for uri in ["/app.js", "/ws", "/daebug.js", "/", "/missing"] {
            let res = request(&app, Method::GET, uri, &[("host", "evil.example")]).await;
            assert_eq!(res.status(), StatusCode::FORBIDDEN, "{uri}");
            assert_eq!(header(&res, "content-type"), "text/plain; charset=utf-8");
            let body = body_text(res).await;
            assert!(body.contains("\"evil.example\""), "{body}");
            assert!(body.contains("http://127.0.0.1:8302/"), "{body}");
        }
    }

    #[tokio::test]
    async fn missing_host_is_refused() {
        let (_dir, app) = router_for(&[]);
        for uri in ["/ws", "/"] {
            let req = Request::builder()
                .uri(uri)
                .body(Body::empty())
                .expect("request");
            assert_eq!(
                send(&app, req).await.status(),
                StatusCode::FORBIDDEN,
                "{uri}"
            );
        }
    }

    #[tokio::test]
    async fn absolute_form_target_is_checked_too() {
        let (_dir, app) = router_for(&[]);
        let res = request(
            &app,
            Method::GET,
            "http://evil.example/ws",
            &[("host", "127.0.0.1:8302")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
    }

    #[tokio::test]
    async fn loopback_hosts_reach_every_route() {
        let (dir, app) = router_for(&[]);
        std::fs::write(dir.path().join("app.js"), "1").expect("write");
        std::fs::write(dir.path().join("index.html"), "<head></head>").expect("write");
        for host in [
            "localhost:8302",
            "127.0.0.1:8302",
            "[::1]:8302",
            "app.localhost",
        ] {
            for uri in ["/app.js", "/daebug.js", "/"] {
                let res = request(&app, Method::GET, uri, &[("host", host)]).await;
                assert_eq!(res.status(), StatusCode::OK, "{host} {uri}");
            }
            let res = request(&app, Method::GET, "/ws", &[("host", host)]).await;
            assert_eq!(res.status(), StatusCode::OK, "{host} /ws");
            assert_eq!(body_text(res).await, "ws");
        }
    }
}
