//! The HTTP API under `/api` (docs/doors.md): the realms, a block run
//! through a realm's log, a log's text, and the hub's change events as
//! server-sent events. Routed only when the hub has [`Doors`].
//!
//! Who may call it: the Host check and the token check of
//! [`crate::http::guarded`] come first, as for every route. Then this module
//! refuses (403) any request that carries an `Origin` other than the hub's
//! own (`http://` + the request's `Host`): a browser page from anywhere
//! else, another loopback port included, is a page, not the user. No
//! CORS header is ever sent from here, so no browser lets a foreign page
//! read an answer either; and a POST must say `Content-Type:
//! application/json` (415 otherwise), which no cross-origin form or
//! no-cors `fetch` can send.
//!
//! Errors are JSON: `{"error": "<kind>", "message": "<what to do>", …}`.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ORIGIN, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use futures_util::Stream;
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use super::json::{DoorError, EvalRequest, HubEvent};
use super::run_tests::{test_block, TestRequest};
use super::Doors;
use crate::http::guard::is_same_origin;

/// The door's name in a log's request header when the request names no
/// agent: the CLI is a client of this API, and a bare call is the same.
pub const DOOR: &str = "cli";

/// Largest request body (the code of a block, as JSON).
pub const MAX_BODY: usize = 8 * 1024 * 1024;

/// How often an idle event stream says it is alive (an SSE comment).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The `/api` routes over `doors`, behind the Origin rule above.
pub fn routes<S>(doors: Doors) -> Router<S> {
    Router::new()
        .route("/api/realms", get(list))
        .route("/api/realms/{realm}", get(one))
        .route("/api/realms/{realm}/eval", post(eval))
        .route("/api/realms/{realm}/test", post(test))
        .route("/api/realms/{realm}/log", get(log))
        .route("/api/events", get(events))
        .route("/api", any(unknown))
        .route("/api/", any(unknown))
        .route("/api/{*rest}", any(unknown))
        .layer(middleware::from_fn(check_origin))
        .with_state(doors)
}

/// An API error: its status, kind and message (and, for a door's
/// refusal, its other fields: the realm, the stems).
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: serde_json::Map<String, serde_json::Value>,
}

impl ApiError {
    /// An error of `kind` with `message`.
    pub fn new(status: StatusCode, kind: &str, message: impl Into<String>) -> ApiError {
        let mut body = serde_json::Map::new();
        body.insert("error".into(), kind.into());
        body.insert("message".into(), message.into().into());
        ApiError { status, body }
    }
}

impl From<DoorError> for ApiError {
    fn from(e: DoorError) -> ApiError {
        let status = match e {
            DoorError::NoSuchRealm { .. } => StatusCode::NOT_FOUND,
            DoorError::Ambiguous { .. } => StatusCode::CONFLICT,
            DoorError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            DoorError::Stopping => StatusCode::SERVICE_UNAVAILABLE,
            // A door relaying another hub: that hub failed it.
            DoorError::Unanswered { .. } | DoorError::NoHub { .. } => StatusCode::BAD_GATEWAY,
        };
        let mut body = match serde_json::to_value(&e) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        body.insert("message".into(), e.to_string().into());
        ApiError { status, body }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json(self.status, &serde_json::Value::Object(self.body))
    }
}

/// `value` as a JSON response.
fn json(status: StatusCode, value: &impl serde::Serialize) -> Response {
    let mut text = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    text.push('\n');
    let mut res = (status, text).into_response();
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// Refuse a request from a browser page of another origin (see the
/// module's doc): no `Origin`, or the hub's own, passes.
async fn check_origin(req: Request, next: Next) -> Response {
    match origin_refused(req.headers()) {
        Some(origin) => {
            tracing::warn!(
                "refused {} {} from Origin {origin:?}",
                req.method(),
                req.uri().path()
            );
            ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                format!(
                    "the API answers the hub's own pages and programs without an Origin, \
                     not a page from {origin:?}; use the CLI (`daebug eval`) or call it \
                     from outside a browser"
                ),
            )
            .into_response()
        }
        None => next.run(req).await,
    }
}

/// The foreign `Origin` of a request, if it carries one.
pub fn origin_refused(headers: &HeaderMap) -> Option<String> {
    let origin = headers.get(ORIGIN)?;
    if is_same_origin(origin, headers.get(axum::http::header::HOST)) {
        None
    } else {
        Some(String::from_utf8_lossy(origin.as_bytes()).into_owned())
    }
}

