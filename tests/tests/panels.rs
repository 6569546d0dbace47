//! The person in the loop and streamed data (DESIGN §14), with the real hub
//! and headless Chromium driven over DevTools: data fences in order with
//! the blocks of a chunk (an unknown target, bad JSON); a panel with a
//! schema (an invalid submit, a valid one, a block's `.click()` that cannot
//! answer, `data` re-rendering, a callback); `ask`; `pick` on a page made
//! the way React's development build makes it; Escape; `$0`. A person's
//! click or key press is a DevTools `Input.dispatch*` event (trusted),
//! never `el.click()`.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::cdp::DevtoolsBrowser;
use support::{base_of, log_in, wait_for, Log, Running, TempDir, Write};

const PAGE: &str = "<!doctype html><html><head><title>Panels</title>\
    <script src=\"/daebug.js\"></script></head><body><h1>Shop</h1></body></html>";

/// A hub serving `files` and a DevTools-driven Chromium on `/index.html`.
struct Desk {
    root: TempDir,
    _hub: Running,
    base: String,
    tab: DevtoolsBrowser,
}

impl Desk {
    fn new(files: &[(&str, &str)]) -> Desk {
        let root = TempDir::new("panels");
        for (name, content) in files {
            let path = root.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        let mut hub = Running::start(&["--port", "0"], &root);
        let base = base_of(&hub.line_with("serving"));
        let tab = DevtoolsBrowser::open(&format!("{base}/index.html"));
        Desk {
            root,
            _hub: hub,
            base,
            tab,
        }
    }

    fn log(&self, prefix: &str) -> Log {
        log_in(self.root.path(), prefix)
    }
}

/// Appends a chunk and returns the log once it has `replies` more replies
/// and is idle.
fn exchange(log: &Log, chunk: &str, replies: usize) -> String {
    log.exchange(Write::Append, chunk, replies)
}

/// Appends one block without waiting for its reply (it waits for a person).
fn start_block(log: &Log, code: &str) {
    log.write(Write::Append, &format!("\n```js\n{code}\n```\n"));
}

/// Appends one block and returns its reply.
fn run(log: &Log, code: &str) -> String {
    let text = exchange(log, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").unwrap()..].to_string()
}

/// A person's click at the middle of what `element` (an expression in the
/// page) evaluates to: DevTools `Input` events, which the page sees as
/// trusted.
fn click(tab: &mut DevtoolsBrowser, element: &str) {
    let at = tab.wait_until(
        element,
        &format!(
            "(() => {{ const el = {element}; if (!el) return null; const r = el.getBoundingClientRect(); \
             return r.width ? [r.x + r.width / 2, r.y + r.height / 2] : null }})()"
        ),
    );
    click_at(tab, at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
}

fn click_at(tab: &mut DevtoolsBrowser, x: f64, y: f64) {
    tab.call(
        "Input.dispatchMouseEvent",
        json!({ "type": "mouseMoved", "x": x, "y": y }),
    );
    for kind in ["mousePressed", "mouseReleased"] {
        tab.call(
            "Input.dispatchMouseEvent",
            json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
        );
    }
}

/// A person's key press (`Enter`, `Escape`).
fn press(tab: &mut DevtoolsBrowser, key: &str, code: u32) {
    for kind in ["keyDown", "keyUp"] {
        tab.call(
            "Input.dispatchKeyEvent",
            json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code }),
        );
    }
}

/// A person types `text` into what has focus.
fn type_text(tab: &mut DevtoolsBrowser, text: &str) {
    tab.call("Input.insertText", json!({ "text": text }));
}

/// The element `selector` in the panels' shadow root, as a page expression.
fn in_panel(selector: &str) -> String {
    format!("document.querySelector('daebug-panels')?.shadowRoot?.querySelector({selector:?})")
}

/// Polls the log until `pred` holds (the hub writes within a few ms).
fn log_until(log: &Log, what: &str, pred: impl Fn(&str) -> bool) -> String {
    wait_for(&log.path, what, pred)
}

#[test]
fn data_fences_run_in_order_with_the_blocks_of_their_chunk() {
    let desk = Desk::new(&[("index.html", PAGE)]);
    let log = desk.log("panels-");
    let chunk = "\n```js\nconst stats = new daebug.StreamedData(\"stats\")\n```\n\
        ```json agent.data => \"stats\"\n{\"count\": 3, \"items\": [1, 2]}\n```\n\
        ```js\nconst first = stats.count\n```\n\
        ```JSON agent.data => \"stats\"\n{\"count\": 4}\n```\n\
        ```json agent.data => \"nope\"\n{\"count\": 9}\n```\n\
        ```json agent.data => \"stats\"\n{\"count\": 5,\n}\n```\n\
        ```js\n[first, stats.count, Object.keys(stats).join()]\n```\n";
    let text = exchange(&log, chunk, 7);
    let tail = &text[text.find("const stats").unwrap()..];
    // Each fence's reply under it, in order; the chunk went on past the
    // unknown target and the bad JSON.
    let order = [
        "(agent.data \"stats\" set)",
        "const first = stats.count",
        "(agent.data \"stats\" set)",
        "(unknown_target: \"nope\")",
        "(json_error at line 2, column 1: trailing comma)",
        "```JSON\n[3,4,\"count\"]\n```",
    ];
    let mut at = 0;
    for want in order {
        let found = tail[at..]
            .find(want)
            .unwrap_or_else(|| panic!("{want} after byte {at} in:\n{tail}"));
        at += found + want.len();
    }
    assert!(!tail.contains("**ERROR**"), "{tail}");
    // A later block reads the value too.
    let reply = run(&log, "stats.items.length");
    assert!(reply.contains("```JSON\n2\n```"), "{reply}");
}
