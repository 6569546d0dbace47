//! Realms coming and going with real parts: a page that reloads keeps its
//! log, a duplicated tab gets its own, and a page stays connected through
//! a hub restart.

mod support;

use support::{
    base_of, log_in, stems_in, wait_for, Browser, Log, Running, TempDir, World, Write, FOOTER,
};

const PAGE: &str = "<!doctype html><html><head><title>Realm</title></head><body></body></html>";

/// Asks the page how it was loaded until it says `want` (each ask waits
/// for its reply, so this polls with the log's own deadline per step).
fn ask_until(log: &Log, code: &str, want: &str) -> String {
    for _ in 0..20 {
        let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
        let last = &text[text.rfind("> **agent** to ").unwrap_or(0)..];
        if last.contains(want) {
            return text;
        }
    }
    panic!("{want} never came:\n{}", log.text());
}

#[test]
fn a_reloaded_page_continues_its_log() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => location.reload(), 50);\n'reloading'\n```\n",
        1,
    );
    assert!(text.contains("```JSON\n\"reloading\"\n```"), "{text}");
    ask_until(
        &log,
        "performance.getEntriesByType('navigation')[0].type",
        "```JSON\n\"reload\"\n```",
    );
    let registry = std::fs::read_to_string(world.root.path().join("debug.md")).unwrap();
    assert_eq!(stems_in(&registry), vec![log.stem.clone()], "{registry}");
}

#[test]
fn a_duplicated_tab_gets_a_log_of_its_own() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    // A window opened from the page starts with a copy of its session
    // storage, tab id included, as a duplicated tab does.
    let text = log.exchange(
        Write::Append,
        "\n```js\nwindow.open(location.href) !== null\n```\n",
        1,
    );
    assert!(text.contains("```JSON\ntrue\n```"), "{text}");
    let registry = world.root.path().join("debug.md");
    let listed = wait_for(&registry, "a second realm", |t| {
        stems_in(t)
            .iter()
            .filter(|s| s.starts_with("realm-"))
            .count()
            == 2
    });
    let other = stems_in(&listed)
        .into_iter()
        .find(|s| *s != log.stem)
        .unwrap();
    let path = world.root.path().join("debug").join(format!("{other}.md"));
    wait_for(&path, "the new log's footer", |t| {
        t.trim_end().ends_with(FOOTER)
    });
    let copy = Log { stem: other, path };
    let text = copy.exchange(Write::Append, "\n```js\n'from the copy'\n```\n", 1);
    assert!(text.contains("```JSON\n\"from the copy\"\n```"), "{text}");
    assert!(
        !log.text().contains("from the copy\"\n```"),
        "{}",
        log.text()
    );
}

#[test]
fn a_page_stays_through_a_hub_restart() {
    let root = TempDir::new("restart");
    std::fs::write(root.path().join("index.html"), PAGE).unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let port = base.rsplit(':').next().unwrap().to_string();
    let _browser = Browser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "realm-");
    let text = log.exchange(Write::Append, "\n```js\nwindow.before = 'kept'\n```\n", 1);
    assert!(text.contains("```JSON\n\"kept\"\n```"), "{text}");

    assert!(hub.terminate().success());
    let mut hub = Running::start(&["--port", &port], &root);
    hub.line_with("serving");
    // The page reconnects by itself and its log goes on.
    let text = log.exchange(Write::Append, "\n```js\nwindow.before\n```\n", 1);
    let last = &text[text.rfind("> **agent** to ").unwrap()..];
    assert!(last.contains("```JSON\n\"kept\"\n```"), "{text}");
}

const APP: &str = "<!doctype html><html><head><title>Realm</title></head>\
    <body><script>new Worker('/worker.js', { type: 'module' })</script></body></html>";
const WORKER: &str = "import '/daebug.js?name=bg';\n";

fn count(text: &str, what: &str) -> usize {
    text.lines().filter(|l| l.contains(what)).count()
}

