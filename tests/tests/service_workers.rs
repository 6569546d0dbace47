//! A service worker registered by a page the hub serves (from --root) or
//! proxies (--proxy) is a realm (docs/zero-edits.md, "Service workers"),
//! classic and module, with no line of daebug in it: its log answers a
//! block, its URL, scope and relative `importScripts`/`import` are its own,
//! and when the browser stops it (as it does an idle one) its log says so
//! and it comes back, started again by a message, as the same realm.

mod support;

use serde_json::json;
use support::cdp::DevtoolsBrowser;
use support::{
    base_of, log_in, serve_files, stems_in, wait_for, Log, Running, TempDir, World, Write, FOOTER,
};

/// A classic service worker: a relative `importScripts`, a `"use strict"`
/// directive, and a message handler that counts.
const CLASSIC: &str = r#""use strict";
importScripts("rel.js");
self.strict = (function () { return this === undefined; })();
self.heard = 0;
self.addEventListener("message", (e) => { self.heard += 1; e.source && e.source.postMessage("classic heard " + e.data); });
self.addEventListener("fetch", (e) => e.respondWith(fetch(e.request)));
"#;
const REL_CLASSIC: &str = "self.relClassic = 'relative importScripts ok';\n";
/// A module service worker with a relative static import.
const MODULE: &str = r#"import { dep } from "./dep.js";
self.dep = dep;
self.meta = import.meta.url;
self.addEventListener("message", (e) => e.source.postMessage("module heard " + e.data));
"#;
const DEP: &str = "export const dep = 'relative import ok';\n";

/// A page that registers both and says when both are active.
const PAGE: &str = r#"<!doctype html><html><head><title>SW page</title></head><body><script>
const active = (r) => r.active ? Promise.resolve() : new Promise((done) => {
  const w = r.installing || r.waiting;
  w.addEventListener("statechange", () => w.state === "activated" && done());
});
window.ready = Promise.all([
  navigator.serviceWorker.register("/c/classic-sw.js", { scope: "/c/" }).then(active),
  navigator.serviceWorker.register("/m/module-sw.js", { scope: "/m/", type: "module" }).then(active),
]).then(() => (window.up = true), (e) => (window.up = String(e)));
</script></body></html>"#;

fn files() -> Vec<(&'static str, String)> {
    vec![
        ("/index.html", PAGE.to_string()),
        ("/c/classic-sw.js", CLASSIC.to_string()),
        ("/c/rel.js", REL_CLASSIC.to_string()),
        (
            "/c/page.html",
            "<!doctype html><title>in scope</title>".to_string(),
        ),
        ("/m/module-sw.js", MODULE.to_string()),
        ("/m/dep.js", DEP.to_string()),
    ]
}

/// Appends one block and returns its reply's value as JSON.
fn ask(log: &Log, code: &str) -> serde_json::Value {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    let reply = &text[text.rfind("> **agent** to ").expect("a reply")..];
    let value = reply
        .split_once("```JSON\n")
        .and_then(|(_, v)| v.split_once("\n```"))
        .map(|(v, _)| v.to_string())
        .unwrap_or_else(|| panic!("no value in the reply:\n{reply}"));
    serde_json::from_str(&value).unwrap_or_else(|e| panic!("{value}: {e}"))
}

/// Both service workers' logs answer, each with its own URL and scope.
fn both_are_realms(root: &std::path::Path, base: &str) -> (Log, Log) {
    let classic = log_in(root, "classic-sw-js-");
    assert_eq!(
        ask(
            &classic,
            "[location.href, registration.scope, self.relClassic, self.strict]"
        ),
        json!([
            format!("{base}/c/classic-sw.js"),
            format!("{base}/c/"),
            "relative importScripts ok",
            true
        ])
    );
    let module = log_in(root, "module-sw-js-");
    assert_eq!(
        ask(
            &module,
            "[location.href, registration.scope, self.meta, self.dep]"
        ),
        json!([
            format!("{base}/m/module-sw.js"),
            format!("{base}/m/"),
            format!("{base}/m/module-sw.js"),
            "relative import ok"
        ])
    );
    (classic, module)
}

