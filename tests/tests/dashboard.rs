//! The dashboard (docs/doors.md, "Dashboard") in a second headless
//! Chromium driven over CDP: a page connected to the hub appears in its
//! list, a block sent from its box is written into the page's log as
//! agent `dashboard`'s and its reply shows up rendered, a running job's
//! elapsed time ticks, and the page is not blank. With a token, opening
//! it with `?token=` is enough.

mod support;

use support::cdp::{save, DevtoolsBrowser};
use support::pixels::count_pixels;
use support::{base_of, log_in, wait_for, Browser, Running, TempDir, World};

const PAGE: &str =
    "<!doctype html><html><head><title>Dash</title></head><body><p>Hello</p></body></html>";

/// A JavaScript string literal of `text`.
fn js(text: &str) -> String {
    serde_json::to_string(text).expect("JSON string")
}

/// Types `code` into the box and clicks Send.
fn send(dash: &mut DevtoolsBrowser, code: &str) {
    dash.eval(&format!(
        "document.getElementById('code').value = {}; document.getElementById('send-button').click(); true",
        js(code)
    ));
}

/// Waits until the realm `stem` is listed and its log is rendered.
fn wait_for_realm(dash: &mut DevtoolsBrowser, stem: &str) {
    let listed = dash.wait_until(
        "the realm in the list",
        &format!(
            "document.querySelector('.realm[data-stem=' + {} + ']')?.innerText",
            js(&format!("\"{stem}\""))
        ),
    );
    let listed = listed.as_str().unwrap_or_default();
    assert!(listed.contains(stem), "{listed}");
    assert!(listed.contains("page"), "{listed}");
    dash.wait_until(
        "the realm's log, rendered",
        &format!(
            "document.querySelector('#log h1')?.textContent.includes({})",
            js(stem)
        ),
    );
}

#[test]
fn the_dashboard_lists_the_realm_sends_a_block_and_ticks() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("dash-");
    let stem = log.stem.clone();
    let mut dash = DevtoolsBrowser::open(&format!("{}/_daebug/", world.base));
    wait_for_realm(&mut dash, &stem);

    // A block from the box: the reply in the rendered log and in the file,
    // under a request header of `dashboard`'s.
    send(&mut dash, "6*7");
    let text = wait_for(&log.path, "the dashboard's block answered", |t| {
        t.contains(&format!("> **dashboard** to {stem} at")) && t.contains("```JSON\n42\n```")
    });
    let request = text.find("> **dashboard** to ").unwrap();
    let reply = text.find(&format!("> **{stem}** to dashboard at")).unwrap();
    assert!(request < reply, "{text}");
    assert!(text[request..reply].contains("6*7"), "{text}");
    dash.wait_until(
        "the reply 42 on the page",
        "[...document.querySelectorAll('#log blockquote')].some((q) => q.textContent.includes('to dashboard at')) \
         && [...document.querySelectorAll('#log .fence-json code')].some((c) => c.textContent.trim() === '42')",
    );
    let status = dash.wait_until(
        "the box's status",
        "document.getElementById('send-status').textContent.includes('completed') && document.getElementById('send-status').textContent",
    );
    assert!(status.as_str().unwrap().contains(&stem), "{status}");
    assert_eq!(dash.eval("document.getElementById('code').value"), "");

    // A running job: its elapsed time moves on the page between the hub's
    // refreshes (the log says `executing (0s)` for its first 5 s).
    send(&mut dash, "await daebug.sleep(1500); 'slept'");
    let first = dash.wait_until(
        "the executing placeholder",
        "document.querySelector('#log .executing')?.textContent",
    );
    let first = first.as_str().unwrap().to_owned();
    assert!(first.starts_with("executing ("), "{first}");
    let later = dash.wait_until(
        "the placeholder to tick",
        &format!(
            "(() => {{ const t = document.querySelector('#log .executing')?.textContent; return t && t !== {} && t; }})()",
            js(&first)
        ),
    );
    assert!(
        later.as_str().unwrap().starts_with("executing ("),
        "{later}"
    );
    dash.wait_until(
        "the job's reply on the page",
        "!document.querySelector('#log .executing') && document.getElementById('log').textContent.includes('\"slept\"')",
    );

    // A block that fails is answered like any other, in red.
    dash.eval("document.getElementById('lang').value = 'ts'; true");
    send(&mut dash, "let x: = 1");
    dash.wait_until(
        "the reply to a syntax error",
        "document.getElementById('send-status').textContent.includes('failed') \
         && document.querySelector('#log .fence-error')?.textContent.includes('SyntaxError')",
    );
    // Each block is in the log once, with one reply.
    let text = log.text();
    assert!(text.contains("```ts\nlet x: = 1\n```"), "{text}");
    assert_eq!(text.matches("> **dashboard** to ").count(), 3, "{text}");
    assert_eq!(
        text.matches(&format!("> **{stem}** to dashboard at"))
            .count(),
        3,
        "{text}"
    );

    // A refusal (here: no such realm) is shown, and the code is kept.
    dash.eval("location.hash = '#nope'; true");
    dash.wait_until(
        "the unknown realm selected",
        "document.getElementById('log-title').textContent === 'nope'",
    );
    send(&mut dash, "'kept'");
    let refused = dash.wait_until(
        "the refusal",
        "(() => { const s = document.getElementById('send-status'); \
           return s.dataset.kind === 'error' && s.textContent; })()",
    );
    let refused = refused.as_str().unwrap();
    assert!(
        refused.contains("404") && refused.contains("nope"),
        "{refused}"
    );
    assert_eq!(dash.eval("document.getElementById('code').value"), "'kept'");
    dash.eval(&format!(
        "location.hash = {}; true",
        js(&format!("#{stem}"))
    ));
    dash.wait_until(
        "the realm selected again",
        "document.querySelector('#log .fence-error') !== null",
    );

    // The page, as a picture: not blank.
    let shot = dash.screenshot();
    save(&world.root.path().join("dashboard.png"), &shot);
    let pixels = count_pixels(&shot);
    assert!(pixels.width >= 400 && pixels.height >= 300, "{pixels:?}");
    assert!(pixels.colours >= 16, "{pixels:?}");
    assert!(pixels.foreground > 0.02, "{pixels:?}");
}

#[test]
fn with_a_token_the_dashboard_opened_with_it_works() {
    let root = TempDir::new("dash-token");
    std::fs::write(root.path().join("index.html"), PAGE).expect("write");
    let mut hub = Running::start(&["--port", "0", "--token", "s3cret"], &root);
    let base = base_of(&hub.line_with("serving"));
    let _page = Browser::open(&format!("{base}/index.html?token=s3cret"));
    let log = log_in(root.path(), "dash-");

    // The URL the hub prints for it carries the token.
    let line = hub.line_with("in the dashboard: ");
    let url = line.split("in the dashboard: ").nth(1).unwrap().trim();
    assert_eq!(url, format!("{base}/_daebug/?token=s3cret"));
    let mut dash = DevtoolsBrowser::open(url);
    // The list, the log and the events come over fetch and EventSource,
    // which carry the cookie the page's answer set.
    wait_for_realm(&mut dash, &log.stem);
    send(&mut dash, "[1, 2].map((n) => n * 10)");
    wait_for(&log.path, "the dashboard's block answered", |t| {
        t.contains("> **dashboard** to ") && t.contains("[10,20]")
    });
    dash.wait_until(
        "the reply on the page",
        "[...document.querySelectorAll('#log .fence-json code')].some((c) => c.textContent.trim() === '[10,20]')",
    );
    drop(hub);
}
