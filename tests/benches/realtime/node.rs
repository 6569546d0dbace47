//! Node processes as realms: save → reply of `1+1` in a Node realm next to
//! a page's, what `--import ./debug/daebug-node.mjs` adds to a process's
//! start-up (to its first line, and to a script that is done), and what it
//! adds to an idle server's memory and CPU; and, for `page_cost`, what it
//! adds to a process's memory after GC.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::bridge::{idle, median_p99};
use super::support::node::{node, NodeProcess};
use super::support::{append, base_of, log_in, Browser, Running, TempDir};
use super::{Row, FOOTER};

const JOBS: usize = 100;
const RUNS: usize = 15;
const SERVER: &str = "const http = require('node:http');\n\
    http.createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1');\n";

/// Save → the reply and the footer on disk, for each of `JOBS` blocks.
fn save_to_reply(log: &Path, stem: &str) -> Vec<Duration> {
    let replies = |t: &str| t.matches(&format!("> **{stem}** to agent at ")).count();
    let mut times = Vec::new();
    for _ in 0..JOBS + 5 {
        let before = replies(&std::fs::read_to_string(log).unwrap_or_default());
        let start = Instant::now();
        append(log, "\n```js\n1+1\n```\n");
        let deadline = start + Duration::from_secs(20);
        loop {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            if replies(&text) > before && text.trim_end().ends_with(FOOTER) {
                times.push(start.elapsed());
                break;
            }
            assert!(Instant::now() < deadline, "no reply in {}", log.display());
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    times.split_off(5)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// `node [--import loader] script` run to its end `RUNS` times: the
/// median of what it printed (`performance.now()` at its first line) and
/// of its wall time.
fn runs(root: &Path, app: &Path, loader: bool) -> (f64, f64) {
    let (mut first, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let mut cmd = Command::new(node(22));
        if loader {
            cmd.arg("--import").arg(root.join("debug/daebug-node.mjs"));
        }
        let start = Instant::now();
        let out = cmd
            .arg("first.js")
            .current_dir(app)
            .stderr(Stdio::null())
            .output()
            .expect("run node");
        wall.push(start.elapsed().as_secs_f64() * 1000.0);
        let printed = String::from_utf8_lossy(&out.stdout);
        first.push(printed.trim().parse::<f64>().expect("a time"));
    }
    (median(first), median(wall))
}

pub fn node_realms(rows: &mut Vec<Row>) {
    let root = TempDir::new("bench-node");
    let app = root.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("server.js"), SERVER).unwrap();
    std::fs::write(app.join("first.js"), "console.log(performance.now());\n").unwrap();
    std::fs::write(
        root.path().join("index.html"),
        "<!doctype html><html><head><title>Page</title></head><body></body></html>",
    )
    .unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));

    let server = NodeProcess::start(&node(22), root.path(), &app, &[], "server.js", &[]);
    let node_log = log_in(root.path(), "server-");
    let _browser = Browser::open(&format!("{base}/index.html"));
    let page_log = log_in(root.path(), "page-");
    let in_node = save_to_reply(&node_log.path, &node_log.stem);
    let in_page = save_to_reply(&page_log.path, &page_log.stem);
    rows.push(Row {
        what: format!("`1+1` save → reply, a Node 22 realm (median / p99 of {JOBS})"),
        value: median_p99(in_node),
        goal: "as a page".into(),
    });
    rows.push(Row {
        what: format!("`1+1` save → reply, a page next to it (median / p99 of {JOBS})"),
        value: median_p99(in_page),
        goal: "—".into(),
    });

    let (first_without, wall_without) = runs(root.path(), &app, false);
    let (first_with, wall_with) = runs(root.path(), &app, true);
    rows.push(Row {
        what: format!(
            "Node start → the script's first line, without / with the loader (median of {RUNS})"
        ),
        value: format!("{first_without:.1} / {first_with:.1} ms"),
        goal: "a few ms added".into(),
    });
    rows.push(Row {
        what: format!("a one-line script, start → end, without / with the loader (median of {RUNS}; with it, the end waits for the log to have its output and exit)"),
        value: format!("{wall_without:.0} / {wall_with:.0} ms"),
        goal: "under 200 ms added".into(),
    });

    let (mb_with, cpu_with) = idle(server.pid());
    drop(server);
    let mut plain = Command::new(node(22))
        .arg("server.js")
        .current_dir(&app)
        .spawn()
        .expect("run node");
    let (mb_without, cpu_without) = idle(plain.id());
    let _ = plain.kill();
    let _ = plain.wait();
    rows.push(Row {
        what: "an idle `http` server over 10 s, RSS / CPU: with the loader (connected) vs without"
            .into(),
        value: format!(
            "{mb_with:.1} MB / {cpu_with:.2} % vs {mb_without:.1} MB / {cpu_without:.2} %"
        ),
        goal: "no CPU when idle".into(),
    });
}

/// A server's `console.log` (outside any block, as a page's request makes
/// it) → its line in the server's log on disk, `LINES` times, without
/// and with the browser bridge (issue 26: 3 s with `--cdp` before).
pub fn node_console(rows: &mut Vec<Row>) {
    for bridge in [false, true] {
        let times = console_to_disk(bridge);
        rows.push(Row {
            what: format!(
                "a Node realm's `console.log` (no block running) → its line on disk, {} `--cdp` (median / p99 of {LINES})",
                if bridge { "with" } else { "without" }
            ),
            value: median_p99(times),
            goal: "within 250 ms, with or without `--cdp`".into(),
        });
    }
}

