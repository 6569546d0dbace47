//! The end-to-end core in every engine: the built hub, a page with an
//! iframe and a module worker opened in headless Chromium, headless
//! Firefox ESR and WebKitGTK's MiniBrowser under xvfb, and the same
//! blocks run in each: values, console, an error with a clean stack (in
//! the engine's own frame syntax), an error inside a value and one given
//! to `console.error`, a fetch 404, a dialog, a background error; and a
//! frame whose CSP forbids `eval` answers with an `EvalError`.

mod support;

use support::{Engine, World, Write};

const PAGE: &str = "<!doctype html><html><head><title>Core</title></head><body>\
<iframe src=frame.html></iframe><iframe src=strict.html></iframe>\
<script>new Worker('/worker.js', { type: 'module', name: 'crunch' })</script></body></html>";
const FRAME: &str = "<!doctype html><html><head><title>Inner</title></head><body></body></html>";
/// A frame whose policy forbids code made from text (and `blob:` scripts):
/// blocks are answered with the engine's `EvalError`, not left to time
/// out.
const STRICT: &str = "<!doctype html><html><head><title>Strict</title>\
<meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'self' 'wasm-unsafe-eval'\">\
</head><body></body></html>";
const WORKER: &str = "import '/daebug.js?name=crunch';\n";

#[test]
fn chromium() {
    core(Engine::Chromium);
}

#[test]
fn firefox() {
    core(Engine::Firefox);
}

#[test]
fn webkit() {
    core(Engine::WebKit);
}

fn core(engine: Engine) {
    let world = World::new_in(
        engine,
        &[
            ("index.html", PAGE),
            ("frame.html", FRAME),
            ("strict.html", STRICT),
            ("worker.js", WORKER),
        ],
        "index.html",
    );
    page(engine, &world);
    worker(engine, &world);
    let inner = world.log("inner-");
    let text = inner.exchange(Write::Append, "\n```js\n[document.title, 1 + 1]\n```\n", 1);
    assert!(text.contains("```JSON\n[\"Inner\",2]\n```"), "{text}");
    let strict = world.log("strict-");
    let text = strict.exchange(Write::Append, "\n```js\n1 + 1\n```\n", 1);
    assert!(text.contains("(**ERROR** after "), "{text}");
    assert!(text.contains("```Error\nEvalError"), "{text}");
}

fn page(engine: Engine, world: &World) {
    let log = world.log("core-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nfunction thrower() {\n  null.x;\n}\nconsole.log('hello', 1 + 1);\nconsole.error(new Error('logged'));\nvar kept = 1;\nconst status = await fetch('/missing.json').then((r) => r.status);\n[1 + 1, status, confirm('Sure?'), { e: new Error('nested') }]\n```\n",
        1,
    );
    let reply = after(&text, "{ e: new Error('nested') }]");
    assert_clean(reply, &text);
    assert!(
        reply.contains("```Text console.log\nhello 2\n```"),
        "{text}"
    );
    assert!(
        reply.contains("```Text dialog\nconfirm(\"Sure?\") → true\n```"),
        "{text}"
    );
    assert!(
        reply.contains(&format!("GET {}/missing.json → 404 Not Found ", world.base)),
        "{text}"
    );
    assert!(
        reply.contains("```Text\n[\n  2,\n  404,\n  true,\n  {\n    e: Error: nested\n"),
        "{text}"
    );
    // The block's own frame where each error was made.
    for (error, line) in [("Error: nested", 8), ("Error: logged", 5)] {
        let stack = fenced(reply, error);
        assert!(
            stack.contains(&block_frame(engine, Realm::Page, line)),
            "{error} at line {line}\n{text}"
        );
    }

    // A function an earlier block defined, named by when that block ran.
    let text = log.exchange(Write::Append, "\n```js\nthrower()\n```\n", 1);
    let reply = after(&text, "\nthrower()\n```");
    assert!(reply.contains("(**ERROR** after "), "{text}");
    assert_clean(reply, &text);
    let stack = fenced(reply, "TypeError: ");
    for needle in earlier_frame(engine, "thrower", 2) {
        assert!(stack.contains(&needle), "{needle}\n{text}");
    }

    let text = log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => { throw new Error('later') }, 10);\n[typeof thrower, kept]\n```\n",
        1,
    );
    // Declarations persist (also where blocks run from a blob script).
    assert!(text.contains("```JSON\n[\"function\",1]\n```"), "{text}");
    let text = support::wait_for(&log.path, "the background error", |t| {
        t.contains("```Error window.onerror\n") && t.contains("Error: later")
    });
    assert_clean(after(&text, "'later'"), &text);
}

