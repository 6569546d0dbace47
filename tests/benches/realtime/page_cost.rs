//! What a page pays for the tag (docs/architecture.md, "The adapter's budget"): a realistic page (the
//! fixture under `tests/tests/fixtures/page-cost/`: HTML, a stylesheet with
//! a `data:` URL image, an SVG file, a parser-blocking and a deferred
//! script) served by the hub with and without
//! `<script src="http://127.0.0.1:PORT/daebug.js">`, loaded in turns in one
//! headless Chromium over CDP. Its load event and first contentful paint,
//! the time from the tag's request to the hub's welcome, and the memory
//! the realm adds to the page and to a Node process, after GC. The
//! per-call cost of the hooked console and requests is the rows of
//! `console_flood` and `request_hooks`, not measured again here.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::node_realms::memory_in_node;
use super::stages::median;
use super::support::cdp::DevtoolsBrowser;
use super::support::{base_of, Running, TempDir};
use super::Row;

/// Loads measured per page and cache mode, after the warm-up.
const LOADS: usize = 20;
const WARM_UP: usize = 2;
/// Fresh browsers per page for the memory rows.
const MEMORY_RUNS: usize = 5;

pub const FIXTURE: [(&str, &str); 5] = [
    (
        "index.html",
        include_str!("../../tests/fixtures/page-cost/index.html"),
    ),
    (
        "style.css",
        include_str!("../../tests/fixtures/page-cost/style.css"),
    ),
    (
        "app.js",
        include_str!("../../tests/fixtures/page-cost/app.js"),
    ),
    (
        "chart.js",
        include_str!("../../tests/fixtures/page-cost/chart.js"),
    ),
    (
        "logo.svg",
        include_str!("../../tests/fixtures/page-cost/logo.svg"),
    ),
];

/// The hub injects the tag into any HTML it serves that does not mention
/// `daebug.js`: the page without it says the name in a comment, so both
/// pages come from the same server with the same headers. Each load checks
/// which one it got.
const LEFT_OUT: &str = "<!-- the daebug.js tag left out -->";

/// One load's times, ms after the navigation's start; the tag's times are
/// absent without it.
pub struct Load {
    pub load: f64,
    pub paint: f64,
    pub tag: Option<TagTimes>,
}

/// The tag's request, its script in hand, the adapter's start (the
/// `daebug:start` mark: the `.wasm` compiled and running) and the hub's
/// welcome (`daebug:welcomed`), on the page's clock.
pub struct TagTimes {
    pub request: f64,
    pub script: f64,
    pub started: f64,
    pub welcomed: f64,
}

pub fn page_cost(rows: &mut Vec<Row>) {
    let root = TempDir::new("bench-page-cost");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    for (name, text) in FIXTURE.iter().skip(1) {
        std::fs::write(root.path().join(name), text).unwrap();
    }
    let page = FIXTURE[0].1;
    let tag = format!("<script src=\"{base}/daebug.js\"></script>");
    std::fs::write(
        root.path().join("with.html"),
        page.replace("<!--TAG-->", &tag),
    )
    .unwrap();
    std::fs::write(
        root.path().join("without.html"),
        page.replace("<!--TAG-->", LEFT_OUT),
    )
    .unwrap();
    let size: usize = FIXTURE.iter().map(|(_, t)| t.len()).sum();

    let mut chromium = DevtoolsBrowser::open("about:blank");
    // A second visit first (the browser's cache as the hub's `no-cache`
    // leaves it: the adapter's files revalidated by their ETag, a 304; the
    // page's own files, which have no validator, fetched again), then a
    // first visit (the cache off: everything fetched).
    for first_visit in [false, true] {
        if first_visit {
            chromium.call("Network.enable", json!({}));
            chromium.call("Network.setCacheDisabled", json!({ "cacheDisabled": true }));
        }
        let (mut without, mut with) = (Vec::new(), Vec::new());
        for n in 0..WARM_UP + LOADS {
            // In turns, so a slow spell of the machine falls on both.
            let a = load(&mut chromium, &format!("{base}/without.html"), false);
            let b = load(&mut chromium, &format!("{base}/with.html"), true);
            if n >= WARM_UP {
                without.push(a);
                with.push(b);
            }
        }
        let visit = match first_visit {
            false => "a second visit (cache revalidated)",
            true => "a first visit (cache disabled)",
        };
        // The difference of each load with the tag from the load without
        // it just before: a slow spell of the machine (other builds on its
        // two cores) falls on both of a pair.
        let added = |f: fn(&Load) -> f64| {
            median(
                without
                    .iter()
                    .zip(&with)
                    .map(|(a, b)| f(b) - f(a))
                    .collect(),
            )
        };
        let of = |v: &[Load], f: fn(&Load) -> f64| median(v.iter().map(f).collect());
        rows.push(Row {
            what: format!("a realistic page ({} KB: HTML, CSS, two scripts, two images) served by the hub, {visit}: load event / first contentful paint, without → with the tag (medians of {LOADS} fresh loads each, in turns; what the tag adds, the median of the pairs' differences)", size / 1000),
            value: format!(
                "{:.1} / {:.1} ms → {:.1} / {:.1} ms; {:+.1} / {:+.1} ms",
                of(&without, |l| l.load),
                of(&without, |l| l.paint),
                of(&with, |l| l.load),
                of(&with, |l| l.paint),
                added(|l| l.load),
                added(|l| l.paint),
            ),
            goal: "—".into(),
        });
        let tags: Vec<&TagTimes> = with.iter().filter_map(|l| l.tag.as_ref()).collect();
        let step = |f: fn(&TagTimes) -> f64| median(tags.iter().map(|t| f(t)).collect());
        rows.push(Row {
            what: format!("the tag's request → the realm connected (the hub's welcome), {visit} (medians of {LOADS}, ms)"),
            value: format!(
                "request → the script in: {:.1}<br>→ the adapter started (`.wasm` fetched, compiled, run): {:.1}<br>→ the hub's welcome: {:.1}<br>in all: {:.1}",
                step(|t| t.script - t.request),
                step(|t| t.started - t.script),
                step(|t| t.welcomed - t.started),
                step(|t| t.welcomed - t.request),
            ),
            goal: "—".into(),
        });
    }
    drop(chromium);

    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..MEMORY_RUNS {
        without.push(memory_in_page(&format!("{base}/without.html"), false));
        with.push(memory_in_page(&format!("{base}/with.html"), true));
    }
    let heap = |v: &[(f64, f64)]| median(v.iter().map(|m| m.0).collect()) / 1e6;
    let wasm = median(with.iter().map(|m| m.1).collect()) / 1e6;
    rows.push(Row {
        what: format!("the page's memory after GC, connected (a fresh Chromium each, median of {MEMORY_RUNS}): JS heap used, without → with the tag (and the adapter's WebAssembly memory, outside that heap)"),
        value: format!(
            "{:.2} MB → {:.2} MB (+ {wasm:.2} MB)",
            heap(&without),
            heap(&with),
        ),
        goal: "—".into(),
    });
    memory_in_node(rows, root.path());
    drop(hub);
}