/// Whether a `Content-Type` says JSON (`application/json`, parameters
/// such as `charset` allowed).
pub fn is_json(content_type: Option<&HeaderValue>) -> bool {
    content_type
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

async fn list(State(doors): State<Doors>) -> Result<Response, ApiError> {
    Ok(json(StatusCode::OK, &doors.realms().await?))
}

async fn one(State(doors): State<Doors>, Path(realm): Path<String>) -> Result<Response, ApiError> {
    Ok(json(StatusCode::OK, &doors.realm(&realm).await?))
}

async fn eval(
    State(doors): State<Doors>,
    Path(realm): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let body = read_json_body(req).await?;
    let request = parse_eval(&body)?;
    let reply = doors.eval(&realm, request, DOOR).await?;
    Ok(json(StatusCode::OK, &reply))
}

/// `POST /api/realms/{realm}/test` (docs/log-format.md, "Tests in the realm"): the realm's tests as one
/// block; the answer is the eval's, its `value` the run's result.
async fn test(
    State(doors): State<Doors>,
    Path(realm): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let body = read_json_body(req).await?;
    let request: TestRequest = serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the body is not a test request ({e}); send {{\"spec\"?: path | glob | [..], \"filter\"?: regexp, \"only\"?: bool, \"timeout\"?: seconds, \"agent\"?: name}}"),
        )
    })?;
    let reply = doors.eval(&realm, test_block(&request), DOOR).await?;
    Ok(json(StatusCode::OK, &reply))
}

/// The body of a POST, refused unless it says it is JSON.
async fn read_json_body(req: Request) -> Result<Bytes, ApiError> {
    if !is_json(req.headers().get(CONTENT_TYPE)) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "not_json",
            "send the request as JSON, with `Content-Type: application/json`",
        ));
    }
    axum::body::to_bytes(req.into_body(), MAX_BODY)
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("the request is larger than {} MiB", MAX_BODY >> 20),
            )
        })
}

/// An eval request from its JSON body.
pub fn parse_eval(body: &[u8]) -> Result<EvalRequest, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the body is not an eval request ({e}); send {{\"code\": \"…\", \"lang\"?: \"js\"|\"ts\", \"timeout\"?: seconds, \"agent\"?: name}}"),
        )
    })
}

/// The query of `GET /api/realms/{realm}/log`.
#[derive(Debug, Deserialize)]
struct LogQuery {
    tail: Option<usize>,
    /// A cursor an earlier read returned: only what was added since.
    since: Option<String>,
    /// Tokens (characters ÷ 4): over it, a digest instead of the text.
    budget: Option<usize>,
    /// `markdown` (the default: the file's text), `json` (the text with
    /// its cursor and counts, as `read_log` gives them) or `html` (as the
    /// dashboard shows it, [`crate::doors::log_html`]).
    format: Option<String>,
}

async fn log(
    State(doors): State<Doors>,
    Path(realm): Path<String>,
    query: Result<Query<LogQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "`tail` is a number of lines and `budget` a number of tokens",
        )
    })?;
    let html = match query.format.as_deref() {
        None | Some("markdown") => false,
        Some("html") => true,
        Some("json") => {
            let asked = super::reading::LogQuery {
                tail: query.tail,
                since: query.since,
                budget: query.budget,
            };
            let read = doors.read_log(&realm, &asked, None).await?;
            return Ok(json(StatusCode::OK, &super::json::LogReply::from(read)));
        }
        Some(other) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                format!(
                    "unknown format {other:?}; ask for `markdown` (the default), `json` or `html`"
                ),
            ))
        }
    };
    let mut read = None;
    let (body, content_type) = if html {
        // Cut where a block starts, not inside a fence (see log_html).
        let text = doors.log(&realm, None).await?;
        (
            crate::doors::log_html::log_tail_to_html(&text, query.tail),
            "text/html; charset=utf-8",
        )
    } else if query.since.is_none() && query.budget.is_none() {
        // The plain read (`daebug tail` makes one at every change): the
        // file's text, without a survey for a cursor.
        let text = doors.log(&realm, query.tail).await?;
        (text, "text/markdown; charset=utf-8")
    } else {
        let asked = super::reading::LogQuery {
            tail: query.tail,
            since: query.since,
            budget: query.budget,
        };
        let mut r = doors.read_log(&realm, &asked, None).await?;
        let text = std::mem::take(&mut r.text);
        read = Some(r);
        (text, "text/markdown; charset=utf-8")
    };
    let mut res = (StatusCode::OK, body).into_response();
    let headers = res.headers_mut();
    // What a JSON read says beside the text, as headers.
    if let Some(r) = read {
        let mut put = |name: &'static str, value: String| {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        };
        put("daebug-cursor", r.cursor);
        put("daebug-left-out", r.left_out.to_string());
        if r.digest {
            put("daebug-digest", "1".into());
        }
        if let Some(note) = r.note {
            put("daebug-note", note);
        }
    }
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    // A fragment opened on its own runs nothing (it holds no script, but
    // a browser's view of it should not either).
    if html {
        headers.insert(
            axum::http::header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(super::dashboard::FRAGMENT_CSP),
        );
    }
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(res)
}

