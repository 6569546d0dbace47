//! A client of the hub's HTTP API (docs/doors.md): what the CLI (and an
//! MCP stdio bridge) uses to reach a running hub. Plain HTTP/1.1 with
//! hyper's client connection over a tokio socket; one connection is kept
//! alive between calls (a new one costs a connect and a handshake, about
//! a tenth of a local call), a call made while it is busy opens its own,
//! and the event stream always has its own.
//!
//! - [`HubClient::find`]: the hub from `--host`/`--port`, else from the
//!   root's `debug/.hub`.
//! - [`HubClient::realms`], [`HubClient::realm`], [`HubClient::eval`],
//!   [`HubClient::log`], [`HubClient::events`]: the routes.
//! - [`SseParser`]: server-sent events from the bytes of a stream.
//! - [`exit_status`], [`ClientError::exit_status`]: what the CLI exits
//!   with.

use std::path::Path;
use std::pin::Pin;

use axum::body::Body;
use axum::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use axum::http::{Method, Request, StatusCode};
use futures_util::{Stream, StreamExt};
use hyper_util::rt::TokioIo;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

use super::json::{DoorError, EvalReply, EvalRequest, HubEvent, HubFile, RealmInfo, HUB_FILE};

/// Exit status: the block ran to a value (or the command did its work).
pub const EXIT_OK: u8 = 0;
/// Exit status: the block failed (threw, a syntax error, cancelled).
pub const EXIT_FAILED: u8 = 1;
/// Exit status: the block timed out.
pub const EXIT_TIMEOUT: u8 = 2;
/// Exit status: no such realm (or several fit), or no hub.
pub const EXIT_NO_REALM: u8 = 3;
/// Exit status: anything else (bad arguments, a request the hub refused,
/// the hub stopping).
pub const EXIT_OTHER: u8 = 4;

/// The largest answer read whole (a log, a reply).
const MAX_ANSWER: usize = 256 * 1024 * 1024;

/// Why a call to the hub did not give an answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No hub to talk to: no `debug/.hub`, or nothing listening.
    #[error("no hub: {0}")]
    NoHub(String),
    /// The hub answered with an error (`{"error", "message"}`).
    #[error("{message}")]
    Api {
        status: u16,
        kind: String,
        message: String,
        /// The door's refusal as data, when the answer is one (no such
        /// realm, ambiguous, a bad request, stopping): what an in-process
        /// door would have returned, for `daebug mcp` attached to a hub.
        door: Option<DoorError>,
    },
    /// The hub's answer was not what the API says.
    #[error("unexpected answer from the hub: {0}")]
    Protocol(String),
}

impl ClientError {
    /// The CLI's exit status for this error: 3 for no hub and no (or no
    /// unique) realm, 4 for the rest.
    pub fn exit_status(&self) -> u8 {
        match self {
            ClientError::NoHub(_) => EXIT_NO_REALM,
            ClientError::Api { status, .. } if *status == 404 || *status == 409 => EXIT_NO_REALM,
            _ => EXIT_OTHER,
        }
    }
}

/// The CLI's exit status for a door's refusal: 3 for no hub and no (or
/// no unique) realm, 4 for the rest (as [`ClientError::exit_status`]).
pub fn refusal_exit_status(e: &DoorError) -> u8 {
    match e {
        DoorError::NoHub { .. } | DoorError::NoSuchRealm { .. } | DoorError::Ambiguous { .. } => {
            EXIT_NO_REALM
        }
        DoorError::BadRequest { .. } | DoorError::Stopping | DoorError::Unanswered { .. } => {
            EXIT_OTHER
        }
    }
}

/// The CLI's exit status for a block's reply: 0 ran to a value, 2 timed
/// out, 1 anything else (an error, a syntax error, cancelled).
pub fn exit_status(reply: &EvalReply) -> u8 {
    if reply.ok {
        EXIT_OK
    } else if reply.state == "timeout" {
        EXIT_TIMEOUT
    } else {
        EXIT_FAILED
    }
}