/// Navigates to `url` and waits for its load event, its first contentful
/// paint and, with the tag, the hub's welcome; then a pause, as between
/// two visits, so what the hub writes for a realm gone falls on no load.
pub fn load(chromium: &mut DevtoolsBrowser, url: &str, tagged: bool) -> Load {
    let before = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    chromium.navigate(url);
    // `timeOrigin` tells the new document from the one before it.
    let got = chromium.wait_until(
        "the load, the paint and the welcome",
        &format!(
            "performance.timeOrigin > {before} && (() => {{\n\
               const nav = performance.getEntriesByType('navigation')[0];\n\
               const paint = performance.getEntriesByName('first-contentful-paint')[0];\n\
               const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? -1;\n\
               const tag = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/daebug.js'));\n\
               const done = nav && nav.loadEventEnd > 0 && paint && (!tag || at('daebug:welcomed') >= 0);\n\
               return done && [nav.loadEventEnd, paint.startTime, tag ? [tag.startTime, tag.responseEnd, at('daebug:start'), at('daebug:welcomed')] : null];\n\
             }})()"
        ),
    );
    let n = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let tag = got[2].as_array().map(|t| TagTimes {
        request: n(&t[0]),
        script: n(&t[1]),
        started: n(&t[2]),
        welcomed: n(&t[3]),
    });
    assert_eq!(
        tag.is_some(),
        tagged,
        "{url}: the tag where it should not be, or not where it should"
    );
    // The user's pause between two visits, not a wait.
    std::thread::sleep(Duration::from_millis(200));
    Load {
        load: n(&got[0]),
        paint: n(&got[1]),
        tag,
    }
}

/// A fresh Chromium on `url`, loaded (and welcomed, with the tag), given a
/// moment to settle, then collected: the isolate's JS heap used
/// (`Runtime.getHeapUsage`) and, with the tag, the adapter's WebAssembly
/// memory (outside that heap: its glue's `default()` hands back the
/// instance it made), in bytes.
fn memory_in_page(url: &str, tagged: bool) -> (f64, f64) {
    let mut chromium = DevtoolsBrowser::open(url);
    let ready = match tagged {
        true => "performance.getEntriesByName('daebug:welcomed').length > 0",
        false => "performance.getEntriesByType('navigation')[0]?.loadEventEnd > 0",
    };
    chromium.wait_until("the page ready", ready);
    // What the realm sends once connected (its first lines) is sent.
    std::thread::sleep(Duration::from_millis(500));
    chromium.call("HeapProfiler.collectGarbage", json!({}));
    let usage = chromium.call("Runtime.getHeapUsage", json!({}));
    let wasm = match tagged {
        // The glue module under the URL the tag imported it by: the same
        // module, already initialised.
        true => chromium.eval(
            "(async () => {\n\
               const tag = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/daebug.js'));\n\
               const glue = await import(new URL('./daebug_adapter.js', tag.name));\n\
               return (await glue.default()).memory.buffer.byteLength;\n\
             })()",
        ),
        false => json!(0),
    };
    (
        usage["usedSize"].as_f64().unwrap_or(f64::NAN),
        wasm.as_f64().unwrap_or(f64::NAN),
    )
}
