//! Initiators (docs/log-format.md, "Initiators"): each request line names
//! the code that made it, up to 3 frames, daebug's own left out, mapped
//! through the page's source maps to the original files, and a block's
//! own lines as `<cell>:line`. Real hub, headless Chromium.

mod support;

use support::{wait_for, World, Write};

/// The fixture: `src/todo/api.js` (`saveAction`'s `fetch` on line 40) and
/// `src/todo/item.jsx` (`toggle` calls it on line 12), bundled into
/// `dist/todo.js` with a map beside it.
const API_JS: &str = include_str!("fixtures/initiators/src/todo/api.js");
const ITEM_JSX: &str = include_str!("fixtures/initiators/src/todo/item.jsx");
const TODO_JS: &str = include_str!("fixtures/initiators/dist/todo.js");
const TODO_MAP: &str = include_str!("fixtures/initiators/dist/todo.js.map");

const FROM_THE_APP: &str = "⟵ saveAction (src/todo/api.js:40) ⟵ toggle (src/todo/item.jsx:12) ⟵ ";

/// What follows a request line's time, its archive links left out: the
/// initiator (`⟵ saveAction (src/todo/api.js:40) ⟵ …`).
fn initiator(line: &str) -> &str {
    let after = &line[line.rfind(" ms) ").map_or(line.len(), |i| i + 5)..];
    after.split(" [").next().unwrap_or_default()
}

/// The line of `text` that starts with `start`.
fn line_of<'t>(text: &'t str, start: &str) -> &'t str {
    text.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("a line {start}… in\n{text}"))
}

#[test]
fn each_request_line_names_the_code_that_made_it() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Todos</title>\
                 <script src=\"dist/todo.js\"></script></head><body></body></html>",
            ),
            ("src/todo/api.js", API_JS),
            ("src/todo/item.jsx", ITEM_JSX),
            ("dist/todo.js", TODO_JS),
            ("dist/todo.js.map", TODO_MAP),
        ],
        "index.html",
    );
    let log = world.log("todos-");
    let base = &world.base;

    // A block calls the app's code (`toggle`, a global of the page's
    // script), whose fetch fails (404): the line in
    // the block's summary names the app's functions in their sources,
    // then the block's line.
    let text = log.exchange(
        Write::Append,
        "\n```js\nconst r = await toggle(6);\nr.status\n```\n",
        1,
    );
    assert!(text.contains("```JSON\n404\n```"), "{text}");
    let lines = support::network_summary(&text);
    let line = line_of(
        &lines,
        &format!("PATCH {base}/api/todos/6 {{\"completed\":true}} → 404 Not Found"),
    );
    assert_eq!(initiator(line), format!("{FROM_THE_APP}<cell>:1"), "{text}");

    // Between blocks (a timer the block set), the failure is a `Text
    // network` event, with the same frames; the block's line is an
    // earlier block's (`<cell HH:MM:SS>:1`).
    log.exchange(
        Write::Append,
        "\n```js\nsetTimeout(() => toggle(7), 300);\n'later'\n```\n",
        1,
    );
    let start = format!("PATCH {base}/api/todos/7 {{\"completed\":true}} → 404 Not Found");
    let text = wait_for(&log.path, "the timer's request", |t| t.contains(&start));
    let line = line_of(&text, &start);
    let from = initiator(line);
    // After the frames, what caused it: the block that set the timer
    // (docs/log-format.md, "Causes").
    let (from, cause) = from.split_once(" · ").unwrap_or((from, ""));
    assert!(
        from.starts_with(&format!("{FROM_THE_APP}<cell ")) && from.ends_with(">:1"),
        "{text}"
    );
    assert!(cause.starts_with("from the block at "), "{text}");

    // Requests a block makes itself, fetch and XHR: its own lines.
    let text = log.exchange(
        Write::Append,
        "\n```js\nconst a = 1;\nawait fetch('/nothing.json');\n\
         await new Promise((done) => { const x = new XMLHttpRequest(); x.open('GET', '/gone.txt'); x.onloadend = done; x.send(); });\n\
         'done'\n```\n",
        1,
    );
    let lines = support::network_summary(&text);
    let fetched = line_of(&lines, &format!("GET {base}/nothing.json → 404"));
    assert_eq!(initiator(fetched), "⟵ <cell>:2", "{text}");
    let sent = line_of(&lines, &format!("GET {base}/gone.txt → 404"));
    // The executor (unnamed), then the block's own frame.
    assert_eq!(initiator(sent), "⟵ <cell>:3 ⟵ <cell>:3", "{text}");
    for l in lines.lines() {
        assert!(!initiator(l).contains("daebug"), "{text}");
    }
}
