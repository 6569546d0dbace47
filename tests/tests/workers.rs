//! Every worker a page starts is a realm with no daebug line in it
//! (README, "Connect … a worker"): a module worker, a classic worker and a
//! SharedWorker the hub serves from --root, and `blob:` workers the page
//! makes (a Blob typed as JavaScript, and one with no type). Each one's
//! log answers a block; each keeps its own URL (`self.location`,
//! `import.meta.url`, relative `import`, `importScripts` and `fetch`);
//! with the hub down, the same workers start and talk to their page. With
//! the browser bridge, a worker the app's own server serves is one too.

mod support;

use std::time::{Duration, Instant};

use support::cdp::DevtoolsBrowser;
use support::{
    base_of, log_in, serve_files, stems_in, wait_for, Browser, Engine, Log, Running, TempDir,
    World, Write, DEADLINE, FOOTER,
};

/// The workers' scripts, none with a line of daebug.
const MODULE: &str = r#"import { rel } from "./rel.mjs";
self.meta = import.meta.url;
self.rel = rel;
postMessage("up:mod " + rel);
"#;
const REL_MODULE: &str = "export const rel = 'relative import ok';\n";
const CLASSIC: &str = r#""use strict";
self.strict = (function () { return this === undefined; })();
importScripts("rel.js");
postMessage("up:classic " + self.relClassic);
"#;
const REL_CLASSIC: &str = "self.relClassic = 'relative importScripts ok';\n";
const SHARED: &str = r#"onconnect = (e) => e.ports[0].postMessage("up:shared");
"#;

/// A page that starts the five workers and prints what each says.
fn page(head: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>Workers</title>{head}</head><body><script>
window.got = [];
window.made = {{}};
const said = (e) => {{ window.got.push(e.data); console.log("got " + e.data); }};
const blobSource = "postMessage('up:' + self.name);";
const typed = URL.createObjectURL(new Blob([blobSource], {{ type: "text/javascript" }}));
const untyped = URL.createObjectURL(new Blob([blobSource]));
window.made = {{ typed, untyped }};
new Worker("/w/mod.js", {{ type: "module", name: "mod" }}).onmessage = said;
new Worker("/w/classic.js", {{ name: "classic" }}).onmessage = said;
new Worker(typed, {{ name: "blobt" }}).onmessage = said;
new Worker(untyped, {{ name: "blobu" }}).onmessage = said;
const shared = new SharedWorker("/w/shared.js", {{ name: "shared" }});
shared.port.onmessage = said;
</script></body></html>"#
    )
}

fn files(html: &str) -> Vec<(&'static str, String)> {
    vec![
        ("/index.html", html.to_string()),
        ("/w/mod.js", MODULE.to_string()),
        ("/w/rel.mjs", REL_MODULE.to_string()),
        ("/w/classic.js", CLASSIC.to_string()),
        ("/w/rel.js", REL_CLASSIC.to_string()),
        ("/w/shared.js", SHARED.to_string()),
    ]
}

/// Appends one block and returns its reply's value.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    let reply = &text[text.rfind("> **agent** to ").expect("a reply")..];
    let value = reply
        .split_once("```JSON\n")
        .and_then(|(_, v)| v.split_once("\n```"))
        .map(|(v, _)| v.to_string());
    value.unwrap_or_else(|| panic!("no value in the reply:\n{reply}"))
}

