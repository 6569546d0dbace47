//! The token check for a hub listening beyond loopback.
//!
//! Bound to a LAN address, the hub is reachable by every machine there, and
//! the Host check no longer tells them apart from the user. So every request
//! must present the token the hub printed, except the adapter files: they
//! hold no secret and must load cross-origin from other dev servers (the
//! realm then presents the token when it connects to `/ws`).
//!
//! The token is accepted from the query (`?token=T`, on any route, which is
//! how a cross-origin page's WebSocket carries it), from the
//! `daebug_token` cookie, or from an `Authorization: Bearer T` header (how
//! the CLI and other clients of `/api` send it, out of URLs and logs). A GET of an HTML page that presents it in the
//! query also sets the cookie, so that the page's own CSS, scripts and
//! images, which carry no query, pass too.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::assets::ADAPTER_FILES;
use super::guard::plain_text;
use super::percent::decode as percent_decode;

/// The cookie that carries the token for a page's same-origin requests.
pub(crate) const COOKIE_NAME: &str = "daebug_token";

/// The one-line answer to a request without the right token.
const REFUSAL: &str =
    "daebug: this hub needs its token; open the URL the hub printed (it ends in ?token=…)";

/// The token a hub requires, in the forms the check compares.
#[derive(Debug)]
pub struct Secret {
    /// The token as configured.
    raw: String,
    /// The token percent-encoded: the value of the query parameter the hub
    /// writes and of the cookie (safe in both, whatever the token holds).
    encoded: String,
}

impl Secret {
    /// The check for `token`.
    pub fn new(token: &str) -> Secret {
        Secret {
            raw: token.to_owned(),
            encoded: encode(token),
        }
    }

    /// Whether a query-string value is the token: as sent raw (the hub
    /// prints the token unencoded) or once percent-decoded.
    fn matches_query(&self, value: &str) -> bool {
        let raw = ct_eq(value.as_bytes(), self.raw.as_bytes());
        let decoded =
            percent_decode(value).is_some_and(|v| ct_eq(v.as_bytes(), self.raw.as_bytes()));
        raw | decoded
    }

    /// Whether a cookie value is the token (the hub set it encoded).
    fn matches_cookie(&self, value: &str) -> bool {
        ct_eq(value.as_bytes(), self.encoded.as_bytes())
    }
}

/// `token=…` for a URL the hub writes, the token percent-encoded.
pub fn query_param(token: &str) -> String {
    format!("token={}", encode(token))
}

/// How a request presented the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presented {
    /// In the query string (set the cookie on an HTML page).
    Query,
    /// In the cookie.
    Cookie,
    /// In an `Authorization: Bearer` header.
    Bearer,
}

/// Refuse, with 401, every request that does not present the token, except
/// those for the adapter files. Runs behind the Host check.
pub async fn check_token(State(secret): State<Arc<Secret>>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if ADAPTER_FILES.iter().any(|file| file.path == path) {
        return next.run(req).await;
    }
    let presented = if req
        .uri()
        .query()
        .is_some_and(|q| query_values(q).any(|v| secret.matches_query(v)))
    {
        Some(Presented::Query)
    } else if cookie_values(req.headers()).any(|v| secret.matches_cookie(v)) {
        Some(Presented::Cookie)
    } else if bearer_values(req.headers()).any(|v| ct_eq(v.as_bytes(), secret.raw.as_bytes())) {
        Some(Presented::Bearer)
    } else {
        None
    };
    let Some(presented) = presented else {
        // Never log the query: it may hold a (wrong) token.
        tracing::warn!(
            "refused {} {} without the hub's token (401)",
            req.method(),
            req.uri().path()
        );
        return plain_text(StatusCode::UNAUTHORIZED, REFUSAL.to_owned());
    };
    let get = req.method() == Method::GET;
    let mut res = next.run(req).await;
    let html = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if presented == Presented::Query && get && html {
        let cookie = format!(
            "{COOKIE_NAME}={}; Path=/; HttpOnly; SameSite=Strict",
            secret.encoded
        );
        if let Ok(cookie) = HeaderValue::from_str(&cookie) {
            res.headers_mut().append(SET_COOKIE, cookie);
        }
    }
    res
}

