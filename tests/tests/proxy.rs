//! `daebug --proxy URL` (docs/proxy.md): the hub in front of an app's own
//! server, with the real hub binary. A static server (`python3 -m
//! http.server`, named by its port alone) whose page has no tag becomes a
//! realm through the hub (its unedited module worker too: the proxy
//! appends the loader to a worker's script), relative fetches and the
//! app's own `/api/` reach the app, and a stopped server is a 502 naming
//! it. A server written here answers gzipped HTML (the tag still added),
//! an error page and a form's POST (the tag too), pages over 16 MiB
//! (untouched), any method's body, a stream (it arrives as it is sent), a
//! redirect to itself (back to the hub) and a WebSocket with a subprotocol
//! (echoed, its close code kept); a foreign Host, or a hub with a token
//! asked without it, never reaches it, and the hub's cookie never does.
//! `--proxy` naming the hub itself is a 508. Vite 7's dev server, when npm
//! can install it: the page and its module worker are realms and HMR's
//! socket connects and hot-updates through the hub.

mod support;

use std::io::{BufRead, BufReader, Read, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::{base_of, log_in, write_files, Browser, Log, Running, TempDir, Write, DEADLINE};

/// A child process killed on drop (the upstream servers).
struct Upstream {
    child: Child,
    output: Arc<Mutex<String>>,
}

impl Upstream {
    /// Starts `cmd`, keeping its output; returns once a line holds
    /// `needle`, with that line.
    fn start(mut cmd: Command, needle: &str) -> (Upstream, String) {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the upstream");
        let output = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let (kept, tx) = (output.clone(), tx.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    kept.lock().unwrap().push_str(&format!("{line}\n"));
                    let _ = tx.send(line);
                }
            });
        }
        let up = Upstream { child, output };
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return (up, line),
                Ok(_) => {}
                Err(_) => panic!(
                    "the upstream never printed {needle:?}:\n{}",
                    up.output.lock().unwrap()
                ),
            }
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.stop();
        if std::thread::panicking() {
            eprintln!(
                "----- the upstream's output -----\n{}",
                self.output.lock().unwrap()
            );
        }
    }
}

/// A hub on a fresh root proxying `upstream`: the hub, its base URL.
fn hub_in_front_of(root: &TempDir, upstream: &str) -> (Running, String) {
    let mut hub = Running::start(&["--port", "0", "--proxy", upstream], root);
    let base = base_of(&hub.line_with("serving"));
    hub.line_with(&format!("proxying {upstream}"));
    (hub, base)
}

/// Waits until the hub's output (stdout or stderr) holds `needle`.
fn said(hub: &Running, needle: &str) {
    let end = Instant::now() + DEADLINE;
    while !hub.output().contains(needle) {
        assert!(Instant::now() < end, "the hub never said {needle:?}");
        // Output has no event to block on with a deadline: the poll
        // interval of this bounded wait.
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The last reply in a log's text.
fn last_reply(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_reply(&text).to_string()
}

/// One HTTP/1.1 request (`Connection: close`): the response's head and
/// its body (de-chunked).
fn fetch(base: &str, method: &str, path: &str, headers: &[&str], body: &[u8]) -> (String, Vec<u8>) {
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(DEADLINE)).expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("write");
    s.write_all(body).expect("write");
    let mut out = Vec::new();
    s.read_to_end(&mut out).expect("read");
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4;
    let head = String::from_utf8_lossy(&out[..split]).to_ascii_lowercase();
    let mut body = out[split..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (head, body)
}

/// A chunked body's data.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = raw
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size");
        let size = usize::from_str_radix(String::from_utf8_lossy(&raw[..eol]).trim(), 16)
            .expect("hex size");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 2 + size + 2..];
    }
}