/// Where the hub is and what it needs.
#[derive(Debug, Clone)]
pub struct HubClient {
    /// `host:port` as the `Host` header and the socket want it.
    authority: String,
    token: Option<String>,
    /// The connection kept alive between calls, when idle.
    kept: std::sync::Arc<std::sync::Mutex<Option<Sender>>>,
}

type Sender = hyper::client::conn::http1::SendRequest<Body>;

impl PartialEq for HubClient {
    fn eq(&self, other: &HubClient) -> bool {
        self.authority == other.authority && self.token == other.token
    }
}

impl Eq for HubClient {}

/// The change events of [`HubClient::events`].
pub type Events = Pin<Box<dyn Stream<Item = Result<HubEvent, ClientError>> + Send>>;

impl HubClient {
    /// A client of the hub at `url` (`http://host:port`, a path ignored).
    pub fn new(url: &str, token: Option<String>) -> Result<HubClient, ClientError> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| ClientError::NoHub(format!("{url:?} is not an http:// URL")))?;
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.is_empty() {
            return Err(ClientError::NoHub(format!("{url:?} names no host")));
        }
        Ok(HubClient {
            authority: authority.to_string(),
            token,
            kept: Default::default(),
        })
    }

    /// The hub at `host`/`port` when either is given (the other defaults
    /// to `127.0.0.1` and 8302), else the one `root/debug/.hub` names. The
    /// token is `token` if given, else the one `.hub` holds for the same
    /// address.
    pub fn find(
        root: &Path,
        host: Option<&str>,
        port: Option<u16>,
        token: Option<String>,
    ) -> Result<HubClient, ClientError> {
        let file = read_hub_file(root);
        if host.is_some() || port.is_some() {
            let host = host.unwrap_or("127.0.0.1");
            let host = if host.contains(':') && !host.starts_with('[') {
                format!("[{host}]")
            } else {
                host.to_string()
            };
            let url = format!("http://{host}:{}", port.unwrap_or(8302));
            let token = token.or_else(|| {
                file.ok()
                    .filter(|f| f.url == url || format!("http://{host}:{}", f.port) == url)
                    .and_then(|f| f.token)
            });
            return HubClient::new(&url, token);
        }
        let file = file?;
        HubClient::new(&file.url, token.or(file.token))
    }

    /// `http://host:port`.
    pub fn url(&self) -> String {
        format!("http://{}", self.authority)
    }

    /// `GET /api/realms`.
    pub async fn realms(&self) -> Result<Vec<RealmInfo>, ClientError> {
        self.json(Method::GET, "/_daebug/api/realms", None).await
    }

    /// `GET /api/realms/{realm}`: one realm, by stem or unique prefix.
    pub async fn realm(&self, realm: &str) -> Result<RealmInfo, ClientError> {
        let path = format!("/_daebug/api/realms/{}", encode(realm));
        self.json(Method::GET, &path, None).await
    }

    /// `POST /api/realms/{realm}/eval`: waits for the block's reply.
    pub async fn eval(&self, realm: &str, req: &EvalRequest) -> Result<EvalReply, ClientError> {
        let path = format!("/_daebug/api/realms/{}/eval", encode(realm));
        let body = serde_json::to_vec(req).map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.json(Method::POST, &path, Some(body)).await
    }

    /// `GET /api/realms/{realm}/log?tail=N`: the log's text.
    pub async fn log(&self, realm: &str, tail: Option<usize>) -> Result<String, ClientError> {
        let mut path = format!("/_daebug/api/realms/{}/log", encode(realm));
        if let Some(n) = tail {
            path.push_str(&format!("?tail={n}"));
        }
        let res = self.send(Method::GET, &path, None).await?;
        let bytes = read_body(res).await?;
        String::from_utf8(bytes.to_vec()).map_err(|e| ClientError::Protocol(e.to_string()))
    }

    /// `GET /api/realms/{realm}/log?format=json&…`: a read of the log as
    /// `read_log` gives it.
    pub async fn read_log(
        &self,
        realm: &str,
        query: &super::reading::LogQuery,
    ) -> Result<super::json::LogReply, ClientError> {
        let mut path = format!("/_daebug/api/realms/{}/log?format=json", encode(realm));
        if let Some(n) = query.tail {
            path.push_str(&format!("&tail={n}"));
        }
        if let Some(c) = &query.since {
            path.push_str(&format!("&since={}", encode(c)));
        }
        if let Some(b) = query.budget {
            path.push_str(&format!("&budget={b}"));
        }
        self.json(Method::GET, &path, None).await
    }

    /// `GET /api/events`: the hub's change events from now on (the stream
    /// is subscribed when this returns); it ends when the hub stops.
    pub async fn events(&self) -> Result<Events, ClientError> {
        let res = self
            .send_on(Method::GET, "/_daebug/api/events", None, false)
            .await?;
        let data = Body::new(res.into_body()).into_data_stream();
        let stream = futures_util::stream::unfold(
            (
                data,
                SseParser::default(),
                std::collections::VecDeque::new(),
            ),
            |(mut data, mut parser, mut ready)| async move {
                loop {
                    if let Some(event) = ready.pop_front() {
                        return Some((event, (data, parser, ready)));
                    }
                    match data.next().await {
                        Some(Ok(bytes)) => {
                            for payload in parser.push(&bytes) {
                                ready.push_back(
                                    serde_json::from_str::<HubEvent>(&payload).map_err(|e| {
                                        ClientError::Protocol(format!("event {payload:?}: {e}"))
                                    }),
                                );
                            }
                        }
                        Some(Err(e)) => {
                            let e = ClientError::NoHub(format!("the event stream broke: {e}"));
                            return Some((Err(e), (data, parser, ready)));
                        }
                        None => return None,
                    }
                }
            },
        );
        Ok(Box::pin(stream))
    }

    /// A request whose answer is JSON (or an API error).
    async fn json<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<T, ClientError> {
        let res = self.send(method, path, body).await?;
        let bytes = read_body(res).await?;
        serde_json::from_slice(&bytes)
            .map_err(|e| ClientError::Protocol(format!("{e}: {}", String::from_utf8_lossy(&bytes))))
    }

    /// Sends one request on the kept connection; an answer that is not a
    /// success becomes [`ClientError::Api`].
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<axum::http::Response<hyper::body::Incoming>, ClientError> {
        self.send_on(method, path, body, true).await
    }

    /// Whether `e` says the request never reached the hub (nothing was
    /// sent: safe to send again to a hub found anew).
    pub fn unsent(e: &ClientError) -> bool {
        matches!(e, ClientError::NoHub(why) if why.starts_with("cannot reach the hub"))
    }

    /// A new connection to the hub.
    async fn connect(&self) -> Result<Sender, ClientError> {
        let no_hub = |e: &dyn std::fmt::Display| {
            ClientError::NoHub(format!("cannot reach the hub at {}: {e}", self.url()))
        };
        let stream = tokio::net::TcpStream::connect(&self.authority)
            .await
            .map_err(|e| no_hub(&e))?;
        let _ = stream.set_nodelay(true);
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| no_hub(&e))?;
        // The connection runs beside its requests; it ends when its
        // sender is dropped (or the hub closes it).
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(send)
    }

    /// [`HubClient::send`]; `keep`: on the kept connection (an idle one,
    /// or a new one kept after), else on one of its own (a stream).
    async fn send_on(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        keep: bool,
    ) -> Result<axum::http::Response<hyper::body::Incoming>, ClientError> {
        let idle = match keep {
            true => self.kept.lock().ok().and_then(|mut k| k.take()),
            false => None,
        };
        // One kept while another call had it may have been closed by the
        // hub since: then a new one.
        let ready = match idle {
            Some(mut s) => s.ready().await.is_ok().then_some(s),
            None => None,
        };
        let mut send = match ready {
            Some(s) => s,
            None => self.connect().await?,
        };
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, &self.authority)
            .header(ACCEPT, "application/json, text/markdown, text/event-stream");
        if let Some(token) = &self.token {
            req = req.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        let req = match body {
            Some(bytes) => req
                .header(CONTENT_TYPE, "application/json")
                .body(Body::from(bytes)),
            None => req.body(Body::empty()),
        }
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
        // Sent: a failure now may come after the hub took the request.
        let res = send.send_request(req).await.map_err(|e| {
            ClientError::NoHub(format!("the hub at {} did not answer: {e}", self.url()))
        })?;
        if keep {
            // Ready for the next call once this answer's body is read.
            if let Ok(mut k) = self.kept.lock() {
                *k = Some(send);
            }
        }
        if res.status().is_success() {
            return Ok(res);
        }
        let status = res.status();
        let bytes = read_body(res).await.unwrap_or_default();
        Err(api_error(status, &bytes))
    }
}

