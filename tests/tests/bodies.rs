//! Request bodies (docs/log-format.md, "Request bodies"): what a page, a
//! module worker and a Node process send and get back with `fetch` and
//! XHR, as digests on their request lines, whole in `debug/archive/` when
//! cut, and whole records through `daebug.network.last`, `list` and
//! `clear`; the app's own use of a response unchanged, and no file the
//! hub writes holding a credential the requests carried. Real hub,
//! headless Chromium, real Node.

mod support;

use std::path::Path;

use support::node::{node, NodeProcess};
use support::{log_in, write_files, TempDir, World, Write};

/// Never to be seen in any file the hub writes.
const SECRET: &str = "s3cr3t-TOKEN-planted-7c1e-a91f";

/// The block's line that makes `secret` without writing it whole.
const SPLIT: &str = "const secret = ['s3cr3t', 'TOKEN-planted-7c1e-a91f'].join('-');";

const TODOS: &str = r#"[{"id":1,"title":"Buy milk","completed":false,"completedAt":null},{"id":2,"title":"Call mom","completed":true,"completedAt":"2026-11-01"},{"id":3,"title":"Write tests","completed":false,"completedAt":null},{"id":4,"title":"Fix bug","completed":false,"completedAt":null},{"id":5,"title":"Ship it","completed":false,"completedAt":null}]"#;

/// The archive file a line links (`[body](archive/…)`), read.
fn linked(log_dir: &Path, line: &str, label: &str) -> String {
    let at = line.find(&format!("[{label}](")).expect("a link") + label.len() + 3;
    let rel = &line[at..at + line[at..].find(')').expect("its end")];
    std::fs::read_to_string(log_dir.join(rel)).expect("the linked file")
}

#[test]
fn a_page_and_a_worker_have_their_request_bodies_in_their_logs() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Pagebodies</title></head>\
                 <body><script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            ("worker.js", "import '/daebug.js?name=bodies-worker';\n"),
            ("todos.json", TODOS),
            ("small.json", "{\"ok\":true}"),
        ],
        "index.html",
    );
    let log = world.log("pagebodies-");
    let base = &world.base;
    let text = log.exchange(
        Write::Append,
        &format!(
            "\n```js\n{SPLIT}\nconst list = await fetch('/todos.json').then((r) => r.json());\n\
             const p = await fetch('/api/todos/6', {{ method: 'PATCH', headers: {{ 'content-type': 'application/json', authorization: 'Bearer ' + secret }}, body: JSON.stringify({{ completed: true }}) }});\n\
             const x = await new Promise((done) => {{ const x = new XMLHttpRequest(); x.open('POST', '/api/login'); x.setRequestHeader('content-type', 'application/json'); x.onloadend = () => done(x.status); x.send(JSON.stringify({{ user: 'ann', password: secret }})); }});\n\
             const f = new FormData(); f.append('a', 'xyz');\n\
             await fetch('/small.json', {{ method: 'POST', body: f }});\n\
             [list.length, list[4].title, p.status >= 400, x >= 400]\n```\n"
        ),
        1,
    );
    // The page's own use of the responses is unchanged.
    assert!(
        text.contains("```JSON\n[5,\"Ship it\",true,true]\n```"),
        "{text}"
    );
    let lines = support::network_summary(&text);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].starts_with(&format!(
            "GET {base}/todos.json → 200 OK [5 × {{id, title, completed, completedAt}}] ("
        )),
        "{text}"
    );
    assert!(lines[0].contains(" application/json) ("), "{text}");
    assert!(lines[0].ends_with(".json)"), "{text}");
    let archived: serde_json::Value =
        serde_json::from_str(&linked(log.path.parent().unwrap(), lines[0], "body")).expect("JSON");
    assert_eq!(archived.as_array().map(Vec::len), Some(5), "{archived}");
    assert!(
        lines[1].starts_with(&format!(
            "PATCH {base}/api/todos/6 {{\"completed\":true}} → 4"
        )),
        "{text}"
    );
    assert!(
        lines[2].starts_with(&format!(
            "POST {base}/api/login {{\"user\":\"ann\",\"password\":\"****…a91f\"}} → 4"
        )),
        "{text}"
    );
    assert!(
        lines[3].starts_with(&format!(
            "POST {base}/small.json (3 B multipart/form-data) → "
        )),
        "{text}"
    );

    // Whole records: parsed bodies, credentials redacted; a list; clear.
    let text = log.exchange(
        Write::Append,
        "\n```js\nconst t = daebug.network.last('todos.json');\nconst l = daebug.network.last('login');\n\
         JSON.stringify([t.response.body.length, t.status, l.request.body.password, daebug.network.list({ status: '4xx' }).length, daebug.network.last('todos/6').request.headers.authorization, daebug.network.clear() >= 4, daebug.network.list().length])\n```\n",
        1,
    );
    assert!(
        text.contains("[5,200,\\\"****…a91f\\\",3,\\\"Bearer ****…a91f\\\",true,0]"),
        "{text}"
    );
    log.exchange(
        Write::Append,
        "\n```js\ndaebug.network.last('small')\n```\n",
        1,
    );

    // A module worker: its own requests, its own log.
    let worker = world.log("bodies-worker-");
    let text = worker.exchange(
        Write::Append,
        "\n```js\nconst t = await fetch('/todos.json').then((r) => r.text());\nconst s = await fetch('/small.json').then((r) => r.json());\n[t.length, s.ok, daebug.network.last('small').response.body.ok]\n```\n",
        1,
    );
    assert!(
        text.contains(&format!("```JSON\n[{},true,true]\n```", TODOS.len())),
        "{text}"
    );
    let lines = support::network_summary(&text);
    assert!(
        lines.contains(&format!("GET {base}/small.json → 200 OK {{\"ok\":true}} (")),
        "{text}"
    );
    assert!(lines.contains("[body](archive/"), "{text}");
    support::no_file_holds(world.root.path(), SECRET);
}

