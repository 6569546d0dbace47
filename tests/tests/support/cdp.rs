//! A thin Chrome DevTools Protocol client: headless Chromium started with
//! `--remote-debugging-port=0`, one page target driven over its WebSocket
//! (JSON `{id, method, params}` out, the answer with the same `id` back,
//! events skipped). Enough to read and drive a page's DOM
//! (`Runtime.evaluate`) and to take a screenshot (`Page.captureScreenshot`);
//! written here rather than taken from a CDP crate because these few calls
//! need none of a crate's generated types or async runtime.

use std::io::{Read, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

use super::{TempDir, DEADLINE};

/// `Runtime.evaluate`'s parameters: the value itself, promises awaited.
fn evaluate(expression: &str) -> Value {
    json!({"expression": expression, "returnByValue": true, "awaitPromise": true})
}

/// How long a page condition is polled for at most.
const WAIT: Duration = Duration::from_secs(30);

/// Headless Chromium on one URL, driven over CDP; killed on drop (its
/// console shown when the test fails).
pub struct DevtoolsBrowser {
    child: Child,
    profile: TempDir,
    socket: WebSocket<TcpStream>,
    next_id: u64,
    /// DevTools' `127.0.0.1:PORT`.
    addr: String,
}

impl DevtoolsBrowser {
    /// Opens `url` in a new headless Chromium and attaches to its page.
    pub fn open(url: &str) -> DevtoolsBrowser {
        // A Chromium that has not said where DevTools listens within the
        // deadline is started again (twice at most): on a busy machine one
        // start in many has hung before printing it.
        let mut attempt = 0;
        let (child, profile, text) = loop {
            attempt += 1;
            let (mut child, profile) = start_chromium(url);
            let log = profile.path().join("stderr.log");
            let listening = |t: &str| {
                t.lines().any(|l| {
                    l.contains("DevTools listening on ws://") && l.ends_with(char::is_alphanumeric)
                })
            };
            let end = std::time::Instant::now() + DEADLINE;
            let text = loop {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                if listening(&text) || std::time::Instant::now() > end {
                    break text;
                }
                // The poll interval of this deadline-bounded wait.
                std::thread::sleep(Duration::from_millis(10));
            };
            if listening(&text) {
                break (child, profile, text);
            }
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                attempt < 3,
                "timed out waiting for DevTools listening, {attempt} starts; the last one's stderr:\n{text}"
            );
        };
        let line = text
            .lines()
            .find(|l| l.contains("DevTools listening on ws://"))
            .expect("the DevTools line");
        let addr = line
            .split("ws://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .expect("the DevTools address")
            .to_owned();
        let ws_url = page_socket(&addr, url);
        let devtools = addr.clone();
        let stream = TcpStream::connect(&addr).expect("connect to DevTools");
        stream.set_read_timeout(Some(WAIT)).expect("read timeout");
        let (socket, _) = tungstenite::client(ws_url.as_str(), stream).expect("DevTools handshake");
        DevtoolsBrowser {
            child,
            profile,
            socket,
            next_id: 0,
            addr: devtools,
        }
    }

    /// Its DevTools endpoint, as `daebug --cdp` takes it.
    pub fn devtools_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Opens `url` in a new tab of the same browser (DevTools'
    /// `PUT /json/new`), as a person would; this connection stays on its
    /// page.
    pub fn open_tab(&self, url: &str) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect to DevTools");
        stream
            .set_read_timeout(Some(DEADLINE))
            .expect("read timeout");
        write!(
            stream,
            "PUT /json/new?{url} HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
            self.addr
        )
        .expect("write");
        let mut answer = [0u8; 64];
        let n = stream.read(&mut answer).expect("DevTools' answer");
        let status = String::from_utf8_lossy(&answer[..n]);
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "PUT /json/new: {status}"
        );
    }

    /// Loads `url` in the page.
    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// Calls `method` and returns its result (panics on a CDP error).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        match self.try_call(method, params) {
            Ok(result) => result,
            Err(error) => panic!("{method} failed: {error}"),
        }
    }

    /// Calls `method`: its result, or the CDP error.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"id": id, "method": method, "params": params});
        self.socket
            .send(Message::text(request.to_string()))
            .expect("send to DevTools");
        loop {
            let message = self.socket.read().expect("read from DevTools");
            let Message::Text(text) = message else {
                continue;
            };
            let answer: Value = serde_json::from_str(text.as_str()).expect("CDP JSON");
            if answer["id"] != id {
                continue; // an event, or an answer to nobody
            }
            return match answer.get("error") {
                Some(error) => Err(error.clone()),
                None => Ok(answer["result"].clone()),
            };
        }
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call("Runtime.evaluate", evaluate(expression));
        if let Some(details) = result.get("exceptionDetails") {
            panic!("{expression} threw: {details}");
        }
        result["result"]["value"].clone()
    }

    /// Polls `expression` in the page until it is truthy, within the
    /// deadline, and returns that value; panics with the page's text
    /// otherwise. The polling runs in the page (a check every 25 ms), so
    /// one call waits; a page still loading (its context replaced while
    /// the call waits) is asked again.
    pub fn wait_until(&mut self, what: &str, expression: &str) -> Value {
        let started = Instant::now();
        let end = started + WAIT;
        let value = loop {
            let ms = end.saturating_duration_since(Instant::now()).as_millis();
            let poll = format!(
                "(async () => {{ const end = Date.now() + {ms}; for (;;) {{ \
                   const v = await (async () => ({expression}))(); \
                   if (v) return v; \
                   if (Date.now() > end) return null; \
                   await new Promise((r) => setTimeout(r, 25)); }} }})()"
            );
            match self.try_call("Runtime.evaluate", evaluate(&poll)) {
                Ok(result) if result.get("exceptionDetails").is_none() => {
                    break result["result"]["value"].clone();
                }
                // A navigation destroyed the context: ask the new document.
                Err(error) if Instant::now() < end && error.to_string().contains("context") => {
                    // The new document has no event to block on from
                    // here: the poll interval of this bounded wait.
                    std::thread::sleep(Duration::from_millis(25));
                }
                other => panic!("waiting for {what}: {other:?}"),
            }
        };
        if value.is_null() || value == false {
            let page = self.eval("document.body ? document.body.innerText : ''");
            panic!(
                "waited {:?} for {what}; the page says:\n{}",
                started.elapsed(),
                page.as_str().unwrap_or_default()
            );
        }
        value
    }

    /// A person's click at the middle of what `element` (an expression
    /// in the page) evaluates to: DevTools `Input` events, which the page
    /// sees as trusted.
    pub fn click(&mut self, element: &str) {
        // Where a person would click: the element's centre once it stands
        // still (the same box two frames apart: a panel sliding in or text
        // changing beside it moves it) and is what is under that point.
        let at = self.wait_until(
            element,
            &format!(
                "(async () => {{ const el = {element}; if (!el) return null; \
                 const box = () => {{ const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); }}; \
                 const before = box(); \
                 await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); \
                 const r = el.getBoundingClientRect(); if (!r.width || box() !== before) return null; \
                 const x = r.x + r.width / 2, y = r.y + r.height / 2; \
                 const root = el.getRootNode(); const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y); \
                 return hit && (hit === el || el.contains(hit)) ? [x, y] : null }})()"
            ),
        );
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        );
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// A PNG of the viewport.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("screenshot data"))
            .expect("base64 PNG")
    }

    /// The console messages of the browser's pages so far.
    pub fn console(&self) -> String {
        std::fs::read_to_string(self.profile.path().join("stderr.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("CONSOLE"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for DevtoolsBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!(
                "----- the dashboard browser's console -----\n{}",
                self.console()
            );
        }
    }
}

