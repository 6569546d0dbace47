//! The person in the loop and streamed data (docs/log-format.md, "Panels"), with the real hub
//! and headless Chromium driven over DevTools: data fences in order with
//! the blocks of a chunk (an unknown target, bad JSON); a panel with a
//! schema (an invalid submit, a valid one, a block's `.click()` that cannot
//! answer, `data` re-rendering, a callback); `ask`; `pick` on a page made
//! the way React's development build makes it; Escape; `$0`. A person's
//! click or key press is a DevTools `Input.dispatch*` event (trusted),
//! never `el.click()`.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::cdp::DevtoolsBrowser;
use support::{base_of, http, log_in, wait_for, write_files, Log, Running, TempDir, Write};

const PAGE: &str = "<!doctype html><html><head><title>Panels</title>\
    <script src=\"/daebug.js\"></script></head><body><h1>Shop</h1></body></html>";

/// A hub serving `files` and a DevTools-driven Chromium on `/index.html`.
struct Desk {
    root: TempDir,
    _hub: Running,
    base: String,
    tab: DevtoolsBrowser,
}

impl Desk {
    fn new(files: &[(&str, &str)]) -> Desk {
        let root = TempDir::new("panels");
        write_files(root.path(), files);
        let mut hub = Running::start(&["--port", "0"], &root);
        let base = base_of(&hub.line_with("serving"));
        let tab = DevtoolsBrowser::open(&format!("{base}/index.html"));
        Desk {
            root,
            _hub: hub,
            base,
            tab,
        }
    }

    fn log(&self, prefix: &str) -> Log {
        log_in(self.root.path(), prefix)
    }
}

/// Appends a chunk and returns the log once it has `replies` more replies
/// and is idle.
fn exchange(log: &Log, chunk: &str, replies: usize) -> String {
    log.exchange(Write::Append, chunk, replies)
}

/// Appends one block without waiting for its reply (it waits for a person).
fn start_block(log: &Log, code: &str) {
    log.write(Write::Append, &format!("\n```js\n{code}\n```\n"));
}

/// Appends one block and returns its reply.
fn run(log: &Log, code: &str) -> String {
    let text = exchange(log, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").unwrap()..].to_string()
}

/// A person's key press (`Enter`, `Escape`).
fn press(tab: &mut DevtoolsBrowser, key: &str, code: u32) {
    // Enter's `text` is what makes the browser submit a form (a keypress).
    let text = if key == "Enter" { "\r" } else { "" };
    for kind in ["keyDown", "keyUp"] {
        tab.call(
            "Input.dispatchKeyEvent",
            json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code, "text": text }),
        );
    }
}

/// A person types `text` into what has focus.
fn type_text(tab: &mut DevtoolsBrowser, text: &str) {
    tab.call("Input.insertText", json!({ "text": text }));
}

/// The element `selector` in the panels' shadow root, as a page expression.
fn in_panel(selector: &str) -> String {
    format!("document.querySelector('daebug-panels')?.shadowRoot?.querySelector({selector:?})")
}

/// Polls the log until `pred` holds (the hub writes within a few ms).
fn log_until(log: &Log, what: &str, pred: impl Fn(&str) -> bool) -> String {
    wait_for(&log.path, what, pred)
}

