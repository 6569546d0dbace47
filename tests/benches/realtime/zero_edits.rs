//! Zero edits (docs/zero-edits.md): from a command to the first reply, for
//! each way daebug reaches an app it did not touch, on the fresh Vite 7 +
//! Express 5 app of `tests/zero_edits.rs` (`support/fresh_app.rs`), beside
//! chrome-devtools-mcp from its start to its first `evaluate_script`
//! answer; what the one command's proxy adds to that app's page load; the
//! npm tarballs' sizes with the release hub. Skipped, saying why, when npm
//! cannot install the app or the peer.
//!
//! Each path is timed from the spawn of its command to `1+1`'s reply on
//! disk in the realm's log (appended as soon as the log is listed and
//! idle, as an agent watching `debug.md` would), in one headless Chromium
//! already open (a person's browser) that goes to the app's URL once it
//! answers. Between runs everything is stopped and `debug/` removed.

use std::io::{BufRead, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::page_cost::{load, Load};
use super::stages::median;
use super::support::cdp::DevtoolsBrowser;
use super::support::fresh_app::{self, Group, Tools};
use super::support::node::node;
use super::support::{daebug_bin, log_in, wait_for, Log, TempDir, Write};
use super::Row;

/// Runs per path (a median of 5), page loads per way (a median of 20).
const RUNS: usize = 5;
const LOADS: usize = 20;
const WARM_UP: usize = 2;
/// How long a dev server may take to start on a busy machine.
const START: Duration = Duration::from_secs(120);
/// The peer, pinned, installed under `target/peers/`.
const PEER: &str = "chrome-devtools-mcp@1.11.0";

pub fn zero_edits(rows: &mut Vec<Row>) {
    let skipped = |rows: &mut Vec<Row>, why: &str| {
        println!("skipped: zero_edits: {why}");
        rows.push(Row {
            what: "zero edits: command → first reply".into(),
            value: format!("skipped: {why}"),
            goal: "—".into(),
        });
    };
    let Some(tools) = fresh_app::daebug_from_npm(daebug_bin()) else {
        return skipped(rows, "npm could not pack or install daebug");
    };
    rows.push(tarball_sizes(&tools));
    let app = TempDir::new("bench-zero-edits");
    if fresh_app::write_app(app.path()).is_none() {
        return skipped(rows, "npm could not install the app (vite, express)");
    }
    let ports = Ports::new();
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let mut timed: Vec<(String, Vec<f64>)> = Vec::new();

    timed.push((
        "the one command: `npx daebug --root . --proxy http://localhost:5173 -- npm run dev` (nothing running before), to the page's reply".into(),
        runs(|| one_command(&tools, app.path(), &ports, &mut chromium)),
    ));
    {
        // The app's own `npm run dev` already running: the hub alone.
        let dev = ports.dev(app.path());
        timed.push((
            "`--proxy` alone: `npx daebug --root . --proxy http://localhost:5173` (`npm run dev` already running), to the page's reply".into(),
            runs(|| proxy_alone(&tools.bin(), app.path(), &ports, &mut chromium)),
        ));
        timed.push((
            "the cargo-built binary started directly: `target/release/daebug --root . --proxy http://localhost:5173` (`npm run dev` already running), to the page's reply".into(),
            runs(|| proxy_alone(daebug_bin(), app.path(), &ports, &mut chromium)),
        ));
        rows.push(proxy_cost(app.path(), &ports, &mut chromium));
        drop(dev);
    }
    timed.push((
        "`daebug run -- npm run dev` (the hub already running), to the Express server's reply"
            .into(),
        runs(|| daebug_run(app.path(), &ports)),
    ));
    match vite_plugin_app(&tools) {
        Some(plugin_app) => timed.push((
            "the Vite plugin: `npx vite` with `plugins: [daebug()]` (it starts the hub), to the page's reply".into(),
            runs(|| vite_plugin(plugin_app.path(), &ports, &mut chromium)),
        )),
        None => println!("skipped: the Vite plugin's row (npm could not install it)"),
    }
    match peer() {
        Ok(peer) => timed.push((
            format!("peer: `npx {PEER} --headless --isolated` (it launches its Chromium) from its start to its first `evaluate_script` answer of `1+1` (initialize, `list_pages`, `evaluate_script` over stdio JSON-RPC)"),
            runs(|| peer_first_answer(&peer)),
        )),
        Err(why) => println!("skipped: {PEER}: {why}"),
    }
    drop(chromium);
    for (what, ms) in timed {
        let mut sorted = ms.clone();
        sorted.sort_by(f64::total_cmp);
        rows.push(Row {
            what: format!("zero edits, command → first reply (median of {RUNS}): {what}"),
            value: format!(
                "{:.0} ms (runs: {})",
                median(ms),
                sorted
                    .iter()
                    .map(|m| format!("{m:.0}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            goal: "—".into(),
        });
    }
}

/// Each path's times, in ms.
fn runs(mut one: impl FnMut() -> f64) -> Vec<f64> {
    (0..RUNS).map(|_| one()).collect()
}

/// The fixed ports of the bench: the hub's, Vite's, the API's.
struct Ports {
    hub: u16,
    vite: u16,
    api: u16,
}

impl Ports {
    fn new() -> Ports {
        Ports {
            hub: fresh_app::free_port(),
            vite: fresh_app::free_port(),
            api: fresh_app::free_port(),
        }
    }

    fn env(&self) -> Vec<(String, String)> {
        fresh_app::dev_env(self.vite, self.api)
    }

    fn hub_url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.hub)
    }

    fn proxy(&self) -> String {
        format!("http://localhost:{}", self.vite)
    }

    /// The app's own `npm run dev`, once Vite and the API are up.
    fn dev(&self, app: &Path) -> Group {
        let dev = Group::start(
            Command::new("npm")
                .args(["run", "dev"])
                .current_dir(app)
                .envs(self.env()),
        );
        dev.wait_output("ready in", START);
        dev.wait_output(&format!("api on {}", self.api), START);
        dev
    }
}

/// A fresh start: no logs, no registry.
fn clean(root: &Path) {
    let _ = std::fs::remove_dir_all(root.join("debug"));
    let _ = std::fs::remove_file(root.join("debug.md"));
}

/// `1+1` in the log whose stem starts with `prefix` once it is listed and
/// idle; the time since `t0`, in ms.
fn first_reply(root: &Path, prefix: &str, t0: Instant) -> f64 {
    let log: Log = log_in(root, prefix);
    let text = log.exchange(Write::Append, "\n```js\n1+1\n```\n", 1);
    assert!(text.contains("```JSON\n2\n```"), "{text}");
    t0.elapsed().as_secs_f64() * 1000.0
}

/// Waits until `url` answers 200 (the hub serves the app), then opens it.
fn open_when_served(chromium: &mut DevtoolsBrowser, url: &str) {
    let end = Instant::now() + START;
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    loop {
        if let Ok(mut s) = std::net::TcpStream::connect(&addr) {
            use std::io::Read as _;
            let _ = write!(
                s,
                "GET / HTTP/1.1\r\nHost: {addr}\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
            );
            let mut head = [0u8; 12];
            if s.read_exact(&mut head).is_ok() && &head[9..12] == b"200" {
                break;
            }
        }
        assert!(Instant::now() < end, "{url} never served the app");
        // Nothing to block on until the server listens: the poll interval
        // of this bounded wait.
        std::thread::sleep(Duration::from_millis(10));
    }
    chromium.navigate(url);
}

fn one_command(tools: &Tools, app: &Path, ports: &Ports, chromium: &mut DevtoolsBrowser) -> f64 {
    clean(app);
    chromium.navigate("about:blank");
    let t0 = Instant::now();
    let mut run = Group::start(
        Command::new(tools.bin())
            .args(["--root", ".", "--port", &ports.hub.to_string()])
            .args(["--proxy", &ports.proxy(), "--", "npm", "run", "dev"])
            .current_dir(app)
            .envs(ports.env()),
    );
    open_when_served(chromium, &ports.hub_url());
    let ms = first_reply(app, "shop-", t0);
    chromium.navigate("about:blank");
    run.signal("INT", true);
    ms
}

fn proxy_alone(bin: &Path, app: &Path, ports: &Ports, chromium: &mut DevtoolsBrowser) -> f64 {
    clean(app);
    chromium.navigate("about:blank");
    let t0 = Instant::now();
    let mut hub = Group::start(
        Command::new(bin)
            .args(["--root", ".", "--port", &ports.hub.to_string()])
            .args(["--proxy", &ports.proxy()])
            .current_dir(app),
    );
    open_when_served(chromium, &ports.hub_url());
    let ms = first_reply(app, "shop-", t0);
    chromium.navigate("about:blank");
    hub.signal("INT", true);
    ms
}

fn daebug_run(app: &Path, ports: &Ports) -> f64 {
    clean(app);
    // The hub already running (started before the clock).
    let mut hub = Group::start(
        Command::new(daebug_bin())
            .args(["--root", ".", "--port", &ports.hub.to_string()])
            .current_dir(app),
    );
    hub.wait_output("serving", START);
    wait_for(&app.join("debug/daebug-node.mjs"), "the Node loader", |t| {
        !t.is_empty()
    });
    let t0 = Instant::now();
    let mut run = Group::start(
        Command::new(daebug_bin())
            .args(["run", "--", "npm", "run", "dev"])
            .current_dir(app)
            .envs(ports.env()),
    );
    let ms = first_reply(app, "server-", t0);
    run.signal("INT", true);
    hub.signal("INT", true);
    ms
}

/// The app with `daebug/vite` in its Vite config and daebug installed
/// from the tarballs (an edit of one file, the plugin's recipe).
fn vite_plugin_app(tools: &Tools) -> Option<TempDir> {
    let app = TempDir::new("bench-zero-edits-plugin");
    fresh_app::write_app(app.path())?;
    let mut args = vec!["install".to_string()];
    args.extend(tools.tarballs.iter().map(|t| t.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fresh_app::npm(app.path(), &args)?;
    Some(app)
}

fn vite_plugin(app: &Path, ports: &Ports, chromium: &mut DevtoolsBrowser) -> f64 {
    clean(app);
    std::fs::write(
        app.join("vite.config.js"),
        format!(
            "import daebug from 'daebug/vite';\nexport default {{ plugins: [daebug({{ port: {} }})], server: {{ port: {}, strictPort: true }} }};\n",
            ports.hub, ports.vite
        ),
    )
    .unwrap();
    chromium.navigate("about:blank");
    let t0 = Instant::now();
    let mut vite = Group::start(
        Command::new(app.join("node_modules/.bin/vite"))
            .current_dir(app)
            .envs(ports.env()),
    );
    let url = format!("http://localhost:{}/", ports.vite);
    open_when_served(chromium, &url);
    let ms = first_reply(app, "shop-", t0);
    chromium.navigate("about:blank");
    vite.signal("INT", true);
    ms
}

/// What the one command's proxy adds to the app's page load: the page
/// straight from Vite (no daebug) and through the hub (the tag, the
/// adapter, the worker's loader line), in turns.
fn proxy_cost(app: &Path, ports: &Ports, chromium: &mut DevtoolsBrowser) -> Row {
    clean(app);
    let mut hub = Group::start(
        Command::new(daebug_bin())
            .args(["--root", ".", "--port", &ports.hub.to_string()])
            .args(["--proxy", &ports.proxy()])
            .current_dir(app),
    );
    open_when_served(chromium, &ports.hub_url());
    let direct = format!("http://localhost:{}/", ports.vite);
    let (mut straight, mut through) = (Vec::new(), Vec::new());
    for n in 0..WARM_UP + LOADS {
        let a = load(chromium, &direct, false);
        let b = load(chromium, &ports.hub_url(), true);
        if n >= WARM_UP {
            straight.push(a);
            through.push(b);
        }
    }
    chromium.navigate("about:blank");
    hub.signal("INT", true);
    let of = |v: &[Load]| median(v.iter().map(|l| l.load).collect());
    let added = median(
        straight
            .iter()
            .zip(&through)
            .map(|(a, b)| b.load - a.load)
            .collect(),
    );
    let welcomed = median(
        through
            .iter()
            .map(|l| l.tag.as_ref().map_or(f64::NAN, |t| t.welcomed))
            .collect(),
    );
    Row {
        what: format!("zero edits, the one command's page load: the Vite 7 app (a page, a module worker), load event straight from Vite without daebug → through the hub's `--proxy` with the tag (medians of {LOADS} loads each, in turns, cache revalidated; what daebug adds, the median of the pairs' differences; the hub's welcome)"),
        value: format!(
            "{:.1} ms → {:.1} ms; {added:+.1} ms; welcome at {welcomed:.1} ms",
            of(&straight),
            of(&through)
        ),
        goal: "—".into(),
    }
}

/// The npm tarballs' sizes (`scripts/npm-pack.sh` with the release hub).
fn tarball_sizes(tools: &Tools) -> Row {
    let mut sizes: Vec<String> = tools
        .tarballs
        .iter()
        .map(|t| {
            let name = t.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::metadata(t).map(|m| m.len()).unwrap_or(0);
            format!("{name} {:.2} MB ({bytes} B)", bytes as f64 / 1e6)
        })
        .collect();
    sizes.sort();
    let binary = std::fs::metadata(daebug_bin()).map_or(0, |m| m.len());
    Row {
        what: "npm tarballs, `scripts/npm-pack.sh target/release/daebug` (`npx daebug` downloads both)".into(),
        value: format!(
            "{}; the binary unpacked {:.1} MB",
            sizes.join(", "),
            binary as f64 / 1e6
        ),
        goal: "—".into(),
    }
}

/// chrome-devtools-mcp's entry script, installed (pinned) under
/// `target/peers/`.
fn peer() -> Result<std::path::PathBuf, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/peers/chrome-devtools-mcp");
    let script = dir.join("node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js");
    if !script.is_file() {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::write(
            dir.join("package.json"),
            r#"{"name":"peers","private":true}"#,
        )
        .map_err(|e| e.to_string())?;
        fresh_app::npm(&dir, &["install", PEER]).ok_or("npm could not install it")?;
    }
    Ok(script)
}

/// From the peer's spawn to its first `evaluate_script` answer, in ms.
fn peer_first_answer(script: &Path) -> f64 {
    let profile = TempDir::new("bench-peer");
    let t0 = Instant::now();
    let mut child = Command::new(node(22))
        .arg(script)
        .args(["--headless", "--isolated", "--no-usage-statistics"])
        .args(["--executablePath", "/usr/bin/chromium"])
        .args(
            super::support::CHROMIUM_FLAGS
                .iter()
                .filter(|f| **f != "--headless")
                .map(|f| format!("--chromeArg={f}")),
        )
        .env("HOME", profile.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chrome-devtools-mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").expect("write to the peer");
        stdin.flush().unwrap();
    };
    let mut answer = |id: u64| -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            let n = stdout.read_line(&mut line).expect("read the peer");
            assert!(n > 0, "the peer ended before answering {id}");
            if let Ok(m) = serde_json::from_str::<Value>(&line) {
                if m["id"] == id {
                    return m;
                }
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "daebug-bench", "version": "1"}}}),
    );
    answer(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "list_pages", "arguments": {}}}));
    let pages = answer(2);
    // "## Pages\n1: about:blank [selected]"
    let text = pages["result"]["content"][0]["text"].as_str().unwrap_or("");
    let page: u64 = text
        .lines()
        .find_map(|l| l.split_once(':').and_then(|(n, _)| n.trim().parse().ok()))
        .unwrap_or_else(|| panic!("no page in {pages}"));
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "evaluate_script", "arguments": {"function": "() => 1+1", "pageId": page}}}));
    let reply = answer(3);
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    let text = reply["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("2"), "{reply}");
    let _ = child.kill();
    let _ = child.wait();
    ms
}
