//! The browser bridge (`--cdp`, docs/browser-bridge.md) with a real hub
//! and a real Chromium started with `--remote-debugging-port=0` (its port
//! read from what it prints): `daebug.screenshot('#box')` is a PNG of the
//! element's size and colour, the whole page without a selector, a
//! selector that matches nothing is an error; a rejection Chromium never
//! dispatches as `unhandledrejection` reaches the log as `Text browser`,
//! while the 404 the adapter reported is not written twice. Without
//! `--cdp`, `screenshot()` says how to get it.

mod support;

use support::cdp::DevtoolsBrowser;
use support::pixels::decode;
use support::{base_of, log_in, wait_for, Running, TempDir, World, Write};

const PAGE: &str = "<!doctype html><html><head><title>Bridge</title></head>\
    <body style=\"margin:0\"><div style=\"height:40px\"></div>\
    <div id=box style=\"width:50px;height:30px;margin-left:10px;background:rgb(255,0,0)\"></div></body></html>";

/// The path of the reply's picture line, relative to `debug/`.
fn picture(reply: &str) -> String {
    let line = reply
        .lines()
        .find(|l| l.starts_with("![screenshot "))
        .unwrap_or_else(|| panic!("no screenshot line in\n{reply}"));
    line.split("](")
        .nth(1)
        .unwrap()
        .trim_end_matches(')')
        .to_string()
}

#[test]
fn screenshots_and_what_only_the_browser_saw() {
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let root = TempDir::new("bridge");
    std::fs::write(root.path().join("index.html"), PAGE).unwrap();
    let cdp = chromium.devtools_url();
    let mut hub = Running::start(&["--port", "0", "--cdp", &cdp], &root);
    let base = base_of(&hub.line_with("serving"));
    chromium.navigate(&format!("{base}/index.html"));
    let log = log_in(root.path(), "bridge-");
    let debug = root.path().join("debug");

    // An element: its size and colour.
    let text = log.exchange(
        Write::Append,
        "\n```js\nawait daebug.screenshot('#box')\n```\n",
        1,
    );
    let reply = &text[text.rfind("> **agent** to").unwrap()..];
    assert!(reply.contains("![screenshot 50×30](archive/"), "{reply}");
    assert!(reply.contains("\"width\":50,\"height\":30"), "{reply}");
    let png = decode(&std::fs::read(debug.join(picture(reply))).unwrap());
    assert_eq!((png.width, png.height), (50, 30));
    assert_eq!(png.at(25, 15), [255, 0, 0, 255]);

    // The whole page, the promise not awaited: still in the reply.
    let text = log.exchange(
        Write::Append,
        "\n```js\ndaebug.screenshot(); 'asked'\n```\n",
        1,
    );
    let reply = &text[text.rfind("> **agent** to").unwrap()..];
    let png = decode(&std::fs::read(debug.join(picture(reply))).unwrap());
    assert!(
        png.width >= 60 && png.height >= 70,
        "{}×{}",
        png.width,
        png.height
    );
    assert_eq!(
        png.at(35, 55),
        [255, 0, 0, 255],
        "the box, where it is in the page"
    );
    assert_eq!(png.at(35, 20), [255, 255, 255, 255], "above it, white");

    // Nothing matches: the block's error says so.
    let text = log.exchange(
        Write::Append,
        "\n```js\nawait daebug.screenshot('#nope')\n```\n",
        1,
    );
    assert!(
        text.contains("Error: screenshot(\"#nope\"): no element matches in this page"),
        "{text}"
    );

    // What only the browser saw: the rejection of `r.json()` is never
    // dispatched as `unhandledrejection`; the 404 the adapter reports
    // itself is not written again.
    log.write(
        Write::Append,
        "\n```js\nfetch('/missing.json').then((r) => r.json()); 'sent'\n```\n",
    );
    let text = wait_for(&log.path, "a Text browser event", |t| {
        t.contains("```Text browser\nUncaught (in promise) SyntaxError: ")
    });
    assert!(text.contains("/missing.json → 404 Not Found"), "{text}");
    let text = wait_for(&log.path, "the log idle", |t| {
        t.trim_end().ends_with(support::FOOTER)
    });
    assert!(
        !text.contains(&format!("(Not Found) ({base}/missing.json)")),
        "the adapter reported that 404 already:\n{text}"
    );
    assert!(
        hub.output().contains("browser bridge attached"),
        "{}",
        hub.output()
    );
}

#[test]
fn without_the_bridge_screenshot_says_how_to_get_one() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("bridge-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nawait daebug.screenshot('#box')\n```\n",
        1,
    );
    assert!(
        text.contains(
            "Error: daebug.screenshot() needs the browser bridge: start the hub with --cdp"
        ),
        "{text}"
    );
}
