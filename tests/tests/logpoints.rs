//! Logpoints, `monitor`/`unmonitor` and `daebug.scopes` (docs/log-format.md,
//! "Logpoints") in a real Node 22 process run as a user runs it, through
//! the process's own debugger (`node:inspector`, in process), which never
//! pauses: a module's private variables read by name, a line's
//! expressions logged with `when`, `max` and `remove()`, in a block's reply
//! and in the background, calls of a function logged through a reference
//! the program took before `monitor` was called, and a timer that keeps
//! ticking through every hit. With the browser bridge (`--cdp`, a real
//! Chromium) the same in a page and its module worker, through their own
//! targets: a place in a bundle's original source through its source
//! map, a reload keeps a page's logpoints and a `debugger;` statement
//! never pauses it. Without the bridge (Chromium without `--cdp`,
//! Firefox, WebKit) a page says in one line what these need.

mod support;

use support::cdp::DevtoolsBrowser;
use support::node::{node, NodeProcess};
use support::{
    base_of, log_in, wait_for, write_files, Engine, Log, Running, TempDir, World, Write,
};

/// A module whose state is private: `seen` and `totals` are not exported.
const STATS: &str = r#"const seen = new Set();
const totals = { calls: 0, ids: 0 };
export function record(id, todo) {
  seen.add(id);
  totals.calls++;
  totals.ids += id;
  return seen.size;
}
export const bump = (() => {
  let count = 0;
  return () => ++count;
})();
"#;

/// `src/total.ts` compiled to `dist/total.mjs` (two lines of the
/// compiler's first) with its source map: the original's lines 1-5 are
/// the compiled file's 3-7.
const TOTAL: &str = "// compiled\n\"use strict\";\nexport function total(items) {\n  let sum = 0;\n  for (const n of items) sum += n;\n  return sum;\n}\n//# sourceMappingURL=total.mjs.map\n";
const TOTAL_MAP: &str = r#"{"version":3,"sources":["../src/total.ts"],"names":[],"mappings":";;AAAA;AACA;AACA;AACA;AACA"}"#;

/// The program: it keeps its own reference to `record` (taken before any
/// block runs), a timer that ticks, and a background caller once asked.
const SERVER: &str = r#"import { record, bump } from "./src/server/stats.mjs";
import { total } from "./dist/total.mjs";
const early = record;
let ticks = 0;
setInterval(() => ticks++, 5);
let next = 100;
let background = null;
globalThis.app = {
  record,
  bump,
  total,
  run: (id, todo) => early(id, todo),
  ticks: () => ticks,
  background(on) {
    clearInterval(background);
    if (on) background = setInterval(() => early(next++, { title: "bg" }), 30);
  },
};
record(1, { title: "one" });
record(2, { title: "two" });
bump();
console.log("ready");
"#;

/// The last block the agent wrote in `text`, and its reply.
fn last_exchange(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_exchange(&text).to_string()
}

/// The bodies of the `Text <kind>` fences in `text`, in order.
fn fenced<'a>(text: &'a str, kind: &str) -> Vec<&'a str> {
    let open = format!("```Text {kind}\n");
    text.match_indices(&open)
        .map(|(i, _)| {
            let body = &text[i + open.len()..];
            &body[..body.find("\n```").expect("a closed fence")]
        })
        .collect()
}

