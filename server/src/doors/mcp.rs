//! The MCP door (docs/doors.md, "MCP"): four tools over the official
//! Rust SDK (`rmcp`), served two ways:
//!
//! - streamable HTTP at `/mcp` on the hub ([`router`]), behind the hub's
//!   Host check and token like every route, plus an `Origin` check of its
//!   own so no page from a foreign origin can call it;
//! - stdio, for `daebug mcp`: attached to a hub that already runs
//!   ([`serve_stdio_attached`]), or a hub started in-process
//!   (`cmd/serve.rs`), whose tools speak on stdin/stdout.
//!
//! The tools are written over [`Door`] (`door.rs`), what the hub
//! answers: [`Doors`] in-process, `AttachedHub` (`attached.rs`) over a
//! running hub's HTTP API (found by its address or its `debug/.hub`); the
//! same texts and refusals either way.

use std::future::Future;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::digest::{reply_digest, tokens};
use super::door::Door;
use super::json::{DoorError, EvalRequest, RealmInfo, Timeout};
use super::mcp_tools::{self as words, EVAL, LIST_REALMS, READ_LOG, RUN_TESTS};
use super::reading::{LogQuery, LogRead, DEFAULT_TAIL};
use super::run_tests::{test_block, tests_exit_status, Spec, TestRequest};
use super::Doors;
use crate::http::guard::Guard;
use crate::hub::timing;
use daebug_core::engine::picture;

/// The door's name: the agent a block sent through MCP is written as.
pub const DOOR: &str = "mcp";

/// Where the streamable HTTP transport is mounted.
pub const PATH: &str = "/mcp";

// ----- the tools ----------------------------------------------------------

/// The arguments of `eval`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalArgs {
    /// A stem from list_realms, or its unique start.
    pub realm: String,
    /// The code to run.
    pub code: String,
    /// `js` (default) or `ts`.
    #[serde(default)]
    pub lang: Option<String>,
    /// Seconds or "90s", "500ms", "2m"; the hub's default when absent.
    #[serde(default)]
    pub timeout: Option<TimeoutArg>,
    /// Tokens (characters ÷ 4): a longer reply comes as a digest.
    #[serde(default)]
    pub budget: Option<usize>,
}

/// A timeout as seconds or as text.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum TimeoutArg {
    Seconds(f64),
    Text(String),
}

impl From<TimeoutArg> for Timeout {
    fn from(t: TimeoutArg) -> Timeout {
        match t {
            TimeoutArg::Seconds(s) => Timeout::Seconds(s),
            TimeoutArg::Text(t) => Timeout::Text(t),
        }
    }
}

/// The arguments of `run_tests`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunTestsArgs {
    /// A stem from list_realms, or its unique start.
    pub realm: String,
    #[serde(default)]
    pub spec: Option<String>,
    /// Regexp on names.
    #[serde(default)]
    pub filter: Option<String>,
}

/// The arguments of `read_log`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadLogArgs {
    /// A stem from list_realms, or its unique start.
    pub realm: String,
    /// Only the last N lines (200 when neither this nor `since` is given).
    #[serde(default)]
    pub tail: Option<usize>,
    /// The cursor an earlier read returned: only what was added after it.
    #[serde(default)]
    pub since: Option<String>,
    /// Tokens (characters ÷ 4): a longer text comes as a digest.
    #[serde(default)]
    pub budget: Option<usize>,
}

