//! How long the hub takes to render a log as the dashboard shows it
//! (`GET /api/realms/{stem}/log?format=html`, `doors/log_html.rs`): a
//! small log, and logs of 1 MiB and 4 MiB (the size past which a log's
//! history moves to an archive, so the largest the dashboard renders).
//!
//! Each whole, and as the dashboard asks for it: its last 3,000 lines
//! (`&tail=3000`, cut where a block starts).
//!
//! `cargo bench -p daebug --bench log_html` prints a table (median and
//! p99 over many runs, in milliseconds).

use std::time::{Duration, Instant};

use daebug::doors::log_html::log_tail_to_html;

const HEAD: &str = "# 👾 shop-3f2a\n> This file is a REPL presented as a chat between you and a live page. Add a fenced JavaScript block at the bottom and the connected page will run it; the result will be printed below. Please do not edit server-inserted replies or the append anchor.\n\n";

/// One exchange as a log holds them: a request, a reply with a value and
/// console events, some prose and a link.
fn exchange(n: usize) -> String {
    format!(
        "> **agent** to shop-3f2a at 10:00:{s:02}\nChecking the cart, step {n} (see [the spec](https://example.com/spec)).\n```js\nconst rows = [...document.querySelectorAll('tr')];\nconsole.log('rows', rows.length);\n({{ rows: rows.length, total: {n} }})\n```\n\n> **shop-3f2a** to agent at 10:00:{s:02} (3ms)\n```JSON\n{{\"rows\":12,\"total\":{n}}}\n```\n```Text console.log\nrows 12\n```\n```Error console.error\nTypeError: x is undefined <b>not markup</b>\n    at render (http://127.0.0.1:5173/src/cart.ts:24:5)\n```\n\n",
        s = n % 60
    )
}

/// A log of about `bytes` bytes, ending with a running job.
fn log_of(bytes: usize) -> String {
    let mut text = HEAD.to_string();
    let mut n = 0;
    while text.len() < bytes {
        text.push_str(&exchange(n));
        n += 1;
    }
    text.push_str("> **agent** to shop-3f2a at 10:01:00\n```js\nawait daebug.sleep(9000)\n```\n\n> **shop-3f2a** to agent at 10:01:00\nexecuting (5s)\n");
    text
}

/// The lines the dashboard asks for.
const DASHBOARD_TAIL: usize = 3000;

fn measure(text: &str, tail: Option<usize>, runs: usize) -> (Duration, Duration, usize) {
    let mut out_len = 0;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let html = log_tail_to_html(text, tail);
            let took = t.elapsed();
            out_len = html.len();
            assert!(html.contains("class=\"executing\""), "a running job");
            took
        })
        .collect();
    times.sort();
    (times[runs / 2], times[runs * 99 / 100], out_len)
}

fn main() {
    let cases = [
        ("10 KB log", log_of(10 * 1024), 500),
        ("1 MiB log", log_of(1024 * 1024), 30),
        ("4 MiB log", log_of(4 * 1024 * 1024), 10),
    ];
    println!("| log | bytes | rendered | HTML bytes | median ms | p99 ms |");
    println!("|---|---:|---|---:|---:|---:|");
    for (name, text, runs) in cases {
        for tail in [None, Some(DASHBOARD_TAIL)] {
            let (median, p99, html) = measure(&text, tail, runs);
            let what = tail.map_or("whole".to_string(), |n| format!("last {n} lines"));
            println!(
                "| {name} | {} | {what} | {html} | {:.2} | {:.2} |",
                text.len(),
                median.as_secs_f64() * 1e3,
                p99.as_secs_f64() * 1e3
            );
        }
    }
}