/// The error an unsuccessful answer carries: the API's JSON, or the text
/// of a refusal before the API (Host, token).
pub fn api_error(status: StatusCode, body: &[u8]) -> ClientError {
    #[derive(serde::Deserialize)]
    struct Body {
        error: String,
        message: String,
    }
    match serde_json::from_slice::<Body>(body) {
        Ok(b) => ClientError::Api {
            status: status.as_u16(),
            kind: b.error,
            message: b.message,
            // The API writes a door's refusal as the error's own JSON
            // (`{"error":"no_such_realm","realm":…}`), with its message.
            door: serde_json::from_slice(body).ok(),
        },
        Err(_) => ClientError::Api {
            status: status.as_u16(),
            kind: status
                .canonical_reason()
                .unwrap_or("error")
                .to_ascii_lowercase(),
            message: format!(
                "the hub answered {status}: {}",
                String::from_utf8_lossy(body).trim()
            ),
            door: None,
        },
    }
}

async fn read_body(
    res: axum::http::Response<hyper::body::Incoming>,
) -> Result<axum::body::Bytes, ClientError> {
    axum::body::to_bytes(Body::new(res.into_body()), MAX_ANSWER)
        .await
        .map_err(|e| ClientError::NoHub(format!("the answer broke off: {e}")))
}

