//! Attach with no tag (docs/zero-edits.md, "Attach to a browser"): a
//! real headless Chromium started with `--remote-debugging-port=0` before
//! the hub, an app on a small loopback server whose pages have no daebug
//! tag, and the hub started with `--cdp URL --match URL`:
//!
//! - the tab already open becomes a realm without a reload, and its
//!   worker too; a block runs in each through the log;
//! - a reload keeps the page's log, and the page's first console line and
//!   the worker's first line are in the logs (the adapter is in ahead of
//!   them);
//! - a page whose CSP forbids the hub's origin (`script-src 'self'`,
//!   `connect-src 'self'`) is a realm too;
//! - a tab opened after the hub attached is a realm of its own, a page at
//!   a URL `--match` does not name is left alone;
//! - when the hub stops the page runs on, and its next document has no
//!   adapter (the bridge's script went with its session).
//!
//! And `daebug attach URL` (no `--match`: every page of a loopback
//! origin): a page that also has the tag loads the adapter once, and the
//! tag's `?name=` still names the realm.

mod support;

use std::path::Path;

use support::cdp::DevtoolsBrowser;
use support::{base_of, log_in, serve_routes, stems_in, wait_for, Log, Running, TempDir, Write};

/// The app's page: no daebug anywhere. Its first line logs, it counts its
/// loads in the tab (`sessionStorage`), ticks, and starts a module worker.
const PAGE: &str = r#"<!doctype html><html><head><title>Plain</title><script>
console.log("first line of", location.pathname + location.search);
sessionStorage.loads = String(Number(sessionStorage.loads || 0) + 1);
window.ticks = 0;
setInterval(() => window.ticks++, 20);
window.said = [];
new Worker("/app/worker.js", { type: "module" }).onmessage = (e) => window.said.push(e.data);
</script></head><body>plain</body></html>"#;

const WORKER: &str = r#"console.log("worker first line", self.location.pathname);
postMessage("up");
"#;

/// Forbids every origin but its own: the hub's included.
const CSP_PAGE: &str = r#"<!doctype html><html><head><title>Strict</title><script>
console.log("strict page first line");
window.ticks = 0;
setInterval(() => window.ticks++, 20);
</script></head><body>strict</body></html>"#;
const CSP: &str = "script-src 'self' 'unsafe-inline'; connect-src 'self'; worker-src 'self'";

const ELSEWHERE: &str =
    "<!doctype html><html><head><title>Elsewhere</title></head><body>elsewhere</body></html>";

/// A loopback web server like an app's dev server: each path's body, and
/// the CSP header on `/app/csp.html`.
fn serve_app() -> String {
    serve_routes(|path| {
        let html = |body: &str| Some(("text/html", body.to_string(), String::new()));
        match path {
            "/app/" => html(PAGE),
            "/app/worker.js" => Some(("text/javascript", WORKER.to_string(), String::new())),
            "/app/csp.html" => Some((
                "text/html",
                CSP_PAGE.to_string(),
                format!("Content-Security-Policy: {CSP}\r\n"),
            )),
            "/else/" => html(ELSEWHERE),
            _ => None,
        }
    })
}

/// Runs `code` in the log's realm; the reply's JSON value.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    let reply = &text[text.rfind("> **agent** to ").expect("a reply")..];
    reply
        .split_once("```JSON\n")
        .and_then(|(_, v)| v.split_once("\n```"))
        .map(|(v, _)| v.to_string())
        .unwrap_or_else(|| panic!("no value in the reply:\n{reply}"))
}

/// The log under `root` of a realm whose stem starts with `prefix` and
/// whose registry line or log holds `needle` (two realms may share a
/// prefix).
fn log_holding(root: &Path, prefix: &str, needle: &str) -> Log {
    let registry = root.join("debug.md");
    let found = std::cell::RefCell::new(None);
    wait_for(
        &registry,
        &format!("a {prefix} log holding {needle:?}"),
        |t| {
            let stem = stems_in(t).into_iter().find(|s| {
                let listed = t
                    .lines()
                    .any(|l| l.starts_with(&format!("* [{s}]")) && l.contains(needle));
                s.starts_with(prefix)
                    && (listed
                        || std::fs::read_to_string(root.join("debug").join(format!("{s}.md")))
                            .is_ok_and(|log| log.contains(needle)))
            });
            let hit = stem.is_some();
            *found.borrow_mut() = stem;
            hit
        },
    );
    let stem = found.into_inner().expect("found");
    let path = root.join("debug").join(format!("{stem}.md"));
    wait_for(&path, "the log's footer", |t| {
        t.trim_end().ends_with(support::FOOTER)
    });
    Log { stem, path }
}

