//! Causes (docs/log-format.md, "Causes"): what made each request, followed
//! by async context rather than by time. Real hub, headless Chromium
//! driven over DevTools (a person's click is a trusted `Input` event):
//! a click's request names the click; a job's summary lists what its code
//! caused and not what the app's own timer sent meanwhile; a timer a block
//! set names its block after it ended; a request still on its way when its
//! block ended gets its outcome logged when it ends; a long summary keeps
//! every failure and counts the rest of a kind.

mod support;

use std::io::{Read, Write as _};
use std::net::{TcpListener, TcpStream};

use support::cdp::DevtoolsBrowser;
use support::{
    base_of, log_in, network_summary, wait_for, write_files, Log, Running, TempDir, Write,
};

const PAGE: &str = r#"<!doctype html><html><head><title>Causes</title>
<script src="/daebug.js"></script>
<script>
  // The app's own polling, every 40 ms, all through the blocks below; it
  // also answers whoever waits for its next tick.
  const waiting = [];
  window.nextTick = () => new Promise((r) => waiting.push(r));
  setInterval(() => {
    for (const f of waiting.splice(0)) f();
    fetch("/poll.json");
  }, 40);
  function save() {
    return fetch("/api/save", { method: "POST", body: JSON.stringify({ done: true }) });
  }
</script></head>
<body><ul><li class="todo"><input class="toggle" type="checkbox" onclick="save()"></li></ul></body></html>"#;

/// Appends one block and returns its reply.
fn run(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").expect("a reply")..].to_string()
}

/// A server on loopback that gives each connection to `serve` on a thread
/// of its own; its port.
fn serve_each(serve: fn(TcpStream)) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            std::thread::spawn(move || serve(stream));
        }
    });
    port
}

/// A server on loopback that answers each request after 800 ms, with
/// CORS allowed: a request still on its way when its block ends.
fn slow_server() -> u16 {
    serve_each(|mut s| {
        let mut buf = [0u8; 4096];
        let _ = s.read(&mut buf);
        // The answer this server exists to delay.
        std::thread::sleep(std::time::Duration::from_millis(800));
        let _ = s.write_all(
            b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: text/plain\r\n\
              Content-Length: 4\r\nConnection: close\r\n\r\nslow",
        );
    })
}

#[test]
fn each_request_names_what_caused_it() {
    let root = TempDir::new("causes");
    write_files(
        root.path(),
        &[
            ("index.html", PAGE),
            ("poll.json", "{\"n\":1}"),
            ("own.json", "{\"mine\":true}"),
            ("tags.json", "[\"a\",\"b\"]"),
        ],
    );
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let mut tab = DevtoolsBrowser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "causes-");

    // A person's click between blocks: its failed request says so.
    tab.click("document.querySelector('input.toggle')");
    let start = format!("POST {base}/api/save {{\"done\":true}} → 4");
    let text = wait_for(&log.path, "the click's request", |t| t.contains(&start));
    let line = text.lines().find(|l| l.starts_with(&start)).unwrap();
    assert!(
        line.contains(" ⟵ save (") && line.contains(" · after click on li.todo > input.toggle"),
        "{line}"
    );

    // A block's summary lists its own request, not the app's polling
    // that went on meanwhile; a timer it set names it once it ended.
    let reply = run(
        &log,
        "await fetch('/own.json');\nawait daebug.sleep(200);\nsetTimeout(() => fetch('/late-missing.json'), 300);\n'ok'",
    );
    let lines = network_summary(&reply);
    assert!(
        lines.contains(&format!("GET {base}/own.json → 200 OK {{\"mine\":true}}")),
        "{reply}"
    );
    assert!(
        !lines.contains("poll.json"),
        "the app's timer is not the block's: {reply}"
    );
    let start = format!("GET {base}/late-missing.json → 404");
    let text = wait_for(&log.path, "the block's timer's request", |t| {
        t.contains(&start)
    });
    let line = text.lines().find(|l| l.starts_with(&start)).unwrap();
    assert!(line.contains(" · from the block at "), "{line}");

    // A block that resumes in a task of the app's (its timer answered
    // what the block awaited): what it does next is still its own.
    let reply = run(
        &log,
        "await nextTick();\nawait fetch('/own.json?again');\n'resumed'",
    );
    let lines = network_summary(&reply);
    assert!(
        lines.contains(&format!("GET {base}/own.json?again → 200 OK")),
        "{reply}"
    );
    assert!(!lines.contains("poll.json"), "{reply}");

    // Still on its way when the block ends: pending in the summary, its
    // outcome logged when it comes.
    let port = slow_server();
    let reply = run(
        &log,
        &format!("fetch('http://127.0.0.1:{port}/slow');\n'sent'"),
    );
    let pending = format!("GET http://127.0.0.1:{port}/slow → pending ⟵ <cell>:1");
    assert!(network_summary(&reply).contains(&pending), "{reply}");
    let start = format!("GET http://127.0.0.1:{port}/slow → 200 OK slow (");
    let text = wait_for(&log.path, "the pending request's outcome", |t| {
        t.contains(&start)
    });
    let line = text.lines().find(|l| l.starts_with(&start)).unwrap();
    assert!(
        line.contains(" · pending when the block at ") && line.ends_with(" ended"),
        "{line}"
    );
    assert!(!line.contains("from the block"), "said once: {line}");

    // A long summary: every failure, the first of a kind, the rest
    // counted.
    let reply = run(
        &log,
        "for (let i = 0; i < 14; i++) await fetch('/tags.json?i=' + i);\nawait fetch('/missing-tag.json');\n'many'",
    );
    let lines = network_summary(&reply);
    assert!(
        lines.contains(&format!("GET {base}/tags.json?i=0 → 200 OK")),
        "{reply}"
    );
    assert!(!lines.contains("tags.json?i=1 "), "{reply}");
    assert!(
        lines.contains(&format!("GET {base}/missing-tag.json → 404")),
        "{reply}"
    );
    assert!(
        lines.contains("\n13 more GET /tags.json → 200, "),
        "{reply}"
    );
    assert!(!lines.contains("poll.json"), "{reply}");
    drop(tab);
    let _ = hub.output();
}