#[test]
fn data_fences_run_in_order_with_the_blocks_of_their_chunk() {
    let desk = Desk::new(&[("index.html", PAGE)]);
    let log = desk.log("panels-");
    let chunk = "\n```js\nconst stats = new daebug.StreamedData(\"stats\")\n```\n\
        ```json agent.data => \"stats\"\n{\"count\": 3, \"items\": [1, 2]}\n```\n\
        ```js\nconst first = stats.count\n```\n\
        ```JSON agent.data => \"stats\"\n{\"count\": 4}\n```\n\
        ```json agent.data => \"nope\"\n{\"count\": 9}\n```\n\
        ```json agent.data => \"stats\"\n{\"count\": 5,\n}\n```\n\
        ```js\n[first, stats.count, Object.keys(stats).join()]\n```\n";
    let text = exchange(&log, chunk, 7);
    let tail = &text[text.find("const stats").unwrap()..];
    // Each fence's reply under it, in order; the chunk went on past the
    // unknown target and the bad JSON.
    let order = [
        "(agent.data \"stats\" set)",
        "const first = stats.count",
        "(agent.data \"stats\" set)",
        "(unknown_target: \"nope\")",
        "(json_error at line 2, column 1: trailing comma)",
        "```JSON\n[3,4,\"count\"]\n```",
    ];
    let mut at = 0;
    for want in order {
        let found = tail[at..]
            .find(want)
            .unwrap_or_else(|| panic!("{want} after byte {at} in:\n{tail}"));
        at += found + want.len();
    }
    assert!(!tail.contains("**ERROR**"), "{tail}");
    // A later block reads the value too.
    // A later block reads the value too: the last one set, replacing the
    // first (`items` went with it).
    let reply = run(&log, "[stats.count, stats.items]");
    assert!(reply.contains("```Text\n[4, undefined]\n```"), "{reply}");
}

/// Whether the panel's `result` has settled, asked from a block: a promise
/// that settles is seen at once; one that does not is still pending after
/// the realm's next few turns (a bounded look, not a wait for an event).
const SETTLED: &str = "await Promise.race([p.result.then(() => 'resolved', () => 'rejected'), \
    new Promise((r) => setTimeout(() => r('pending'), 200))])";