/// A realm's name as one path segment.
fn encode(realm: &str) -> String {
    utf8_percent_encode(realm, NON_ALPHANUMERIC).to_string()
}

/// `root/debug/.hub`, read.
pub fn read_hub_file(root: &Path) -> Result<HubFile, ClientError> {
    let path = root.join(HUB_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        ClientError::NoHub(format!(
            "cannot read {} ({e}); start one with `daebug --root {}`, or give its --port",
            path.display(),
            root.display()
        ))
    })?;
    serde_json::from_str(&text)
        .map_err(|e| ClientError::NoHub(format!("{} is not a hub's: {e}", path.display())))
}

/// Server-sent events from a stream's bytes, as they come: each event's
/// `data` (its lines joined with `\n`); comments and other fields are
/// skipped.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of a line not yet ended.
    partial: Vec<u8>,
    /// The data lines of the event so far.
    data: Vec<String>,
}

impl SseParser {
    /// Takes the next bytes; returns the data of each event they end.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut done = Vec::new();
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line[..end]);
            let line = line.strip_suffix('\r').unwrap_or(&line);
            if line.is_empty() {
                if !self.data.is_empty() {
                    done.push(std::mem::take(&mut self.data).join("\n"));
                }
            } else if let Some(value) = line.strip_prefix("data") {
                if value.is_empty() || value.starts_with(':') {
                    let value = value.strip_prefix(':').unwrap_or(value);
                    self.data
                        .push(value.strip_prefix(' ').unwrap_or(value).to_string());
                }
            }
        }
        done
    }
}

/// What `daebug tail` prints of a log as it changes: the lines past those
/// already shown. A log is rewritten in place, not only appended to: the
/// region of a running block (its reply's header and `executing (…)`)
/// and the footer come and go, so they are held back until they settle
/// (the reply replaces them).
#[derive(Debug, Clone, Default)]
pub struct LogFollower {
    shown: Vec<String>,
}

