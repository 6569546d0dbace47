//! The browser bridge (`--cdp`): how long `daebug.screenshot()` takes
//! (save → reply with the picture on disk, an element and the whole
//! page), and what the bridge costs the hub when nothing happens (memory
//! and CPU over 10 s, one page connected, against the same hub without
//! `--cdp`).

use std::path::Path;
use std::time::{Duration, Instant};

use super::support::cdp::DevtoolsBrowser;
use super::support::{append, base_of, log_in, Log, Running, TempDir};
use super::{command_line, cpu_ticks, ms, rss_kb, Row, FOOTER};

const PAGE: &str = "<!doctype html><html><head><title>Shots</title></head><body>\
    <div id=box style=\"width:300px;height:200px;background:linear-gradient(90deg,red,blue)\"></div>\
    <p>the rest of the page</p></body></html>";
const SHOTS: usize = 30;

/// A hub (with the bridge or not) over a page in a Chromium with DevTools.
fn connected(bridge: bool) -> (DevtoolsBrowser, Running, TempDir, Log) {
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let root = TempDir::new("bench-bridge");
    std::fs::write(root.path().join("index.html"), PAGE).unwrap();
    let cdp = chromium.devtools_url();
    let mut args = vec!["--port", "0"];
    if bridge {
        args.extend(["--cdp", cdp.as_str()]);
    }
    let mut hub = Running::start(&args, &root);
    let base = base_of(&hub.line_with("serving"));
    chromium.navigate(&format!("{base}/index.html"));
    let log = log_in(root.path(), "shots-");
    (chromium, hub, root, log)
}

/// A process's resident memory (MB) and CPU share over 10 quiet seconds.
pub fn idle(pid: u32) -> (f64, f64) {
    let before = cpu_ticks(pid);
    let span = Duration::from_secs(10);
    std::thread::sleep(span); // the idle period measured, not a wait
    let ticks = cpu_ticks(pid).saturating_sub(before);
    let per_second = command_line("getconf", &["CLK_TCK"])
        .parse::<f64>()
        .unwrap_or(100.0);
    (
        rss_kb(pid) as f64 / 1024.0,
        100.0 * ticks as f64 / per_second / span.as_secs_f64(),
    )
}

/// Save → the reply with its picture line on disk.
fn save_to_shot(log: &Path, stem: &str, code: &str) -> Duration {
    let replies = |t: &str| t.matches(&format!("> **{stem}** to agent at ")).count();
    let before = replies(&std::fs::read_to_string(log).unwrap_or_default());
    let start = Instant::now();
    append(log, &format!("\n```js\n{code}\n```\n"));
    let deadline = start + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if replies(&text) > before && text.trim_end().ends_with(FOOTER) {
            let reply = &text[text.rfind("> **agent** to ").unwrap_or(0)..];
            assert!(reply.contains("![screenshot "), "no picture:\n{reply}");
            return start.elapsed();
        }
        assert!(Instant::now() < deadline, "no reply in {}", log.display());
        std::thread::sleep(Duration::from_micros(200));
    }
}

pub fn median_p99(mut times: Vec<Duration>) -> String {
    times.sort();
    let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
    format!("{} / {}", ms(times[times.len() / 2]), ms(p99))
}

pub fn bridge(rows: &mut Vec<Row>) {
    let (without_mb, without_cpu) = {
        let (_chromium, hub, _root, _log) = connected(false);
        idle(hub.pid())
    };
    let (_chromium, hub, _root, log) = connected(true);
    // One screenshot first: the bridge finds the page then.
    save_to_shot(&log.path, &log.stem, "await daebug.screenshot('#box')");
    let (with_mb, with_cpu) = idle(hub.pid());
    let element: Vec<Duration> = (0..SHOTS)
        .map(|_| save_to_shot(&log.path, &log.stem, "await daebug.screenshot('#box')"))
        .collect();
    let page: Vec<Duration> = (0..SHOTS)
        .map(|_| save_to_shot(&log.path, &log.stem, "await daebug.screenshot()"))
        .collect();
    rows.push(Row {
        what: format!("`daebug.screenshot('#box')` (300×200) through the bridge: save → reply with the picture on disk (median / p99 of {SHOTS})"),
        value: median_p99(element),
        goal: "—".into(),
    });
    rows.push(Row {
        what: format!("`daebug.screenshot()`, the whole page (headless window), through the bridge: the same (median / p99 of {SHOTS})"),
        value: median_p99(page),
        goal: "—".into(),
    });
    rows.push(Row {
        what: "the bridge idle: hub RSS / CPU over 10 s with one page, with `--cdp` attached → without".into(),
        value: format!("{with_mb:.1} MB / {with_cpu:.2} % → {without_mb:.1} MB / {without_cpu:.2} %"),
        goal: "near nothing".into(),
    });
}