/// A port free now (for a server that takes its port on the command line).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn a_static_server_behind_the_proxy_is_a_realm() {
    let site = TempDir::new("proxy-site");
    write_files(
        site.path(),
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Proxied static</title></head><body>\
                 <script>new Worker('./worker.js', { type: 'module', name: 'proxied-worker' })\
                 .onmessage = (e) => (window.fromWorker = e.data);</script></body></html>",
            ),
            (
                "worker.js",
                "const d = await fetch('data.json').then((r) => r.json());\n\
                 postMessage([d.answer, location.pathname]);\n",
            ),
            ("data.json", "{\"answer\":42}"),
            ("api/hello.json", "{\"from\":\"the app\"}"),
        ],
    );
    let mut python = Command::new("python3");
    python
        .args([
            "-u",
            "-m",
            "http.server",
            "0",
            "--bind",
            "127.0.0.1",
            "--directory",
        ])
        .arg(site.path());
    let (mut server, line) = Upstream::start(python, "Serving HTTP");
    // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
    let port = line
        .split("port ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("a port");
    // The short form: a port on localhost (tried at each of its addresses;
    // the server is on 127.0.0.1 only).
    let upstream = format!("http://localhost:{port}");
    let root = TempDir::new("proxy-static");
    let mut hub = Running::start(&["--port", "0", "--proxy", port], &root);
    let base = base_of(&hub.line_with("serving"));
    hub.line_with(&format!("proxying {upstream}"));

    // A navigation gets the tag first in <head>; a fetch of the page does not.
    let (head, body) = fetch(
        &base,
        "GET",
        "/",
        &["Accept: text/html", "Sec-Fetch-Dest: document"],
        b"",
    );
    let body = String::from_utf8_lossy(&body);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(
        body.contains("<head><script src=\"/daebug.js\"></script><title>"),
        "{body}"
    );
    let (_, raw) = fetch(&base, "GET", "/", &["Sec-Fetch-Dest: empty"], b"");
    assert!(!String::from_utf8_lossy(&raw).contains("daebug.js"));

    let _browser = Browser::open(&format!("{base}/"));
    let page = log_in(root.path(), "proxied-static-");
    let reply = ask(
        &page,
        "const d = await fetch('data.json').then((r) => r.json());\n\
         const a = await fetch('/api/hello.json').then((r) => r.json());\n\
         [d.answer, a.from, location.host]",
    );
    let host = base.trim_start_matches("http://");
    assert!(
        reply.contains(&format!("[42,\"the app\",\"{host}\"]")),
        "{reply}"
    );

    // The module worker runs from the hub's origin; its relative fetch
    // resolves against its own URL.
    let reply = ask(
        &page,
        "await new Promise((r) => { const t = () => (window.fromWorker ? r() : setTimeout(t, 20)); t(); });\n\
         window.fromWorker",
    );
    assert!(reply.contains("[42,\"/worker.js\"]"), "{reply}");
    // With no line of daebug in it, the worker is a realm: the proxy
    // appended the loader to its script.
    let worker = log_in(root.path(), "proxied-worker-");
    let reply = ask(
        &worker,
        "const d = await fetch('data.json').then((r) => r.json());\n[d.answer, location.pathname]",
    );
    assert!(reply.contains("[42,\"/worker.js\"]"), "{reply}");

    // The server stops: a 502 naming it and what failed.
    server.stop();
    let (head, body) = fetch(&base, "GET", "/data.json", &[], b"");
    let body = String::from_utf8_lossy(&body);
    assert!(head.starts_with("http/1.1 502"), "{head}");
    assert!(
        body.contains(&upstream) && body.contains("GET /data.json") && body.contains("connect"),
        "{body}"
    );
    // The hub's own paths still answer.
    let (head, _) = fetch(&base, "GET", "/daebug.js", &[], b"");
    assert!(head.starts_with("http/1.1 200"), "{head}");
}

/// What the hand-written upstream saw: each request's head.
type Seen = Arc<Mutex<Vec<String>>>;

/// The hand-written upstream: `/` gzipped HTML whatever was asked, `/sse`
/// an event stream whose second event waits for `go`, `/echo` the body
/// back, `/moved` a redirect naming itself, and `/socket` a WebSocket
/// echo that takes the subprotocol `echo-v1` and closes with 4001 on
/// `bye`.
fn hand_written_upstream(go: mpsc::Receiver<()>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen: Seen = Default::default();
    let kept = seen.clone();
    let go = Arc::new(Mutex::new(go));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (kept, go) = (kept.clone(), go.clone());
            std::thread::spawn(move || serve_one(stream, addr, &kept, &go));
        }
    });
    (format!("http://{addr}"), seen)
}