/// A JSON string's text.
fn unquote(json: &str) -> String {
    serde_json::from_str::<String>(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

#[test]
fn every_worker_of_a_served_page_is_a_realm_with_its_own_url() {
    every_worker_is_a_realm(Engine::Chromium);
}

#[test]
fn in_firefox_every_worker_is_a_realm() {
    every_worker_is_a_realm(Engine::Firefox);
}

#[test]
fn in_webkit_every_worker_is_a_realm() {
    every_worker_is_a_realm(Engine::WebKit);
}

fn every_worker_is_a_realm(engine: Engine) {
    let files = files(&page(""));
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&p[1..], t.as_str())).collect();
    let world = World::new_in(engine, &files, "index.html");
    let base = &world.base;
    let page = world.log("workers-");
    // The workers started and said so to the page, through no edit.
    let got = ask(
        &page,
        "await daebug.waitFor(() => window.got.length === 5 && window.got); window.got.sort()",
    );
    assert_eq!(
        got.split_whitespace().collect::<String>(),
        r#"["up:blobt","up:blobu","up:classicrelativeimportScriptsok","up:modrelativeimportok","up:shared"]"#
    );
    let made: serde_json::Value = serde_json::from_str(&ask(&page, "window.made")).expect("json");
    // Exactly the URL it was started with: the tab id that keeps a
    // worker's log through its page's reloads reaches it another way.
    let own = |url: &str| url.to_string();
    let module = world.log("mod-");
    let url = format!("{base}/w/mod.js");
    let found = ask(
        &module,
        "[location.href, self.meta, self.rel, (await fetch('rel.mjs')).url, new URL('x', location).href]",
    );
    let found: Vec<String> = serde_json::from_str(&found).expect("json");
    assert_eq!(
        found,
        [
            own(&url),
            own(&url),
            "relative import ok".into(),
            format!("{base}/w/rel.mjs"),
            format!("{base}/w/x"),
        ]
    );

    let classic = world.log("classic-");
    let url = format!("{base}/w/classic.js");
    let found = ask(
        &classic,
        "[location.href, self.relClassic, (await fetch('rel.js')).url, self.strict]",
    );
    let found: serde_json::Value = serde_json::from_str(&found).expect("json");
    assert_eq!(
        found,
        serde_json::json!([
            own(&url),
            "relative importScripts ok",
            format!("{base}/w/rel.js"),
            true
        ]),
        "its URL is its own, and its `use strict` still a directive"
    );

    let shared = world.log("shared-");
    let found = unquote(&ask(&shared, "location.href"));
    assert_eq!(found, format!("{base}/w/shared.js"));

    // A Blob typed as JavaScript: the URL the page made.
    let typed = world.log("blobt-");
    let found = unquote(&ask(&typed, "location.href"));
    assert_eq!(found, own(made["typed"].as_str().expect("typed")));
    // A Blob with no type: another blob: URL of the same origin.
    let untyped = world.log("blobu-");
    let found = unquote(&ask(&untyped, "location.href"));
    assert!(found.starts_with(&format!("blob:{base}/")), "{found}");
    assert!(!found.contains('#'), "{found}");

    // Through the page's reload each keeps its log: the page passed its
    // tab id on to each.
    let text = page.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => location.reload(), 50);\n'reloading'\n```\n",
        1,
    );
    assert!(text.contains("\"reloading\""), "{text}");
    for log in [&page, &module, &classic, &shared, &typed, &untyped] {
        wait_for(&log.path, "the reload line", |t| {
            t.contains(" reloaded at ") && t.trim_end().ends_with(FOOTER)
        });
    }
    let registry = std::fs::read_to_string(world.root.path().join("debug.md")).expect("registry");
    assert_eq!(stems_in(&registry).len(), 6, "{registry}");

    // The workers' scripts as served: the loader's line after their own.
    let (status, body) = support::http(
        base,
        "GET",
        "/w/classic.js",
        &["Sec-Fetch-Dest: worker"],
        "",
    );
    assert_eq!(status, 200);
    assert!(body.starts_with(CLASSIC), "{body}");
    assert!(body.contains("import(\"/daebug.js\")"), "{body}");
    let (_, body) = support::http(
        base,
        "GET",
        "/w/classic.js",
        &["Sec-Fetch-Dest: script"],
        "",
    );
    assert_eq!(body, CLASSIC);
}

/// A port nothing listens on.
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[test]
fn with_the_hub_down_the_workers_start_and_talk_to_their_page() {
    workers_start_with_the_hub_down(Engine::Chromium);
}

#[test]
fn in_firefox_with_the_hub_down_the_workers_start() {
    workers_start_with_the_hub_down(Engine::Firefox);
}

/// (MiniBrowser printed no console message in a `--private` window,
/// which ignores its command line's settings: `support::launch`.)
#[test]
fn in_webkit_with_the_hub_down_the_workers_start() {
    workers_start_with_the_hub_down(Engine::WebKit);
}

fn workers_start_with_the_hub_down(engine: Engine) {
    let hub = format!("http://127.0.0.1:{}", dead_port());
    // The page loads daebug.js from a hub that is down; its workers come
    // as the hub (or its proxy) would have served them, the line at the end.
    let line =
        |script: &str| format!("{script}\n;import(\"{hub}/daebug.js\").catch(() => {{}});\n");
    let mut files = files(&page(&format!(
        r#"<script src="{hub}/daebug.js"></script>"#
    )));
    for (path, text) in files.iter_mut() {
        if path.starts_with("/w/") {
            *text = line(text);
        }
    }
    let app = serve_files(files);
    let browser = Browser::open_in(engine, &format!("{app}/index.html"));
    let end = Instant::now() + DEADLINE;
    let wanted = [
        "got up:mod relative import ok",
        "got up:classic relative importScripts ok",
        "got up:shared",
        "got up:blobt",
        "got up:blobu",
    ];
    loop {
        let console = browser.console();
        if wanted.iter().all(|w| console.contains(w)) {
            break;
        }
        assert!(
            Instant::now() < end,
            "not every worker spoke: {wanted:?}\n{console}"
        );
        // The browser's output has no event to block on: the poll interval.
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// With the browser bridge (`--cdp`), a worker whose script the app's own
/// server serves (no line in it, none added) is a realm too: the bridge
/// starts it paused and loads the adapter first.
#[test]
fn with_the_bridge_a_dev_servers_worker_is_a_realm() {
    let mut chromium = DevtoolsBrowser::open("about:blank");
    let root = TempDir::new("workers-cdp");
    let cdp = chromium.devtools_url();
    let mut hub = Running::start(&["--port", "0", "--cdp", &cdp], &root);
    let base = base_of(&hub.line_with("serving"));
    let html = format!(
        r#"<!doctype html><html><head><title>Bridged</title><script src="{base}/daebug.js"></script></head><body><script>
window.got = [];
const said = (e) => window.got.push(e.data);
new Worker("/w/mod.js", {{ type: "module", name: "mod" }}).onmessage = said;
new Worker("/w/classic.js", {{ name: "classic" }}).onmessage = said;
</script></body></html>"#
    );
    let app = serve_files(vec![
        ("/index.html", html),
        ("/w/mod.js", MODULE.to_string()),
        ("/w/rel.mjs", REL_MODULE.to_string()),
        ("/w/classic.js", CLASSIC.to_string()),
        ("/w/rel.js", REL_CLASSIC.to_string()),
    ]);
    chromium.navigate(&format!("{app}/index.html"));
    let page = log_in(root.path(), "bridged-");
    let got = ask(
        &page,
        "await daebug.waitFor(() => window.got.length === 2 && window.got); window.got.sort()",
    );
    assert!(got.contains("up:mod relative import ok"), "{got}");
    let module = log_in(root.path(), "mod-");
    let found = ask(&module, "[location.href, self.meta, self.rel]");
    let url = format!("{app}/w/mod.js");
    let found: Vec<String> = serde_json::from_str(&found).expect("json");
    assert_eq!(found, [url.clone(), url, "relative import ok".into()]);
    let classic = log_in(root.path(), "classic-");
    let found = ask(&classic, "[location.href, self.relClassic, self.strict]");
    let found: serde_json::Value = serde_json::from_str(&found).expect("json");
    assert_eq!(
        found,
        serde_json::json!([
            format!("{app}/w/classic.js"),
            "relative importScripts ok",
            true
        ])
    );
}

/// A `data:` worker is no realm without its line (its URL is its text, and
/// its origin `null`: docs/zero-edits.md, "`data:` workers"); with the
/// README's line first and `--allow-origin null`, it is one, its URL as
/// the page made it.
#[test]
fn a_data_worker_with_its_line_is_a_realm_when_null_is_admitted() {
    let root = TempDir::new("workers-data");
    let mut hub = Running::start(&["--port", "0", "--allow-origin", "null"], &root);
    let base = base_of(&hub.line_with("serving"));
    let source = format!(
        "import(\"{base}/daebug.js\").catch(() => {{}});\nself.onmessage = (e) => postMessage('data ' + e.data);\n"
    );
    let html = format!(
        r#"<!doctype html><html><head><title>Data</title></head><body><script>
window.url = "data:text/javascript," + encodeURIComponent({source});
new Worker(window.url, {{ type: "module", name: "dataw" }});
</script></body></html>"#,
        source = serde_json::to_string(&source).expect("json")
    );
    support::write_files(root.path(), &[("index.html", &html)]);
    let _browser = Browser::open(&format!("{base}/index.html"));
    let worker = log_in(root.path(), "dataw-");
    let found = unquote(&ask(&worker, "location.href"));
    assert!(found.starts_with("data:text/javascript,"), "{found}");
    assert_eq!(
        found,
        format!("data:text/javascript,{}", urlencoding_component(&source))
    );
}

/// `encodeURIComponent`'s encoding.
fn urlencoding_component(text: &str) -> String {
    let keep = |b: u8| b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b);
    text.bytes()
        .map(|b| match keep(b) {
            true => (b as char).to_string(),
            false => format!("%{b:02X}"),
        })
        .collect()
}
