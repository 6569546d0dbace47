//! Where the time of a `1+1` through the log file goes: the hub, started
//! with `RUST_LOG=daebug::timing=debug`, logs when its log task heard the
//! change, sent the job, got the result and had the reply written
//! (`server/src/hub/timing.rs`, wall-clock µs); the block reports when it
//! started (the realm's clock, set against the wall clock as in the
//! latency rows); the bench knows when it saved and when it saw the reply.

use super::support::World;
use super::{timed_job, Row, Sample, FOOTER, JOBS, WARM_UP};

/// One job's hub moments, in wall-clock µs (`answered`: a door's call
/// got its answer; 0 for the file).
pub struct HubTimes {
    pub job: u64,
    pub heard: f64,
    pub sent: f64,
    pub result: f64,
    pub written: f64,
    pub answered: f64,
}

/// The timing lines of `stem`'s jobs in the hub's output, in order.
pub fn hub_times(output: &str, stem: &str) -> Vec<HubTimes> {
    let tag = format!("timing stem={stem} ");
    output
        .lines()
        .filter_map(|l| l.split_once(&tag).map(|(_, rest)| rest))
        .map(|rest| {
            let field = |name: &str| timing_field(rest, name);
            HubTimes {
                job: field("job") as u64,
                heard: field("heard"),
                sent: field("sent"),
                result: field("result"),
                written: field("written"),
                answered: field("answered"),
            }
        })
        .collect()
}

/// A hub that logs each job's moments (`server/src/hub/timing.rs`) and
/// each in-process tool call's (`doors/mcp.rs`), and a blank page titled
/// `title` loading its tag. The hub inherits the bench's environment.
pub fn timed_world(title: &str) -> World {
    std::env::set_var("RUST_LOG", "daebug=info,daebug::timing=debug");
    let html =
        format!("<!doctype html><html><head><title>{title}</title></head><body></body></html>");
    let world = World::new(&[("index.html", html.as_str())], "index.html");
    std::env::remove_var("RUST_LOG");
    world
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn where_the_time_goes(rows: &mut Vec<Row>) {
    let world = timed_world("Stages");
    let log = world.log("stages-");
    super::wait_tail(&log.path, |t| t.trim_end().ends_with(FOOTER));
    let samples: Vec<Sample> = (0..WARM_UP + JOBS)
        .map(|n| timed_job(&log.path, &log.stem, n))
        .collect();
    let hub = wait_hub_times(&world, &log.stem, samples.len());
    // The realm's clock against the wall clock (see `medians_of`).
    let offset = samples.iter().map(|s| s.began - s.wall).sum::<f64>() / samples.len() as f64 - 0.5;
    let jobs: Vec<Vec<f64>> = samples
        .iter()
        .zip(hub)
        .skip(WARM_UP)
        .map(|(s, h)| {
            let saved = s.saved * 1000.0;
            let began = (s.began - offset) * 1000.0;
            let seen = saved + s.replied.as_secs_f64() * 1e6;
            vec![
                h.heard - saved,
                h.sent - h.heard,
                began - h.sent,
                h.result - began,
                h.written - h.result,
                seen - h.written,
                seen - saved,
            ]
        })
        .collect();
    let names = [
        "save → the log's task hears the change (inotify, the watcher, the directory)",
        "→ the job sent (read, engine, prepare, the dispatch write)",
        "→ the block starts in the page (WebSocket, the adapter)",
        "→ the result at the log's task (the block, the value's rendering, WebSocket)",
        "→ the reply written (engine, the write)",
        "→ the bench sees it (its poll, every 0.2 ms)",
        "save → reply seen, in all",
    ];
    rows.push(Row {
        what: format!(
            "where the time of a `1+1` goes, through the log file, a page (medians of {JOBS}, µs)"
        ),
        value: stage_cells(&jobs, &names),
        goal: "save → reply ≤ 1.0 ms".into(),
    });
}

/// The last `n` timing lines of `stem`'s jobs in the hub's output. The
/// hub's stderr is read by a thread of its own: the last lines may still
/// be on their way.
pub fn wait_hub_times(world: &World, stem: &str, n: usize) -> Vec<HubTimes> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut hub = loop {
        let hub = hub_times(&world.hub.output(), stem);
        if hub.len() >= n || std::time::Instant::now() > deadline {
            break hub;
        }
        std::thread::sleep(std::time::Duration::from_millis(5)); // the poll's resolution
    };
    assert!(hub.len() >= n, "a timing line a job: {} of {n}", hub.len());
    hub.split_off(hub.len() - n)
}