/// The hub's change events, one JSON object each, until the hub stops.
/// A reader too slow to keep up is sent `{"type":"realms"}`: read the
/// state again.
async fn events(State(doors): State<Doors>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = doors.subscribe();
    // A first comment, so the client knows it is subscribed once it reads
    // the answer's head (events sent from then on reach it).
    let hello = futures_util::stream::iter([Ok(Event::default().comment("daebug events"))]);
    let changes = futures_util::stream::unfold((rx, doors), |(mut rx, doors)| async move {
        let event = tokio::select! {
            () = doors.stopping() => return None,
            got = rx.recv() => match got {
                Ok(event) => event,
                Err(RecvError::Lagged(_)) => HubEvent::Realms,
                Err(RecvError::Closed) => return None,
            },
        };
        Some((Ok(sse_event(&event)), (rx, doors)))
    });
    use futures_util::StreamExt;
    Sse::new(hello.chain(changes)).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}

/// One change as a server-sent event: its JSON as the data.
pub fn sse_event(event: &HubEvent) -> Event {
    Event::default().data(serde_json::to_string(event).unwrap_or_default())
}

async fn unknown(req: Request<Body>) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no API route {}; the routes are GET /api/realms, GET /api/realms/{{realm}}, \
             POST /api/realms/{{realm}}/eval, POST /api/realms/{{realm}}/test, GET /api/realms/{{realm}}/log?tail=N&format=markdown|html, \
             GET /api/events",
            req.uri().path()
        ),
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{Method, Request, StatusCode};
    use axum::routing::get;
    use axum::Router;
    use tokio::sync::{broadcast, mpsc};
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::http::guard::Guard;
    use crate::http::test_util::{body_text, header, request, send, HOST};
    use crate::hub::messages::DirMsg;

    /// The one realm the test directory resolves.
    const KNOWN: &str = "shop-3f2a";

    /// A hub's router whose directory knows no realm but [`KNOWN`] (enough for every
    /// refusal; the answers that need a page are tested end to end).
    fn hub(
        root: &Path,
        token: Option<&str>,
    ) -> (Router, broadcast::Sender<HubEvent>, CancellationToken) {
        let (dir_tx, mut dir_rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(msg) = dir_rx.recv().await {
                match msg {
                    DirMsg::Realms { reply } => {
                        let _ = reply.send(Vec::new());
                    }
                    // One realm with a log on disk, `shop-3f2a`, for the
                    // routes that only read.
                    DirMsg::Resolve { realm, reply } if realm == KNOWN => {
                        let _ = reply.send(Ok((realm, mpsc::unbounded_channel().0)));
                    }
                    DirMsg::Resolve { reply, .. } => {
                        let _ = reply.send(Err(crate::hub::messages::Unresolved::NoSuch));
                    }
                    _ => {}
                }
            }
        });
        let (events, _) = broadcast::channel(4);
        let shutdown = CancellationToken::new();
        let doors = Doors::new(dir_tx, events.clone(), root.join("debug"), shutdown.clone());
        // The API behind the hub's checks, as the hub's router (`app/router.rs`) mounts it.
        let guard = Arc::new(Guard::new(HOST.parse().expect("address"), &[]));
        let ws = Router::new().route("/ws", get(|| async { "ws" }));
        let app = crate::http::guarded(ws.merge(routes(doors)), guard, token);
        (app, events, shutdown)
    }

    fn post(
        uri: &str,
        content_type: Option<&str>,
        body: &str,
        origin: Option<&str>,
    ) -> Request<Body> {
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(uri)
            .header("host", HOST);
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        req.body(Body::from(body.to_owned())).expect("request")
    }

    async fn error_of(res: Response) -> serde_json::Value {
        assert_eq!(header(&res, "content-type"), "application/json");
        assert_eq!(header(&res, "access-control-allow-origin"), "");
        serde_json::from_str(&body_text(res).await).expect("JSON error")
    }

    #[tokio::test]
    async fn a_foreign_origin_is_refused_on_every_route() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, _, _) = hub(dir.path(), None);
        for origin in [
            "https://evil.example",
            "http://127.0.0.1:5173",
            "http://localhost:8302",
            "null",
        ] {
            for (method, uri) in [
                (Method::GET, "/api/realms"),
                (Method::GET, "/api/events"),
                (Method::GET, "/api/realms/x/log"),
                (Method::OPTIONS, "/api/realms/x/eval"),
                (Method::GET, "/api/nope"),
            ] {
                let res = request(&app, method.clone(), uri, &[("origin", origin)]).await;
                assert_eq!(
                    res.status(),
                    StatusCode::FORBIDDEN,
                    "{origin} {method} {uri}"
                );
                let e = error_of(res).await;
                assert_eq!(e["error"], "forbidden_origin", "{e}");
            }
            let res = send(
                &app,
                post(
                    "/api/realms/x/eval",
                    Some("application/json"),
                    r#"{"code":"1"}"#,
                    Some(origin),
                ),
            )
            .await;
            assert_eq!(res.status(), StatusCode::FORBIDDEN, "{origin} POST");
        }
        // The hub's own pages (Origin = http:// + Host) and programs (no
        // Origin) pass.
        let own = format!("http://{HOST}");
        let res = request(&app, Method::GET, "/api/realms", &[("origin", &own)]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "access-control-allow-origin"), "");
        assert_eq!(body_text(res).await, "[]\n");
        let res = request(&app, Method::GET, "/api/realms", &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn a_post_must_be_json() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, _, _) = hub(dir.path(), None);
        let code = r#"{"code":"1+1"}"#;
        for ct in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
        ] {
            let res = send(&app, post("/api/realms/x/eval", ct, code, None)).await;
            assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct:?}");
            assert_eq!(error_of(res).await["error"], "not_json");
        }
        for body in [
            "{bad",
            "[]",
            r#"{"code":1}"#,
            r#"{"code":"1","extra":true}"#,
            "",
        ] {
            let res = send(
                &app,
                post(
                    "/api/realms/x/eval",
                    Some("application/json; charset=utf-8"),
                    body,
                    None,
                ),
            )
            .await;
            assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{body}");
            let e = error_of(res).await;
            assert_eq!(e["error"], "bad_request", "{e}");
            assert!(
                e["message"].as_str().is_some_and(|m| m.contains("code")),
                "{e}"
            );
        }
        // The door's own checks, before the realm is looked for.
        for body in [
            r#"{"code":"  "}"#,
            r#"{"code":"1","lang":"py"}"#,
            r#"{"code":"1","timeout":0}"#,
        ] {
            let res = send(
                &app,
                post("/api/realms/x/eval", Some("application/json"), body, None),
            )
            .await;
            assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{body}");
            assert_eq!(error_of(res).await["error"], "bad_request");
        }
        let res = request(&app, Method::GET, "/api/realms/x/log?tail=many", &[]).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
        assert_eq!(error_of(res).await["error"], "bad_request");
    }

    #[tokio::test]
    async fn an_unknown_realm_or_route_is_404() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, _, _) = hub(dir.path(), None);
        let res = send(
            &app,
            post(
                "/api/realms/shop/eval",
                Some("application/json"),
                r#"{"code":"1"}"#,
                None,
            ),
        )
        .await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        let e = error_of(res).await;
        assert_eq!(e["error"], "no_such_realm");
        assert_eq!(e["realm"], "shop");
        assert!(
            e["message"]
                .as_str()
                .is_some_and(|m| m.contains("daebug list")),
            "{e}"
        );
        for uri in ["/api/realms/shop", "/api/realms/shop/log?tail=3"] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
            assert_eq!(error_of(res).await["error"], "no_such_realm");
        }
        // An `api/` folder in the root is shadowed: the API answers.
        std::fs::create_dir_all(dir.path().join("api")).expect("mkdir");
        std::fs::write(dir.path().join("api/x.json"), "{}").expect("write");
        for uri in ["/api", "/api/", "/api/x.json", "/api/realms/a/b/c"] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
            assert_eq!(error_of(res).await["error"], "not_found");
        }
    }

    #[tokio::test]
    async fn the_token_covers_the_api() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, _, _) = hub(dir.path(), Some("T0K"));
        let res = request(&app, Method::GET, "/api/realms", &[]).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        let res = request(
            &app,
            Method::GET,
            "/api/realms",
            &[("authorization", "Bearer T0K")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        let res = request(&app, Method::GET, "/api/realms?token=T0K", &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn events_stream_as_json_and_end_when_the_hub_stops() {
        use futures_util::StreamExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, events, shutdown) = hub(dir.path(), None);
        let res = request(&app, Method::GET, "/api/events", &[]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "content-type"), "text/event-stream");
        let mut body = res.into_body().into_data_stream();
        let mut parser = crate::doors::client::SseParser::default();
        let mut text = String::new();
        // The hello comment comes first: subscribed from then on.
        let first = body.next().await.expect("hello").expect("bytes");
        text.push_str(&String::from_utf8_lossy(&first));
        assert!(text.starts_with(": daebug events"), "{text}");
        events
            .send(HubEvent::Log {
                stem: "shop-3f2a".into(),
            })
            .expect("send");
        let mut got = Vec::new();
        while got.is_empty() {
            let chunk = body.next().await.expect("an event").expect("bytes");
            got = parser.push(&chunk);
        }
        assert_eq!(got, [r#"{"type":"log","stem":"shop-3f2a"}"#]);
        // Lagging behind: told to read the state again.
        for i in 0..10 {
            events
                .send(HubEvent::Log {
                    stem: format!("s{i}"),
                })
                .expect("send");
        }
        let mut got = Vec::new();
        while got.is_empty() {
            let chunk = body.next().await.expect("an event").expect("bytes");
            got = parser.push(&chunk);
        }
        assert_eq!(got[0], r#"{"type":"realms"}"#);
        shutdown.cancel();
        while let Some(chunk) = body.next().await {
            chunk.expect("bytes");
        }
    }

    #[tokio::test]
    async fn a_log_as_html_escapes_what_the_page_and_the_agent_wrote() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (app, _, _) = hub(dir.path(), None);
        std::fs::create_dir_all(dir.path().join("debug")).expect("mkdir");
        std::fs::write(
            dir.path().join("debug/shop-3f2a.md"),
            "# 👾 shop-3f2a\n\n<script>alert('agent')</script>\n\n\
             > **agent** to shop-3f2a at 10:00:00\n```js\ndocument.title\n```\n\n\
             > **shop-3f2a** to agent at 10:00:00 (3ms)\n```JSON\n\"<script>alert(1)</script>\"\n```\n\n\
             > **agent** to shop-3f2a at 10:00:01\n```js\nawait daebug.sleep(9000)\n```\n\n\
             > **shop-3f2a** to agent at 10:00:01\nexecuting (5s)\n",
        )
        .expect("write");
        let own = format!("http://{HOST}");
        let res = request(
            &app,
            Method::GET,
            "/api/realms/shop-3f2a/log?format=html",
            &[("origin", &own)],
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&res, "access-control-allow-origin"), "");
        assert!(
            header(&res, "content-security-policy").contains("sandbox"),
            "a fragment opened on its own runs nothing"
        );
        let html = body_text(res).await;
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert('agent')&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("<strong>shop-3f2a</strong>"), "{html}");
        assert!(
            html.contains(
                "<span class=\"executing\" data-elapsed-ms=\"5000\">executing (5s)</span>"
            ),
            "{html}"
        );
        // The tail of it, and the Markdown as before.
        let res = request(
            &app,
            Method::GET,
            "/api/realms/shop-3f2a/log?format=html&tail=1",
            &[],
        )
        .await;
        assert_eq!(
            body_text(res).await,
            "<p class=\"earlier\">20 earlier lines are not shown here; the log file has them all.</p>\n\
             <p><span class=\"executing\" data-elapsed-ms=\"5000\">executing (5s)</span></p>\n"
        );
        for uri in [
            "/api/realms/shop-3f2a/log",
            "/api/realms/shop-3f2a/log?format=markdown",
        ] {
            let res = request(&app, Method::GET, uri, &[]).await;
            assert_eq!(header(&res, "content-type"), "text/markdown; charset=utf-8");
            assert!(body_text(res).await.contains("<script>alert('agent')"));
        }
        // An unknown format, an unknown realm, a foreign page.
        let res = request(
            &app,
            Method::GET,
            "/api/realms/shop-3f2a/log?format=pdf",
            &[],
        )
        .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
        let e = error_of(res).await;
        assert!(
            e["message"].as_str().is_some_and(|m| m.contains("html")),
            "{e}"
        );
        let res = request(&app, Method::GET, "/api/realms/nope/log?format=html", &[]).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        assert_eq!(error_of(res).await["error"], "no_such_realm");
        let res = request(
            &app,
            Method::GET,
            "/api/realms/shop-3f2a/log?format=html",
            &[("origin", "http://127.0.0.1:5173")],
        )
        .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert_eq!(error_of(res).await["error"], "forbidden_origin");
    }
}