#[test]
fn a_browser_already_open_gets_daebug_with_no_tag() {
    let app = serve_app();
    // The browser first, the page already open in it, as a person has it.
    let mut chromium = DevtoolsBrowser::open(&format!("{app}/app/"));
    chromium.wait_until(
        "the page's worker",
        "window.said && window.said.length === 1",
    );
    let root = TempDir::new("attach");
    let cdp = chromium.devtools_url();
    let mut hub = Running::start(
        &[
            "--port",
            "0",
            "--cdp",
            &cdp,
            "--match",
            &format!("{app}/app/"),
        ],
        &root,
    );
    base_of(&hub.line_with("serving"));
    assert!(
        hub.line_with("attaching to the browser")
            .contains(&format!("the pages at {app}/app/")),
        "{}",
        hub.output()
    );

    // The tab already open: a realm now, not reloaded.
    let page = log_in(root.path(), "plain-");
    let got = ask(&page, "[location.pathname, sessionStorage.loads]");
    assert_eq!(got, r#"["/app/","1"]"#);
    assert!(!page.text().contains("first line of"), "{}", page.text());

    // A reload keeps the log; the page's first line is in it now.
    chromium.call("Page.reload", serde_json::json!({}));
    let text = wait_for(&page.path, "the reload and the first line", |t| {
        t.contains(" reloaded at ") && t.contains("first line of /app/")
    });
    assert!(text.contains(&format!("{app}/app/")), "{text}");
    let got = ask(&page, "[sessionStorage.loads, typeof daebug.realm.stem]");
    assert_eq!(got, r#"["2","string"]"#);

    // The loader the bridge put in is named as the tag's (`daebug.js`): a
    // request's initiator leaves its frames out, as with the tag.
    let got = ask(&page, "(await fetch('/app/missing')).status");
    assert_eq!(got, "404");
    let text = page.text();
    let reply = &text[text.rfind("> **agent** to ").expect("a reply")..];
    assert!(
        reply.contains("/app/missing") && reply.contains('⟵'),
        "{reply}"
    );
    assert!(!reply.contains("<anonymous>"), "{reply}");

    // The worker the reloaded page started: its first line too, and a
    // block runs in it.
    let worker = log_holding(root.path(), "worker-", "worker first line");
    let got = ask(
        &worker,
        "[self.location.pathname, typeof document, typeof WorkerGlobalScope]",
    );
    assert_eq!(got, r#"["/app/worker.js","undefined","function"]"#);

    // A page whose CSP forbids the hub's origin, in the same tab.
    chromium.navigate(&format!("{app}/app/csp.html"));
    wait_for(
        &page.path,
        "the navigation and the strict page's line",
        |t| t.contains(" navigated at ") && t.contains("strict page first line"),
    );
    let got = ask(&page, "[document.title, location.pathname]");
    assert_eq!(got, r#"["Strict","/app/csp.html"]"#);

    // Tabs opened now: one at a URL --match does not name, left alone;
    // one at the app, a realm of its own.
    chromium.open_tab(&format!("{app}/else/"));
    chromium.open_tab(&format!("{app}/app/?tab=2"));
    let second = log_holding(root.path(), "plain-", "?tab=2");
    assert_ne!(second.stem, page.stem);
    let got = ask(&second, "location.search");
    assert_eq!(got, r#""?tab=2""#);
    let registry = std::fs::read_to_string(root.path().join("debug.md")).unwrap();
    assert!(
        !registry.contains("/else/")
            && !stems_in(&registry)
                .iter()
                .any(|s| s.starts_with("elsewhere")),
        "{registry}"
    );

    // The hub stops: the page runs on, and its next document has no
    // adapter (the bridge's script went with its DevTools session).
    let ticks = chromium.eval("window.ticks").as_u64();
    hub.terminate();
    chromium.wait_until(
        "the page still ticking",
        &format!("window.ticks > {}", ticks.unwrap_or(0) + 5),
    );
    chromium.navigate(&format!("{app}/app/"));
    chromium.wait_until(
        "the page's worker",
        "window.said && window.said.length === 1",
    );
    let adapter = chromium.eval("typeof globalThis[Symbol.for('daebug.adapter')]");
    assert_eq!(adapter, "undefined");
}

/// A page with the tag, in a browser the hub attached to with no
/// `--match` (`daebug attach`: every page of a loopback origin): the
/// adapter loads once, and the tag names the realm.
#[test]
fn attach_with_the_tag_too_loads_the_adapter_once() {
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let root = TempDir::new("attach-tag");
    let cdp = chromium.devtools_url();
    let mut hub = Running::start(&["attach", &cdp, "--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    // A page with no tag, of another loopback origin: a realm once the
    // bridge has the tab.
    let app = support::serve_files(vec![(
        "/",
        "<!doctype html><title>Bare</title><p>bare".to_string(),
    )]);
    chromium.navigate(&format!("{app}/"));
    log_in(root.path(), "bare-");
    // Then a page with the tag and a name: the bridge's loader runs first
    // and takes the tag's URL.
    let html = format!(
        r#"<!doctype html><html><head><title>Both</title><script src="{base}/daebug.js?name=tagged"></script></head><body>both</body></html>"#
    );
    std::fs::write(root.path().join("both.html"), &html).unwrap();
    chromium.navigate(&format!("{base}/both.html"));
    let page = log_in(root.path(), "tagged-");
    let got = ask(
        &page,
        "[performance.getEntriesByType('resource').filter((e) => /daebug_adapter(_bg\\.wasm|\\.js)/.test(e.name)).length, daebug.realm.stem]",
    );
    assert_eq!(
        got,
        format!(r#"[2,"{}"]"#, page.stem),
        "the glue and the .wasm, once each"
    );
    let registry = std::fs::read_to_string(root.path().join("debug.md")).unwrap();
    assert!(
        !stems_in(&registry).iter().any(|s| s.starts_with("both-")),
        "{registry}"
    );
}