#[test]
fn a_panel_with_a_schema_answers_only_a_persons_valid_submit() {
    let desk = Desk::new(&[("index.html", PAGE)]);
    let mut tab = desk.tab;
    let log = log_in(desk.root.path(), "panels-");
    let reply = run(
        &log,
        "const seen = [];\n\
         const data = { progress: 10 };\n\
         window.t0 = performance.now();\n\
         const p = daebug.mount({\n\
           title: 'Checkout form',\n\
           data,\n\
           outputSchema: { type: 'object', required: ['name', 'qty'],\n\
             properties: { name: { type: 'string', minLength: 3 }, qty: { type: 'integer', minimum: 1 } } },\n\
           callbacks: { ping: (x) => seen.push(x) },\n\
           ui: ({ data, output, callbacks, h }) => [\n\
             h('p', { id: 'progress' }, `progress ${data.progress}`),\n\
             h('input', { id: 'name', value: output.name.value, onChange: output.name.onChange }),\n\
             output.name.error && h('small', { id: 'name-error' }, output.name.error),\n\
             h('input', { id: 'qty', type: 'number', value: output.qty.value, onChange: output.qty.onChange }),\n\
             h('button', { id: 'ping', onClick: () => callbacks.ping('pinged') }, 'Ping'),\n\
           ],\n\
         });\n\
         'mounted'",
    );
    assert!(reply.contains("\"mounted\""), "{reply}");
    let painted = tab.wait_until(
        "the panel painted",
        "performance.getEntriesByName('daebug:panel-painted')[0]?.startTime - window.t0",
    );
    eprintln!(
        "mount -> panel painted: {:.1} ms",
        painted.as_f64().unwrap_or(-1.0)
    );
    let progress = in_panel("#progress");
    tab.wait_until(
        "progress 10",
        &format!("{progress}?.textContent === 'progress 10'"),
    );

    // Reactive data: the object the block passed, changed in a later block.
    run(&log, "data.progress = 50");
    tab.wait_until(
        "progress 50",
        &format!("{progress}?.textContent === 'progress 50'"),
    );
    run(&log, "p.data.progress = 70");
    tab.wait_until(
        "progress 70",
        &format!("{progress}?.textContent === 'progress 70'"),
    );

    // A callback runs in the realm when the panel calls it.
    tab.click(&in_panel("#ping"));
    let reply = run(&log, "await daebug.waitFor(() => seen.length && seen)");
    assert!(reply.contains("[\"pinged\"]"), "{reply}");

    // An invalid submit: the field's error, and no answer.
    tab.click(&in_panel("#name"));
    type_text(&mut tab, "Al");
    tab.click(&in_panel("#qty"));
    type_text(&mut tab, "2");
    tab.click(&in_panel(".submit"));
    tab.wait_until(
        "the field's error",
        &format!(
            "{}?.textContent === 'must be at least 3 characters'",
            in_panel("#name-error")
        ),
    );
    let reply = run(&log, SETTLED);
    assert!(reply.contains("\"pending\""), "{reply}");

    // Valid now, but a block's `.click()` is not a person's.
    tab.click(&in_panel("#name"));
    type_text(&mut tab, "a");
    let reply = run(
        &log,
        &format!("{}.click();\n{SETTLED}", in_panel(".submit")),
    );
    assert!(reply.contains("\"pending\""), "{reply}");
    assert!(!log.text().contains("**human**"), "{}", log.text());

    // The person's submit resolves the block that awaits it.
    start_block(&log, "const v = await p.result;\nv");
    log_until(&log, "the block to run", |t| t.trim_end().ends_with(")"));
    let sent = Instant::now();
    tab.click(&in_panel(".submit"));
    let text = log_until(&log, "the human line", |t| {
        t.contains("> **human** answered")
    });
    let on_disk = sent.elapsed();
    eprintln!("trusted submit -> human line on disk: {on_disk:?}");
    assert!(
        text.contains("> **human** answered \"Checkout form\" at ")
            && text.contains("```JSON\n{\"name\":\"Ala\",\"qty\":2}\n```"),
        "{text}"
    );
    let text = log_until(&log, "the block's reply", |t| {
        t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("const v = await p.result").unwrap()..];
    assert!(
        reply.contains("```JSON\n{\"name\":\"Ala\",\"qty\":2}\n```"),
        "{reply}"
    );
    tab.wait_until("the panel gone", &format!("!{}", in_panel(".card")));
}

#[test]
fn ask_is_answered_by_a_persons_click() {
    let desk = Desk::new(&[("index.html", PAGE)]);
    let mut tab = desk.tab;
    let log = log_in(desk.root.path(), "panels-");
    start_block(&log, "await daebug.ask('Log in, then press Continue')");
    tab.click(&in_panel(".choices button"));
    let text = log_until(&log, "the ask's reply", |t| {
        t.contains("> **human** answered") && t.trim_end().ends_with(support::FOOTER)
    });
    assert!(
        text.contains("> **human** answered \"Log in, then press Continue\" at ")
            && text.contains("```JSON\n\"Continue\"\n```\n\n> **human**"),
        "{text}"
    );

    // Choices; a block's click on one does not answer.
    start_block(
        &log,
        "const choice = daebug.ask('Ship it?', { choices: ['Yes', 'No'] });\n\
         await daebug.waitFor(() => document.querySelector('daebug-panels')?.shadowRoot.querySelector('.choices button'));\n\
         document.querySelector('daebug-panels').shadowRoot.querySelector('.choices button').click();\n\
         await choice",
    );
    let no = "[...document.querySelector('daebug-panels')?.shadowRoot?.querySelectorAll('.choices button') ?? []].find((b) => b.textContent === 'No')";
    tab.click(no);
    let text = log_until(&log, "the second answer", |t| {
        t.matches("> **human** answered").count() == 2 && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("await choice").unwrap()..];
    assert!(reply.contains("```JSON\n\"No\"\n```"), "{reply}");
    assert!(
        reply.contains("> **human** answered \"Ship it?\""),
        "{reply}"
    );
}

/// A page made the way React's development build makes it: each DOM node
/// carries its fiber under `__reactFiber$<random>`, whose `_debugSource`
/// says where the JSX was written and whose `_debugOwner` is the component
/// that rendered it. (Written by hand: this machine cannot fetch React.)
const REACT_PAGE: &str = "<!doctype html><html><head><title>Panels</title>\
    <script src=\"/daebug.js\"></script></head><body><div id=\"root\"><main>\
    <h1>Shop</h1><div class=\"row\"><button class=\"buy\">Buy now</button></div>\
    <p><a class=\"more\">More</a></p></main></div>\
    <script src=\"/deps/react_jsx-dev-runtime.js\"></script><script src=\"/assets/app.js\"></script>\
    <script>\n\
    function BuyButton() {}\n\
    function App() {}\n\
    const key = '__reactFiber$' + Math.random().toString(36).slice(2);\n\
    const app = { tag: 0, type: App, _debugSource: { fileName: '/home/dev/shop/src/App.jsx', lineNumber: 4, columnNumber: 3 } };\n\
    const owner = { tag: 0, type: BuyButton, return: app, _debugOwner: app,\n\
      _debugSource: { fileName: '/home/dev/shop/src/App.jsx', lineNumber: 9, columnNumber: 7 } };\n\
    document.querySelector('.buy')[key] = { tag: 5, type: 'button', return: owner, _debugOwner: owner,\n\
      _debugSource: { fileName: '/home/dev/shop/src/components/BuyButton.jsx', lineNumber: 12, columnNumber: 7 } };\n\
    document.querySelector('main')[key] = { tag: 5, type: 'main', return: app, _debugOwner: app,\n\
      _debugSource: { fileName: '/home/dev/shop/src/App.jsx', lineNumber: 6, columnNumber: 5 } };\n\
    </script></body></html>";

/// React 19 keeps no `_debugSource`: a fiber's `_debugStack` is an `Error`
/// made where the JSX ran, in the bundled script, which a source map maps
/// back to the file the person wrote.
const REACT_19_FILES: [(&str, &str); 3] = [
    (
        "deps/react_jsx-dev-runtime.js",
        "window.jsxDEV = function jsxDEV(type, props) { return { tag: 5, type, props, _debugStack: new Error('react-stack-top-frame') }; };\n",
    ),
    (
        "assets/app.js",
        "// the bundle\nfunction More() {}\nconst more = jsxDEV('a', {}); more._debugOwner = { tag: 0, type: More };\n\
         document.querySelector('.more')['__reactFiber$' + 'q1w2'] = more;\n//# sourceMappingURL=app.js.map\n",
    ),
    // Generated line 3, any column -> ../src/components/More.tsx 21:5.
    (
        "assets/app.js.map",
        r#"{"version":3,"sources":["../src/components/More.tsx"],"names":[],"mappings":";;AAoBI"}"#,
    ),
];

#[test]
fn pick_returns_the_element_its_component_and_source_and_escape_cancels() {
    let mut files = vec![("index.html", REACT_PAGE)];
    files.extend(REACT_19_FILES);
    let desk = Desk::new(&files);
    let mut tab = desk.tab;
    let log = log_in(desk.root.path(), "panels-");
    start_block(
        &log,
        "const picked = await daebug.pick('Which button?');\n\
         [picked.selector, picked.tag, picked.text, picked.component.name, picked.source, picked.styles.display, picked.element === document.querySelector('.buy'), $0 === picked.element]",
    );
    // The person moves over the button, then clicks it.
    tab.wait_until("the pick's banner", &format!("!!{}", in_panel(".hint")));
    tab.click("document.querySelector('.buy')");
    let text = log_until(&log, "the pick's reply", |t| {
        t.contains("> **human** answered") && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("const picked").unwrap()..];
    assert!(
        reply.contains(
            "[\n  \"button\",\n  \"button\",\n  \"Buy now\",\n  \"BuyButton\",\n  \"src/components/BuyButton.jsx:12:7\",\n  \"inline-block\",\n  true,\n  true\n]"
        ),
        "{reply}"
    );
    // The human line with what was picked, and a picture of it.
    assert!(
        reply.contains("> **human** answered \"Which button?\" at ")
            && reply.contains("\"name\": \"BuyButton\"")
            && reply.contains("\"source\": \"src/components/BuyButton.jsx:12:7\""),
        "{reply}"
    );
    assert!(reply.contains("![snapshot "), "{reply}");
    // The selector matches the element alone; `$0` is it in later blocks.
    let reply = run(
        &log,
        "[document.querySelectorAll(picked.selector).length, $0.className]",
    );
    assert!(reply.contains("[1,\"buy\"]"), "{reply}");

    // React 19: the source from `_debugStack`, through the source map.
    start_block(
        &log,
        "const more = await daebug.pick('And this link?');\n[more.component.name, more.source, $0.className]",
    );
    tab.wait_until(
        "the pick's banner again",
        &format!("!!{}", in_panel(".hint")),
    );
    tab.click("document.querySelector('.more')");
    let text = log_until(&log, "the second pick", |t| {
        t.contains("> **human** answered \"And this link?\"")
            && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("const more").unwrap()..];
    assert!(
        reply.contains("[\"More\",\"src/components/More.tsx:21:5\",\"more\"]"),
        "{reply}"
    );

    // Escape: the promise rejects with a clear error.
    start_block(&log, "await daebug.pick('Escape test')");
    tab.wait_until("the second banner", &format!("!!{}", in_panel(".hint")));
    press(&mut tab, "Escape", 27);
    let text = log_until(&log, "the cancelled pick", |t| {
        t.contains("the person cancelled") && t.trim_end().ends_with(support::FOOTER)
    });
    assert!(
        text.contains("Error: daebug.pick: the person cancelled (Escape)"),
        "{text}"
    );
    tab.wait_until("the banner gone", &format!("!{}", in_panel(".card")));
}

/// `pick` on elements with an `id`, and under ancestors with one, whose
/// selectors need the browser's `CSS.escape` (`#a:b`, `#1x`): each pick
/// answers with a selector that matches the element alone, and sets `$0`.
#[test]
fn pick_escapes_ids_of_the_element_and_its_ancestors() {
    const IDS_PAGE: &str = "<!doctype html><html><head><title>Panels</title>\
        <script src=\"/daebug.js\"></script></head><body><main>\
        <h1 id=\"title\">Shop</h1><p id=\"a:b\">colon</p><p id=\"1x\">digit</p>\
        <section id=\"box:1\"><ul><li>one</li><li class=\"two\">two</li></ul></section>\
        <section><ul><li>three</li><li>four</li></ul></section>\
        </main></body></html>";
    let desk = Desk::new(&[("index.html", IDS_PAGE)]);
    let mut tab = desk.tab;
    let log = log_in(desk.root.path(), "panels-");
    let cases = [
        ("document.getElementById('title')", r##""#title""##),
        ("document.getElementById('a:b')", r##""#a\\:b""##),
        ("document.getElementById('1x')", r##""#\\31 x""##),
        (
            "document.querySelector('.two')",
            r##""#box\\:1 > ul > li:nth-of-type(2)""##,
        ),
    ];
    for (n, (element, selector)) in cases.into_iter().enumerate() {
        start_block(
            &log,
            &format!(
                "const p{n} = await daebug.pick('Pick {n}');\n\
                 [p{n}.selector, document.querySelectorAll(p{n}.selector).length, $0 === {element}]"
            ),
        );
        tab.wait_until("the pick's banner", &format!("!!{}", in_panel(".hint")));
        tab.click(element);
        let text = log_until(&log, "the pick's reply", |t| {
            t.contains(&format!("> **human** answered \"Pick {n}\""))
                && t.trim_end().ends_with(support::FOOTER)
        });
        let reply = &text[text.rfind(&format!("const p{n} ")).unwrap()..];
        assert!(
            reply.contains(&format!("```JSON\n[{selector},1,true]\n```")),
            "{element}: {reply}"
        );
        tab.wait_until("the card gone", &format!("!{}", in_panel(".card")));
    }
}

/// The form of a worker's or a Node process's panel, answered by a person
/// in the dashboard; an agent's HTTP call cannot answer it, and the API and
/// MCP's `list_realms` show it waiting.
fn answer_in_the_dashboard(base: &str, log: &Log, title: &str) {
    start_block(
        log,
        &format!(
            "const p = daebug.mount({{ title: {title:?}, outputSchema: {{ type: 'object', required: ['name'],\n\
               properties: {{ name: {{ type: 'string', minLength: 2 }} }} }} }});\n\
             await p.result"
        ),
    );
    // Visible through the API while it waits.
    let deadline = Instant::now() + Duration::from_secs(30);
    let listed = loop {
        let (_, body) = http(base, "GET", "/api/realms", &[], "");
        if body.contains(title) || Instant::now() > deadline {
            break body;
        }
        std::thread::yield_now();
    };
    assert!(
        listed.contains("\"waiting\":[{\"id\":1,\"kind\":\"panel\"")
            && listed.contains(&format!("\"title\":{title:?}")),
        "{listed}"
    );
    // An agent's call to the dashboard's answer route is refused.
    let act = format!(
        "{{\"stem\":{:?},\"id\":1,\"handler\":0,\"event\":\"submit\"}}",
        log.stem
    );
    let (status, body) = http(
        base,
        "POST",
        "/_daebug/person",
        &["Content-Type: application/json"],
        &act,
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("only a person in the dashboard"), "{body}");

    let mut dash = DevtoolsBrowser::open(&format!("{base}/_daebug/#{}", log.stem));
    let input = "document.querySelector('#person .card input[name=name]')";
    dash.wait_until("the panel in the dashboard", input);
    // A script's click in the dashboard is not a person's either.
    dash.eval("document.querySelector('#person .submit').click(); true");
    dash.click(input);
    type_text(&mut dash, "B");
    dash.click("document.querySelector('#person .submit')");
    dash.wait_until(
        "the field's error",
        "document.querySelector('#person .card')?.innerText.includes('must be at least 2 characters')",
    );
    dash.click(input);
    type_text(&mut dash, "o");
    dash.click("document.querySelector('#person .submit')");
    let text = log_until(log, "the person's answer", |t| {
        t.contains("> **human** answered") && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("await p.result").unwrap()..];
    assert!(
        reply.contains("```JSON\n{\"name\":\"Bo\"}\n```")
            && reply.contains(&format!("> **human** answered {title:?} at ")),
        "{reply}"
    );
    assert_eq!(
        reply.matches("> **human** answered").count(),
        1,
        "one answer: {reply}"
    );
    dash.wait_until(
        "the panel gone from the dashboard",
        "document.getElementById('person').hidden",
    );

    // An ask, answered there too.
    start_block(
        log,
        "await daebug.ask('Deploy?', { choices: ['Yes', 'No'] })",
    );
    let no = "[...document.querySelectorAll('#person .card button')].find((b) => b.textContent === 'No')";
    dash.click(no);
    let text = log_until(log, "the ask's answer", |t| {
        t.contains("> **human** answered \"Deploy?\"") && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("await daebug.ask").unwrap()..];
    assert!(reply.contains("```JSON\n\"No\"\n```"), "{reply}");
}

#[test]
fn a_workers_panel_is_answered_from_the_dashboard() {
    let desk = Desk::new(&[
        (
            "index.html",
            "<!doctype html><html><head><title>Panels</title></head><body>\
             <script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
        ),
        ("worker.js", "import '/daebug.js?name=crunch';\n"),
    ]);
    let log = desk.log("crunch-");
    answer_in_the_dashboard(&desk.base, &log, "Worker form");
}

#[test]
fn a_node_processs_panel_is_answered_from_the_dashboard() {
    let root = TempDir::new("panels-node");
    std::fs::create_dir_all(root.path().join("app")).unwrap();
    std::fs::write(
        root.path().join("app/server.js"),
        "setInterval(() => {}, 1000);\n",
    )
    .unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    wait_for(
        &root.path().join("debug/daebug-node.mjs"),
        "the Node loader",
        |t| t.contains(&base),
    );
    let node = support::node::NodeProcess::start(
        &support::node::node(22),
        root.path(),
        &root.path().join("app"),
        &[],
        "server.js",
        &[],
    );
    let log = log_in(root.path(), "server-");
    answer_in_the_dashboard(&base, &log, "Node form");
    drop(node);
}

#[test]
fn a_panel_that_fails_to_render_says_so_and_close_removes_one() {
    let desk = Desk::new(&[("index.html", PAGE)]);
    let mut tab = desk.tab;
    let log = log_in(desk.root.path(), "panels-");
    let reply = run(
        &log,
        "const bad = daebug.mount({ title: 'Broken', ui: () => { throw new TypeError('no such field: total') } });\n\
         await bad.result",
    );
    assert!(
        reply.contains("TypeError: no such field: total")
            && reply.contains("daebug.mount: This panel failed to load"),
        "{reply}"
    );
    // The stacks show the block's frame, not daebug's own.
    assert!(
        reply.contains("at Object.ui (<cell>:1:") && !reply.contains("daebug-panel.mjs"),
        "{reply}"
    );
    tab.wait_until(
        "the failure in the page",
        &format!(
            "{}?.textContent === 'This panel failed to load'",
            in_panel(".failed")
        ),
    );

    let reply = run(
        &log,
        "const q = daebug.mount({ title: 'Closing', ui: ({ h }) => h('p', { id: 'bye' }, 'bye') });\n\
         await daebug.waitFor(() => document.querySelector('daebug-panels').shadowRoot.querySelector('#bye'));\n\
         q.close();\n\
         [!!document.querySelector('daebug-panels').shadowRoot.querySelector('#bye'), await q.result.catch((e) => e.message)]",
    );
    assert!(
        reply.contains(
            "[false,\"daebug.mount: the panel was closed before a person submitted it\"]"
        ),
        "{reply}"
    );

    // A `ui` with a form of its own: a block's `requestSubmit()` does not
    // answer, a person's Enter in its field does.
    let reply = run(
        &log,
        "const f = daebug.mount({ title: 'Own form', outputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },\n\
           ui: ({ output, h }) => h('form', null, h('input', { id: 'city', value: output.city.value, onChange: output.city.onChange }), h('button', { type: 'submit' }, 'Go')) });\n\
         await daebug.waitFor(() => document.querySelector('daebug-panels').shadowRoot.querySelector('#city'));\n\
         document.querySelector('daebug-panels').shadowRoot.querySelector('form').requestSubmit();\n\
         await Promise.race([f.result.then(() => 'resolved'), new Promise((r) => setTimeout(() => r('pending'), 200))])",
    );
    assert!(reply.contains("\"pending\""), "{reply}");
    start_block(&log, "await f.result");
    tab.click(&in_panel("#city"));
    type_text(&mut tab, "Oslo");
    press(&mut tab, "Enter", 13);
    let text = log_until(&log, "the form's answer", |t| {
        t.contains("> **human** answered \"Own form\"") && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = &text[text.rfind("await f.result").unwrap()..];
    assert!(
        reply.contains("```JSON\n{\"city\":\"Oslo\"}\n```"),
        "{reply}"
    );
}

#[test]
fn a_panel_shows_streamed_data_as_data_fences_set_it() {
    let desk = Desk::new(&[("index.html", PAGE)]);
    let mut tab = desk.tab;
    let log = log_in(desk.root.path(), "panels-");
    exchange(
        &log,
        "\n```js\nconst stats = new daebug.StreamedData('stats');\n\
         const s = daebug.mount({ title: 'Stats', streamedData: { stats },\n\
           ui: ({ streamedData, h }) => h('p', { id: 'count' }, `count ${streamedData.stats.count}`) });\n\
         'ok'\n```\n```json agent.data => \"stats\"\n{\"count\": 7}\n```\n",
        2,
    );
    let count = in_panel("#count");
    tab.wait_until("count 7", &format!("{count}?.textContent === 'count 7'"));
    exchange(
        &log,
        "\n```JSON agent.data => \"stats\"\n{\"count\": 8}\n```\n",
        1,
    );
    tab.wait_until("count 8", &format!("{count}?.textContent === 'count 8'"));
}
