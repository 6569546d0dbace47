//! DESIGN §7, capture: what the page and the browser see reaches the log,
//! from the page's first line on. Real hub, headless Chromium, pages and
//! module workers.

mod support;

use support::{wait_for, World, Write};

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

/// Dialogs return at once and are recorded; a block queues answers; a
/// dialog from a click handler the block triggers does not freeze the
/// page either. With `?dialogs=native` the browser's own stay.
#[test]
fn dialogs_are_answered_at_once_and_recorded() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Dialogs</title></head><body>\
                 <button id=del onclick=\"this.dataset.answer = confirm('Delete item?')\">Delete</button>\
                 <iframe src=native.html></iframe></body></html>",
            ),
            (
                "native.html",
                "<!doctype html><html><head><script src=\"/daebug.js?dialogs=native&name=native\"></script>\
                 <title>Native</title></head><body></body></html>",
            ),
        ],
        "index.html",
    );
    let log = world.log("dialogs-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nalert('Saved');\nconst a = confirm('Sure?');\ndaebug.dialogs.answer(false);\ndaebug.dialogs.answer('Bo');\nconst b = confirm('Really?');\nconst c = prompt('Name?', 'Ann');\nconst d = prompt('Age?', '7');\ndel.click();\n[a, b, c, d, del.dataset.answer]\n```\n",
        1,
    );
    assert!(
        text.contains("```JSON\n[true,false,\"Bo\",\"7\",\"true\"]\n```"),
        "{text}"
    );
    for want in [
        "```Text dialog\nalert(\"Saved\")\n```",
        "```Text dialog\nconfirm(\"Sure?\") → true\n```",
        "```Text dialog\nconfirm(\"Really?\") → false\n```",
        "```Text dialog\nprompt(\"Name?\", \"Ann\") → \"Bo\"\n```",
        "```Text dialog\nprompt(\"Age?\", \"7\") → \"7\"\n```",
        "```Text dialog\nconfirm(\"Delete item?\") → true\n```",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let native = world.log("native-");
    let text = native.exchange(
        Write::Append,
        "\n```js\n[String(confirm).includes('[native code]'), typeof daebug]\n```\n",
        1,
    );
    assert!(
        text.contains("```JSON\n[true,\"undefined\"]\n```"),
        "{text}"
    );
}
