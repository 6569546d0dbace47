//! A real hub on loopback with a temp root, and a scripted fake realm that
//! speaks the protocol over a real WebSocket. Shared by the hub tests and
//! the hub bench. Every wait polls with a deadline; none sleeps.

#![allow(dead_code)] // each test crate uses a different part

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use daebug::app::{Hub, HubError};
use daebug::config::HubConfig;
use daebug_protocol::{
    HubMsg, JobId, JobResult, Outcome, RealmKind, RealmMsg, Value, PROTOCOL_VERSION,
};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any wait may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// A hub serving a temp root.
pub struct TestHub {
    pub root: tempfile::TempDir,
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), HubError>>>,
}

impl TestHub {
    pub async fn start() -> TestHub {
        TestHub::start_with(|_| {}).await
    }

    /// Starts a hub; `tune` adjusts the config (ping cadence, timeout...).
    pub async fn start_with(tune: impl FnOnce(&mut HubConfig)) -> TestHub {
        let root = tempfile::tempdir().expect("temp dir");
        TestHub::start_in(root, tune).await
    }

    /// Starts a hub on an existing root (to test restarts). With
    /// `RUST_LOG` set, the hub's logs go to the test output.
    pub async fn start_in(root: tempfile::TempDir, tune: impl FnOnce(&mut HubConfig)) -> TestHub {
        if std::env::var_os("RUST_LOG").is_some() {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
                .with_test_writer()
                .try_init();
        }
        let mut config = HubConfig::new(root.path(), 0);
        config.restart_command = "daebug --root test".into();
        tune(&mut config);
        let hub = Hub::bind(config).await.expect("bind");
        let addr = hub.addr();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(hub.run(async move {
            let _ = stopped.await;
        }));
        let h = TestHub {
            root,
            addr,
            stop: Some(stop),
            task: Some(task),
        };
        // The registry is written once the hub's tasks run.
        h.wait_file(&h.registry(), |t| t.contains("connected pages"))
            .await;
        h
    }

    /// Stops the hub and waits for it; returns the root for a restart.
    pub async fn stop(mut self) -> tempfile::TempDir {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            tokio::time::timeout(DEADLINE, t)
                .await
                .expect("hub stops within the deadline")
                .expect("hub task")
                .expect("hub run");
        }
        let dir = tempfile::tempdir().expect("temp dir");
        std::mem::replace(&mut self.root, dir)
    }

    pub fn registry(&self) -> PathBuf {
        self.root.path().join("debug.md")
    }

    pub fn log(&self, stem: &str) -> PathBuf {
        self.root.path().join("debug").join(format!("{stem}.md"))
    }

    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// Polls `path` until `pred` holds for its text; panics with the text
    /// when the deadline passes.
    pub async fn wait_file(&self, path: &Path, pred: impl Fn(&str) -> bool) -> String {
        wait_file(path, pred).await
    }

    /// One job through the hub: `1` appended to `log` once it is idle,
    /// sent to `realm`, answered, and its reply on disk with the footer
    /// last. Returns the log's text then.
    pub async fn one_job(&self, realm: &mut FakeRealm, log: &Path) -> String {
        let idle = |t: &str| {
            t.trim_end()
                .ends_with(daebug_core::engine::template::FOOTER)
        };
        self.wait_file(log, idle).await;
        append(log, &js("1"));
        let (job, _) = realm.job().await;
        realm.ok(job, "1", 1).await;
        self.wait_file(log, |t| t.contains("(1ms)") && idle(t))
            .await
    }

    /// Connects a fake page realm.
    pub async fn realm(&self, name: &str, id: &str) -> FakeRealm {
        FakeRealm::connect(self, RealmKind::Page, name, id, Vec::new()).await
    }

    /// A raw HTTP/1.1 GET with the given extra header lines; returns the
    /// status code and the whole response text.
    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
        let host = self.addr.to_string();
        let mut all = vec![("Host", host.as_str())];
        all.extend_from_slice(headers);
        http_get(self.addr, path, &all).await
    }
}

