//! DESIGN §7, capture: what the page and the browser see reaches the log,
//! from the page's first line on. Real hub, headless Chromium, pages and
//! module workers.

mod support;

use support::{wait_for, World};

/// A page whose inline classic scripts log, time, reject and throw before
/// the adapter's WebAssembly has loaded, and a module worker whose first
/// line logs: the loader (injected first in `<head>`) kept it all.
#[test]
fn what_a_page_and_a_worker_do_before_the_adapter_loads_is_in_the_log() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Early</title>\
                 <script>console.log('early log'); console.time('boot'); console.timeEnd('boot');\
                 Promise.reject(new Error('early rejection'));</script>\
                 <script>throw new Error('early throw')</script></head>\
                 <body><script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            (
                "worker.js",
                "import '/daebug.js?name=early-worker';\nconsole.log('worker first line');\n",
            ),
        ],
        "index.html",
    );
    let page = world.log("early-");
    let text = wait_for(&page.path, "the page's early events", |t| {
        t.contains("early log") && t.contains("early rejection") && t.contains("early throw")
    });
    for want in [
        "```Text console.log\nearly log\n```",
        "```Text console.timeEnd\nboot: ",
        "```Error unhandledrejection\nError: early rejection",
        "```Error window.onerror\nError: early throw",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let worker = world.log("early-worker-");
    wait_for(&worker.path, "the worker's first line", |t| {
        t.contains("```Text console.log\nworker first line\n```")
    });
}
