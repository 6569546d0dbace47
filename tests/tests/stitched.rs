//! Page and server stitched (docs/log-format.md, "Page and server"): a
//! page's request to its own origin, served by a Node realm, carries
//! `daebug-cause`; the page's line links the server's log, the server's
//! line links the page's, and what the server printed or threw while
//! serving it follows its line. Real hub, headless Chromium, a real Node 22
//! server: plain `http` and Express 5 (skipped when npm cannot install
//! it).

mod support;

use std::time::{SystemTime, UNIX_EPOCH};

use support::node::{install_express, node, NodeProcess};
use support::{
    base_of, log_in, network_summary, wait_for, write_files, Browser, Engine, Log, Running,
    TempDir, Write,
};

/// The page the server serves: the hub's tag, a request of its own at
/// load (answered 200: in neither log), a module worker and a button
/// that posts an order.
const PAGE: &str = r#"<!doctype html><html><head><title>Orders</title>
<script src="HUB/daebug.js"></script>
<script>fetch("/api/ping"); new Worker("/worker.js", { type: "module", name: "pricer" });</script></head><body><h1>Orders</h1>
<button id=order onclick="fetch('/api/orders', { method: 'POST', body: JSON.stringify({ sku: 7 }) })">Order</button></body></html>"#;

/// The worker, with the README's line.
const WORKER: &str = r#"import("HUB/daebug.js").catch(() => {});"#;

/// A plain `http` server: `/api/orders` prints, then answers 500.
const PLAIN: &str = r#"const http = require("node:http");
const page = require("node:fs").readFileSync(__dirname + "/index.html", "utf8");
const server = http.createServer((req, res) => {
  if (req.url === "/") {
    res.setHeader("content-type", "text/html");
    return res.end(page);
  }
  if (req.url === "/api/ping") {
    console.log("ping from the page");
    return res.end("pong");
  }
  if (req.url === "/worker.js") {
    res.setHeader("content-type", "text/javascript");
    return res.end(require("node:fs").readFileSync(__dirname + "/worker.js"));
  }
  if (req.url !== "/api/orders") {
    res.statusCode = 404;
    return res.end();
  }
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    console.log("pricing order", body);
    setTimeout(() => {
      console.error("no price for sku", JSON.parse(body).sku);
      res.statusCode = 500;
      res.end("no price for sku " + JSON.parse(body).sku);
      process.stdout.write("answered at " + Date.now() + "\n");
    }, 5);
  });
});
server.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
"#;

/// Express 5: the route throws; Express's own handler prints the error
/// and answers 500.
const EXPRESS: &str = r#"const express = require("express");
const app = express();
app.get("/", (req, res) => res.sendFile(__dirname + "/index.html"));
app.get("/api/ping", (req, res) => {
  console.log("ping from the page");
  res.send("pong");
});
app.post("/api/orders", express.json(), (req, res) => {
  console.log("pricing order", JSON.stringify(req.body));
  throw new Error("no price for sku " + req.body.sku);
});
const server = app.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port));
"#;

struct World {
    root: TempDir,
    _hub: Running,
    hub: String,
}

impl World {
    fn new(files: &[(&str, &str)]) -> World {
        let root = TempDir::new("stitched");
        let mut hub = Running::start(&["--port", "0"], &root);
        let base = base_of(&hub.line_with("serving"));
        let page = PAGE.replace("HUB", &base);
        let worker = WORKER.replace("HUB", &base);
        let mut all = vec![
            ("index.html", page.as_str()),
            ("worker.js", worker.as_str()),
        ];
        all.extend_from_slice(files);
        write_files(&root.path().join("app"), &all);
        wait_for(
            &root.path().join("debug/daebug-node.mjs"),
            "the Node loader",
            |t| t.contains(&base),
        );
        World {
            root,
            _hub: hub,
            hub: base,
        }
    }

