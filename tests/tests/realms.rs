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