/// The MCP server: the three tools over a [`Door`].
#[derive(Debug, Clone)]
pub struct McpServer<D: Door> {
    door: Arc<D>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl<D: Door> McpServer<D> {
    pub fn new(door: D) -> Self {
        McpServer {
            door: Arc::new(door),
            tool_router: Self::tool_router(),
        }
    }

    /// A server over `door` with tools already built (their JSON schemas
    /// are generated once, not per request of a stateless transport).
    fn with_tools(door: D, tool_router: ToolRouter<Self>) -> Self {
        McpServer {
            door: Arc::new(door),
            tool_router,
        }
    }

    #[tool(description = LIST_REALMS, input_schema = words::list_realms_schema())]
    async fn list_realms(&self) -> CallToolResult {
        let moments = ToolMoments::enter();
        let result = match self.door.realms().await {
            Ok(realms) => text_result(realm_lines(&realms), false),
            Err(e) => error_result(&e),
        };
        moments.left("list_realms");
        result
    }

    #[tool(description = EVAL, input_schema = words::eval_schema())]
    async fn eval(&self, Parameters(args): Parameters<EvalArgs>) -> CallToolResult {
        let moments = ToolMoments::enter();
        let result = self.run_eval(args).await;
        moments.left("eval");
        result
    }

    #[tool(description = RUN_TESTS, input_schema = words::run_tests_schema())]
    async fn run_tests(&self, Parameters(args): Parameters<RunTestsArgs>) -> CallToolResult {
        let req = TestRequest {
            spec: args.spec.map(Spec::One),
            filter: args.filter,
            agent: Some(DOOR.to_string()),
            ..TestRequest::default()
        };
        match self.door.eval(&args.realm, test_block(&req)).await {
            Ok(reply) => text_result(reply.text.clone(), tests_exit_status(&reply) != 0),
            Err(e) => error_result(&e),
        }
    }

    #[tool(description = READ_LOG, input_schema = words::read_log_schema())]
    async fn read_log(&self, Parameters(args): Parameters<ReadLogArgs>) -> CallToolResult {
        let query = LogQuery {
            tail: match (&args.since, args.tail) {
                (None, None) => Some(DEFAULT_TAIL),
                (_, tail) => tail,
            },
            since: args.since,
            budget: args.budget,
        };
        let since = query.since.is_some();
        // Asked for its last lines and nothing more: those lines alone (the
        // cursor rides in the structured content).
        let plain = args.tail.is_some() && !since && query.budget.is_none();
        match self.door.read_log(&args.realm, query).await {
            Ok(read) => {
                let about = serde_json::json!({
                    "cursor": read.cursor,
                    "left_out": read.left_out,
                    "digest": read.digest,
                });
                let text = match plain {
                    true => read.text,
                    false => log_text(read, since),
                };
                let mut result = text_result(text, false);
                result.structured_content = Some(about);
                result
            }
            Err(e) => error_result(&e),
        }
    }
}

impl<D: Door> McpServer<D> {
    /// `eval`: the block through the door, its reply (or a digest of it
    /// over the budget) and its pictures.
    async fn run_eval(&self, args: EvalArgs) -> CallToolResult {
        let req = EvalRequest {
            code: args.code,
            lang: args.lang,
            timeout: args.timeout.map(Timeout::from),
            agent: Some(DOOR.to_string()),
        };
        let mut reply = match self.door.eval(&args.realm, req).await {
            Ok(reply) => reply,
            Err(e) => return error_result(&e),
        };
        let text = match args.budget.filter(|&b| tokens(&reply.text) > b) {
            Some(budget) => reply_digest(&reply, budget),
            None => std::mem::take(&mut reply.text),
        };
        // Why the log does not show it yet (a full disk), after the reply.
        let text = match &reply.log_error {
            Some(e) => format!("{text}\n> **hub** {e}\n"),
            None => text,
        };
        // The pictures the reply links, as image content after its text.
        let mut content = vec![ContentBlock::text(text)];
        // (A copied value's file is linked in the text, not an image.)
        for path in reply
            .images
            .iter()
            .filter(|p| picture::mime_of(p).starts_with("image/"))
        {
            if let Some(bytes) = self.door.picture(path).await {
                let data = base64_simd::STANDARD.encode_to_string(&bytes);
                content.push(ContentBlock::image(data, picture::mime_of(path)));
            }
        }
        match reply.ok {
            true => CallToolResult::success(content),
            false => CallToolResult::error(content),
        }
    }
}

/// With `RUST_LOG=daebug::timing=debug`, when a tool call was entered
/// and left (wall-clock µs), for the bench's where-the-time-goes rows
/// (`hub/timing.rs` logs the job's own moments).
struct ToolMoments(Option<u64>);

impl ToolMoments {
    fn enter() -> ToolMoments {
        ToolMoments(timing::on().then(timing::wall_us))
    }

