//! Node processes as realms: save → reply of `1+1` in a Node realm next to
//! a page's, what `--import ./debug/daebug-node.mjs` adds to a process's
//! start-up (to its first line, and to a script that is done), and what it
//! adds to an idle server's memory and CPU.

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
