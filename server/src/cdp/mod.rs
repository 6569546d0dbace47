//! The optional browser bridge (`daebug --cdp http://127.0.0.1:9222`,
//! docs/browser-bridge.md): attached to a Chromium over the DevTools
//! protocol, it hears what only the browser knows about the hub's realms
//! and reports each as a line for the realm's log (`Text browser`).
//!
//! - `connection.rs`: the thin CDP client (commands by id, events in
//!   order).
//! - `lines.rs` (pure): which events make a line, and the line.
//! - `targets.rs` (pure): attached targets and which realm each place is.
//! - `shot.rs`: `daebug.screenshot()`: the clip, and a view made large
//!   enough for a moment when the clip is beyond it, then put back.
//! - `inspect.rs`: `getEventListeners` and `queryObjects`, answered in
//!   the page itself, and the debugger's commands of a page or a worker
//!   (logpoints, `monitor`, `daebug.scopes`).
//! - `reach.rs` (pure) and `inject.rs`: attach with no tag: the adapter
//!   put into the pages and workers the bridge reaches (`--match`).
//! - this file: the task: find the browser's WebSocket, attach to every
//!   page, frame and worker (auto-attach, flattened sessions), learn each
//!   place's stem from the adapter's marker, hand lines on; reconnect
//!   while the browser is away; stop with the hub.
//!
//! What any realm's adapter already reported is left out where the lines
//! reach the log (`hub/browser_seen.rs`, against the one record of what
//! the adapters said that this handle carries to every log task).

pub mod connection;
pub mod inject;
pub mod inspect;
pub mod lines;
pub mod reach;
pub mod shot;
pub mod targets;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::hub::browser_seen::Said;
use connection::{CdpCommands, CdpEvent};
use daebug_protocol::Inspect;
use inject::Injection;
use lines::{BrowserLine, Place};
use targets::{wanted, Targets, MARKER};

/// How long to wait before trying a browser that is not there again.
const RETRY: Duration = Duration::from_secs(2);

/// Where the lines go: the realm's stem and the line.
pub type Report = Box<dyn Fn(String, BrowserLine) + Send + Sync>;

/// How long a screenshot (or an inspection) may take.
const ASK_TIME: Duration = Duration::from_secs(10);

/// What a log task asks of the bridge, about its realm's page.
struct Request {
    stem: String,
    asked: Asked,
}

enum Asked {
    /// `daebug.screenshot(selector?)`: the PNG.
    Shot {
        selector: Option<String>,
        reply: oneshot::Sender<Result<Vec<u8>, String>>,
    },
    /// `getEventListeners` / `queryObjects`: the answer is left in the
    /// page (see [`inspect`]).
    Inspect {
        ask: u32,
        what: Inspect,
        reply: oneshot::Sender<Result<(), String>>,
    },
}

impl Asked {
    /// Answers with `why` there is no answer.
    fn refuse(self, why: String) {
        match self {
            Asked::Shot { reply, .. } => {
                let _ = reply.send(Err(why));
            }
            Asked::Inspect { reply, .. } => {
                let _ = reply.send(Err(why));
            }
        }
    }
}

/// What the hub's log tasks hold to ask the bridge for a screenshot, or
/// what only DevTools knows, and the one record of what the adapters of
/// all realms said (for the bridge's lines to leave out, whichever log
/// they reach: `hub/browser_seen.rs`).
#[derive(Clone, Debug)]
pub struct CdpHandle {
    requests: mpsc::UnboundedSender<Request>,
    said: Said,
}

impl CdpHandle {
    /// What the adapters said lately, in every realm.
    pub fn said(&self) -> Said {
        self.said.clone()
    }

    /// A PNG of the realm's page (the element `selector` matches, or the
    /// whole page), or why not, in words for the block.
    pub async fn screenshot(
        &self,
        stem: &str,
        selector: Option<String>,
    ) -> Result<Vec<u8>, String> {
        let (reply, answer) = oneshot::channel();
        let asked = Asked::Shot { selector, reply };
        self.ask(stem, asked, answer).await
    }