/// A Node process's own `fetch`, to a server it runs itself.
#[test]
fn a_node_process_has_its_own_requests_bodies_in_its_log() {
    let root = TempDir::new("bodies");
    let todos = TODOS;
    let app = format!(
        r#"const http = require("node:http");
const server = http.createServer((req, res) => {{
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {{
    res.setHeader("content-type", "application/json");
    if (req.method === "GET") return res.end({todos:?});
    res.statusCode = 422;
    res.end(JSON.stringify({{ error: "bad", got: body.length }}));
  }});
}});
server.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
"#
    );
    write_files(&root.path().join("app"), &[("server.js", &app)]);
    let (_hub, _) = support::node::node_hub(&root);
    let p = NodeProcess::start(
        &node(22),
        root.path(),
        &root.path().join("app"),
        &[],
        "server.js",
        &[],
    );
    let out = p.wait_output("listening on ");
    let port: u16 = out
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .expect("a port");
    let log = log_in(root.path(), "server-");
    let text = log.exchange(
        Write::Append,
        &format!(
            "\n```js\n{SPLIT}\nconst a = await fetch('http://127.0.0.1:{port}/api/todos').then((r) => r.json());\n\
             const b = await fetch('http://127.0.0.1:{port}/api/todos', {{ method: 'POST', headers: {{ cookie: 'sid=' + secret }}, body: 'title=x&token=' + secret }});\n\
             [a.length, b.status, daebug.network.last('api').request.body, daebug.network.list({{ url: 'todos' }}).length]\n```\n"
        ),
        1,
    );
    assert!(
        text.contains("```JSON\n[5,422,\"title=x&token=****…a91f\",2]\n```"),
        "{text}"
    );
    let lines = support::network_summary(&text);
    assert!(
        lines.contains(&format!("GET http://127.0.0.1:{port}/api/todos → 200 OK [5 × {{id, title, completed, completedAt}}] (")),
        "{text}"
    );
    assert!(
        lines.contains(&format!("POST http://127.0.0.1:{port}/api/todos title=x&token=****…a91f → 422 Unprocessable Entity {{\"error\":\"bad\",\"got\":")),
        "{text}"
    );
    // The served side of the same requests is its own line.
    assert!(
        text.contains("```Text served\nGET /api/todos → 200 OK"),
        "{text}"
    );
    support::no_file_holds(root.path(), SECRET);
}