/// Served from --root in Chromium; the browser stops both (DevTools'
/// `ServiceWorker.stopAllWorkers`, what it does to idle ones), a message
/// starts the classic one again, and the same log answers.
#[test]
fn a_service_worker_the_hub_serves_is_a_realm_that_comes_back() {
    let root = TempDir::new("sw-root");
    let files = files();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&p[1..], t.as_str())).collect();
    support::write_files(root.path(), &files);
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let mut chromium = DevtoolsBrowser::open(&format!("{base}/index.html"));
    chromium.wait_until("both service workers active", "window.up");
    let (classic, _module) = both_are_realms(root.path(), &base);
    // A navigation it passes on (`fetch(event.request)`) goes as it came.
    let title = chromium.eval(
        "new Promise((done) => { const f = document.createElement('iframe'); f.src = '/c/page.html'; \
         f.onload = () => done(f.contentDocument.title); document.body.append(f); })",
    );
    assert_eq!(title, json!("in scope"));
    // Its page gone (it would start the worker again with its requests).
    chromium.eval("document.querySelector('iframe').remove(), true");
    // An error its handler throws is in its log (its listeners are the
    // ones it had as it first ran).
    let text = classic.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => { throw new Error('thrown in the worker'); }); 'set'\n```\n",
        1,
    );
    assert!(text.contains("\"set\""), "{text}");
    wait_for(&classic.path, "the worker's error", |t| {
        t.contains("thrown in the worker") && t.contains("Error")
    });

    chromium.call("ServiceWorker.enable", json!({}));
    chromium.call("ServiceWorker.stopAllWorkers", json!({}));
    let stem = &classic.stem;
    wait_for(&classic.path, "the line that says it stopped", |t| {
        t.contains(&format!("> **{stem}** closed at "))
    });
    // A message starts it again: the same log, a new instance of it.
    chromium.eval(
        "navigator.serviceWorker.getRegistration('/c/').then((r) => (r.active.postMessage('wake'), true))",
    );
    wait_for(&classic.path, "the line that says it came back", |t| {
        t.contains(&format!("> **{stem}** reloaded at ")) && t.trim_end().ends_with(FOOTER)
    });
    assert_eq!(ask(&classic, "self.heard"), json!(1));
    let registry = std::fs::read_to_string(root.path().join("debug.md")).expect("registry");
    let stems = stems_in(&registry);
    assert_eq!(
        stems
            .iter()
            .filter(|s| s.starts_with("classic-sw-js-"))
            .count(),
        1,
        "{registry}"
    );

    // The scripts as served: each with its own line after its last.
    let (_, body) = support::http(
        &base,
        "GET",
        "/c/classic-sw.js",
        &["Sec-Fetch-Dest: serviceworker"],
        "",
    );
    assert!(body.starts_with(CLASSIC), "{body}");
    assert!(body.contains("importScripts(\"/daebug-sw.js\")"), "{body}");
    let (_, body) = support::http(
        &base,
        "GET",
        "/m/module-sw.js",
        &["Sec-Fetch-Dest: serviceworker"],
        "",
    );
    assert!(body.starts_with(MODULE), "{body}");
    assert!(body.contains("\n;import \"/daebug-sw.js\";"), "{body}");
}

/// With the hub gone (the page stays open), the browser starts both again
/// from its cache when a message comes: each runs and answers as before,
/// and daebug says nothing in their console (docs/zero-edits.md, "With
/// the hub down").
#[test]
fn with_the_hub_gone_a_service_worker_starts_from_its_cache_as_before() {
    let root = TempDir::new("sw-gone");
    let files = files();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&p[1..], t.as_str())).collect();
    support::write_files(root.path(), &files);
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let mut chromium = DevtoolsBrowser::open(&format!("{base}/index.html"));
    chromium.wait_until("both service workers active", "window.up");
    both_are_realms(root.path(), &base);
    // Stopped first: a running worker's socket would say the hub left.
    chromium.call("ServiceWorker.enable", json!({}));
    chromium.call("ServiceWorker.stopAllWorkers", json!({}));
    assert!(hub.terminate().success());
    let before = chromium.console().lines().count();
    for (scope, said) in [("/c/", "classic heard wake"), ("/m/", "module heard wake")] {
        let heard = chromium.eval(&format!(
            "new Promise((done) => {{ navigator.serviceWorker.onmessage = (e) => done(e.data); \
             navigator.serviceWorker.getRegistration('{scope}').then((r) => r.active.postMessage('wake')); }})"
        ));
        assert_eq!(heard, json!(said));
    }
    let console = chromium.console();
    let since: Vec<&str> = console.lines().skip(before).collect();
    assert!(!since.iter().any(|l| l.contains("daebug")), "{console}");
}

/// Through --proxy, an app's own server's service workers are realms too.
#[test]
fn a_service_worker_the_hub_proxies_is_a_realm() {
    let app = serve_files(files());
    let root = TempDir::new("sw-proxy");
    let mut hub = Running::start(&["--port", "0", "--proxy", &app], &root);
    let base = base_of(&hub.line_with("serving"));
    let mut chromium = DevtoolsBrowser::open(&format!("{base}/index.html"));
    chromium.wait_until("both service workers active", "window.up");
    both_are_realms(root.path(), &base);
}

#[test]
fn in_firefox_a_service_worker_is_a_realm() {
    let files = files();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&p[1..], t.as_str())).collect();
    let world = World::new_in(support::Engine::Firefox, &files, "index.html");
    both_are_realms(world.root.path(), &world.base);
}

#[test]
fn in_webkit_a_service_worker_is_a_realm() {
    let files = files();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&p[1..], t.as_str())).collect();
    let world = World::new_in(support::Engine::WebKit, &files, "index.html");
    both_are_realms(world.root.path(), &world.base);
}