    /// `getEventListeners(x)` / `queryObjects(C)` for the realm `stem`,
    /// whose argument waits in its page under `ask`: the answer is left
    /// there, or why not.
    pub async fn inspect(&self, stem: &str, ask: u32, what: Inspect) -> Result<(), String> {
        let (reply, answer) = oneshot::channel();
        let asked = Asked::Inspect { ask, what, reply };
        self.ask(stem, asked, answer).await
    }

    async fn ask<T>(
        &self,
        stem: &str,
        asked: Asked,
        answer: oneshot::Receiver<Result<T, String>>,
    ) -> Result<T, String> {
        let request = Request {
            stem: stem.to_string(),
            asked,
        };
        if self.requests.send(request).is_err() {
            return Err("the browser bridge stopped".into());
        }
        match tokio::time::timeout(ASK_TIME, answer).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err("the browser bridge lost the connection to the browser".into()),
            Err(_) => Err(format!(
                "the browser took more than {}s to answer",
                ASK_TIME.as_secs()
            )),
        }
    }
}

/// Starts the bridge; it runs until `shutdown`.
pub fn spawn(
    endpoint: String,
    injection: Injection,
    report: Report,
    shutdown: CancellationToken,
    tracker: &tokio_util::task::TaskTracker,
) -> CdpHandle {
    let (requests, rx) = mpsc::unbounded_channel();
    tracker.spawn(run(endpoint, Arc::new(injection), report, rx, shutdown));
    CdpHandle {
        requests,
        said: Said::default(),
    }
}

/// Runs the bridge until `shutdown`.
async fn run(
    endpoint: String,
    injection: Arc<Injection>,
    report: Report,
    mut requests: mpsc::UnboundedReceiver<Request>,
    shutdown: CancellationToken,
) {
    let mut warned = false;
    let away = |r: Request| {
        r.asked.refuse(format!(
            "the browser bridge is not connected to {endpoint} (is that browser running?)"
        ));
    };
    loop {
        let attempt = async {
            let ws = websocket_url(&endpoint).await?;
            let (commands, events) = connection::connect(&ws).await.map_err(|e| e.to_string())?;
            tracing::info!("browser bridge attached to {ws}");
            Ok::<_, String>((commands, events))
        };
        tokio::pin!(attempt);
        let connected = loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                r = &mut attempt => break r,
                Some(r) = requests.recv() => away(r),
            }
        };
        match connected {
            Ok((commands, events)) => {
                warned = false;
                Bridge::new(commands, &report, injection.clone())
                    .serve(events, &mut requests, &shutdown)
                    .await;
                if shutdown.is_cancelled() {
                    return;
                }
                tracing::warn!("browser bridge: the browser at {endpoint} went away; trying again");
            }
            Err(e) if !warned => {
                warned = true;
                tracing::warn!("browser bridge: cannot reach the browser at {endpoint} ({e}); trying again every {}s", RETRY.as_secs());
            }
            Err(_) => {}
        }
        let pause = tokio::time::sleep(RETRY);
        tokio::pin!(pause);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = &mut pause => break,
                Some(r) = requests.recv() => away(r),
            }
        }
    }
}

/// `ws://…` as given, or the browser's from `http://host:port/json/version`.
async fn websocket_url(endpoint: &str) -> Result<String, String> {
    if endpoint.starts_with("ws://") {
        return Ok(endpoint.to_string());
    }
    let url = format!("{}/json/version", endpoint.trim_end_matches('/'));
    let text = tokio::time::timeout(
        Duration::from_secs(5),
        crate::sourcemap::fetch::get_text(&url, 64 * 1024),
    )
    .await
    .map_err(|_| format!("{url}: no answer within 5 s"))?
    .map_err(|e| format!("{url}: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{url}: {e}"))?;
    v.get("webSocketDebuggerUrl")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("{url} names no webSocketDebuggerUrl"))
}

