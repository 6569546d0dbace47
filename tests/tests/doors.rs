//! The doors (docs/doors.md): `daebug list`, `eval` and `tail` as real
//! processes, and the HTTP API, against the real hub and a page in
//! headless Chromium. Whatever comes in through them is written into the
//! page's log and answered with its reply.

mod support;

use std::io::{BufRead, BufReader, Read, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::{daebug_bin, http, wait_for, TempDir, World, Write, DEADLINE};

fn page() -> World {
    World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Doors</title></head><body><p id=hello>Hello</p></body></html>",
        )],
        "index.html",
    )
}

/// `daebug <args> --root <root>`, run to its end.
fn daebug(root: &Path, args: &[&str]) -> Output {
    Command::new(daebug_bin())
        .args(args)
        .arg("--root")
        .arg(root)
        .stdin(Stdio::null())
        .output()
        .expect("run daebug")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_cli_and_the_api_run_blocks_through_the_log() {
    let world = page();
    let log = world.log("doors-");
    let root = world.root.path();
    let hub_file = std::fs::read_to_string(root.join("debug/.hub")).expect("debug/.hub");
    let hub: serde_json::Value = serde_json::from_str(&hub_file).expect("JSON");
    assert_eq!(hub["url"], world.base.as_str(), "{hub_file}");
    assert!(hub["pid"].as_u64().is_some_and(|p| p > 0), "{hub_file}");
    assert!(hub["token"].is_null(), "{hub_file}");

    // list: the page, as a table and as JSON.
    let out = daebug(root, &["list"]);
    assert!(out.status.success(), "{out:?}");
    let table = text(&out.stdout);
    assert!(table.starts_with("STEM"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with(&log.stem) && l.contains("page") && l.contains("Doors")),
        "{table}"
    );
    let out = daebug(root, &["list", "--json"]);
    let realms: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(realms[0]["stem"], log.stem.as_str(), "{realms}");
    assert_eq!(
        realms[0]["log"],
        format!("debug/{}.md", log.stem),
        "{realms}"
    );

    // eval by a prefix: the reply, exit 0, and the log has block and reply.
    let out = daebug(root, &["eval", "doors", "1+1"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let reply = text(&out.stdout);
    assert!(
        reply.starts_with(&format!("> **{}** to cli at ", log.stem)),
        "{reply}"
    );
    assert!(reply.contains("```JSON\n2\n```"), "{reply}");
    let logged = log.text();
    let block = format!("> **cli** to {} at ", log.stem);
    let at = logged.find(&block).expect("the request header");
    assert!(logged[at..].contains("```js\n1+1\n```"), "{logged}");
    assert!(logged[at..].contains(reply.trim_end()), "{logged}");

    // --json, code from stdin.
    let mut child = Command::new(daebug_bin())
        .args(["eval", &log.stem, "-", "--json", "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run daebug");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"document.getElementById('hello').textContent")
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["ok"], true, "{json}");
    assert_eq!(json["value"], "Hello", "{json}");
    assert_eq!(json["state"], "completed", "{json}");

    // A throwing block exits 1, a block past its timeout 2.
    let out = daebug(root, &["eval", "doors", "throw new TypeError('nope')"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stdout).contains("TypeError: nope"), "{out:?}");
    let out = daebug(
        root,
        &[
            "eval",
            "doors",
            "--timeout",
            "1",
            "await new Promise(() => {})",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stdout).contains("TIMEOUT"), "{out:?}");
    assert!(
        log.text()
            .contains("```js timeout=1000ms\nawait new Promise(() => {})\n```"),
        "{}",
        log.text()
    );

    // No such realm: exit 3 and a message on stderr.
    let out = daebug(root, &["eval", "nowhere", "1"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(text(&out.stderr).contains("nowhere"), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");

    // The HTTP API itself: ok, value, text; the agent the request names.
    let (status, body) = http(
        &world.base,
        "POST",
        &format!("/api/realms/{}/eval", log.stem),
        &["Content-Type: application/json"],
        r#"{"code":"({a: [1, 2]})","agent":"bot","timeout":5}"#,
    );
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(json["ok"], true, "{json}");
    assert_eq!(json["value"], serde_json::json!({"a": [1, 2]}), "{json}");
    let reply = json["text"].as_str().expect("text");
    assert!(
        reply.starts_with(&format!("> **{}** to bot at ", log.stem)),
        "{reply}"
    );
    assert!(log.text().contains(reply), "{}", log.text());
    assert!(log
        .text()
        .contains(&format!("> **bot** to {} at ", log.stem)));
    let (status, tail) = http(
        &world.base,
        "GET",
        &format!("/api/realms/{}/log?tail=3", log.stem),
        &[],
        "",
    );
    assert_eq!(status, 200, "{tail}");
    assert_eq!(tail.lines().count(), 3, "{tail}");
    assert!(tail.trim_end().ends_with(support::FOOTER), "{tail}");
}

#[test]
fn the_event_stream_and_tail_follow_the_log() {
    let world = page();
    let log = world.log("doors-");
    let root = world.root.path();

    // /api/events: subscribed once its head and hello arrive; a block
    // appended to the log is a `log` event naming the realm.
    let addr = world.base.trim_start_matches("http://");
    let mut events = TcpStream::connect(addr).expect("connect");
    write!(events, "GET /api/events HTTP/1.1\r\nHost: {addr}\r\n\r\n").expect("write");
    events
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    let mut seen = String::new();
    let read_until = |events: &mut TcpStream, seen: &mut String, needle: &str| {
        let end = Instant::now() + DEADLINE;
        let mut buf = [0u8; 4096];
        while !seen.contains(needle) {
            assert!(Instant::now() < end, "no {needle:?} in {seen:?}");
            match events.read(&mut buf) {
                Ok(0) => panic!("the stream ended: {seen:?}"),
                Ok(n) => seen.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("{e}"),
            }
        }
    };
    read_until(&mut events, &mut seen, ": daebug events");
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(
        seen.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{seen}"
    );
    log.write(Write::Append, "\n```js\n'appended'\n```\n");
    let event = format!(r#"data: {{"type":"log","stem":"{}"}}"#, log.stem);
    read_until(&mut events, &mut seen, &event);
    wait_for(&log.path, "the appended block's reply", |t| {
        t.contains("```JSON\n\"appended\"\n```") && t.trim_end().ends_with(support::FOOTER)
    });

    // tail: the log's end, then a new reply as it is written.
    let mut tail = Command::new(daebug_bin())
        .args(["tail", "doors", "-n", "2", "--root"])
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run daebug tail");
    let (tx, lines) = mpsc::channel();
    let stdout = tail.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next_line = |what: &str| {
        lines
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("tail printed no {what}"))
    };
    // Its first lines: the log's last two (the footer last).
    let first = next_line("first line");
    let second = next_line("second line");
    assert!(second.ends_with(support::FOOTER), "{first:?} {second:?}");
    let out = daebug(root, &["eval", "doors", "'tail-' + 21 * 2"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut printed = Vec::new();
    loop {
        let line = next_line("reply");
        let done = line == "\"tail-42\"";
        printed.push(line);
        if done {
            break;
        }
    }
    let printed = printed.join("\n");
    assert!(
        printed.contains(&format!("> **cli** to {} at ", log.stem)),
        "{printed}"
    );
    assert!(printed.contains("'tail-' + 21 * 2"), "{printed}");
    assert!(
        printed.contains(&format!("> **{}** to cli at ", log.stem)),
        "{printed}"
    );
    assert!(!printed.contains("executing ("), "{printed}");
    let _ = tail.kill();
    let _ = tail.wait();
}

#[test]
fn without_a_hub_the_cli_exits_3() {
    let root = TempDir::new("nohub");
    let out = daebug(root.path(), &["eval", "shop", "1+1"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no hub") && stderr.contains("debug/.hub"),
        "{stderr}"
    );
    // A stale port: nothing listens there.
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = free.local_addr().expect("addr").port().to_string();
    drop(free);
    let out = daebug(root.path(), &["list", "--port", &port]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(text(&out.stderr).contains("no hub"), "{out:?}");
}

#[test]
fn the_hub_file_comes_and_goes_with_the_hub() {
    let root = TempDir::new("hubfile");
    let mut hub = support::Running::start(&["--port", "0"], &root);
    let base = support::base_of(&hub.line_with("serving"));
    let path = root.path().join("debug/.hub");
    let text = wait_for(&path, "debug/.hub", |t| t.contains(&base));
    let file: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(file["pid"], hub.pid(), "{text}");
    let (status, _) = http(&base, "GET", "/debug/.hub", &[], "");
    assert_eq!(status, 404);
    let out = daebug(root.path(), &["list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    assert!(hub.terminate().success());
    assert!(!path.exists(), "debug/.hub is removed at stop");
}

#[test]
fn a_hub_with_a_token_is_reached_with_the_one_in_its_file() {
    let root = TempDir::new("hubtoken");
    let mut hub = support::Running::start(&["--port", "0", "--host", "0.0.0.0"], &root);
    let base = support::base_of(&hub.line_with("serving"));
    let port = base.rsplit(':').next().expect("port").to_string();
    let path = root.path().join("debug/.hub");
    let written = wait_for(&path, "debug/.hub", |t| t.contains("\"token\": \""));
    let file: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert_eq!(file["host"], "0.0.0.0", "{written}");
    assert_eq!(file["url"], format!("http://127.0.0.1:{port}"), "{written}");
    // Without it: refused (401).
    let (status, _) = http(&base, "GET", "/api/realms", &[], "");
    assert_eq!(status, 401);
    // The CLI sends the file's token, by the file or by the same port.
    for args in [
        &["list", "--json"][..],
        &["list", "--json", "--port", &port],
    ] {
        let out = daebug(root.path(), args);
        assert_eq!(out.status.code(), Some(0), "{args:?} {out:?}");
        assert_eq!(text_of(&out.stdout), "[]", "{args:?}");
    }
    // A wrong token: refused, exit 4.
    let out = daebug(root.path(), &["list", "--port", &port, "--token", "wrong"]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(text(&out.stderr).contains("token"), "{out:?}");
    assert!(hub.terminate().success());
}

fn text_of(bytes: &[u8]) -> String {
    text(bytes).trim().to_string()
}