fn worker(engine: Engine, world: &World) {
    let log = world.log("crunch-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nconsole.info('in', self.name);\nconsole.trace('here');\n[1 + 1, typeof WorkerGlobalScope]\n```\n",
        1,
    );
    let reply = after(&text, "typeof WorkerGlobalScope]\n```");
    assert_clean(reply, &text);
    // `console.trace`: the caller's frames, the wrapper's gone.
    let trace = fenced(reply, "```Text console.trace\nhere\n");
    assert!(
        trace.contains(&block_frame(engine, Realm::Worker, 2)),
        "{text}"
    );
    assert!(text.contains("```JSON\n[2,\"function\"]\n```"), "{text}");
    assert!(
        text.contains("```Text console.info\nin crunch\n```"),
        "{text}"
    );
    let text = log.exchange(Write::Append, "\n```js\nconst n = 1;\nnull.x\n```\n", 1);
    let reply = after(&text, "\nnull.x\n```");
    assert!(reply.contains("(**ERROR** after "), "{text}");
    assert_clean(reply, &text);
    assert!(
        fenced(reply, "TypeError: ").contains(&block_frame(engine, Realm::Worker, 2)),
        "{text}"
    );
}

/// Where a frame of a block runs, as the tests tell them apart: WebKit
/// runs a page's blocks from a blob script (positions kept) and a
/// worker's with `AsyncFunction` (no positions; README, "Browsers").
#[derive(Clone, Copy)]
enum Realm {
    Page,
    Worker,
}

/// How a frame of the running block at `line` starts in `engine`'s
/// syntax.
fn block_frame(engine: Engine, realm: Realm, line: u32) -> String {
    match (engine, realm) {
        (Engine::Chromium, _) => format!("    at <cell>:{line}:"),
        (Engine::Firefox | Engine::WebKit, Realm::Page) | (Engine::Firefox, Realm::Worker) => {
            format!("\n@<cell>:{line}:")
        }
        (Engine::WebKit, Realm::Worker) => "\nanonymous@".into(),
    }
}

/// What a frame of `function`, which an earlier block of a page defined,
/// shows at `line` of that block (`<cell HH:MM:SS>:L:C`): the needles it
/// holds.
fn earlier_frame(engine: Engine, function: &str, line: u32) -> [String; 2] {
    let at = format!(">:{line}:");
    match engine {
        Engine::Chromium => [format!("    at {function} (<cell "), at],
        Engine::Firefox | Engine::WebKit => [format!("\n{function}@<cell "), at],
    }
}

/// The log from the end of `marker` (the block) on.
fn after<'t>(text: &'t str, marker: &str) -> &'t str {
    let start = text
        .rfind(marker)
        .unwrap_or_else(|| panic!("{marker} in\n{text}"));
    &text[start + marker.len()..]
}

/// The fenced text from `marker` to the fence's end (with a line before,
/// so a frame's line start shows).
fn fenced<'t>(text: &'t str, marker: &str) -> &'t str {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in\n{text}"));
    let rest = &text[start..];
    &rest[..rest.find("\n```").map_or(rest.len(), |i| i + 1)]
}

/// No frame of daebug's own (loader, glue, wasm, bindgen wrappers) and
/// no raw cell name. Request lines are left out: a response's body is the
/// server's text (the hub's own 404 says `daebug: not found`).
fn assert_clean(reply: &str, whole: &str) {
    let frames: String = reply
        .lines()
        .filter(|l| !l.contains(" → "))
        .map(|l| format!("{l}\n"))
        .collect();
    for noise in ["daebug", "wasm", "__wbg", "__wbindgen", "real@"] {
        assert!(!frames.contains(noise), "{noise} in\n{reply}\n---\n{whole}");
    }
}
