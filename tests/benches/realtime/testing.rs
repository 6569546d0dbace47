//! Tests in the realm (docs/log-format.md, "Tests in the realm"), in a Node realm: what `daebug.test`
//! adds per test over Node's own `node --test` on the same file, and how
//! soon a finished test's line is on disk while the run goes on.
//!
//! Per test is a slope: the same runner on a file of `SMALL` and of
//! `LARGE` tests, the difference of their medians over the tests added,
//! so what both pay once (Node's start-up, the block's round trip) drops
//! out.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::support::node::{node, NodeProcess};
use super::support::{append, log_in, Running, TempDir};
use super::{Row, FOOTER};

const SMALL: usize = 10;
const LARGE: usize = 510;
const RUNS: usize = 7;
/// Keeps the Node realm alive between runs, as an app's server would.
const SERVER: &str = "const http = require('node:http');\n\
    http.createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1');\n";
/// A test that says when it ended, then one that holds the run open
/// until the bench has seen the first one's line on disk.
const MARK: &str = "import test from 'node:test';\n\
    import fs from 'node:fs';\n\
    test('mark', () => { fs.writeFileSync('mark-end.txt', String(Date.now())); });\n\
    test('hold', async () => {\n\
      while (!fs.existsSync('release.txt')) await new Promise((r) => setTimeout(r, 5));\n\
    });\n";

/// A file of `n` passing tests, as an app's would be: a describe, an
/// assertion each.
fn suite(n: usize) -> String {
    let mut text = String::from(
        "import { describe, it } from 'node:test';\nimport assert from 'node:assert';\n\
         describe('cart', () => {\n",
    );
    for i in 0..n {
        text.push_str(&format!(
            "  it('adds item {i}', () => {{ assert.deepStrictEqual([{i}, 'x'], [{i}, 'x']); }});\n"
        ));
    }
    text.push_str("});\n");
    text
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64()
        * 1000.0
}

/// `node --test file`, start → exit, median of `RUNS`, ms.
fn node_test(app: &Path, file: &str) -> f64 {
    median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let status = Command::new(node(22))
                    .arg("--test")
                    .arg(file)
                    .current_dir(app)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("node --test");
                assert!(status.success(), "node --test {file} failed");
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    )
}

/// Appends `code` as a block and waits for its reply and the footer: the
/// save → reply time.
fn block(log: &Path, stem: &str, code: &str) -> Duration {
    let replies = |t: &str| t.matches(&format!("> **{stem}** to agent at ")).count();
    let before = replies(&std::fs::read_to_string(log).unwrap_or_default());
    let start = Instant::now();
    append(log, &format!("\n```js\n{code}\n```\n"));
    let deadline = start + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if replies(&text) > before && text.trim_end().ends_with(FOOTER) {
            return start.elapsed();
        }
        assert!(Instant::now() < deadline, "no reply in {}", log.display());
        std::thread::sleep(Duration::from_micros(500));
    }
}

pub fn tests_in_realm(rows: &mut Vec<Row>) {
    let root = TempDir::new("bench-testing");
    let app = root.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("server.js"), SERVER).unwrap();
    std::fs::write(app.join("small.test.mjs"), suite(SMALL)).unwrap();
    std::fs::write(app.join("large.test.mjs"), suite(LARGE)).unwrap();
    std::fs::write(app.join("mark.test.mjs"), MARK).unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let _ = hub.line_with("serving");
    let _server = NodeProcess::start(&node(22), root.path(), &app, &[], "server.js", &[]);
    let log = log_in(root.path(), "server-");

    let run = |file: &str| -> f64 {
        let code = format!("await daebug.test('{file}')");
        let _ = block(&log.path, &log.stem, &code); // warm: the runner's modules load once
        median(
            (0..RUNS)
                .map(|_| block(&log.path, &log.stem, &code).as_secs_f64() * 1000.0)
                .collect(),
        )
    };
    let (daebug_small, daebug_large) = (run("small.test.mjs"), run("large.test.mjs"));
    let text = std::fs::read_to_string(&log.path).unwrap_or_default();
    for n in [SMALL, LARGE] {
        let summary = format!("{n} passed, 0 failed, 0 skipped");
        let tail = &text[text.len().saturating_sub(3000)..];
        assert!(
            text.contains(&summary),
            "no `{summary}` in the log:\n{tail}"
        );
    }
    let (node_small, node_large) = (
        node_test(&app, "small.test.mjs"),
        node_test(&app, "large.test.mjs"),
    );
    let added = (LARGE - SMALL) as f64;
    let per = |small: f64, large: f64| (large - small) / added * 1000.0;
    rows.push(Row {
        what: format!(
            "a test's cost, `daebug.test` in a Node 22 realm / `node --test` (µs a test: the slope between files of {SMALL} and {LARGE} tests, medians of {RUNS}; whole runs {daebug_small:.0} → {daebug_large:.0} ms / {node_small:.0} → {node_large:.0} ms)"
        ),
        value: format!(
            "{:.0} / {:.0} µs",
            per(daebug_small, daebug_large),
            per(node_small, node_large)
        ),
        goal: "near Node's own".into(),
    });

    // A finished test → its `✔` line on disk, while the run goes on.
    let mut lags = Vec::new();
    for _ in 0..RUNS {
        let _ = std::fs::remove_file(app.join("release.txt"));
        let _ = std::fs::remove_file(app.join("mark-end.txt"));
        let marks = |t: &str| t.matches("✔ mark").count();
        let before = marks(&std::fs::read_to_string(&log.path).unwrap_or_default());
        append(
            &log.path,
            "\n```js\nawait daebug.test('mark.test.mjs')\n```\n",
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        let seen = loop {
            let text = std::fs::read_to_string(&log.path).unwrap_or_default();
            if marks(&text) > before {
                break epoch_ms();
            }
            assert!(Instant::now() < deadline, "no ✔ mark line");
            std::thread::sleep(Duration::from_micros(500));
        };
        let ended: f64 = std::fs::read_to_string(app.join("mark-end.txt"))
            .expect("the mark test ran")
            .trim()
            .parse()
            .expect("a time");
        lags.push(seen - ended);
        std::fs::write(app.join("release.txt"), "go").unwrap();
        // The run ends: its summary and the footer.
        let _ = block(&log.path, &log.stem, "1+1");
    }
    lags.sort_by(|a, b| a.total_cmp(b));
    rows.push(Row {
        what: format!(
            "a test's end → its `✔` line on disk while the run goes on, a Node 22 realm (median / max of {RUNS})"
        ),
        value: format!("{:.0} / {:.0} ms", median(lags.clone()), lags[lags.len() - 1]),
        goal: "a few writes a second at most".into(),
    });
}