/// A WebSocket server on loopback that echoes one frame, then drops the
/// connection without a close frame (the page sees 1006).
fn echo_once_server() -> u16 {
    serve_each(|stream| {
        let Ok(mut ws) = tungstenite::accept(stream) else {
            return;
        };
        if let Ok(m) = ws.read() {
            let _ = ws.send(m);
        }
        // Wait for the page's next word (never sent), so the drop
        // below comes after the block ended.
        let _ = ws
            .get_mut()
            .set_read_timeout(Some(std::time::Duration::from_millis(600)));
        let _ = ws.read();
    })
}

/// An event stream on loopback (CORS allowed) that sends one message.
fn event_stream_server() -> u16 {
    serve_each(|mut s| {
        let mut buf = [0u8; 4096];
        let _ = s.read(&mut buf);
        let _ = s.write_all(
            b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: text/event-stream\r\n\r\n\
              data: {\"price\":3}\n\n",
        );
        let _ = s.flush();
        let _ = s.read(&mut buf);
    })
}

#[test]
fn beacons_and_sockets_are_requests_too() {
    let root = TempDir::new("sockets");
    write_files(
        root.path(),
        &[(
            "index.html",
            "<!doctype html><html><head><title>Live</title><script src=\"/daebug.js\"></script></head><body></body></html>",
        )],
    );
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let tab = DevtoolsBrowser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "live-");
    let ws = echo_once_server();
    let sse = event_stream_server();

    let reply = run(
        &log,
        &format!(
            "const ws = new WebSocket('ws://127.0.0.1:{ws}/live');\n\
             await new Promise((r) => (ws.onopen = r));\n\
             ws.send(JSON.stringify({{ type: 'sub' }}));\n\
             await new Promise((r) => (ws.onmessage = r));\n\
             navigator.sendBeacon('/beacon', JSON.stringify({{ event: 'left' }}));\n\
             const es = new EventSource('http://127.0.0.1:{sse}/events');\n\
             const got = await new Promise((r) => (es.onmessage = (e) => r(e.data)));\n\
             es.close();\n\
             got"
        ),
    );
    let lines = network_summary(&reply);
    let live = format!("ws://127.0.0.1:{ws}/live");
    for want in [
        format!("WS {live} → 101 open ("),
        format!("WS ↑ {live} {{\"type\":\"sub\"}}"),
        format!("WS ↓ {live} {{\"type\":\"sub\"}}"),
        format!("POST {base}/beacon {{\"event\":\"left\"}} → queued as a beacon ("),
        format!("GET http://127.0.0.1:{sse}/events → 200 open (EventSource) ("),
        format!("SSE ↓ http://127.0.0.1:{sse}/events {{\"price\":3}}"),
    ] {
        assert!(lines.contains(&want), "{want} in\n{reply}");
    }
    assert!(
        lines.contains(" ms) ⟵ <cell>:5\n"),
        "the beacon's initiator: {reply}"
    );
    assert!(
        reply.contains("```JSON\n\"{\\\"price\\\":3}\"\n```"),
        "{reply}"
    );

    // The server drops the socket after the block: its close is a line.
    let closed = format!("WS {live} closed 1006 (open ");
    let text = wait_for(&log.path, "the socket's close", |t| t.contains(&closed));
    let line = text.lines().find(|l| l.starts_with(&closed)).unwrap();
    assert!(line.ends_with("; 1 sent, 1 received)"), "{line}");

    // A socket that cannot connect, from a timer a block set.
    run(
        &log,
        "setTimeout(() => new WebSocket('ws://127.0.0.1:9/none'), 50);\n'later'",
    );
    let start = "WS ws://127.0.0.1:9/none → failed: could not connect (";
    let text = wait_for(&log.path, "the failed socket", |t| t.contains(start));
    let line = text.lines().find(|l| l.starts_with(start)).unwrap();
    assert!(line.contains(" · from the block at "), "{line}");
    drop(tab);
    let _ = hub.output();
}
