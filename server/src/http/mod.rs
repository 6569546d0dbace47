//! The HTTP layer: everything a browser fetches from the hub.
//!
//! - [`guard`]: the Host check on every request (DNS rebinding) and the
//!   Origin rules for CORS and the WebSocket upgrade.
//! - [`assets`]: the adapter (`/daebug.js`, glue, `.wasm`), embedded in
//!   the binary.
//! - [`files`]: static serving of `--root`, refusing dotfiles, `debug.md`
//!   and `debug/`, and injecting the adapter tag into HTML.
//! - [`test_files`]: `/daebug-tests.json`, the files a test glob matches;
//!   [`node_specifiers`]: `node:test`/`node:assert` in served scripts.
//! - [`token`]: with a token (a hub listening beyond loopback), the 401 for
//!   every request that does not present it, the adapter files excepted.
//!
//! The WebSocket route is written elsewhere and handed to [`router`], which
//! puts the Host check (and the token check) in front of it too: layers over
//! everything, so no route can be added that skips them. So do the doors'
//! routes, mounted when there are doors: the HTTP API (`doors/api.rs`),
//! `/mcp` (`doors/mcp.rs`), the dashboard (`doors/dashboard.rs`) and a
//! person's answers (`doors/person.rs`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;

pub mod assets;
pub mod files;
pub mod guard;
pub mod node_specifiers;
pub mod percent;
pub mod state;
pub mod test_files;
pub mod token;

use state::HttpState;

/// The hub's whole HTTP surface: the `ws` router (holding `/ws`, its state
/// already applied), the adapter files, and static files as the fallback,
/// all behind the Host check, then the token check when there is a token.
pub fn router(state: HttpState, ws: Router) -> Router {
    let guard = Arc::clone(&state.guard);
    let secret = state
        .token
        .as_deref()
        .map(|t| Arc::new(token::Secret::new(t)));
    let mcp = state
        .doors
        .clone()
        .map(|doors| crate::doors::mcp::router(doors, Arc::clone(&guard)));
    let api = state.doors.clone().map(crate::doors::api::routes);
    let own = assets::routes()
        .merge(crate::doors::dashboard::routes())
        .merge(test_files::routes())
        .fallback(files::serve)
        .with_state(state);
    let mut app = ws.merge(own);
    if let Some(mcp) = mcp {
        app = app.merge(mcp);
    }
    if let Some(api) = api {
        app = app.merge(api);
    }
    if let Some(secret) = secret {
        // Added first, so it runs after (inside) the Host check.
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
    use super::router;
    use super::state::HttpState;

    /// The default script URL and Host of the test hub.
    pub const HOST: &str = "127.0.0.1:8302";

    /// A hub on `127.0.0.1:8302` over a fresh temporary root, with a
    /// stand-in `/ws` route.
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
        let allow: Vec<String> = allow_origins.iter().map(|s| s.to_string()).collect();
        let state = HttpState {
            root: root.canonicalize().expect("canonical root"),
            guard: Arc::new(Guard::new(HOST.parse().expect("address"), &allow)),
            script_url: script_url.to_owned(),
            token: token.map(str::to_owned),
            doors: None,
        };
        let ws = Router::new().route("/ws", get(|| async { "ws" }));
        router(state, ws)
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