/// The values of every `token` parameter in a query string, undecoded.
fn query_values(query: &str) -> impl Iterator<Item = &str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, _)| *name == "token")
        .map(|(_, value)| value)
}

/// The values of every `daebug_token` cookie in the request.
fn cookie_values(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value.trim_matches('"'))
}

/// The tokens of every `Authorization: Bearer …` header of the request.
fn bearer_values(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
}

/// Compare without an early exit, so the time taken does not tell how much
/// of a guess was right (only whether its length was).
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Percent-encode everything but RFC 3986 unreserved characters: safe in a
/// query value, a cookie value and an HTML attribute.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::test_util::{body_text, header, request, router_with, HOST};
    use axum::Router;

    const T: &str = "0123456789abcdef0123456789abcdef";

    fn hub(token: Option<&str>) -> (tempfile::TempDir, Router) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("app.css"), "p{}").expect("write");
        std::fs::write(dir.path().join("page.html"), "<head></head>").expect("write");
        std::fs::write(dir.path().join("index.html"), "<head></head>").expect("write");
        let app = router_with(
            dir.path(),
            &[],
            "http://127.0.0.1:8302/daebug.js?token=T",
            token,
        );
        (dir, app)
    }

    async fn get(app: &Router, uri: &str, headers: &[(&str, &str)]) -> Response {
        request(app, Method::GET, uri, headers).await
    }

    async fn assert_refused(res: Response, what: &str) {
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{what}");
        assert_eq!(header(&res, "set-cookie"), "", "{what}");
        assert_eq!(
            header(&res, "content-type"),
            "text/plain; charset=utf-8",
            "{what}"
        );
        let body = body_text(res).await;
        assert_eq!(body, format!("{REFUSAL}\n"), "{what}");
        assert!(!body.contains(T), "{what}: {body}");
    }

    #[tokio::test]
    async fn without_the_token_everything_but_the_adapter_is_refused() {
        let (_dir, app) = hub(Some(T));
        for uri in ["/", "/page.html", "/app.css", "/missing", "/ws", "/?x=1"] {
            assert_refused(get(&app, uri, &[]).await, uri).await;
        }
        let res = request(&app, Method::HEAD, "/", &[]).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }

    #[tokio::test]
    async fn a_wrong_token_is_refused() {
        let (_dir, app) = hub(Some(T));
        let short = &T[..31];
        let wrong = format!("{short}0");
        for uri in [
            format!("/?token={wrong}"),
            format!("/?token={short}"),
            format!("/?token={T}0"),
            "/?token=".to_owned(),
            format!("/?tok={T}"),
            format!("/ws?token={wrong}"),
        ] {
            assert_refused(get(&app, &uri, &[]).await, &uri).await;
        }
        let cookie = format!("daebug_token={wrong}");
        assert_refused(get(&app, "/", &[("cookie", &cookie)]).await, "cookie").await;
        let cookie = format!("other={T}");
        assert_refused(get(&app, "/", &[("cookie", &cookie)]).await, "other").await;
    }

    #[tokio::test]
    async fn the_token_in_the_query_opens_a_page_and_sets_the_cookie() {
        let (_dir, app) = hub(Some(T));
        let cookie = format!("daebug_token={T}; Path=/; HttpOnly; SameSite=Strict");
        for uri in [format!("/?token={T}"), format!("/page.html?a=1&token={T}")] {
            let res = get(&app, &uri, &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{uri}");
            assert_eq!(header(&res, "set-cookie"), cookie, "{uri}");
        }
        // Not HTML, or not a GET: the token passes, no cookie is set.
        let res = get(&app, &format!("/app.css?token={T}"), &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "set-cookie"), "");
        let res = request(&app, Method::HEAD, &format!("/?token={T}"), &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "set-cookie"), "");
    }

    #[tokio::test]
    async fn the_cookie_opens_everything() {
        let (_dir, app) = hub(Some(T));
        let cookie = format!("theme=dark; daebug_token={T}");
        for uri in ["/", "/page.html", "/app.css"] {
            let res = get(&app, uri, &[("cookie", &cookie)]).await;
            assert_eq!(res.status(), StatusCode::OK, "{uri}");
            assert_eq!(header(&res, "set-cookie"), "", "{uri}");
        }
        let res = get(&app, "/missing", &[("cookie", &cookie)]).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
    }

    #[tokio::test]
    async fn a_bearer_header_carries_the_token() {
        let (_dir, app) = hub(Some(T));
        for auth in [format!("Bearer {T}"), format!("bearer  {T} ")] {
            let res = get(&app, "/app.css", &[("authorization", &auth)]).await;
            assert_eq!(res.status(), StatusCode::OK, "{auth}");
            assert_eq!(header(&res, "set-cookie"), "", "{auth}");
        }
        for auth in [
            format!("Basic {T}"),
            format!("Bearer {T}0"),
            "Bearer".to_owned(),
            T.to_owned(),
        ] {
            assert_refused(get(&app, "/", &[("authorization", &auth)]).await, &auth).await;
        }
    }

    #[tokio::test]
    async fn the_adapter_files_need_no_token() {
        let (_dir, app) = hub(Some(T));
        for file in ADAPTER_FILES {
            let res = get(&app, file.path, &[("origin", "http://localhost:5173")]).await;
            assert_eq!(res.status(), StatusCode::OK, "{}", file.path);
            let res = request(
                &app,
                Method::OPTIONS,
                file.path,
                &[
                    ("origin", "http://localhost:5173"),
                    ("access-control-request-method", "GET"),
                ],
            )
            .await;
            assert_eq!(res.status(), StatusCode::NO_CONTENT, "{}", file.path);
        }
        // A lookalike outside the adapter's exact paths is not exempt.
        assert_refused(get(&app, "/daebug.js/", &[]).await, "/daebug.js/").await;
        assert_refused(get(&app, "/x/daebug.js", &[]).await, "/x/daebug.js").await;
    }

    #[tokio::test]
    async fn the_websocket_takes_the_token_in_its_query() {
        let (_dir, app) = hub(Some(T));
        let res = get(&app, &format!("/ws?token={T}"), &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "set-cookie"), "");
        assert_eq!(body_text(res).await, "ws");
        assert_refused(get(&app, "/ws", &[]).await, "/ws").await;
    }

    #[tokio::test]
    async fn the_host_check_comes_first() {
        let (_dir, app) = hub(Some(T));
        for uri in ["/", "/daebug.js"] {
            let res = get(&app, uri, &[("host", "evil.example")]).await;
            assert_eq!(res.status(), StatusCode::FORBIDDEN, "{uri}");
        }
        let res = get(&app, "/", &[("host", HOST)]).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }

    #[tokio::test]
    async fn without_a_token_nothing_is_checked() {
        let (_dir, app) = hub(None);
        for uri in ["/", "/page.html", "/app.css", "/ws", "/?token=guess"] {
            let res = get(&app, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::OK, "{uri}");
            assert_eq!(header(&res, "set-cookie"), "", "{uri}");
        }
    }

    #[tokio::test]
    async fn a_token_with_awkward_characters_round_trips() {
        let token = "a+b&c d;\"é";
        let (_dir, app) = hub(Some(token));
        let encoded = "a%2Bb%26c%20d%3B%22%C3%A9";
        let res = get(&app, &format!("/page.html?token={encoded}"), &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            header(&res, "set-cookie"),
            format!("daebug_token={encoded}; Path=/; HttpOnly; SameSite=Strict")
        );
        let body = body_text(res).await;
        assert!(
            body.contains(&format!(r#"src="/daebug.js?token={encoded}""#)),
            "{body}"
        );
        let cookie = format!("daebug_token={encoded}");
        let res = get(&app, "/app.css", &[("cookie", &cookie)]).await;
        assert_eq!(res.status(), StatusCode::OK);
        // `+` is a literal here, never a space: `a b&c…` is not the token.
        let res = get(&app, "/?token=a%20b%26c%20d%3B%22%C3%A9", &[]).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn helpers() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
        assert!(ct_eq(b"", b""));
        assert_eq!(query_param("x y"), "token=x%20y");
        assert_eq!(
            query_values("a=1&token=x&token&token=y").collect::<Vec<_>>(),
            ["x", "y"]
        );
        let secret = Secret::new("a+b");
        assert!(secret.matches_query("a+b"));
        assert!(secret.matches_query("a%2Bb"));
        assert!(!secret.matches_query("a b"));
        assert!(secret.matches_cookie("a%2Bb"));
        assert!(!secret.matches_cookie("a+b"));
    }
}
