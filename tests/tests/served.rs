//! The requests a Node realm serves (docs/log-format.md, "Requests a Node
//! realm serves"), with the real hub and real Node processes: a plain
//! `http` server and an Express 5 server. Those answered 400 or more, and
//! those served while a block runs, are `Text served` lines in the realm's
//! log; every one is kept for `daebug.network.served`. The program is not
//! changed (a body read after an `await` with `req.on('data')` is whole,
//! on Node 22 and on Node 20, where daebug stands aside), and no file the
//! hub writes holds a credential the requests carried.

mod support;

use support::node::{install_express, node, NodeProcess};
use support::{log_in, wait_for, write_files, Log, Running, TempDir, Write};

/// Never to be seen in any file the hub writes: only the last 4
/// characters of a credential are shown.
const SECRET: &str = "s3cr3t-TOKEN-planted-7c1e-a91f";

/// A hub on a temp root whose `app/` folder holds `files`.
struct World {
    root: TempDir,
    _hub: Running,
}

impl World {
    fn new(files: &[(&str, &str)]) -> World {
        let root = TempDir::new("served");
        write_files(&root.path().join("app"), files);
        let (hub, _) = support::node::node_hub(&root);
        World { root, _hub: hub }
    }

    fn app(&self) -> std::path::PathBuf {
        self.root.path().join("app")
    }

    fn start(&self, version: u32, script: &str) -> (NodeProcess, u16) {
        let p = NodeProcess::start(
            &node(version),
            self.root.path(),
            &self.app(),
            &[],
            script,
            &[],
        );
        let out = p.wait_output("listening on ");
        let port = out
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|p| p.parse().ok())
            .expect("a port");
        (p, port)
    }
}

/// The last block the agent wrote in `text`, and its reply.
fn last_exchange(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_exchange(&text).to_string()
}

/// What a block returned as `JSON.stringify(…)`: the reply's JSON fence
/// (a string), parsed.
fn returned(reply: &str) -> serde_json::Value {
    let start = reply.find("```JSON\n").expect("a JSON value") + 8;
    let end = start + reply[start..].find("\n```").expect("its end");
    let text: String = serde_json::from_str(&reply[start..end]).expect("a string");
    serde_json::from_str(&text).expect("JSON")
}

/// One HTTP/1.0 request from outside any block, carrying the planted
/// credentials: the status line and the body.
fn request(port: u16, method: &str, path: &str, body: &str) -> String {
    use std::io::{Read, Write as _};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nAuthorization: Bearer {SECRET}\r\nCookie: sid={SECRET}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}

/// A plain `http` server; `/api/todos/:id` reads its body with
/// `req.on('data')` after an `await`, as an app may.
const PLAIN: &str = r#"const http = require("node:http");
const todos = [1, 2, 3, 4, 5].map((id) => ({ id, title: "Todo number " + id, completed: false }));
globalThis.received = [];
const server = http.createServer(async (req, res) => {
  await new Promise((r) => setTimeout(r, 5));
  let body = "";
  req.on("data", (c) => (body += c));
  await new Promise((r) => req.on("end", r));
  received.push(req.method + " " + req.url + " " + body);
  if (req.url.startsWith("/api/todos/")) {
    res.statusCode = 204;
    return res.end();
  }
  if (req.url === "/api/todos") {
    res.setHeader("content-type", "application/json");
    res.setHeader("set-cookie", "sid=SECRET; HttpOnly");
    return res.end(JSON.stringify(todos));
  }
  if (req.url === "/big") {
    res.setHeader("content-type", "text/plain");
    return res.end("x".repeat(2 * 1024 * 1024));
  }
  res.statusCode = 404;
  res.setHeader("content-type", "text/plain");
  res.end("no such thing");
});
server.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
"#;

fn plain_app() -> String {
    PLAIN.replace("SECRET", SECRET)
}