#[test]
fn a_page_and_its_worker_keep_their_two_logs_through_reloads_and_a_new_tab_gets_its_own() {
    let world = World::new(&[("index.html", APP), ("worker.js", WORKER)], "index.html");
    let page = world.log("realm-");
    let worker = world.log("bg-");
    for reload in 1..=3 {
        let text = page.exchange(
            Write::Append,
            "\n```js\nsetTimeout(() => location.reload(), 50);\n'reloading'\n```\n",
            1,
        );
        assert!(text.contains("```JSON\n\"reloading\"\n```"), "{text}");
        let want = |t: &str| count(t, "reloaded at ") == reload && t.trim_end().ends_with(FOOTER);
        let text = wait_for(&page.path, "the page's reload line", want);
        let url = format!(
            " — {}/index.html (bindings of earlier blocks are gone)",
            world.base
        );
        assert!(text.contains(&url), "{text}");
        let text = wait_for(&worker.path, "the worker's reload line", want);
        let url = format!(
            " — {}/worker.js (bindings of earlier blocks are gone)",
            world.base
        );
        assert!(text.contains(&url), "{text}");
    }
    // The new worker answers in the same log.
    let text = worker.exchange(Write::Append, "\n```js\ntypeof WorkerGlobalScope\n```\n", 1);
    assert!(text.contains("```JSON\n\"function\"\n```"), "{text}");
    let registry = world.root.path().join("debug.md");
    let listed = std::fs::read_to_string(&registry).unwrap();
    assert_eq!(stems_in(&listed).len(), 2, "{listed}");

    // A new tab (no copy of this one's sessionStorage): a page log and a
    // worker log of its own.
    let text = page.exchange(
        Write::Append,
        "\n```js\nwindow.open(location.href, '_blank', 'noopener') === null\n```\n",
        1,
    );
    assert!(text.contains("```JSON\ntrue\n```"), "{text}");
    let listed = wait_for(&registry, "the new tab's page and worker", |t| {
        stems_in(t).len() == 4
    });
    let stems = stems_in(&listed);
    assert_eq!(
        stems.iter().filter(|s| s.starts_with("realm-")).count(),
        2,
        "{listed}"
    );
    assert_eq!(
        stems.iter().filter(|s| s.starts_with("bg-")).count(),
        2,
        "{listed}"
    );
}

#[test]
fn a_same_origin_navigation_keeps_the_log_and_says_so() {
    let world = World::new(&[("index.html", PAGE), ("other.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => { location.href = '/other.html' }, 50);\n'going'\n```\n",
        1,
    );
    assert!(text.contains("```JSON\n\"going\"\n```"), "{text}");
    let text = wait_for(&log.path, "the navigation line", |t| {
        t.contains(" navigated at ") && t.trim_end().ends_with(FOOTER)
    });
    assert!(
        text.contains(&format!(" to {}/other.html\n", world.base)),
        "{text}"
    );
    let text = log.exchange(Write::Append, "\n```js\nlocation.pathname\n```\n", 1);
    let last = &text[text.rfind("> **agent** to ").unwrap()..];
    assert!(last.contains("```JSON\n\"/other.html\"\n```"), "{text}");
    let registry = std::fs::read_to_string(world.root.path().join("debug.md")).unwrap();
    assert_eq!(stems_in(&registry), vec![log.stem.clone()], "{registry}");
}

#[test]
fn a_prelude_defines_a_helper_that_a_block_after_a_reload_can_call() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let text = log.exchange(
        Write::Append,
        "\n```js prelude\nfunction helper() { return 'helped ' + location.pathname }\n```\n",
        1,
    );
    assert!(!text.contains("**ERROR**"), "{text}");
    let text = log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => location.reload(), 50);\n'reloading'\n```\n",
        1,
    );
    assert!(text.contains("```JSON\n\"reloading\"\n```"), "{text}");
    let text = wait_for(&log.path, "the reload line and its prelude note", |t| {
        t.contains(" (bindings of earlier blocks are gone)\n(prelude ran: ok)\n")
            && t.trim_end().ends_with(FOOTER)
    });
    assert_eq!(count(&text, "(prelude ran: "), 1, "{text}");
    let text = log.exchange(Write::Append, "\n```js\nhelper()\n```\n", 1);
    let last = &text[text.rfind("> **agent** to ").unwrap()..];
    assert!(
        last.contains("```JSON\n\"helped /index.html\"\n```"),
        "{text}"
    );
}