    /// The server on Node 22, and its port.
    fn serve(&self) -> (NodeProcess, u16) {
        let app = self.root.path().join("app");
        let p = NodeProcess::start(&node(22), self.root.path(), &app, &[], "server.js", &[]);
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

/// Appends one block and returns its reply.
fn run(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").expect("a reply")..].to_string()
}

/// The page's block posts an order; both logs show their side, linked.
/// Returns the browser (the page stays open while it lives).
#[must_use]
fn order_is_stitched_in(engine: Engine, world: &World, port: u16, printed: &[&str]) -> Browser {
    let browser = Browser::open_in(engine, &format!("http://127.0.0.1:{port}/"));
    let page = log_in(world.root.path(), "orders-");
    let server = log_in(world.root.path(), "server-");
    assert!(world.hub.starts_with("http://127.0.0.1:"));

    let reply = run(
        &page,
        "const r = await fetch('/api/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sku: 42 }) });\nr.status",
    );
    assert!(reply.contains("```JSON\n500\n```"), "{reply}");
    let lines = network_summary(&reply);
    let start = format!(
        "POST http://127.0.0.1:{port}/api/orders {{\"sku\":42}} → 500 Internal Server Error"
    );
    let line = lines
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("{reply}"));
    let link = format!(" · server: [{} ", server.stem);
    assert!(
        line.contains(" ⟵ <cell>:1") && line.contains(&link),
        "{line}"
    );
    assert!(line.contains(&format!("]({}.md)", server.stem)), "{line}");

    let from = format!(" · from [{} ", page.stem);
    let text = wait_for(&server.path, "the served line", |t| t.contains(&from));
    let at = text
        .find("```Text served\nPOST /api/orders {\"sku\":42} → 500 Internal Server Error")
        .unwrap_or_else(|| panic!("{text}"));
    let served = text[at..].lines().nth(1).unwrap();
    assert!(served.contains(&format!("]({}.md)", page.stem)), "{served}");
    // What it printed while serving it, after its line, in order.
    let mut after = at;
    for p in printed {
        let i = text[after..]
            .find(p)
            .unwrap_or_else(|| panic!("{p} after the served line in\n{text}"));
        after += i;
    }
    // The page's own request at load answered 200: no line on either side,
    // and what the server printed for it is there as it came.
    assert!(!text.contains("GET /api/ping"), "{text}");
    assert!(!page.text().contains("/api/ping"), "{}", page.text());
    wait_for(&server.path, "the ping's print", |t| {
        t.contains("ping from the page")
    });
    browser
}

#[test]
fn a_plain_http_servers_answer_is_joined_to_the_pages_request() {
    plain(Engine::Chromium);
}

#[test]
fn in_firefox_too() {
    plain(Engine::Firefox);
}

#[test]
fn in_webkit_too() {
    plain(Engine::WebKit);
}

fn plain(engine: Engine) {
    let world = World::new(&[("server.js", PLAIN)]);
    let (server, port) = world.serve();
    let _page = order_is_stitched_in(
        engine,
        &world,
        port,
        &[
            "```Text console.log\npricing order {\"sku\":42}",
            "```Error console.error\nno price for sku 42",
        ],
    );

    // The time from the server's answer to the page's line on disk, for a
    // request a block's timer makes after the block ended (a line of its
    // own).
    let page = log_in(world.root.path(), "orders-");
    run(&page, "setTimeout(() => fetch('/api/orders', { method: 'POST', body: JSON.stringify({ sku: 7 }) }), 100);\n'later'");
    let text = wait_for(&page.path, "the timer's stitched line", |t| {
        t.lines()
            .any(|l| !l.starts_with('[') && l.contains("{\"sku\":7} → 500"))
    });
    let seen = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let answered: u128 = server
        .output()
        .split("answered at ")
        .last()
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the answer's time");
    let line = text
        .lines()
        .find(|l| !l.starts_with('[') && l.contains("{\"sku\":7} → 500"))
        .unwrap();
    assert!(
        line.contains(" · from the block at ") && line.contains(" · server: ["),
        "{line}"
    );
    eprintln!(
        "{}: stitched line on disk {} ms after the server's answer",
        engine.name(),
        seen.saturating_sub(answered)
    );

    // A worker's request is joined too.
    let worker = log_in(world.root.path(), "pricer-");
    let reply = run(
        &worker,
        "const r = await fetch('/api/orders', { method: 'POST', body: JSON.stringify({ sku: 9 }) });\nr.status",
    );
    let lines = network_summary(&reply);
    assert!(
        lines.contains("{\"sku\":9} → 500 Internal Server Error no price for sku 9 (")
            && lines.contains(" · server: ["),
        "{reply}"
    );
    let server_log = log_in(world.root.path(), "server-");
    wait_for(&server_log.path, "the worker's served line", |t| {
        t.contains("{\"sku\":9} → 500 Internal Server Error no price for sku 9 (")
            && t.contains(&format!(" · from [{} ", worker.stem))
    });
}

/// A block's action makes the page post; its reply has what the server
/// did serving it (the served line, what it printed meanwhile), named by
/// the server's log and linked; the page's own request at load is not.
#[test]
fn a_blocks_click_shows_in_its_reply_what_the_server_did() {
    let world = World::new(&[("server.js", PLAIN)]);
    let (_server, port) = world.serve();
    let _browser = Browser::open_in(Engine::Chromium, &format!("http://127.0.0.1:{port}/"));
    let page = log_in(world.root.path(), "orders-");
    let server = log_in(world.root.path(), "server-");
    let reply = run(&page, "await daebug.click('text=Order')");
    let served = format!(
        "```Text served\n[{0}]({0}.md) served POST /api/orders {{\"sku\":7}} → 500 Internal Server Error",
        server.stem
    );
    assert!(reply.contains(&served), "{reply}");
    assert!(
        reply.contains(
            "\n  console.log pricing order {\"sku\":7}\n  console.error no price for sku 7\n"
        ),
        "{reply}"
    );
    assert!(!reply.contains("/api/ping"), "{reply}");
    // The server's own log has its line once, as before.
    let text = wait_for(&server.path, "the served line", |t| {
        t.contains(&format!(" · from [{} ", page.stem))
    });
    assert_eq!(
        text.matches("POST /api/orders {\"sku\":7}").count(),
        1,
        "{text}"
    );
    assert!(!text.contains("\"to\":"), "{text}");
}

#[test]
fn an_express_servers_error_is_grouped_under_its_line() {
    let world = World::new(&[
        ("server.js", EXPRESS),
        ("package.json", r#"{"name":"app","private":true}"#),
    ]);
    if install_express(&world.root.path().join("app")).is_none() {
        return;
    }
    let (_server, port) = world.serve();
    let _page = order_is_stitched_in(
        Engine::Chromium,
        &world,
        port,
        &["pricing order {\"sku\":42}", "Error: no price for sku 42"],
    );
}
