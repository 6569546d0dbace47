//! The whole loop with real parts: the built `daebug` binary serving a
//! page, headless Chromium loading it (the hub injects the adapter), and
//! blocks appended to the page's log as an agent would.

mod support;

use support::{
    append, base_of, serve_app, serve_files, stem_in, stems_in, wait_for, Browser, Running, TempDir,
};

#[test]
fn a_page_served_by_the_hub_runs_a_block_and_reports_console_output() {
    let root = TempDir::new("browser");
    std::fs::write(
        root.path().join("index.html"),
        "<!doctype html><html><head><title>Smoke</title></head><body><button id=save class=btn>Save</button></body></html>",
    )
    .unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let _browser = Browser::open(&format!("{base}/index.html"));

    let registry = root.path().join("debug.md");
    let listed = wait_for(&registry, "the page in the registry", |t| {
        stem_in(t).is_some_and(|s| s.starts_with("smoke-"))
    });
    let stem = stem_in(&listed).unwrap();
    let log = root.path().join("debug").join(format!("{stem}.md"));
    wait_for(&log, "the log's footer", |t| {
        t.trim_end().ends_with("execute against this page.")
    });

    append(
        &log,
        "```js\nconsole.log('hello from the page');\nreturn [document.title, document.querySelector('#save')]\n```\n",
    );
    let text = wait_for(&log, "the reply", |t| {
        t.contains("<button#save.btn> \"Save\"")
            && t.trim_end().ends_with("execute against this page.")
    });
    assert!(
        text.contains("```Text\n[\"Smoke\", <button#save.btn> \"Save\"]\n```"),
        "{text}"
    );
    assert!(
        text.contains("```Text console.log\nhello from the page\n```"),
        "{text}"
    );
    assert!(
        text.contains(&format!("> **{stem}** to agent at ")),
        "{text}"
    );

    // An error comes back with its name, message and stack.
    append(&log, "\n```js\nnull.x\n```\n");
    let text = wait_for(&log, "the error reply", |t| t.contains("(**ERROR** after "));
    assert!(
        text.contains("TypeError: Cannot read properties of null"),
        "{text}"
    );
}

#[test]
fn a_page_of_another_dev_server_and_its_module_worker_connect_cross_origin() {
    let root = TempDir::new("cross");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let page = serve_app(
        format!(
            "<!doctype html><html><head><title>Other</title>\
             <script type=\"module\" src=\"{base}/daebug.js?name=checkout\"></script></head>\
             <body><script>new Worker('/worker.js', {{type: 'module'}})</script></body></html>"
        ),
        format!("import \"{base}/daebug.js?name=indexer\";\n"),
    );
    let _browser = Browser::open(&format!("{page}/"));

    let registry = root.path().join("debug.md");
    let listed = wait_for(&registry, "the page and its worker", |t| {
        let stems = stems_in(t);
        stems.iter().any(|s| s.starts_with("checkout-"))
            && stems.iter().any(|s| s.starts_with("indexer-"))
    });
    assert!(
        listed.contains("(worker "),
        "the worker is listed as one: {listed}"
    );
    for stem in stems_in(&listed) {
        let log = root.path().join("debug").join(format!("{stem}.md"));
        wait_for(&log, "the log's footer", |t| {
            t.trim_end().ends_with("execute against this page.")
        });
        append(&log, "```js\nreturn typeof document\n```\n");
        let want = if stem.starts_with("indexer-") {
            "\"undefined\""
        } else {
            "\"object\""
        };
        let text = wait_for(&log, "the reply", |t| {
            t.trim_end().ends_with("execute against this page.") && t.contains("```JSON")
        });
        assert!(
            text.contains(&format!("```JSON\n{want}\n```")),
            "{stem}:\n{text}"
        );
    }
}

#[test]
fn loading_the_adapter_twice_starts_one() {
    let root = TempDir::new("twice");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    std::fs::write(
        root.path().join("index.html"),
        format!(
            "<!doctype html><html><head><title>Twice</title>\
             <script type=\"module\" src=\"{base}/daebug.js\"></script>\
             <script type=\"module\" src=\"{base}/daebug.js?name=again\"></script>\
             </head><body></body></html>"
        ),
    )
    .unwrap();
    let _browser = Browser::open(&format!("{base}/index.html"));
    let registry = root.path().join("debug.md");
    let listed = wait_for(&registry, "the page", |t| !stems_in(t).is_empty());
    let stem = stems_in(&listed).remove(0);
    let log = root.path().join("debug").join(format!("{stem}.md"));
    wait_for(&log, "the log's footer", |t| {
        t.trim_end().ends_with("execute against this page.")
    });
    // A block that runs after both scripts have loaded; the registry must
    // still list one realm.
    append(&log, "```js\nreturn document.title\n```\n");
    wait_for(&log, "the reply", |t| t.contains("```JSON\n\"Twice\"\n```"));
    let registry_text = std::fs::read_to_string(&registry).unwrap();
    assert_eq!(stems_in(&registry_text).len(), 1, "{registry_text}");
}