/// Issue 14's number: the registry after 50 real reloads of a page with
/// a module worker (`cargo test -p daebug-e2e --test realms -- --nocapture
/// fifty`; about 15 s).
#[test]
fn fifty_reloads_of_a_page_with_a_worker() {
    let world = World::new(&[("index.html", APP), ("worker.js", WORKER)], "index.html");
    let page = world.log("realm-");
    let worker = world.log("bg-");
    for reload in 1..=50 {
        page.exchange(
            Write::Append,
            "\n```js\nsetTimeout(() => location.reload(), 50);\n'reloading'\n```\n",
            1,
        );
        let want = |t: &str| count(t, "reloaded at ") == reload && t.trim_end().ends_with(FOOTER);
        wait_for(&page.path, "the page's reload line", want);
        wait_for(&worker.path, "the worker's reload line", want);
    }
    let registry = std::fs::read_to_string(world.root.path().join("debug.md")).unwrap();
    let stems = stems_in(&registry);
    println!(
        "after 50 reloads: {} realm lines, {} lines in debug.md, {} logs in debug/",
        stems.len(),
        registry.lines().count(),
        std::fs::read_dir(world.root.path().join("debug"))
            .unwrap()
            .count()
    );
    assert_eq!(stems.len(), 2, "{registry}");
}

const FRAMED: &str = "<!doctype html><html><head><title>Realm</title></head>\
    <body><iframe src=\"/frame.html\"></iframe>\
    <script>new Worker('/worker.js', { type: 'module' })</script></body></html>";
const FRAME: &str = "<!doctype html><html><head><title>Frame</title></head><body></body></html>";

#[test]
fn a_block_in_all_md_answers_from_a_page_a_worker_and_an_iframe() {
    let world = World::new(
        &[
            ("index.html", FRAMED),
            ("frame.html", FRAME),
            ("worker.js", WORKER),
        ],
        "index.html",
    );
    let logs = [world.log("realm-"), world.log("bg-"), world.log("frame-")];
    // The hub made it, with a log's head and footer.
    let all = world.root.path().join("debug").join("all.md");
    let text = wait_for(&all, "all.md", |t| t.trim_end().ends_with(FOOTER));
    assert!(text.starts_with("# 👾 all\n"), "{text}");
    support::append(&all, "\n```js\nlocation.pathname\n```\n");
    let text = wait_for(&all, "the replies of the three realms", |t| {
        t.contains("> **all** to agent at ") && t.trim_end().ends_with(FOOTER)
    });
    let reply = &text[text.find("> **all** to agent at ").unwrap()..];
    assert!(!reply.contains("**ERROR**"), "{text}");
    for (log, path) in logs
        .iter()
        .zip(["/index.html", "/worker.js", "/frame.html"])
    {
        // Under the block in all.md, labelled by its stem.
        let header = format!("> **{}** to agent at ", log.stem);
        let at = reply
            .find(&header)
            .unwrap_or_else(|| panic!("{header}\n{text}"));
        let answer = format!("```JSON\n\"{path}\"\n```");
        assert!(reply[at..].contains(&answer), "{answer}\n{text}");
        // And in the realm's own log, block and reply.
        let own = log.text();
        assert!(
            own.contains("```js\nlocation.pathname\n```") && own.contains(&answer),
            "{own}"
        );
    }
}