/// The WebSocket URL of the page target showing `url` (polled: the target
/// is listed once the page starts loading).
fn page_socket(addr: &str, url: &str) -> String {
    let end = Instant::now() + DEADLINE;
    loop {
        let targets: Value =
            serde_json::from_str(&http_get(addr, "/json/list")).unwrap_or(Value::Null);
        let found = targets.as_array().and_then(|list| {
            list.iter()
                .find(|t| {
                    t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.starts_with(url))
                })
                .and_then(|t| t["webSocketDebuggerUrl"].as_str().map(str::to_owned))
        });
        if let Some(ws) = found {
            return ws;
        }
        assert!(Instant::now() < end, "no page target for {url}: {targets}");
        // DevTools has no event to block on before a socket is open: the
        // poll interval of this bounded wait.
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// One plain HTTP GET to DevTools' own server; the body. Read up to its
/// `Content-Length`: that server keeps the connection open whatever the
/// request says.
fn http_get(addr: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect to DevTools");
    stream
        .set_read_timeout(Some(DEADLINE))
        .expect("read timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").expect("write");
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let text = String::from_utf8_lossy(&got);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            });
            if length.is_some_and(|n| body.len() >= n) {
                return body.to_owned();
            }
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&got);
    text.split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default()
}

/// Saves `bytes` at `path` (a screenshot, kept with the test's files).
pub fn save(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("save the screenshot");
}

/// A headless Chromium opening `url`, its stderr in its profile's
/// `stderr.log`.
fn start_chromium(url: &str) -> (Child, TempDir) {
    let profile = TempDir::new("cdp");
    let log = profile.path().join("stderr.log");
    let child = Command::new("/usr/bin/chromium")
        .args(super::CHROMIUM_FLAGS)
        .args([
            "--window-size=1200,800",
            "--remote-debugging-port=0",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).map_or(Stdio::null(), Stdio::from))
        .spawn()
        .expect("start chromium");
    (child, profile)
}