    fn left(self, tool: &str) {
        if let Some(entered) = self.0 {
            tracing::debug!(
                target: "daebug::timing",
                "timing door=mcp tool={tool} entered={entered} left={}",
                timing::wall_us()
            );
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl<D: Door> ServerHandler for McpServer<D> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("daebug", env!("CARGO_PKG_VERSION")))
            .with_instructions(words::INSTRUCTIONS)
    }
}

/// The realms as `list_realms` shows them: one line each.
pub fn realm_lines(realms: &[RealmInfo]) -> String {
    if realms.is_empty() {
        return "no realms: no page or worker has connected to the hub yet; open a page the hub \
                serves (or one that loads its /daebug.js), then call list_realms again\n"
            .to_string();
    }
    realms
        .iter()
        .map(|r| {
            let name = match r.name.is_empty() {
                true => String::new(),
                false => format!("  ({})", r.name),
            };
            let waiting: String = r
                .waiting
                .iter()
                .map(|w| format!("  waiting for a person: {} {:?}", w.kind, w.title))
                .collect();
            let unwritten = match &r.log_error {
                Some(e) => format!("  the log is not being written: {e}"),
                None => String::new(),
            };
            format!(
                "{}  {}  {}  {}  {}{name}{waiting}{unwritten}\n",
                r.stem, r.kind, r.state, r.url, r.log
            )
        })
        .collect()
}

/// A read of a log as `read_log` shows it: what was left out first, the
/// cursor for the next read last.
pub fn log_text(read: LogRead, since: bool) -> String {
    let mut out = String::new();
    if let Some(note) = &read.note {
        out.push_str(&format!("({note})\n"));
    }
    if read.left_out > 0 && !since && !read.digest {
        out.push_str(&format!(
            "({} earlier lines left out; `tail` reads more)\n",
            read.left_out
        ));
    }
    out.push_str(&read.text);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if since && read.text.is_empty() {
        out.push_str("(nothing was added since the cursor)\n");
    }
    out.push_str(&format!(
        "(cursor {}: pass it as `since` to read only what is added after this)\n",
        read.cursor
    ));
    out
}

fn text_result(text: String, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    match is_error {
        true => CallToolResult::error(content),
        false => CallToolResult::success(content),
    }
}

/// A refused call, as a tool error the agent reads (not a protocol
/// error): what went wrong and what to call instead.
fn error_result(e: &DoorError) -> CallToolResult {
    let text = match e {
        DoorError::NoSuchRealm { realm } => format!(
            "no realm is named or starts with `{realm}`; call list_realms to see the realms"
        ),
        other => other.to_string(),
    };
    text_result(text, true)
}

// ----- transports -----------------------------------------------------------

/// `/mcp`: the streamable HTTP transport over `doors`, its sessions and
/// streams ended when the hub's shutdown begins (axum's graceful shutdown
/// does not wait for them). The Host check and the token are the hub's
/// layers over every route ([`crate::http::guarded`]); the SDK's own Host
/// allowlist is off so that they alone decide (a hub bound to a LAN
/// address serves its IP literal too). `Origin` is checked here.
pub fn router(doors: Doors, guard: Arc<Guard>) -> Router {
    // Stateless: each request is answered on its own, as plain JSON when
    // the client accepts it (no session to keep, no event stream to frame
    // a single result in). The tools send no requests or notifications
    // of their own, so nothing needs a session.
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_cancellation_token(doors.shutdown().child_token());
    let service: StreamableHttpService<McpServer<Doors>, LocalSessionManager> =
        StreamableHttpService::new(
            {
                let tools = McpServer::<Doors>::tool_router();
                move || Ok(McpServer::with_tools(doors.clone(), tools.clone()))
            },
            Default::default(),
            config,
        );
    Router::new()
        .route_service(PATH, service)
        .route_layer(middleware::from_fn_with_state(guard, check_origin))
}

/// No page may call a tool but the hub's own: a request carrying an
/// `Origin` must carry the hub's, as for `/api` (a page of a dev server on
/// another loopback port is a page, not the person who runs the agent).
/// MCP clients send none.
async fn check_origin(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    match super::api::origin_refused(req.headers()) {
        None => next.run(req).await,
        Some(origin) => guard.refuse_origin(&origin),
    }
}

/// `daebug mcp` attached to a running hub: the MCP tools on stdin/stdout
/// over `hub`, a door to that hub's HTTP API (`AttachedHub`, in
/// `attached.rs`, which depends on this file and not the reverse), until
/// stdin closes or `signal` resolves. The hub runs on when this ends.
pub async fn serve_stdio_attached(
    hub: impl Door,
    signal: impl Future<Output = ()> + Send + 'static,
) {
    let stop = CancellationToken::new();
    tokio::select! {
        () = tools_over_stdio(hub, stop.clone()) => {}
        () = signal => stop.cancel(),
    }
    tracing::info!("MCP over stdio ended");
}

/// The tools over `door` on stdin/stdout, until stdin closes or `stop`
/// is cancelled.
pub async fn tools_over_stdio<D: Door>(door: D, stop: CancellationToken) {
    match McpServer::new(door)
        .serve_with_ct(rmcp::transport::stdio_pipes(), stop)
        .await
    {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => tracing::warn!("MCP over stdio did not start: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realms_one_per_line() {
        let realm = RealmInfo {
            stem: "shop-3f2a".into(),
            kind: "page".into(),
            name: "Shop".into(),
            url: "http://127.0.0.1:8302/".into(),
            state: "idle".into(),
            last: "10:00:05".into(),
            heard: "10:00:05".into(),
            log: "debug/shop-3f2a.md".into(),
            waiting: Vec::new(),
            log_error: None,
        };
        assert_eq!(
            realm_lines(std::slice::from_ref(&realm)),
            "shop-3f2a  page  idle  http://127.0.0.1:8302/  debug/shop-3f2a.md  (Shop)\n"
        );
        let waiting = RealmInfo {
            state: "executing".into(),
            waiting: vec![daebug_protocol::person::Waiting {
                id: 1,
                kind: "panel".into(),
                title: "Checkout form".into(),
                view: serde_json::Value::Null,
            }],
            ..realm
        };
        assert_eq!(
            realm_lines(&[waiting]),
            "shop-3f2a  page  executing  http://127.0.0.1:8302/  debug/shop-3f2a.md  (Shop)  waiting for a person: panel \"Checkout form\"\n"
        );
        assert!(realm_lines(&[]).starts_with("no realms"));
    }

    /// A server over doors that reach no hub (the tools' lists only).
    fn server() -> McpServer<Doors> {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let (events, _) = tokio::sync::broadcast::channel(1);
        McpServer::new(Doors::new(
            tx,
            events,
            "debug".into(),
            CancellationToken::new(),
        ))
    }

    #[test]
    fn tools_have_their_names_and_descriptions() {
        let server = server();
        let mut names: Vec<String> = server
            .tool_router
            .list_all()
            .into_iter()
            .map(|t| {
                assert!(t.description.as_deref().is_some_and(|d| d.len() > 50));
                t.name.to_string()
            })
            .collect();
        names.sort();
        assert_eq!(names, ["eval", "list_realms", "read_log", "run_tests"]);
    }

    /// `tools/list`, as the SDK sends it, is no larger than
    /// chrome-devtools-mcp `--slim`'s (1.11.0: 1,014 characters of JSON for
    /// its three tools); the instructions say what the tools share, and
    /// name every kind of realm.
    #[test]
    fn tools_list_fits_the_peers_size() {
        let tools = server().tool_router.list_all();
        let json = serde_json::to_string(&tools).expect("JSON");
        assert!(
            json.chars().count() <= 1_014,
            "{} characters: {json}",
            json.len()
        );
        for kind in ["page", "iframe", "worker", "node"] {
            assert!(LIST_REALMS.contains(kind), "{kind}");
            assert!(words::INSTRUCTIONS.to_lowercase().contains(kind), "{kind}");
        }
        for shared in [
            "budget", "digest", "since", "cursor", "timeout", "lang", "is_error",
        ] {
            assert!(words::INSTRUCTIONS.contains(shared), "{shared}");
        }
    }

    /// Each schema says what its arguments' reader takes: every property
    /// is read (the readers refuse unknown fields), and the required ones
    /// alone make a call.
    #[test]
    fn the_schemas_match_the_arguments() {
        fn check<T: serde::de::DeserializeOwned>(tool: &str, full: serde_json::Value) {
            let schema = server()
                .tool_router
                .list_all()
                .into_iter()
                .find(|t| t.name == tool)
                .expect("the tool")
                .input_schema;
            let properties: Vec<&String> = schema["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .collect();
            let given: Vec<&String> = full.as_object().expect("object").keys().collect();
            let (mut properties, mut given) = (properties, given);
            properties.sort();
            given.sort();
            assert_eq!(properties, given, "{tool}");
            serde_json::from_value::<T>(full.clone()).unwrap_or_else(|e| panic!("{tool}: {e}"));
            let required: serde_json::Map<String, serde_json::Value> = schema["required"]
                .as_array()
                .expect("required")
                .iter()
                .map(|k| {
                    let k = k.as_str().expect("name");
                    (k.to_string(), full[k].clone())
                })
                .collect();
            serde_json::from_value::<T>(required.into()).unwrap_or_else(|e| panic!("{tool}: {e}"));
        }
        check::<EvalArgs>(
            "eval",
            serde_json::json!({"realm": "a", "code": "1", "lang": "ts", "timeout": "2s", "budget": 9}),
        );
        check::<ReadLogArgs>(
            "read_log",
            serde_json::json!({"realm": "a", "tail": 3, "since": "0.0", "budget": 9}),
        );
        check::<RunTestsArgs>(
            "run_tests",
            serde_json::json!({"realm": "a", "spec": "t/*.mjs", "filter": "x"}),
        );
    }

    /// `/mcp` in the hub's whole router: the Host check and the token
    /// first, then the Origin check, then the SDK.
    #[tokio::test]
    async fn mcp_sits_behind_host_token_and_origin() {
        use axum::body::Body;
        use axum::http::{Method, Request, StatusCode};

        use crate::http::test_util::{body_text, send, HOST};

        let dir = tempfile::tempdir().expect("tempdir");
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let (events, _) = tokio::sync::broadcast::channel(1);
        let app = |token: Option<&str>| {
            // `/mcp` behind the hub's checks, as the hub's router (`app/router.rs`) mounts it.
            let guard = Arc::new(Guard::new(HOST.parse().expect("address"), &[]));
            let doors = Doors::new(
                tx.clone(),
                events.clone(),
                dir.path().into(),
                CancellationToken::new(),
            );
            crate::http::guarded(router(doors, Arc::clone(&guard)), guard, token)
        };
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let post = |uri: &str, headers: &[(&str, &str)]| {
            let mut req = Request::builder()
                .method(Method::POST)
                .uri(uri)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream");
            if !headers.iter().any(|(k, _)| *k == "host") {
                req = req.header("host", HOST);
            }
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req.body(Body::from(initialize)).expect("request")
        };

        let open = app(None);
        let res = send(&open, post("/mcp", &[("host", "evil.example")])).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert!(body_text(res).await.contains("refused Host"));
        let res = send(&open, post("/mcp", &[("origin", "https://evil.example")])).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert!(body_text(res).await.contains("refused Origin"));
        let res = send(&open, post("/mcp", &[("origin", "http://localhost:5173")])).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "another loopback port");
        for ok in [vec![], vec![("origin", "http://127.0.0.1:8302")]] {
            let res = send(&open, post("/mcp", &ok)).await;
            assert_eq!(res.status(), StatusCode::OK, "{ok:?}");
            // Stateless, and a single result is plain JSON.
            assert!(res.headers().get("mcp-session-id").is_none());
            assert_eq!(
                res.headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok()),
                Some("application/json")
            );
            assert!(res.headers().get("access-control-allow-origin").is_none());
        }

        let locked = app(Some("s3cret"));
        let res = send(&locked, post("/mcp", &[])).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        let res = send(&locked, post("/mcp?token=s3cret", &[])).await;
        assert_eq!(res.status(), StatusCode::OK);
    }
}