#[test]
fn a_plain_http_server_has_its_requests_in_its_log() {
    let app = plain_app();
    let world = World::new(&[("server.js", &app)]);
    let (_server, port) = world.start(22, "server.js");
    let log = log_in(world.root.path(), "server-");

    // Outside any block: a 200 is kept, not logged; a 404 is a line.
    let answer = request(port, "GET", "/api/todos", "");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let answer = request(port, "GET", "/big", "");
    assert!(answer.len() > 2 * 1024 * 1024, "{}", answer.len());
    let answer = request(port, "POST", "/nowhere", r#"{"n":1}"#);
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    let text = wait_for(&log.path, "the 404's line", |t| {
        t.contains("```Text served\nPOST /nowhere {\"n\":1} → 404 Not Found no such thing (")
    });
    assert!(!text.contains("GET /api/todos"), "{text}");
    assert!(!text.contains("GET /big"), "{text}");

    // While a block runs, every request served is a line under its reply,
    // the request's body whole as the program read it.
    let reply = ask(
        &log,
        &format!(
            "const r = await fetch('http://127.0.0.1:{port}/api/todos/6', {{ method: 'PATCH', \
             headers: {{ 'content-type': 'application/json' }}, body: JSON.stringify({{ completed: true }}) }});\n\
             await r.text();\nJSON.stringify(received.at(-1))"
        ),
    );
    assert!(
        reply
            .contains("```Text served\nPATCH /api/todos/6 {\"completed\":true} → 204 No Content ("),
        "{reply}"
    );
    assert_eq!(
        returned(&reply),
        serde_json::json!("PATCH /api/todos/6 {\"completed\":true}"),
        "{reply}"
    );

    // `daebug.network.served`: a part of the URL, a status or a range;
    // JSON bodies parsed, credentials redacted, big bodies by size.
    let reply = ask(
        &log,
        "const [t] = daebug.network.served({ url: '/api/todos', status: 200 });\n\
         const [big] = daebug.network.served({ url: '/big' });\n\
         JSON.stringify([daebug.network.served({ status: '4xx' }).map((r) => r.url), t.response.body.length, t.response.body[4].title, \
         t.request.headers.authorization, t.request.headers.cookie, big.response.size, big.response.omitted, big.response.body ?? null, t.line])",
    );
    let last4 = &SECRET[SECRET.len() - 4..];
    let got = returned(&reply);
    assert_eq!(got[0], serde_json::json!(["/nowhere"]), "{reply}");
    assert_eq!(got[1], 5, "{reply}");
    assert_eq!(got[2], "Todo number 5", "{reply}");
    assert_eq!(got[3], format!("Bearer ****…{last4}"), "{reply}");
    assert_eq!(got[4], format!("****…{last4}"), "{reply}");
    assert_eq!(got[5], 2 * 1024 * 1024, "{reply}");
    assert_eq!(got[6], "over 1 MiB", "{reply}");
    assert_eq!(got[7], serde_json::Value::Null, "{reply}");
    let line = got[8].as_str().unwrap_or_default();
    assert!(
        line.starts_with(
            "GET /api/todos → 200 OK [5 × {id, title, completed}] (256 B application/json) ("
        ),
        "{reply}"
    );
    // The whole records too, headers and all, into the log.
    let reply = ask(&log, "daebug.network.served()");
    assert!(reply.contains("authorization"), "{reply}");
    support::no_file_holds(world.root.path(), SECRET);
}

#[test]
fn on_node_20_the_server_runs_unchanged() {
    let app = plain_app();
    let world = World::new(&[("server.js", &app)]);
    let (server, port) = world.start(20, "server.js");
    let answer = request(port, "PATCH", "/api/todos/6", r#"{"completed":true}"#);
    assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");
    let answer = request(port, "POST", "/nowhere", r#"{"n":1}"#);
    assert!(answer.contains("no such thing"), "{answer}");
    assert!(
        server.output().contains("Node 22 or later is needed"),
        "{}",
        server.output()
    );
}

const EXPRESS: &str = r#"const express = require("express");
const todos = [1, 2, 3, 4, 5].map((id) => ({ id, title: "Todo number " + id, completed: false }));
globalThis.received = [];
const app = express();
app.use(express.json());
app.get("/api/todos", (req, res) => res.json(todos));
app.patch("/api/todos/:id", (req, res) => {
  received.push(req.body);
  res.status(204).end();
});
app.post("/api/todos", (req, res) => res.status(201).json({ id: 7, ...req.body, completed: false }));
app.get("/boom", () => {
  throw new Error("boom");
});
const server = app.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
"#;

#[test]
fn an_express_server_has_its_requests_in_its_log() {
    let world = World::new(&[
        ("server.js", EXPRESS),
        ("package.json", r#"{"name":"app","private":true}"#),
    ]);
    if install_express(&world.app()).is_none() {
        return;
    }
    let (_server, port) = world.start(22, "server.js");
    let log = log_in(world.root.path(), "server-");

    let answer = request(port, "GET", "/boom", "");
    assert!(answer.starts_with("HTTP/1.1 500"), "{answer}");
    wait_for(&log.path, "the 500's line", |t| {
        t.contains("```Text served\nGET /boom → 500 Internal Server Error (")
    });
    request(port, "GET", "/api/todos", "");

    let reply = ask(
        &log,
        &format!(
            "const base = 'http://127.0.0.1:{port}/api/todos';\n\
             const json = {{ 'content-type': 'application/json' }};\n\
             await (await fetch(base + '/6', {{ method: 'PATCH', headers: json, body: JSON.stringify({{ completed: true }}) }})).text();\n\
             await (await fetch(base, {{ method: 'POST', headers: json, body: JSON.stringify({{ title: 'Call mom' }}) }})).json();\n\
             JSON.stringify(received)"
        ),
    );
    assert!(
        reply.contains("PATCH /api/todos/6 {\"completed\":true} → 204 No Content ("),
        "{reply}"
    );
    assert!(
        reply.contains(
            "POST /api/todos {\"title\":\"Call mom\"} → 201 Created {\"id\":7,\"title\":\"Call mom\",\"completed\":false} ("
        ),
        "{reply}"
    );
    assert_eq!(
        returned(&reply),
        serde_json::json!([{ "completed": true }]),
        "{reply}"
    );
    let text = log.text();
    assert!(!text.contains("GET /api/todos →"), "{text}");

    let reply = ask(
        &log,
        "JSON.stringify(daebug.network.served({ url: '/api/todos', status: '2xx' }).map((r) => [r.method, r.status, r.logged, r.request.headers.authorization ?? null, Array.isArray(r.response.body) ? r.response.body.length : r.response.body ?? null]))",
    );
    let last4 = &SECRET[SECRET.len() - 4..];
    let got = returned(&reply);
    assert_eq!(
        got[0],
        serde_json::json!(["GET", 200, false, format!("Bearer ****…{last4}"), 5]),
        "{reply}"
    );
    assert_eq!(
        got[1],
        serde_json::json!(["PATCH", 204, true, null, null]),
        "{reply}"
    );
    assert_eq!(
        got[2],
        serde_json::json!(["POST", 201, true, null, { "id": 7, "title": "Call mom", "completed": false }]),
        "{reply}"
    );
    support::no_file_holds(world.root.path(), SECRET);
}