const LINES: usize = 40;
const LOGGER: &str = "const http = require('node:http');\n\
    const server = http.createServer((q, s) => { console.log('line ' + q.url.slice(1)); s.end('ok'); });\n\
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));\n";

fn console_to_disk(bridge: bool) -> Vec<Duration> {
    let root = TempDir::new("bench-node-console");
    let app = root.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("logger.js"), LOGGER).unwrap();
    let chromium = bridge.then(|| super::support::cdp::DevtoolsBrowser::open("about:blank"));
    let cdp = chromium.as_ref().map(|c| c.devtools_url());
    let mut args = vec!["--port", "0"];
    if let Some(cdp) = &cdp {
        args.extend(["--cdp", cdp.as_str()]);
    }
    let mut hub = Running::start(&args, &root);
    let _ = hub.line_with("serving");
    let server = NodeProcess::start(&node(22), root.path(), &app, &[], "logger.js", &[]);
    let out = server.wait_output("port ");
    let port: u16 = out
        .split("port ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .expect("a port");
    let log = log_in(root.path(), "logger-");
    // Connected: its first line is in the log.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(&log.path)
        .unwrap_or_default()
        .contains("port ")
    {
        assert!(Instant::now() < deadline, "the logger never connected");
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut times = Vec::new();
    for n in 0..LINES + 3 {
        // Paced as clicks are, so each line is a write of its own.
        std::thread::sleep(Duration::from_millis(400));
        let needle = format!("line {n}\n");
        let start = Instant::now();
        {
            use std::io::{Read, Write};
            let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(format!("GET /{n} HTTP/1.0\r\n\r\n").as_bytes())
                .unwrap();
            let mut answer = String::new();
            let _ = s.read_to_string(&mut answer);
        }
        let deadline = start + Duration::from_secs(20);
        loop {
            if std::fs::read_to_string(&log.path)
                .unwrap_or_default()
                .contains(&needle)
            {
                times.push(start.elapsed());
                break;
            }
            assert!(Instant::now() < deadline, "line {n} never reached the log");
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    times.split_off(3)
}

/// Waits for the realm's welcome when the loader is in (its
/// `daebug:welcomed` mark), then a moment for what it sends first, then
/// collects twice and prints `process.memoryUsage()`.
const MEMORY: &str = "const realm = globalThis[Symbol.for('daebug.node')] !== undefined;\n\
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\n\
    const end = Date.now() + 10000;\n\
    while (realm && !performance.getEntriesByName('daebug:welcomed').length && Date.now() < end) await sleep(5);\n\
    await sleep(500);\n\
    gc(); gc();\n\
    // The adapter's instance, from its glue (its `default()` hands back the one it made).\n\
    const wasm = realm ? (await (await globalThis[Symbol.for('daebug.adapter')]).default()).memory.buffer.byteLength : 0;\n\
    console.log('memory ' + JSON.stringify({ connected: realm && performance.getEntriesByName('daebug:welcomed').length > 0, wasm, ...process.memoryUsage() }));\n";
const MEMORY_RUNS: usize = 5;

/// A Node 22 process's memory after GC, without and with
/// `--import daebug-node.mjs` (connected to the hub serving `root`), in
/// turns: heap used, RSS, what lives outside the heap, and the adapter's
/// WebAssembly memory.
pub fn memory_in_node(rows: &mut Vec<Row>, root: &Path) {
    let app = root.join("node-app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("memory.mjs"), MEMORY).unwrap();
    let run = |loader: bool| {
        let mut cmd = Command::new(node(22));
        cmd.arg("--expose-gc");
        if loader {
            cmd.arg("--import").arg(root.join("debug/daebug-node.mjs"));
        }
        let out = cmd
            .arg("memory.mjs")
            .current_dir(&app)
            .env_remove("NODE_OPTIONS")
            .stderr(Stdio::null())
            .output()
            .expect("run node");
        let printed = String::from_utf8_lossy(&out.stdout);
        let line = printed
            .lines()
            .find_map(|l| l.strip_prefix("memory "))
            .unwrap_or_else(|| panic!("no memory line from node: {printed}"));
        let m: serde_json::Value = serde_json::from_str(line).expect("memory JSON");
        assert_eq!(m["connected"], loader, "the realm connected, or not: {m}");
        let mb = |k: &str| m[k].as_f64().unwrap_or(f64::NAN) / 1e6;
        [mb("heapUsed"), mb("rss"), mb("external"), mb("wasm")]
    };
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..MEMORY_RUNS {
        without.push(run(false));
        with.push(run(true));
    }
    let cells = |v: &[[f64; 4]]| {
        let m = |i: usize| median(v.iter().map(|r| r[i]).collect());
        format!("{:.1} / {:.1} / {:.1} MB", m(0), m(1), m(2))
    };
    rows.push(Row {
        what: format!("a Node 22 process's memory after GC, connected: heap used / RSS / external, without → with `--import daebug-node.mjs` (and the adapter's WebAssembly memory) (median of {MEMORY_RUNS})"),
        value: format!(
            "{} → {} (+ {:.1} MB)",
            cells(&without),
            cells(&with),
            median(with.iter().map(|r| r[3]).collect())
        ),
        goal: "—".into(),
    });
}