/// One connection's state.
struct Bridge<'a> {
    commands: CdpCommands,
    report: &'a Report,
    /// The adapter put into the pages and workers the bridge reaches
    /// (`inject.rs`).
    injection: Arc<Injection>,
    /// Each page's target id and URL (as last navigated), by session.
    pages_at: HashMap<String, (String, String)>,
    /// Workers stopped before their first script for the loader, by
    /// session: the breakpoint's id.
    held: Arc<Mutex<HashMap<String, String>>>,
    targets: Targets,
    /// Lines waiting for their place's stem, by session and place.
    waiting: Vec<(String, Place, BrowserLine)>,
    /// Marker lookups under way: (session, place, stem or `""`).
    lookups: JoinSet<(String, Place, String)>,
    /// Held while a screenshot is taken.
    shots: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl<'a> Bridge<'a> {
    fn new(commands: CdpCommands, report: &'a Report, injection: Arc<Injection>) -> Self {
        Bridge {
            commands,
            report,
            injection,
            pages_at: HashMap::new(),
            held: Arc::default(),
            targets: Targets::default(),
            waiting: Vec::new(),
            lookups: JoinSet::new(),
            shots: Default::default(),
        }
    }

    async fn serve(
        mut self,
        mut events: mpsc::UnboundedReceiver<CdpEvent>,
        requests: &mut mpsc::UnboundedReceiver<Request>,
        shutdown: &CancellationToken,
    ) {
        // Pages open now and later, flattened: every target's session
        // speaks on this one connection.
        let commands = self.commands.clone();
        tokio::spawn(async move {
            let _ = commands
                .call("Target.setAutoAttach", auto_attach(), None)
                .await;
        });
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                event = events.recv() => match event {
                    Some(e) => self.on_event(e),
                    None => return,
                },
                Some(Ok((session, place, stem))) = self.lookups.join_next(), if !self.lookups.is_empty() => {
                    self.on_lookup(session, place, stem);
                }
                Some(r) = requests.recv() => self.answer(r),
            }
        }
    }

    fn on_event(&mut self, e: CdpEvent) {
        match e.method.as_str() {
            "Target.attachedToTarget" => self.on_attached(e.session, &e.params),
            "Target.detachedFromTarget" => {
                if let Some(s) = e.params.get("sessionId").and_then(Value::as_str) {
                    self.targets.detached(s);
                    self.pages_at.remove(s);
                    self.held.lock().expect("held").remove(s);
                    self.waiting.retain(|(w, _, _)| w != s);
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let (Some(s), Some(id)) = (
                    e.session.as_deref(),
                    e.params.get("executionContextId").and_then(Value::as_i64),
                ) {
                    self.targets.context_gone(s, Some(id));
                }
            }
            // A realm's debugger never pauses it (docs/log-format.md,
            // "Logpoints"): a pause that comes anyway (a `debugger;`
            // statement met while a logpoint is set) goes on at once.
            "Debugger.paused" => {
                if let Some(s) = e.session {
                    self.on_paused(s, e.params);
                }
            }
            // A tab going elsewhere: its CSP bypassed only where the
            // bridge reaches (`inject.rs`).
            "Page.frameStartedNavigating" | "Page.frameNavigated" => {
                self.on_navigation(e.session, &e.params);
            }
            "Runtime.executionContextsCleared" => {
                if let Some(s) = e.session.as_deref() {
                    self.targets.context_gone(s, None);
                }
            }
            method => self.on_line(method, e.session, &e.params),
        }
    }

    /// A target the bridge attached to (auto-attach): a page gets the
    /// adapter for its new documents, a worker held before its first
    /// script gets it first; each is let run whatever a step did.
    fn on_attached(&mut self, parent: Option<String>, params: &Value) {
        let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
            return;
        };
        let kind = params
            .pointer("/targetInfo/type")
            .and_then(Value::as_str)
            .unwrap_or("");
        let commands = self.commands.clone();
        let session = session.to_string();
        if !wanted(kind) {
            tokio::spawn(async move {
                let _ = commands
                    .call(
                        "Target.detachFromTarget",
                        json!({ "sessionId": session }),
                        None,
                    )
                    .await;
            });
            return;
        }
        self.targets.attached(&session, kind, epoch_ms());
        let url = params
            .pointer("/targetInfo/url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let waiting = params
            .get("waitingForDebugger")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let injection = self.injection.clone();
        // The adapter, with no tag (docs/zero-edits.md, "Attach to a
        // browser"): a page gets the script for its new documents (it
        // checks each document's URL itself); a worker is reached by its
        // own URL or its page's.
        let page = kind != "worker" && !inject::is_browsers_own(&url);
        if kind == "page" {
            let id = params
                .pointer("/targetInfo/targetId")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            self.pages_at.insert(session.clone(), (id, url.clone()));
        }
        let parent = parent
            .as_ref()
            .and_then(|p| self.pages_at.get(p))
            .map(|(_, u)| u.as_str());
        let worker = kind == "worker"
            && (injection.reach.reaches(&url)
                || parent.is_some_and(|p| injection.reach.reaches(p)));
        let held = self.held.clone();
        tokio::spawn(async move {
            let s = Some(session.as_str());
            if page {
                inject::page(&commands, &injection, &session, &url).await;
            }
            let _ = commands.call("Runtime.enable", json!({}), s).await;
            let _ = commands.call("Log.enable", json!({}), s).await;
            // Its workers and out-of-process frames.
            let _ = commands
                .call("Target.setAutoAttach", auto_attach(), s)
                .await;
            if worker {
                if let Some(bp) = inject::worker(&commands, &injection, &session, waiting).await {
                    held.lock().expect("held").insert(session.clone(), bp);
                }
            }
            let _ = commands
                .call("Runtime.runIfWaitingForDebugger", json!({}), s)
                .await;
        });
    }

    /// A realm's debugger never pauses it (docs/log-format.md,
    /// "Logpoints"): a pause that comes anyway (a `debugger;` statement
    /// met while a logpoint is set) goes on at once, and a worker held
    /// before its first script gets the loader first (`inject.rs`).
    fn on_paused(&mut self, s: String, params: Value) {
        let commands = self.commands.clone();
        let held = match params.get("reason").and_then(Value::as_str) {
            Some("instrumentation") => self.held.lock().expect("held").remove(&s),
            _ => None,
        };
        let injection = self.injection.clone();
        tokio::spawn(async move {
            match held {
                Some(bp) => inject::paused(&commands, &injection, &s, &bp, &params).await,
                None => {
                    let _ = commands.call("Debugger.resume", json!({}), Some(&s)).await;
                }
            }
        });
    }

    /// Any other event: a line for the log of the realm it is about, when
    /// it is one and not a replay of what was said before the attach.
    fn on_line(&mut self, method: &str, session: Option<String>, params: &Value) {
        let Some(session) = session else { return };
        if !self.targets.is_attached(&session) {
            return;
        }
        let Some((place, line)) = lines::line_of(method, params) else {
            return;
        };
        if lines::timestamp(method, params).is_some_and(|at| self.targets.is_replay(&session, at)) {
            return;
        }
        match self.targets.stem(&session, &place) {
            Some(stem) => (self.report)(stem.to_string(), line),
            None => self.wait_for_stem(session, place, line),
        }
    }

    /// A page's main frame going to (or arriving at) a URL: kept for its
    /// workers, and its CSP bypass turned on or off for it.
    fn on_navigation(&mut self, session: Option<String>, params: &Value) {
        let Some(session) = session else { return };
        let Some((id, at)) = self.pages_at.get_mut(&session) else {
            return;
        };
        let (frame, url, parent) = match params.get("frame") {
            Some(f) => (f.get("id"), f.get("url"), f.get("parentId")),
            None => (params.get("frameId"), params.get("url"), None),
        };
        let (Some(frame), Some(url)) = (frame.and_then(Value::as_str), url.and_then(Value::as_str))
        else {
            return;
        };
        if frame != id.as_str() || parent.is_some() || at == url {
            return;
        }
        let was = self.injection.reach.reaches(at);
        let now = self.injection.reach.reaches(url);
        *at = url.to_string();
        if was != now {
            let commands = self.commands.clone();
            tokio::spawn(async move { inject::bypass_csp(&commands, &session, now).await });
        }
    }

    /// Holds the line and asks its place for the marker, once at a time.
    fn wait_for_stem(&mut self, session: String, place: Place, line: BrowserLine) {
        let asked = self
            .waiting
            .iter()
            .any(|(s, p, _)| *s == session && *p == place);
        self.waiting.push((session.clone(), place.clone(), line));
        if asked {
            return;
        }
        let commands = self.commands.clone();
        self.lookups.spawn(async move {
            let mut params = json!({ "expression": MARKER, "returnByValue": true, "silent": true });
            if let Place::Context(id) = place {
                params["contextId"] = json!(id);
            }
            let stem = commands
                .call("Runtime.evaluate", params, Some(&session))
                .await
                .ok()
                .and_then(|v| {
                    v.pointer("/result/value")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .unwrap_or_default();
            (session, place, stem)
        });
    }

    /// Answers a request as its own task: finds the realm's page (by the
    /// marker, when no event of it came yet), then takes the screenshot
    /// or makes the inspection there.
    fn answer(&mut self, r: Request) {
        let commands = self.commands.clone();
        let known = self.targets.session_of(&r.stem).map(str::to_string);
        // The debugger's commands go to a worker's own target too.
        let debugger = matches!(
            r.asked,
            Asked::Inspect {
                what: Inspect::Debugger,
                ..
            }
        );
        let pages = match debugger {
            true => self.targets.all(),
            false => self.targets.pages(),
        };
        let shots = self.shots.clone();
        tokio::spawn(async move {
            let session = match known {
                Some(s) => Some(s),
                None => find_page(&commands, pages, &r.stem).await,
            };
            let Some(s) = session else {
                let why = match debugger {
                    true => "the browser bridge sees neither a page nor a worker of this realm in its browser (an iframe, or a realm of another browser? Firefox and WebKit have no bridge: daebug.probe([object, \"method\"]) wraps a function in place instead)",
                    false => "the browser bridge sees no page of this realm in its browser (a worker, an iframe, or a page of another browser?)",
                };
                return r.asked.refuse(why.into());
            };
            match r.asked {
                Asked::Shot { selector, reply } => {
                    // One at a time: a shot beyond the view changes the
                    // view until it is put back.
                    let _one = shots.lock().await;
                    let _ = reply.send(shot::take(&commands, &s, selector.as_deref()).await);
                }
                Asked::Inspect { ask, what, reply } => {
                    let _ = reply.send(inspect::answer(&commands, &s, ask, what).await);
                }
            }
        });
    }

    fn on_lookup(&mut self, session: String, place: Place, stem: String) {
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(s, p, _)| *s == session && *p == place);
        self.waiting = rest;
        // No marker: not a realm of this hub (or its adapter has not
        // started); its lines go nowhere, and the next one asks again.
        if stem.is_empty() {
            return;
        }
        self.targets.learned(&session, place, stem.clone());
        for (_, _, line) in mine {
            (self.report)(stem.clone(), line);
        }
    }
}

/// The session whose page carries `stem`'s marker.
async fn find_page(commands: &CdpCommands, pages: Vec<String>, stem: &str) -> Option<String> {
    for session in pages {
        let answer = commands
            .call(
                "Runtime.evaluate",
                json!({ "expression": MARKER, "returnByValue": true, "silent": true }),
                Some(&session),
            )
            .await;
        let found = answer.ok().and_then(|v| {
            v.pointer("/result/value")
                .and_then(Value::as_str)
                .map(|s| s == stem)
        });
        if found == Some(true) {
            return Some(session);
        }
    }
    None
}

fn epoch_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Every target, flattened; a new one waits until the bridge has put the
/// adapter in (a worker stops before its first script, `inject.rs`) and
/// lets it run (`Runtime.runIfWaitingForDebugger`, also after a failure:
/// nothing is left waiting).
fn auto_attach() -> Value {
    json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true })
}