impl Drop for TestHub {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// Polls a file until `pred` holds for its text.
pub async fn wait_file(path: &Path, pred: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + DEADLINE;
    let mut interval = tokio::time::interval(Duration::from_millis(2));
    loop {
        interval.tick().await;
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if pred(&text) {
            return text;
        }
        if Instant::now() > end {
            panic!(
                "deadline passed waiting on {}; it holds:\n{text}",
                path.display()
            );
        }
    }
}

/// Sends a raw HTTP/1.1 GET (header lines given in full, Host included or
/// not) and reads the response until the server closes.
pub async fn http_get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let mut req = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.expect("write");
    let mut buf = Vec::new();
    tokio::time::timeout(DEADLINE, s.read_to_end(&mut buf))
        .await
        .expect("response within the deadline")
        .expect("read");
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

/// Sends `head` (request line and headers, each ending in CRLF) as it is,
/// then `Connection: close`, and returns the whole answer's text.
#[allow(dead_code)] // not every crate that includes `support` sends raw requests
pub async fn raw_request(addr: SocketAddr, head: &str) -> String {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let req = format!("{head}Connection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("write");
    let mut buf = Vec::new();
    // An answer to an upgrade may keep the socket: read what comes.
    let _ = tokio::time::timeout(DEADLINE, s.read_to_end(&mut buf)).await;
    String::from_utf8_lossy(&buf).into_owned()
}

#[allow(unused_imports)] // each test crate uses a different part
pub use daebug_test_files::{append, save_atomically};

/// A scripted realm over a real WebSocket.
pub struct FakeRealm {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub stem: String,
    pub id: String,
    /// Answer pings (false simulates a page stuck in a loop).
    pub answer_pings: bool,
}

impl FakeRealm {
    pub async fn connect(
        hub: &TestHub,
        kind: RealmKind,
        name: &str,
        id: &str,
        jobs: Vec<JobId>,
    ) -> FakeRealm {
        let hello = RealmMsg::Hello {
            version: PROTOCOL_VERSION,
            kind,
            name: name.into(),
            url: format!("http://{}/{name}.html", hub.addr),
            id: id.into(),
            jobs,
            tab: String::new(),
            navigation: None,
            pid: None,
        };
        FakeRealm::connect_with(hub, hello).await
    }

    /// Connects with this hello (a worker's `tab`, a new document's
    /// `navigation`).
    pub async fn connect_with(hub: &TestHub, hello: RealmMsg) -> FakeRealm {
        let (ws, _) = tokio_tungstenite::connect_async(hub.ws_url())
            .await
            .expect("ws connect");
        let mut realm = FakeRealm {
            ws,
            stem: String::new(),
            id: String::new(),
            answer_pings: true,
        };
        realm.send(&hello).await;
        match realm.recv().await {
            HubMsg::Welcome { stem, id, .. } => {
                realm.stem = stem;
                realm.id = id;
            }
            other => panic!("expected welcome, got {other:?}"),
        }
        realm
    }

    pub async fn send(&mut self, msg: &RealmMsg) {
        let text = serde_json::to_string(msg).expect("json");
        self.send_raw(Message::text(text)).await;
    }

    /// Sends a frame; the error when the connection is already gone.
    pub async fn ws_send_raw(&mut self, msg: Message) -> Result<(), String> {
        self.ws.send(msg).await.map_err(|e| e.to_string())
    }

    pub async fn send_raw(&mut self, msg: Message) {
        self.ws.send(msg).await.expect("ws send");
    }

    /// The next hub message other than a ping (pings are answered).
    pub async fn recv(&mut self) -> HubMsg {
        let end = Instant::now() + DEADLINE;
        loop {
            let frame = tokio::time::timeout_at(end, self.ws.next())
                .await
                .expect("a hub message within the deadline")
                .expect("connection open")
                .expect("ws frame");
            let Message::Text(t) = frame else { continue };
            let msg: HubMsg = serde_json::from_str(t.as_str()).expect("hub message parses");
            if let HubMsg::Ping { seq } = msg {
                if self.answer_pings {
                    self.send(&RealmMsg::Pong { seq }).await;
                }
                continue;
            }
            return msg;
        }
    }

    /// Reads frames until `n` pings were answered; any other message is
    /// a test failure.
    pub async fn answer_pings(&mut self, n: u64) {
        let end = Instant::now() + DEADLINE;
        let mut answered = 0;
        while answered < n {
            let frame = tokio::time::timeout_at(end, self.ws.next())
                .await
                .expect("pings within the deadline")
                .expect("connection open")
                .expect("ws frame");
            let Message::Text(t) = frame else { continue };
            match serde_json::from_str::<HubMsg>(t.as_str()).expect("hub message parses") {
                HubMsg::Ping { seq } => {
                    self.send(&RealmMsg::Pong { seq }).await;
                    answered += 1;
                }
                other => panic!("expected only pings, got {other:?}"),
            }
        }
    }

    /// Waits for a job; returns its id and code.
    pub async fn job(&mut self) -> (JobId, String) {
        match self.recv().await {
            HubMsg::Job { job, code, .. } => (job, code),
            other => panic!("expected a job, got {other:?}"),
        }
    }

    /// Answers `job` with a JSON value.
    pub async fn ok(&mut self, job: JobId, json: &str, duration_ms: u64) {
        self.send(&RealmMsg::Result(JobResult {
            job,
            outcome: Outcome::Ok(Value::Json(json.into())),
            events: Vec::new(),
            dropped: 0,
            limited: 0,
            duration_ms,
        }))
        .await;
    }

    /// Reads until the hub closes the connection; its close frame.
    pub async fn closed(&mut self) -> Option<tokio_tungstenite::tungstenite::protocol::CloseFrame> {
        let end = Instant::now() + DEADLINE;
        loop {
            match tokio::time::timeout_at(end, self.ws.next())
                .await
                .expect("a close within the deadline")
            {
                Some(Ok(Message::Close(frame))) => return frame,
                Some(Ok(_)) => continue,
                Some(Err(e)) => panic!("no close frame, the connection failed: {e}"),
                None => panic!("no close frame, the connection ended"),
            }
        }
    }

    /// Closes the connection cleanly.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
        // Drain until the hub acknowledges the close.
        while let Ok(Some(_)) = tokio::time::timeout(DEADLINE, self.ws.next()).await {}
    }
}

/// Connects to `/ws` with extra headers; returns the HTTP status of the
/// upgrade (101 when accepted).
pub async fn ws_status(hub: &TestHub, headers: &[(&'static str, &str)]) -> u16 {
    let mut req = hub.ws_url().into_client_request().expect("request");
    for (k, v) in headers {
        req.headers_mut()
            .insert(*k, v.parse().expect("header value"));
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((_, resp)) => resp.status().as_u16(),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Err(e) => panic!("unexpected ws error: {e}"),
    }
}

/// The block an agent appends: a fenced JS block with its chunk.
pub fn js(code: &str) -> String {
    format!("```js\n{code}\n```\n")
}

/// Lets the hub handle what the watcher saw: a round trip through a log
/// task's inbox is not observable from outside, so this waits until the
/// registry task has answered a new realm (which it does after every
/// message queued before it).
pub async fn wait_for_hub_to_look(hub: &TestHub) {
    let probe = hub.realm("probe", "").await;
    hub.wait_file(&hub.log(&probe.stem), |t| !t.is_empty())
        .await;
    probe.close().await;
}

#[path = "block.rs"]
mod block_of;
#[allow(unused_imports)] // not every crate that includes `support` reads jobs
pub use block_of::block;

/// A small tmpfs of its own for one test: a disk that can be filled.
/// Unmounted on drop. Mounting needs root (the test command runs as root
/// on this machine kind, and so does CI).
pub struct SmallDisk {
    dir: tempfile::TempDir,
    filler: PathBuf,
}

impl SmallDisk {
    pub fn mount(bytes: usize) -> SmallDisk {
        let dir = tempfile::tempdir().expect("mount point");
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "a test of a full disk mounts a small tmpfs, which needs root"
        );
        let filler = dir.path().join("filler");
        SmallDisk { dir, filler }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Takes every free byte, as another program filling the disk would.
    pub fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(&self.filler).expect("filler");
        let chunk = vec![0u8; 4096];
        loop {
            match f.write(&chunk) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(e) => panic!("filling the disk: {e}"),
            }
        }
        // The last few bytes of a partly written block, too.
        while matches!(f.write(&[0]), Ok(1)) {}
    }

    /// Frees what [`SmallDisk::fill`] took.
    pub fn free(&self) {
        std::fs::remove_file(&self.filler).expect("remove the filler");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Whether the log is idle: its last line is the footer.
pub fn footer_last(text: &str) -> bool {
    text.trim_end()
        .ends_with("> Write code in a fenced JS block below to execute against this page.")
}