fn serve_one(
    mut stream: TcpStream,
    addr: std::net::SocketAddr,
    seen: &Seen,
    go: &Mutex<mpsc::Receiver<()>>,
) {
    let mut peek = [0u8; 4096];
    let n = stream.peek(&mut peek).unwrap_or(0);
    let head = String::from_utf8_lossy(&peek[..n]).to_string();
    seen.lock().unwrap().push(head.clone());
    if head.to_ascii_lowercase().contains("upgrade: websocket") {
        // tungstenite's callback type: its error is a whole response.
        #[allow(clippy::result_large_err)]
        let callback = |_: &tungstenite::handshake::server::Request,
                        mut res: tungstenite::handshake::server::Response| {
            res.headers_mut()
                .insert("sec-websocket-protocol", "echo-v1".parse().unwrap());
            Ok(res)
        };
        let Ok(mut ws) = tungstenite::accept_hdr(stream, callback) else {
            return;
        };
        while let Ok(msg) = ws.read() {
            match msg {
                tungstenite::Message::Text(t) if t.as_str() == "bye" => {
                    let _ = ws.close(Some(tungstenite::protocol::CloseFrame {
                        code: 4001.into(),
                        reason: "done".into(),
                    }));
                }
                m @ (tungstenite::Message::Text(_) | tungstenite::Message::Binary(_)) => {
                    let _ = ws.send(m);
                }
                tungstenite::Message::Close(_) => {}
                _ => {}
            }
            let _ = ws.flush();
        }
        return;
    }
    // Consume the head (and a body as long as Content-Length says).
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut length = 0;
    let mut first = String::new();
    reader.read_line(&mut first).expect("request line");
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("header");
        if line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("body");
    let target = first.split(' ').nth(1).unwrap_or("/");
    match target.split('?').next().unwrap_or("/") {
        "/" => {
            let html =
                b"<!doctype html><html><head><title>Gz</title></head><body>zipped</body></html>";
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(html).unwrap();
            let gz = gz.finish().unwrap();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                gz.len()
            );
            let _ = stream.write_all(&gz);
        }
        "/sse" => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                  Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            );
            let chunk = |s: &mut TcpStream, data: &str| {
                let _ = write!(s, "{:x}\r\n{data}\r\n", data.len());
                let _ = s.flush();
            };
            chunk(&mut stream, "data: one\n\n");
            let _ = go.lock().unwrap().recv_timeout(Duration::from_secs(30));
            chunk(&mut stream, "data: two\n\n");
            let _ = stream.write_all(b"0\r\n\r\n");
        }
        "/echo" => {
            let _ = write!(
                stream,
                "HTTP/1.1 201 Created\r\nContent-Type: application/octet-stream\r\n\
                 Content-Length: {}\r\nX-Method: {}\r\nConnection: close\r\n\r\n",
                body.len(),
                first.split(' ').next().unwrap_or("")
            );
            let _ = stream.write_all(&body);
        }
        "/big.html" | "/big-chunked.html" => {
            // A page over the hub's 16 MiB cap, with and without its length.
            let page = big_page();
            let _ = match target.starts_with("/big.html") {
                true => write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    page.len()
                ),
                false => write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n"
                ),
            };
            let _ = stream.write_all(&page);
        }
        "/broken" => {
            let page = "<html><head><title>Build failed</title></head><body>error</body></html>";
            let _ = write!(
                stream,
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
        "/moved" => {
            let _ = write!(
                stream,
                "HTTP/1.1 302 Found\r\nLocation: http://{addr}/login?next=%2F\r\n\
                 Content-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
        _ => {
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    }
}

/// A page of 17 MiB (over the hub's cap), `<head>` first.
fn big_page() -> Vec<u8> {
    let mut page = b"<!doctype html><html><head><title>Big</title></head><body>".to_vec();
    page.resize(17 << 20, b'x');
    page
}

#[test]
fn gzipped_pages_streams_redirects_and_sockets_pass_through() {
    let (go, wait) = mpsc::channel();
    let (upstream, seen) = hand_written_upstream(wait);
    let root = TempDir::new("proxy-hand");
    let (hub, base) = hub_in_front_of(&root, &upstream);
    let hub_authority = base.trim_start_matches("http://").to_owned();
    let up_authority = upstream.trim_start_matches("http://").to_owned();

    // Gzipped although the proxy asked for identity: decoded, tag added.
    let (head, body) = fetch(
        &base,
        "GET",
        "/",
        &[
            "Accept: text/html",
            "Accept-Encoding: gzip, br",
            "Sec-Fetch-Dest: document",
        ],
        b"",
    );
    let body = String::from_utf8_lossy(&body);
    assert!(!head.contains("content-encoding"), "{head}");
    assert_eq!(
        body,
        "<!doctype html><html><head><script src=\"/daebug.js\"></script><title>Gz</title></head><body>zipped</body></html>"
    );
    let asked = seen
        .lock()
        .unwrap()
        .last()
        .cloned()
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        asked.contains(&format!("host: {up_authority}\r\n")),
        "{asked}"
    );
    assert!(
        asked.contains(&format!("x-forwarded-host: {hub_authority}\r\n")),
        "{asked}"
    );
    assert!(asked.contains("x-forwarded-proto: http\r\n"), "{asked}");
    assert!(asked.contains("accept-encoding: identity\r\n"), "{asked}");
    // A fetch of it is passed through as it came, gzipped.
    let (head, body) = fetch(&base, "GET", "/", &["Sec-Fetch-Dest: empty"], b"");
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert_eq!(&body[..2], b"\x1f\x8b");

    // A dev server's error page is a page to debug: the tag too.
    let (head, body) = fetch(
        &base,
        "GET",
        "/broken",
        &["Accept: text/html", "Sec-Fetch-Dest: document"],
        b"",
    );
    assert!(head.starts_with("http/1.1 500"), "{head}");
    assert!(
        String::from_utf8_lossy(&body).starts_with("<html><head><script src=\"/daebug.js\">"),
        "{}",
        String::from_utf8_lossy(&body)
    );

    // A foreign Host (DNS rebinding) is refused by the hub, never proxied.
    let asked = seen.lock().unwrap().len();
    let mut s = TcpStream::connect(&hub_authority).expect("connect");
    s.set_read_timeout(Some(DEADLINE)).expect("timeout");
    write!(
        s,
        "GET /echo HTTP/1.1\r\nHost: evil.example:{}\r\nConnection: close\r\n\r\n",
        hub_authority.rsplit(':').next().unwrap()
    )
    .expect("write");
    let mut refused = String::new();
    s.read_to_string(&mut refused).expect("read");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert_eq!(seen.lock().unwrap().len(), asked);

    // A form's POST navigates: its page has the tag too.
    let (_, body) = fetch(
        &base,
        "POST",
        "/broken",
        &[
            "Accept: text/html",
            "Sec-Fetch-Dest: document",
            "Content-Type: application/x-www-form-urlencoded",
        ],
        b"q=1",
    );
    assert!(
        String::from_utf8_lossy(&body).starts_with("<html><head><script src=\"/daebug.js\">"),
        "{}",
        String::from_utf8_lossy(&body)
    );

    // A page over 16 MiB, with its length or without (read up to the
    // cap, then the rest): passed through untouched, with a line.
    for path in ["/big.html", "/big-chunked.html"] {
        let (head, body) = fetch(
            &base,
            "GET",
            path,
            &["Accept: text/html", "Sec-Fetch-Dest: document"],
            b"",
        );
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(body == big_page(), "{path}: {} bytes", body.len());
        said(&hub, &format!("{path} is larger than 16 MiB"));
    }

    // Any method, its body both ways.
    let payload: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let (head, body) = fetch(&base, "PUT", "/echo", &[], &payload);
    assert!(head.starts_with("http/1.1 201"), "{head}");
    assert!(head.contains("x-method: put"), "{head}");
    assert_eq!(body, payload);

    // A redirect naming the upstream names the hub.
    let (head, _) = fetch(&base, "GET", "/moved", &[], b"");
    assert!(head.contains("location: /login?next=%2f\r\n"), "{head}");

    // A stream arrives as it is sent: the first event before the second
    // was written.
    let mut s = TcpStream::connect(&hub_authority).expect("connect");
    s.set_read_timeout(Some(DEADLINE)).expect("timeout");
    write!(
        s,
        "GET /sse HTTP/1.1\r\nHost: {hub_authority}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .expect("write");
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !String::from_utf8_lossy(&got).contains("data: one") {
        let n = s
            .read(&mut buf)
            .expect("the first event, before the second is sent");
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    assert!(!String::from_utf8_lossy(&got).contains("data: two"));
    go.send(()).expect("go");
    while !String::from_utf8_lossy(&got).contains("data: two") {
        let n = s.read(&mut buf).expect("the second event");
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }

    // A WebSocket with a subprotocol: echoed both ways, its close code kept.
    let stream = TcpStream::connect(&hub_authority).expect("connect");
    stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
    let request = tungstenite::ClientRequestBuilder::new(
        format!("ws://{hub_authority}/socket").parse().expect("uri"),
    )
    .with_sub_protocol("echo-v1");
    let (mut ws, res) =
        tungstenite::client(request, stream).expect("the handshake through the hub");
    assert_eq!(
        res.headers()
            .get("sec-websocket-protocol")
            .and_then(|v| v.to_str().ok()),
        Some("echo-v1")
    );
    ws.send(tungstenite::Message::text("hello")).expect("send");
    assert_eq!(
        ws.read().expect("echo").into_text().expect("text").as_str(),
        "hello"
    );
    ws.send(tungstenite::Message::binary(vec![0u8, 1, 2, 255]))
        .expect("send");
    assert_eq!(
        ws.read().expect("echo").into_data().as_ref(),
        &[0u8, 1, 2, 255]
    );
    ws.send(tungstenite::Message::text("bye")).expect("send");
    match ws.read().expect("the close") {
        tungstenite::Message::Close(Some(frame)) => {
            assert_eq!(u16::from(frame.code), 4001);
            assert_eq!(frame.reason.as_str(), "done");
        }
        other => panic!("not the close: {other:?}"),
    }
    let asked = seen
        .lock()
        .unwrap()
        .last()
        .cloned()
        .unwrap()
        .to_ascii_lowercase();
    assert!(asked.contains("sec-websocket-protocol: echo-v1"), "{asked}");
    assert!(
        asked.contains(&format!("host: {up_authority}\r\n")),
        "{asked}"
    );
}

#[test]
fn with_a_token_only_its_holders_reach_the_app_and_the_app_never_sees_it() {
    let (_go, wait) = mpsc::channel();
    let (upstream, seen) = hand_written_upstream(wait);
    let root = TempDir::new("proxy-token");
    let mut hub = Running::start(
        &[
            "--port",
            "0",
            "--token",
            "t0ken-proxy",
            "--proxy",
            &upstream,
        ],
        &root,
    );
    let base = base_of(&hub.line_with("serving"));
    // Without the token: refused by the hub, never proxied.
    let asked = seen.lock().unwrap().len();
    let (head, _) = fetch(&base, "PUT", "/echo", &[], b"x");
    assert!(head.starts_with("http/1.1 401"), "{head}");
    assert_eq!(seen.lock().unwrap().len(), asked);
    // The page opened with it: the cookie set, the tag carries it.
    let (head, body) = fetch(
        &base,
        "GET",
        "/?token=t0ken-proxy",
        &["Accept: text/html", "Sec-Fetch-Dest: document"],
        b"",
    );
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("set-cookie: daebug_token="), "{head}");
    let body = String::from_utf8_lossy(&body);
    assert!(
        body.contains("<script src=\"/daebug.js?token=t0ken-proxy\"></script>"),
        "{body}"
    );
    // The page's own requests carry the cookie; the app sees its own only.
    let (head, _) = fetch(
        &base,
        "PUT",
        "/echo",
        &["Cookie: sid=7; daebug_token=t0ken-proxy"],
        b"x",
    );
    assert!(head.starts_with("http/1.1 201"), "{head}");
    let asked = seen
        .lock()
        .unwrap()
        .last()
        .cloned()
        .unwrap()
        .to_ascii_lowercase();
    assert!(asked.contains("cookie: sid=7\r\n"), "{asked}");
    assert!(!asked.contains("t0ken"), "{asked}");
}

#[test]
fn a_proxy_to_the_hub_itself_is_a_loop_said_at_once() {
    let port = free_port().to_string();
    let root = TempDir::new("proxy-loop");
    let upstream = format!("http://localhost:{port}");
    let mut hub = Running::start(&["--port", &port, "--proxy", &upstream], &root);
    let base = base_of(&hub.line_with("serving"));
    let (head, body) = fetch(&base, "GET", "/", &["Accept: text/html"], b"");
    let body = String::from_utf8_lossy(&body);
    assert!(head.starts_with("http/1.1 508"), "{head}");
    assert!(body.contains("leads to the hub itself"), "{body}");
}

/// Vite 7 from the npm registry into `app`; `None` (with the reason
/// printed) when npm cannot install it.
fn install_vite(app: &std::path::Path) -> Option<std::path::PathBuf> {
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
            "--loglevel=error",
            "vite@7",
        ])
        .current_dir(app)
        .output();
    let bin = app.join("node_modules/vite/bin/vite.js");
    match out {
        Ok(o) if o.status.success() && bin.exists() => Some(bin),
        Ok(o) => {
            eprintln!(
                "skipped: npm could not install vite@7: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("skipped: no npm to install vite@7: {e}");
            None
        }
    }
}

#[test]
fn vite_behind_the_proxy_is_a_realm_and_hot_updates() {
    let app = TempDir::new("proxy-vite-app");
    write_files(
        app.path(),
        &[
            ("package.json", "{\"name\":\"proxied-vite\",\"private\":true,\"type\":\"module\"}"),
            (
                "index.html",
                "<!doctype html><html><head><title>Proxied vite</title></head><body>\
                 <p id=out></p><script type=module src=/src/main.js></script></body></html>",
            ),
            (
                "src/main.js",
                "import { label } from './label.js';\n\
                 window.hmr = { connected: false, updates: [] };\n\
                 new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'vite-worker' });\n\
                 document.getElementById('out').textContent = label;\n\
                 if (import.meta.hot) {\n\
                   import.meta.hot.on('vite:ws:connect', () => { window.hmr.connected = true; console.log('hmr connected'); });\n\
                   import.meta.hot.on('vite:afterUpdate', (e) => { for (const u of e.updates) window.hmr.updates.push(u.path); console.log('hmr updated ' + e.updates.map((u) => u.path).join()); });\n\
                 }\n",
            ),
            ("src/worker.js", "import { label } from './label.js';\nself.label = label;\n"),
            (
                "src/label.js",
                "export const label = 'first';\nif (import.meta.hot) import.meta.hot.accept((m) => { document.getElementById('out').textContent = m.label; });\n",
            ),
        ],
    );
    let Some(vite) = install_vite(app.path()) else {
        return;
    };
    let port = free_port();
    // Vite 7 needs Node 20.19 or 22.12: the Node 22 scripts/test.sh
    // installs, else the machine's.
    let node = std::env::var_os("DAEBUG_NODE22").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(&vite)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--strictPort",
        ])
        .current_dir(app.path())
        .env("NO_COLOR", "1");
    let (_vite, _) = Upstream::start(cmd, "ready in");
    let upstream = format!("http://127.0.0.1:{port}");
    let root = TempDir::new("proxy-vite");
    let (_hub, base) = hub_in_front_of(&root, &upstream);

    let browser = Browser::open(&format!("{base}/"));
    let page = log_in(root.path(), "proxied-vite-");
    let reply = ask(
        &page,
        "await new Promise((r) => { const t = () => (window.hmr?.connected ? r() : setTimeout(t, 20)); t(); });\n\
         [document.getElementById('out').textContent, window.hmr.connected, typeof (await import('/src/label.js')).label]",
    );
    assert!(reply.contains("[\"first\",true,\"string\"]"), "{reply}");

    // The worker Vite serves, unedited, is a realm through the proxy.
    let worker = log_in(root.path(), "vite-worker-");
    let reply = ask(&worker, "[self.label, location.pathname]");
    assert!(reply.contains("[\"first\",\"/src/worker.js\"]"), "{reply}");

    // An edit reaches the page through HMR's socket, through the hub.
    std::fs::write(
        app.path().join("src/label.js"),
        "export const label = 'second';\nif (import.meta.hot) import.meta.hot.accept((m) => { document.getElementById('out').textContent = m.label; });\n",
    )
    .expect("edit");
    let reply = ask(
        &page,
        "await new Promise((r) => { const t = () => (window.hmr.updates.length ? r() : setTimeout(t, 20)); t(); });\n\
         [document.getElementById('out').textContent, window.hmr.updates[0]]",
    );
    assert!(
        reply.contains("[\"second\",\"/src/label.js\"]"),
        "{reply}\n{}",
        browser.console()
    );
}