#[test]
fn node_logpoints_monitor_and_scopes_never_pause_the_process() {
    let root = TempDir::new("logpoints");
    write_files(
        &root.path().join("app"),
        &[
            ("server.mjs", SERVER),
            ("src/server/stats.mjs", STATS),
            ("dist/total.mjs", TOTAL),
            ("dist/total.mjs.map", TOTAL_MAP),
        ],
    );
    let (hub, _) = support::node::node_hub(&root);
    let server = NodeProcess::start(
        &node(22),
        root.path(),
        &root.path().join("app"),
        &[],
        "server.mjs",
        &[],
    );
    server.wait_output("ready");
    let log = log_in(root.path(), "server-");

    // Scopes: the module's private variables by name, live values; a
    // closure's own variable apart from its module's.
    let reply = ask(
        &log,
        "const s = await daebug.scopes(app.record);\n\
         [Object.keys(s), [...s.module.seen], s.module.totals]",
    );
    assert!(
        reply.contains(r#"[["module"],[1,2],{"calls":2,"ids":3}]"#),
        "{reply}"
    );
    let reply = ask(
        &log,
        "const b = await daebug.scopes(app.bump); [Object.keys(b), b.closure.count, typeof b.module.record]",
    );
    assert!(
        reply.contains(r#"[["closure","module"],1,"function"]"#),
        "{reply}"
    );

    // A logpoint at a line: its expressions in that line's scope, only
    // when `when` holds, at most `max` times (the last hit says it is
    // removed), in the reply of the block whose calls hit it; the timer
    // ticked on meanwhile.
    let reply = ask(
        &log,
        "const lp = await daebug.logpoint('src/server/stats.mjs:5', 'id, todo, seen.size', { max: 3, when: 'id > 5' });\n\
         [lp.at, lp.log, lp.max, daebug.logpoints.length]",
    );
    assert!(
        reply.contains(r#"["src/server/stats.mjs:5","id, todo, seen.size",3,1]"#),
        "{reply}"
    );
    let reply = ask(
        &log,
        "const t0 = app.ticks();\n\
         for (let id = 4; id <= 9; id++) { app.run(id, { title: 't' + id }); await daebug.sleep(15); }\n\
         [lp.hits, app.ticks() > t0]",
    );
    assert!(reply.contains("[3,true]"), "{reply}");
    let lines = fenced(&reply, "logpoint");
    assert_eq!(
        lines,
        [
            r#"stats.mjs:5 id=6 todo={"title":"t6"} seen.size=5"#,
            r#"stats.mjs:5 id=7 todo={"title":"t7"} seen.size=6"#,
            r#"stats.mjs:5 id=8 todo={"title":"t8"} seen.size=7 (hit 3, its max: removed)"#,
        ],
        "{reply}"
    );
    let reply = ask(&log, "daebug.logpoints.length");
    assert!(reply.contains("```JSON\n0\n```"), "{reply}");

    // A place in the original TypeScript, through the compiled file's map.
    let reply = ask(
        &log,
        "const t = await daebug.logpoint('src/total.ts:4', 'sum, items.length', { max: 1 }); app.total([1, 2, 3]); t.mapped",
    );
    assert!(reply.contains("/app/dist/total.mjs:6:1\""), "{reply}");
    assert_eq!(
        fenced(&reply, "logpoint"),
        ["total.ts:4 sum=6 items.length=3 (hit 1, its max: removed)"],
        "{reply}"
    );

    // An expression that throws says so on its line.
    let reply = ask(
        &log,
        "const bad = await daebug.logpoint('stats.mjs:6', 'nope.x', { max: 1 });\napp.run(20);",
    );
    assert_eq!(
        fenced(&reply, "logpoint"),
        ["stats.mjs:6 threw ReferenceError: nope is not defined (hit 1, its max: removed)"],
        "{reply}"
    );

    // Between blocks, hits are background events; `remove()` stops them.
    ask(
        &log,
        "const bg = await daebug.logpoint('src/server/stats.mjs:4', 'id'); app.background(true)",
    );
    let text = wait_for(&log.path, "background hits", |t| {
        fenced(last_exchange(t), "logpoint").len() >= 2
    });
    assert!(
        fenced(last_exchange(&text), "logpoint")[0].starts_with("stats.mjs:4 id=10"),
        "{text}"
    );
    let reply = ask(&log, "bg.remove()");
    assert!(reply.contains("```JSON\ntrue\n```"), "{reply}");
    let reply = ask(
        &log,
        "const h = bg.hits; await daebug.sleep(200); app.background(false); bg.hits - h",
    );
    assert!(reply.contains("```JSON\n0\n```"), "{reply}");
    assert!(fenced(&reply, "logpoint").is_empty(), "{reply}");

    // monitor: every call, through a reference taken before it was
    // called (the program's own `early`); unmonitor stops it.
    let reply = ask(
        &log,
        "monitor(app.record); app.run(6, true); app.run(30, 'x')",
    );
    assert_eq!(
        fenced(&reply, "monitor"),
        [
            "function record called with arguments: 6, true",
            r#"function record called with arguments: 30, "x""#,
        ],
        "{reply}"
    );
    let reply = ask(&log, "unmonitor(app.record); app.run(31)");
    assert!(fenced(&reply, "monitor").is_empty(), "{reply}");
    // An arrow function's arguments by its parameters' names.
    let reply = ask(&log, "const add = (a, b) => a + b; monitor(add); add(2, 3)");
    assert_eq!(
        fenced(&reply, "monitor"),
        ["function add called with arguments: 2, 3"],
        "{reply}"
    );
    assert!(reply.contains("```JSON\n5\n```"), "{reply}");

    // Never paused: the process answers and its timer ran throughout.
    let reply = ask(
        &log,
        "const t1 = app.ticks(); await daebug.sleep(50); app.ticks() > t1",
    );
    assert!(reply.contains("```JSON\ntrue\n```"), "{reply}");
    drop(server);
    drop(hub);
}

/// A page's module with private state, a function it hands out through a
/// wrapper (a reference taken before any block runs), and a timer.
const APP: &str = r#"const seen = new Set();
const totals = { calls: 0 };
function record(id, todo) {
  seen.add(id);
  totals.calls++;
  return seen.size;
}
function stops(n) {
  debugger;
  return n + 1;
}
let ticks = 0;
setInterval(() => ticks++, 5);
window.app = { record, run: ((f) => (id, todo) => f(id, todo))(record), stops, ticks: () => ticks };
"#;

/// A module worker with a line to watch.
const WORKER: &str = r#"import '/daebug.js?name=crunch';
self.count = function count(n) {
  const twice = n * 2;
  return twice;
};
"#;

/// A bundle of `src/cart.js` (three lines of the bundler's first) and its
/// source map: the original's lines 1-5 are the bundle's 4-8.
const BUNDLE: &str = "(() => {\n// bundled\n\"use strict\";\nfunction add(n) {\n  const total = n + 1;\n  return total;\n}\nwindow.cart = { add };\n})();\n//# sourceMappingURL=bundle.js.map\n";
const BUNDLE_MAP: &str = r#"{"version":3,"sources":["../src/cart.js"],"names":[],"mappings":";;;AAAA;AACA;AACA;AACA;AACA"}"#;

const PAGE: &str = "<!doctype html><html><head><title>Points</title></head><body>\
    <script src=\"/assets/bundle.js\"></script>\
    <script type=module src=\"/src/app.js\"></script>\
    <script>new Worker('/worker.js', { type: 'module' })</script></body></html>";

#[test]
fn with_the_bridge_a_page_and_its_worker_have_logpoints_monitor_and_scopes() {
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let root = TempDir::new("logpoints-bridge");
    write_files(
        root.path(),
        &[
            ("index.html", PAGE),
            ("src/app.js", APP),
            ("worker.js", WORKER),
            ("assets/bundle.js", BUNDLE),
            ("assets/bundle.js.map", BUNDLE_MAP),
        ],
    );
    let cdp = chromium.devtools_url();
    let mut hub = Running::start(&["--port", "0", "--cdp", &cdp], &root);
    let base = base_of(&hub.line_with("serving"));
    chromium.navigate(&format!("{base}/index.html"));
    let page = log_in(root.path(), "points-");
    let worker = log_in(root.path(), "crunch-");
    ask(&page, "await daebug.waitFor(() => window.app)");

    // Scopes: the module's private variables, live.
    let reply = ask(
        &page,
        "app.run(1); const s = await daebug.scopes(app.run); const r = await daebug.scopes(app.record);\n\
         [Object.keys(s), typeof s.closure.f, Object.keys(r), [...r.module.seen], r.module.totals]",
    );
    assert!(
        reply.contains(r#"[["closure","module"],"function",["module"],[1],{"calls":1}]"#),
        "{reply}"
    );

    // A logpoint with `when` and `max`, hit through the page's own
    // reference; the page's timer ticks on.
    let reply = ask(
        &page,
        "const lp = await daebug.logpoint('src/app.js:4', 'id, seen.size', { when: 'id > 1', max: 2 });\n\
         const t0 = app.ticks();\n\
         for (const id of [2, 3, 4]) { app.run(id); await daebug.sleep(20); }\n\
         [lp.hits, app.ticks() > t0]",
    );
    assert!(reply.contains("[2,true]"), "{reply}");
    assert_eq!(
        fenced(&reply, "logpoint"),
        [
            "app.js:4 id=2 seen.size=1",
            "app.js:4 id=3 seen.size=2 (hit 2, its max: removed)",
        ],
        "{reply}"
    );

    // The original source's place, through the bundle's source map; the
    // map's reads are not the block's requests.
    let reply = ask(
        &page,
        "const c = await daebug.logpoint('src/cart.js:3', 'n, total', { max: 1 }); cart.add(4); c.mapped",
    );
    assert!(reply.contains("/assets/bundle.js:6:1\""), "{reply}");
    assert_eq!(
        fenced(&reply, "logpoint"),
        ["cart.js:3 n=4 total=5 (hit 1, its max: removed)"],
        "{reply}"
    );
    assert!(!reply.contains("bundle.js.map →"), "{reply}");

    // monitor, awaited (the command crosses the hub), then unmonitor.
    let reply = ask(&page, "await monitor(app.record); app.run(6, true)");
    assert_eq!(
        fenced(&reply, "monitor"),
        ["function record called with arguments: 6, true"],
        "{reply}"
    );
    let reply = ask(&page, "await unmonitor(app.record); app.run(7)");
    assert!(fenced(&reply, "monitor").is_empty(), "{reply}");

    // A `debugger;` statement met while a logpoint is set never pauses.
    let reply = ask(
        &page,
        "const kept = await daebug.logpoint('src/app.js:4', 'id'); app.stops(41)",
    );
    assert!(reply.contains("```JSON\n42\n```"), "{reply}");

    // A reload keeps the logpoint: the new document's calls hit it.
    ask(&page, "daebug.reload()");
    let reply = ask(
        &page,
        "await daebug.waitFor(() => window.app); app.run(9); daebug.logpoints.map((p) => [p.at, p.hits])",
    );
    assert_eq!(fenced(&reply, "logpoint"), ["app.js:4 id=9"], "{reply}");
    assert!(reply.contains(r#"[["src/app.js:4",1]]"#), "{reply}");
    let reply = ask(
        &page,
        "await daebug.logpoints[0].remove(); app.run(10); daebug.logpoints.length",
    );
    assert!(reply.contains("```JSON\n0\n```"), "{reply}");
    assert!(fenced(&reply, "logpoint").is_empty(), "{reply}");

    // The worker: a logpoint in its own code, through its own target.
    let reply = ask(
        &worker,
        "await daebug.logpoint('worker.js:4', 'n, twice'); count(5)",
    );
    assert_eq!(
        fenced(&reply, "logpoint"),
        ["worker.js:4 n=5 twice=10"],
        "{reply}"
    );
    drop(hub);
}

/// Without the bridge: Chromium without `--cdp`, Firefox and WebKit.
fn says_what_these_need(engine: Engine) {
    let world = World::new_in(
        engine,
        &[(
            "index.html",
            "<!doctype html><html><head><title>Plain</title></head><body></body></html>",
        )],
        "index.html",
    );
    let log = world.log("plain-");
    let reply = ask(&log, "await monitor(() => 1)");
    assert!(
        reply.contains("monitor(): pages and workers need the browser bridge for this: start the hub with --cdp <a Chromium's DevTools URL> (docs/browser-bridge.md); Firefox and WebKit have none: daebug.probe([object, \"method\"]) wraps a function in place instead"),
        "{engine:?}: {reply}"
    );
    let reply = ask(&log, "await daebug.logpoint('app.js:3', 'x')");
    assert!(
        reply.contains("daebug.logpoint(\"app.js:3\"): pages and workers need the browser bridge"),
        "{engine:?}: {reply}"
    );
    let reply = ask(&log, "await daebug.scopes(() => 1)");
    assert!(
        reply.contains("daebug.scopes((anonymous)): pages and workers need the browser bridge"),
        "{engine:?}: {reply}"
    );
}

#[test]
fn a_page_without_the_bridge_says_in_one_line_what_these_need() {
    says_what_these_need(Engine::Chromium);
}

#[test]
fn firefox_and_webkit_say_in_one_line_what_these_need() {
    says_what_these_need(Engine::Firefox);
    says_what_these_need(Engine::WebKit);
}