impl LogFollower {
    /// Following `text`, taken as shown already.
    pub fn new(text: &str) -> LogFollower {
        LogFollower {
            shown: settled(text).into_iter().map(str::to_string).collect(),
        }
    }

    /// The lines of `text` to print now: the settled ones past the part
    /// it shares with what was shown.
    pub fn update(&mut self, text: &str) -> Vec<String> {
        let now = settled(text);
        let common = self
            .shown
            .iter()
            .zip(&now)
            .take_while(|(a, b)| a.as_str() == **b)
            .count();
        let new: Vec<String> = now[common..].iter().map(|l| l.to_string()).collect();
        self.shown = now.into_iter().map(str::to_string).collect();
        new
    }
}

/// The lines of a log that will not change: all but the footer and a
/// running block's reply region.
fn settled(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines.iter().position(|l| l.starts_with("executing (")) {
        let header = i > 0 && lines[i - 1].starts_with("> **");
        lines.truncate(if header { i - 1 } else { i });
    }
    if lines
        .last()
        .is_some_and(|l| l.starts_with("> ") && l.ends_with("execute against this page."))
    {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_followed_log_prints_what_settled() {
        let footer = "> Write code in a fenced JS block below to execute against this page.";
        let idle = format!("# 👾 s\n\n{footer}\n");
        let mut f = LogFollower::new(&idle);
        let running = "# 👾 s\n\n> **cli** to s at 10:00:00\n```js\n1+1\n```\n\n> **s** to cli at 10:00:00\nexecuting (0s)\n";
        assert_eq!(
            f.update(running),
            ["> **cli** to s at 10:00:00", "```js", "1+1", "```", ""]
        );
        assert!(f.update(&running.replace("(0s)", "(5s)")).is_empty());
        let done = format!(
            "# 👾 s\n\n> **cli** to s at 10:00:00\n```js\n1+1\n```\n\n> **s** to cli at 10:00:00 (1ms)\n```JSON\n2\n```\n\n{footer}\n"
        );
        assert_eq!(
            f.update(&done),
            [
                "> **s** to cli at 10:00:00 (1ms)",
                "```JSON",
                "2",
                "```",
                ""
            ]
        );
        assert!(f.update(&done).is_empty());
        // Rewritten above what was shown: from where it differs.
        assert_eq!(f.update("# 👾 s\nnew\n"), ["new"]);
    }

    fn reply(ok: bool, state: &str) -> EvalReply {
        EvalReply {
            ok,
            state: state.into(),
            text: String::new(),
            value: None,
            error: None,
            events: Vec::new(),
            duration_ms: 0,
            log: "debug/x.md".into(),
            images: Vec::new(),
            log_error: None,
        }
    }

    #[test]
    fn exit_statuses() {
        assert_eq!(exit_status(&reply(true, "completed")), 0);
        assert_eq!(exit_status(&reply(false, "failed")), 1);
        assert_eq!(exit_status(&reply(false, "timeout")), 2);
        assert_eq!(ClientError::NoHub("x".into()).exit_status(), 3);
        let api = |status: u16| ClientError::Api {
            status,
            kind: "k".into(),
            message: "m".into(),
            door: None,
        };
        assert_eq!(api(404).exit_status(), 3);
        assert_eq!(api(409).exit_status(), 3);
        assert_eq!(api(400).exit_status(), 4);
        assert_eq!(api(503).exit_status(), 4);
        assert_eq!(ClientError::Protocol("x".into()).exit_status(), 4);
        // A refusal through the door: the same statuses as the client's.
        for e in [
            ClientError::NoHub("x".into()),
            api(400),
            ClientError::Protocol("x".into()),
        ] {
            let status = e.exit_status();
            assert_eq!(
                refusal_exit_status(&crate::doors::attached::door_error(e)),
                status
            );
        }
        let realm = || "x".to_string();
        assert_eq!(
            refusal_exit_status(&DoorError::NoSuchRealm { realm: realm() }),
            3
        );
        let ambiguous = DoorError::Ambiguous {
            realm: realm(),
            stems: vec![],
        };
        assert_eq!(refusal_exit_status(&ambiguous), 3);
        assert_eq!(refusal_exit_status(&DoorError::Stopping), 4);
    }

    #[test]
    fn server_sent_events_in_pieces() {
        let mut p = SseParser::default();
        assert!(p.push(b": daebug events\n\n").is_empty());
        assert!(p.push(b"data: {\"type\":").is_empty());
        assert_eq!(p.push(b"\"realms\"}\n\nda"), [r#"{"type":"realms"}"#]);
        assert_eq!(
            p.push(b"ta:a\r\ndata: b\r\nevent: x\r\n\r\n"),
            ["a\nb".to_string()]
        );
        assert_eq!(
            p.push(b"data: 1\n\ndata: 2\n\n:\n\n"),
            ["1".to_string(), "2".to_string()]
        );
        assert!(p.push(b"database: no\n\n").is_empty());
    }

    #[test]
    fn the_hub_from_flags_or_its_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = HubClient::find(dir.path(), None, None, None).unwrap_err();
        assert!(matches!(err, ClientError::NoHub(_)), "{err}");
        assert!(err.to_string().contains("debug/.hub"), "{err}");

        std::fs::create_dir_all(dir.path().join("debug")).unwrap();
        let file = HubFile {
            url: "http://127.0.0.1:9999".into(),
            host: "127.0.0.1".into(),
            port: 9999,
            pid: 1,
            token: Some("T".into()),
        };
        std::fs::write(
            dir.path().join(HUB_FILE),
            serde_json::to_string(&file).unwrap(),
        )
        .unwrap();
        let c = HubClient::find(dir.path(), None, None, None).unwrap();
        assert_eq!(c.url(), "http://127.0.0.1:9999");
        assert_eq!(c.token.as_deref(), Some("T"));
        // The same port: its token; another: none; a flag wins.
        let c = HubClient::find(dir.path(), None, Some(9999), None).unwrap();
        assert_eq!(c.token.as_deref(), Some("T"));
        let c = HubClient::find(dir.path(), None, Some(8302), None).unwrap();
        assert_eq!((c.url().as_str(), c.token), ("http://127.0.0.1:8302", None));
        let c = HubClient::find(dir.path(), Some("::1"), None, Some("U".into())).unwrap();
        assert_eq!(c.url(), "http://[::1]:8302");
        assert_eq!(c.token.as_deref(), Some("U"));
    }

    #[test]
    fn api_errors_from_answers() {
        let e = api_error(
            StatusCode::NOT_FOUND,
            br#"{"error":"no_such_realm","realm":"x","message":"no realm"}"#,
        );
        assert!(
            matches!(&e, ClientError::Api { status: 404, kind, message, door: Some(DoorError::NoSuchRealm { realm }) } if kind == "no_such_realm" && message == "no realm" && realm == "x"),
            "{e:?}"
        );
        let e = api_error(
            StatusCode::CONFLICT,
            br#"{"error":"ambiguous","realm":"s","stems":["s-1","s-2"],"message":"m"}"#,
        );
        assert!(
            matches!(&e, ClientError::Api { door: Some(DoorError::Ambiguous { stems, .. }), .. } if stems == &["s-1", "s-2"]),
            "{e:?}"
        );
        let e = api_error(
            StatusCode::SERVICE_UNAVAILABLE,
            br#"{"error":"stopping","message":"the hub is stopping"}"#,
        );
        assert!(
            matches!(
                &e,
                ClientError::Api {
                    door: Some(DoorError::Stopping),
                    ..
                }
            ),
            "{e:?}"
        );
        // Not a door's refusal: an API error of its own.
        let e = api_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            br#"{"error":"not_json","message":"m"}"#,
        );
        assert!(matches!(&e, ClientError::Api { door: None, .. }), "{e:?}");
        let e = api_error(
            StatusCode::UNAUTHORIZED,
            b"daebug: this hub needs its token\n",
        );
        assert_eq!(e.exit_status(), 4);
        assert!(e.to_string().contains("needs its token"), "{e}");
    }
}