/// Each stage's median over the jobs (one row of stage durations a job,
/// in µs), named, as a table cell.
pub fn stage_cells(jobs: &[Vec<f64>], names: &[&str]) -> String {
    names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let stage = jobs.iter().map(|j| j[k]).collect();
            format!("{name}: {:.0} µs", median(stage))
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Jobs a mode of [`realm_stages`] measures, after its warm-up.
const REALM_JOBS: usize = 100;
/// The pause before each job when spaced like an agent's turns.
const SPACED: std::time::Duration = std::time::Duration::from_millis(250);

/// The realm's part of a `1+1` in a page, stage by stage: the page (of a
/// server of its own, cross-origin isolated for a fine clock) loads
/// `daebug.js?stages`, so its adapter marks each job's moments
/// (docs/wire-protocol.md, "Stage marks"); the hub logs when it sent the
/// job and got the result (`server/src/hub/timing.rs`). Jobs spaced like
/// an agent's and back to back; beside them a plain WebSocket echo from
/// this bench to the same page (a socket of a blank frame's own, no
/// adapter, no hooks): the floor of the hops the browser owns.
pub fn realm_stages(rows: &mut Vec<Row>) {
    use super::support::{base_of, Browser, Running, TempDir};
    std::env::set_var("RUST_LOG", "daebug=info,daebug::timing=debug");
    let root = TempDir::new("realm");
    let mut hub = Running::start(&["--port", "0"], &root);
    std::env::remove_var("RUST_LOG");
    let base = base_of(&hub.line_with("serving"));
    let page = isolated_page(&format!(
        "<!doctype html><html><head><script src=\"{base}/daebug.js?stages\" crossorigin></script>\
         <title>Realm</title></head><body></body></html>"
    ));
    let browser = Browser::open(&page);
    let world = World {
        root,
        base,
        hub,
        browser,
    };
    let log = world.log("realm-");
    // A page that is not cross-origin isolated reads `performance.now()`
    // in steps of 100 µs; isolated, of 5 µs.
    super::append(
        &log.path,
        "\n```js\n`isolated=${crossOriginIsolated}`\n```\n",
    );
    let said = super::wait_tail(&log.path, |t| {
        t.contains("\"isolated=") && t.trim_end().ends_with(FOOTER)
    });
    assert!(
        said.contains("\"isolated=true\""),
        "the page is not isolated: {said}"
    );
    for (mode, pause) in [
        ("spaced 250 ms, as an agent's", Some(SPACED)),
        ("back to back", None),
    ] {
        let saves: Vec<std::time::Duration> = (0..WARM_UP + REALM_JOBS)
            .map(|_| {
                if let Some(p) = pause {
                    std::thread::sleep(p); // an agent's turn, not a wait for a condition
                }
                super::save_to_reply(&log.path, &log.stem)
            })
            .collect();
        let hub = wait_hub_times(&world, &log.stem, saves.len());
        let marks = realm_marks(&log);
        let offset = marks.iter().map(|m| m[1] - m[2]).sum::<f64>() / marks.len() as f64 - 0.5;
        let jobs: Vec<Vec<f64>> = hub
            .iter()
            .zip(&saves)
            .skip(WARM_UP)
            .filter_map(|(h, save)| {
                let m = marks.iter().find(|m| m[0] as u64 == h.job)?;
                let heard = (m[1] - offset) * 1000.0;
                let inside: f64 = m[3..10].iter().sum();
                let mut row = vec![heard - h.sent];
                row.extend_from_slice(&m[3..10]);
                row.extend([
                    h.result - (heard + inside),
                    inside,
                    h.result - h.sent,
                    save.as_secs_f64() * 1e6,
                ]);
                Some(row)
            })
            .collect();
        assert!(
            jobs.len() * 10 >= REALM_JOBS * 9,
            "the marks of most jobs: {} of {REALM_JOBS}",
            jobs.len()
        );
        let names = [
            "the hub's send → the message in the page (the hub's socket task, WebSocket)",
            "decode",
            "compile (the job started, its function made)",
            "run (the block's promise settled)",
            "render (the value shown)",
            "the job's end (its events, requests and pictures gathered)",
            "encode",
            "send (the socket's `send`)",
            "→ the result at the log's task (WebSocket, the hub's socket task)",
            "inside the realm, in all (message → sent)",
            "**the hub's send → the result back** (the hub's clock)",
            "save → reply on disk (the bench's poll, every 0.2 ms)",
        ];
        rows.push(Row {
            what: format!(
                "the realm's part of a `1+1`, a page, {mode} (medians of {}, µs)",
                jobs.len()
            ),
            value: stage_cells(&jobs, &names),
            goal: "send → result ≤ 350 µs; save → reply ≤ 1.0 ms".into(),
        });
    }
    echo(&world, rows);
}

/// The rows the page's adapter kept (`[job, heard, Date.now(), µs of
/// each stage]`), read by a block and taken away.
fn realm_marks(log: &super::support::Log) -> Vec<Vec<f64>> {
    super::append(
        &log.path,
        "\n```js\n'stages:' + globalThis[Symbol.for('daebug.stages')].splice(0).map((r) => r.join(',')).join(';')\n```\n",
    );
    let text = super::wait_tail(&log.path, |t| {
        t.contains("\"stages:") && t.trim_end().ends_with(FOOTER)
    });
    let at = text.rfind("\"stages:").expect("the marks") + "\"stages:".len();
    let line = &text[at..at + text[at..].find('"').expect("the string's end")];
    line.split(';')
        .filter(|r| !r.is_empty())
        .map(|r| r.split(',').filter_map(|x| x.parse().ok()).collect())
        .filter(|r: &Vec<f64>| r.len() == 10)
        .collect()
}

/// A plain WebSocket echo between this bench and the page: a blank
/// frame's own `WebSocket` (no adapter's hooks) sends back what it gets.
fn echo(world: &World, rows: &mut Vec<Row>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the echo's port");
    let port = listener.local_addr().expect("its address").port();
    let log = world.log("realm-");
    super::append(
        &log.path,
        &format!(
            "\n```js\nconst frame = document.body.appendChild(document.createElement('iframe'));\n\
             const ws = new frame.contentWindow.WebSocket('ws://127.0.0.1:{port}');\n\
             ws.onmessage = (e) => ws.send(e.data);\n\
             await new Promise((r) => (ws.onopen = r));\n'echo open'\n```\n"
        ),
    );
    let (stream, _) = listener.accept().expect("the page's socket");
    stream.set_nodelay(true).expect("no delay");
    let mut ws = tungstenite::accept(stream).expect("the handshake");
    super::wait_tail(&log.path, |t| {
        t.contains("\"echo open\"") && t.trim_end().ends_with(FOOTER)
    });
    let mut cells = Vec::new();
    for (mode, pause) in [("spaced 250 ms", Some(SPACED)), ("back to back", None)] {
        let times: Vec<f64> = (0..WARM_UP + REALM_JOBS)
            .map(|n| {
                if let Some(p) = pause {
                    std::thread::sleep(p); // as the jobs are spaced
                }
                let start = std::time::Instant::now();
                ws.send(tungstenite::Message::text(format!("{n}")))
                    .expect("send");
                loop {
                    if let tungstenite::Message::Text(_) = ws.read().expect("the echo") {
                        break;
                    }
                }
                start.elapsed().as_secs_f64() * 1e6
            })
            .skip(WARM_UP)
            .collect();
        cells.push(format!("{mode}: {:.0} µs", median(times)));
    }
    rows.push(Row {
        what: format!(
            "a plain WebSocket echo, the bench ↔ the page (no adapter; medians of {REALM_JOBS}, µs)"
        ),
        value: cells.join("<br>"),
        goal: "the floor of the browser's hops".into(),
    });
}

/// A page of its own server, cross-origin isolated (COOP `same-origin`,
/// COEP `credentialless`), so its clock reads in steps of 5 µs; the hub's
/// script loads into it with CORS.
fn isolated_page(html: &str) -> String {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the page's port");
    let url = format!("http://{}/", listener.local_addr().expect("its address"));
    let html = html.to_string();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\
                 Cross-Origin-Opener-Policy: same-origin\r\n\
                 Cross-Origin-Embedder-Policy: credentialless\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    url
}

/// The number a hub timing line gives `name` (`name=12.5`), 0 when absent.
pub fn timing_field(rest: &str, name: &str) -> f64 {
    rest.split_whitespace()
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// Jobs [`log_growth`] runs through one log.
const GROWTH_JOBS: usize = 300;
/// The jobs at each end it compares.
const GROWTH_ENDS: usize = 50;

/// Whether a log's cost follows the jobs it has run: 300 `1+1`s through
/// the HTTP API (kept alive, back to back) into one page's log, and the
/// log task's two stages (heard → the job sent, the result → the reply
/// written) for the first 50 against the last 50. The engine remembers a
/// log's last 128 blocks (`server/core/src/engine/ledger.rs`) and the
/// shell snapshots the engine before each run: while the blocks' texts
/// were copied into each snapshot, both stages nearly doubled by job 300.
pub fn log_growth(rows: &mut Vec<Row>) {
    let world = timed_world("Growth");
    let log = world.log("growth-");
    let url = format!("{}/api/realms/{}/eval", world.base, log.stem);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let http = reqwest::Client::new();
    for _ in 0..GROWTH_JOBS {
        rt.block_on(async {
            let reply: serde_json::Value = http
                .post(&url)
                .json(&serde_json::json!({"code": "1+1"}))
                .send()
                .await
                .expect("POST eval")
                .json()
                .await
                .expect("JSON");
            let text = reply["text"].as_str().unwrap_or_default();
            assert!(text.contains("```JSON\n2\n```"), "{reply}");
        });
    }
    let hub = wait_hub_times(&world, &log.stem, GROWTH_JOBS);
    let stages = |jobs: &[HubTimes]| {
        let sent = median(jobs.iter().map(|h| h.sent - h.heard).collect());
        let written = median(jobs.iter().map(|h| h.written - h.result).collect());
        (sent, written)
    };
    let (first_sent, first_written) = stages(&hub[..GROWTH_ENDS]);
    let (last_sent, last_written) = stages(&hub[GROWTH_JOBS - GROWTH_ENDS..]);
    let size = std::fs::metadata(&log.path).map_or(0, |m| m.len());
    rows.push(Row {
        what: format!(
            "a log's cost against the jobs it ran: {GROWTH_JOBS} `1+1`s through the HTTP API into one page's log; \
             the log task's stages, jobs 1–{GROWTH_ENDS} / {}–{GROWTH_JOBS} (medians, µs)",
            GROWTH_JOBS - GROWTH_ENDS + 1
        ),
        value: format!(
            "heard → the job sent: {first_sent:.0} / {last_sent:.0} µs<br>\
             the result → the reply written: {first_written:.0} / {last_written:.0} µs<br>\
             the log at the end: {:.0} KB",
            size as f64 / 1024.0
        ),
        goal: "the last jobs' stages within 1.5× the first's".into(),
    });
}