/// A page whose inline script, text or comment names `daebug.js` is not a
/// page that loads it: the hub adds the tag and the page connects. A page
/// that loads the hub's script itself is left alone, and the hub's output
/// says so, once for that page.
#[test]
fn a_page_that_names_daebug_js_still_connects_and_a_page_left_alone_is_said() {
    let root = TempDir::new("mention");
    std::fs::write(
        root.path().join("index.html"),
        "<!doctype html><html><head><title>Mentions</title>\
         <script>const workerSource = 'import \"http://127.0.0.1:8302/daebug.js\";';</script>\
         </head><body><!-- <script src=\"/daebug.js\"></script> -->\
         <p>Add daebug.js to your page.</p></body></html>",
    )
    .unwrap();
    std::fs::write(
        root.path().join("own.html"),
        "<!doctype html><html><head><title>Own</title>\
         <script src=\"/daebug.js?name=own-tag\"></script></head><body></body></html>",
    )
    .unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let _mentions = Browser::open(&format!("{base}/index.html"));
    let _own = Browser::open(&format!("{base}/own.html"));
    let registry = root.path().join("debug.md");
    wait_for(&registry, "both pages connected", |t| {
        let stems = stems_in(t);
        stems.iter().any(|s| s.starts_with("mentions-"))
            && stems.iter().any(|s| s.starts_with("own-tag-"))
    });
    // The hub's log lines go to stderr: polled, with a deadline.
    let deadline = std::time::Instant::now() + support::DEADLINE;
    while !hub.output().contains("already loads") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let said = hub.output();
    assert!(
        said.contains("/own.html already loads the hub's script (/daebug.js?name=own-tag)"),
        "{said}"
    );
    assert!(
        !hub.output().contains("/index.html already loads"),
        "{}",
        hub.output()
    );
}

/// The README's line for a page and for a module worker, as written there
/// (its port changed to the one used here).
fn readme_recipe(after: &str, fence: &str) -> String {
    let readme = include_str!("../../README.md");
    let from = readme.find(after).expect("the recipe's heading") + after.len();
    let open = format!("```{fence}\n");
    let start = readme[from..].find(&open).expect("its fence") + from + open.len();
    let end = readme[start..].find("```").unwrap() + start;
    readme[start..end].trim().to_string()
}

/// The README's page and worker lines never break an app whose hub is
/// down: the page and its module worker run exactly as without them (the
/// worker's answer reaches the page); with the hub up, both connect.
#[test]
fn the_readme_recipes_leave_an_app_working_when_the_hub_is_down() {
    let page_line = readme_recipe("**A page on a dev server (Vite).**", "html");
    let worker_line = readme_recipe("**A worker that still needs the line**", "js");
    let classic_line = {
        let readme = include_str!("../../README.md");
        let anchor = "A classic worker: `";
        let from = readme.find(anchor).unwrap() + anchor.len();
        readme[from..from + readme[from..].find('`').unwrap()].to_string()
    };
    assert!(
        classic_line.contains("127.0.0.1:8302/daebug.js"),
        "{classic_line}"
    );
    assert!(
        page_line.contains("127.0.0.1:8302/daebug.js"),
        "{page_line}"
    );
    assert!(
        worker_line.contains("127.0.0.1:8302/daebug.js"),
        "{worker_line}"
    );
    let app = |port: u16| {
        let at = |line: &str| line.replace("127.0.0.1:8302", &format!("127.0.0.1:{port}"));
        serve_files(vec![
            (
                "/",
                format!(
                    "<!doctype html><html><head>{}<title>Counts</title></head><body>\
                     <script>const w = new Worker('/worker.js', {{ type: 'module' }});\
                     const c = new Worker('/classic.js');\
                     let got = [];\
                     const show = (e) => {{ got.push(e.data); document.body.dataset.counted = got.sort().join(); }};\
                     w.onmessage = show; c.onmessage = show;\
                     w.postMessage([1, 2, 3]); c.postMessage([4, 5]);</script></body></html>",
                    at(&page_line)
                ),
            ),
            (
                "/classic.js",
                format!(
                    "{}\nself.onmessage = (e) => postMessage(e.data.reduce((a, b) => a + b, 0));\n",
                    at(&classic_line)
                ),
            ),
            (
                "/worker.js",
                format!(
                    "{}\nimport {{ sum }} from '/sum.js';\n\
                     self.onmessage = (e) => postMessage(sum(e.data));\n",
                    at(&worker_line)
                ),
            ),
            (
                "/sum.js",
                "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n".to_string(),
            ),
        ])
    };
    // A port nothing listens on: the hub is down.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut tab = support::cdp::DevtoolsBrowser::open(&format!("{}/", app(closed)));
    tab.wait_until(
        "the worker's answer with the hub down",
        "document.body?.dataset.counted === '6,9' || null",
    );

    // The same lines with the hub up: the page and the worker connect.
    let root = TempDir::new("recipes");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let port: u16 = base
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let mut tab = support::cdp::DevtoolsBrowser::open(&format!("{}/", app(port)));
    tab.wait_until(
        "the worker's answer with the hub up",
        "document.body?.dataset.counted === '6,9' || null",
    );
    wait_for(
        &root.path().join("debug.md"),
        "the page and its worker",
        |t| {
            let stems = stems_in(t);
            stems.iter().any(|s| s.starts_with("counts-"))
                && stems.iter().any(|s| s.starts_with("worker-"))
        },
    );
}
