//! `daebug.component(el)` (docs/log-format.md, "Components"), with the real
//! hub and headless Chromium on apps made with the frameworks' own
//! development builds: React 19 and Preact bundled by esbuild (one ESM
//! script with its source map, JSX through the development runtime, as a
//! dev build does), and Vue 3's browser ESM build. Names, props, state,
//! hooks (kinds, values, deps), the owners up to the root, sources mapped
//! through the source map, a component the bundler renamed (`Item2`) given
//! its own name back, an element no component rendered, a worker (no DOM),
//! and `pick` answering with the same object (a person's click: a DevTools
//! `Input` event, trusted).
//!
//! The frameworks come from the npm registry at test time, pinned, into
//! Cargo's temp folder (once); without npm the tests say why and skip.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};
use support::cdp::DevtoolsBrowser;
use support::node::{node, NodeProcess};
use support::{
    base_of, log_in, wait_for, write_files, Engine, Log, Running, TempDir, World, Write,
};

/// What the fixtures are built with, pinned.
const PACKAGES: [&str; 6] = [
    "react@19.1.0",
    "react-dom@19.1.0",
    "preact@10.26.5",
    "vue@3.5.13",
    "svelte@5.57.3",
    "esbuild@0.25.5",
];

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/components");

/// The folder with the packages and the built apps (`react/out/bundle.js`,
/// `preact/…`, `svelte/…`), or `None` (the reason printed) when npm cannot
/// install them.
fn deps() -> Option<&'static Path> {
    static DEPS: OnceLock<Option<PathBuf>> = OnceLock::new();
    DEPS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("components-deps");
        std::fs::create_dir_all(&dir).expect("the deps folder");
        let marker = dir.join("installed.txt");
        let want = PACKAGES.join(" ");
        if std::fs::read_to_string(&marker).ok().as_deref() != Some(want.as_str()) {
            // Its own package.json, so npm installs here and not in a folder above.
            std::fs::write(dir.join("package.json"), "{\"private\": true}\n")
                .expect("package.json");
            let out = Command::new("npm")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--no-package-lock",
                    "--loglevel=error",
                ])
                .args(PACKAGES)
                .current_dir(&dir)
                .output();
            match out {
                Ok(o) if o.status.success() => std::fs::write(&marker, &want).expect("marker"),
                Ok(o) => {
                    eprintln!(
                        "skipped: npm could not install {want}: {}",
                        String::from_utf8_lossy(&o.stderr)
                    );
                    return None;
                }
                Err(e) => {
                    eprintln!("skipped: no npm to install {want}: {e}");
                    return None;
                }
            }
        }
        std::fs::copy(format!("{FIXTURES}/build.mjs"), dir.join("build.mjs")).expect("build.mjs");
        for (app, jsx) in [
            ("react", "react"),
            ("preact", "preact"),
            ("svelte", "svelte"),
        ] {
            let _ = std::fs::remove_dir_all(dir.join(app));
            copy_dir(&Path::new(FIXTURES).join(app), &dir.join(app));
            let out = Command::new("node")
                .args(["build.mjs", app, jsx])
                .current_dir(&dir)
                .output()
                .expect("node");
            assert!(
                out.status.success(),
                "building the {app} fixture: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Some(dir)
    })
    .as_deref()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy");
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A built app's page, bundle and map, as a hub serves them.
fn bundled(app: &str) -> Option<Vec<(String, String)>> {
    let dir = deps()?.join(app);
    Some(vec![
        ("index.html".into(), read(&dir.join("index.html"))),
        ("out/bundle.js".into(), read(&dir.join("out/bundle.js"))),
        (
            "out/bundle.js.map".into(),
            read(&dir.join("out/bundle.js.map")),
        ),
    ])
}

fn world(files: &[(String, String)]) -> World {
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    World::new(&files, "index.html")
}

/// The last block the agent wrote in `text`, and its reply.
fn last_exchange(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_exchange(&text).to_string()
}

/// What a block returned as `JSON.stringify(…)`: the reply's JSON fence
/// (a string), parsed.
fn returned(reply: &str) -> Value {
    let start = reply.find("```JSON\n").expect("a JSON value") + 8;
    let end = start + reply[start..].find("\n```").expect("its end");
    let text: String = serde_json::from_str(&reply[start..end]).expect("a string");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Asks for `expr` as JSON, functions as `ƒ name`.
fn json_of(log: &Log, setup: &str, expr: &str) -> Value {
    returned(&ask(
        log,
        &format!(
            "{setup}\nJSON.stringify({expr}, (k, v) => typeof v === 'function' ? 'ƒ ' + v.name : v)"
        ),
    ))
}

#[test]
fn react_gives_names_props_state_hooks_and_owners_through_the_source_map() {
    let Some(files) = bundled("react") else {
        return;
    };
    let world = world(&files);
    let log = world.log("groceries-");
    ask(&log, "await daebug.waitFor('li.item.active')");

    // The whole object, as a reply shows it (the block's value is awaited).
    // Mapping reads the bundle and its map: daebug's own requests, not the
    // block's; the block's own before and after are listed as ever.
    let reply = ask(
        &log,
        "await fetch('/index.html?before');\n\
         const first = await daebug.component('li.item');\n\
         await fetch('/index.html?after');\n\
         first.source",
    );
    assert!(
        reply.contains("```JSON\n\"src/Item.jsx:3:5\"\n```")
            && reply.contains("/index.html?before → 200")
            && reply.contains("/index.html?after → 200")
            && !reply.contains("bundle.js"),
        "{reply}"
    );

    let reply = ask(&log, "daebug.component(document.querySelector('ul'))");
    println!("{reply}");
    assert!(
        reply.contains("```Text\n{\n  framework: \"react\",\n  name: \"List\",\n  source: \"src/List.jsx:16:5\",")
            && reply.contains("{ kind: \"useEffect\", value: ƒ announce(), deps: [1] }"),
        "{reply}"
    );

    // At once: plain data, sources not mapped yet.
    let now = json_of(
        &log,
        "const now = daebug.component(document.querySelector('li.item.active'));",
        "[now.framework, now.source.replace(/:\\d+:\\d+$/, ''), now.name, now.owners.map((o) => o.name), typeof now.then, Object.keys(now)]",
    );
    assert_eq!(
        now,
        json!([
            "react",
            "out/bundle.js",
            "Item",
            ["List", "App"],
            "function",
            [
                "framework",
                "name",
                "source",
                "props",
                "state",
                "hooks",
                "owner",
                "owners"
            ]
        ])
    );

    let item = json_of(
        &log,
        "const item = await daebug.component('li.item.active');",
        "item",
    );
    assert_eq!(item["framework"], "react");
    assert_eq!(item["name"], "Item");
    assert_eq!(item["source"], "src/Item.jsx:3:5");
    assert_eq!(
        item["props"],
        json!({ "label": "EGGS", "active": true, "onChoose": "ƒ onChoose" })
    );
    assert_eq!(item["state"], json!([]));
    assert_eq!(item["hooks"], json!([]));
    assert_eq!(
        item["owner"],
        json!({ "name": "List", "source": "src/List.jsx:18:9" })
    );
    assert_eq!(
        item["owners"],
        json!([
            { "name": "List", "source": "src/List.jsx:18:9" },
            { "name": "App", "source": "src/App.jsx:13:9" },
        ])
    );

    // The owner's hooks, in order, from the list of the fiber's hooks.
    let list = json_of(
        &log,
        "const list = await daebug.component('ul');",
        "[list.name, list.source, list.props, list.state, list.hooks, list.owners]",
    );
    assert_eq!(
        list,
        json!([
            "List",
            "src/List.jsx:16:5",
            { "items": ["milk", "eggs"], "onPick": "ƒ pickItem" },
            [1, 10],
            [
                { "kind": "useState", "value": 1, "deps": null },
                { "kind": "useReducer", "value": 10, "deps": null },
                { "kind": "useContext", "value": "dark", "deps": null },
                { "kind": "useMemo", "value": ["MILK", "EGGS"], "deps": [["milk", "eggs"]] },
                { "kind": "useCallback", "value": "ƒ ", "deps": [] },
                { "kind": "useRef", "value": { "current": 42 }, "deps": null },
                { "kind": "useEffect", "value": "ƒ announce", "deps": [1] },
            ],
            [{ "name": "App", "source": "src/App.jsx:13:9" }],
        ])
    );

    // State changes: the committed fiber's hooks, not a stale one.
    ask(&log, "document.querySelector('li.item').click(); await daebug.waitFor('li.item.active:first-child')");
    let after = json_of(
        &log,
        "const after = await daebug.component('ul');",
        "[after.state, after.hooks.at(-1).deps]",
    );
    assert_eq!(after, json!([[0, 10], [0]]));

    // A class component's state.
    let clock = json_of(
        &log,
        "const clock = await daebug.component('time.clock');",
        "[clock.name, clock.state, clock.hooks, clock.source, clock.owners]",
    );
    // Its owner is App, whose render made it, not the Panel it sits in.
    assert_eq!(
        clock,
        json!(["Clock", { "ticks": 3 }, [], "src/Clock.jsx:6:12", [{ "name": "App", "source": "src/App.jsx:16:11" }]])
    );
    // Elements in props read as `<Clock />`.
    let panel = json_of(
        &log,
        "const panel = await daebug.component('section.panel');",
        "[panel.name, panel.props]",
    );
    assert_eq!(
        panel,
        json!(["Panel", { "title": "Time", "children": "<Clock />" }])
    );

    // The bundle calls the second `Item` `Item2`: at once the name is the
    // bundle's; awaited, the original source where its element is made
    // (`<Item n={count} />`) gives its own name back.
    let renamed = json_of(
        &log,
        "const el = document.querySelector('.badge-item');\n\
         const at = daebug.component(el).name;\n\
         const badge = await daebug.component(el);",
        "[at, badge.name, badge.bundledName, badge.source, badge.props, badge.owners.map((o) => o.name)]",
    );
    assert_eq!(
        renamed,
        json!(["Item2", "Item", "Item2", "src/badge/Item.jsx:3:10", { "n": 2 }, ["Badge", "App"]])
    );

    // No component: an object that says why.
    let none = json_of(
        &log,
        "document.body.insertAdjacentHTML('beforeend', '<p id=\"plain\">hi</p>');",
        "[daebug.component('#plain'), daebug.component('#nothing-here')]",
    );
    assert_eq!(
        none,
        json!([
            { "framework": null, "reason": "<p id=\"plain\"> was rendered by no React (development build), Vue 3, Svelte 5 or Preact component" },
            { "framework": null, "reason": "no element matches \"#nothing-here\"" },
        ])
    );
}

/// The same React app in Firefox and WebKit, whose stacks read
/// `List@http://…:12:7`: names, mapped sources, hooks and the renamed
/// component.
#[test]
fn react_in_firefox_and_webkit() {
    let Some(files) = bundled("react") else {
        return;
    };
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    for engine in [Engine::Firefox, Engine::WebKit] {
        let world = World::new_in(engine, &files, "index.html");
        let log = world.log("groceries-");
        ask(&log, "await daebug.waitFor('li.item.active')");
        let seen = json_of(
            &log,
            "const item = await daebug.component('li.item.active');\n\
             const list = await daebug.component('ul');\n\
             const badge = await daebug.component('.badge-item');",
            "[item.name, item.source, item.owners, list.hooks.map((h) => h.kind), badge.name, badge.bundledName, badge.source]",
        );
        // JavaScriptCore keeps no frame for a render that returns its JSX
        // (a proper tail call): no source there, and List's is where its
        // code called `upper.map`.
        let (item, list, badge) = match engine {
            Engine::WebKit => (Value::Null, "src/List.jsx:17:14", Value::Null),
            _ => (
                json!("src/Item.jsx:3:5"),
                "src/List.jsx:18:9",
                json!("src/badge/Item.jsx:3:10"),
            ),
        };
        assert_eq!(
            seen,
            json!([
                "Item",
                item,
                [
                    { "name": "List", "source": list },
                    { "name": "App", "source": "src/App.jsx:13:9" },
                ],
                ["useState", "useReducer", "useContext", "useMemo", "useCallback", "useRef", "useEffect"],
                "Item",
                "Item2",
                badge,
            ]),
            "{}",
            engine.name()
        );
    }
}

/// A dev server (Vite) serves each module transformed, its source map
/// inline as a `data:` URL whose sources are relative to the module: a
/// React 19 fiber's `_debugStack` made there maps to the file written.
/// (The fiber is written by hand, as React makes it; no npm needed.)
#[test]
fn a_source_maps_through_a_modules_inline_source_map() {
    const MAP: &str = "eyJ2ZXJzaW9uIjogMywgInNvdXJjZXMiOiBbIk1vcmUuanN4Il0sICJzb3VyY2VzQ29udGVudCI6IFsiXG5cblxuXG5cblxuXG5cblxuXG5cblxuXG5cblxuXG5cblxuXG5cbiAgICA8YSBjbGFzc05hbWU9XCJtb3JlXCI+TW9yZTwvYT5cbiJdLCAibmFtZXMiOiBbXSwgIm1hcHBpbmdzIjogIjs7QUFvQkkifQ==";
    let module = format!(
        "// as the dev server transformed it\n\
         function More() {{}}\n\
         const more = {{ tag: 5, type: 'a', _debugStack: new Error('react-stack-top-frame'), _debugOwner: {{ tag: 0, type: More }} }};\n\
         document.querySelector('.more')['__reactFiber$q1w2'] = more;\n\
         //# sourceMappingURL=data:application/json;base64,{MAP}\n"
    );
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>More</title></head><body>\
                 <a class=\"more\">More</a><script type=\"module\" src=\"/src/More.js\"></script></body></html>",
            ),
            ("src/More.js", &module),
        ],
        "index.html",
    );
    let log = world.log("more-");
    let more = json_of(
        &log,
        "await daebug.waitFor(() => document.querySelector('.more')['__reactFiber$q1w2']);\n\
         const more = await daebug.component('.more');",
        "[more.name, more.source, more.owners]",
    );
    assert_eq!(more, json!(["More", "src/More.jsx:21:5", []]));
    // Internals that do not read as expected: a reason, never a throw.
    let odd = json_of(
        &log,
        "document.body.insertAdjacentHTML('beforeend', '<b id=\"odd\">odd</b>');\n\
         document.querySelector('#odd')['__reactFiber$q1w2'] = { tag: 5, get _debugOwner() { throw new Error('boom'); } };",
        "daebug.component('#odd')",
    );
    assert_eq!(
        odd,
        json!({ "framework": null, "reason": "reading React's data for <b id=\"odd\"> failed: boom" })
    );
}

#[test]
fn preact_gives_names_props_state_hooks_and_owners_from_its_vnodes() {
    let Some(files) = bundled("preact") else {
        return;
    };
    let world = world(&files);
    let log = world.log("notes-");
    ask(&log, "await daebug.waitFor('li.note')");
    let reply = ask(&log, "daebug.component(document.querySelector('li.note'))");
    println!("{reply}");

    let note = json_of(
        &log,
        "const note = await daebug.component('li.note');",
        "note",
    );
    assert_eq!(
        note,
        json!({
            "framework": "preact",
            "name": "Note",
            "source": "src/Note.jsx:3:5",
            "props": { "text": "buy milk", "onOpen": "ƒ " },
            "state": [],
            "hooks": [],
            "owner": { "name": "Notes", "source": "src/Notes.jsx:17:9" },
            "owners": [
                { "name": "Notes", "source": "src/Notes.jsx:17:9" },
                { "name": "App", "source": "src/App.jsx:13:9" },
            ],
        })
    );
    let notes = json_of(
        &log,
        "const notes = await daebug.component('ol');",
        "[notes.name, notes.props, notes.state, notes.hooks]",
    );
    assert_eq!(
        notes,
        json!([
            "Notes",
            { "owner": "ada", "limit": 3 },
            [["buy milk", "call bob"]],
            [
                { "kind": "useState", "value": ["buy milk", "call bob"], "deps": null },
                { "kind": "useContext", "value": "edit", "deps": null },
                { "kind": "useMemo", "value": ["buy milk", "call bob"], "deps": [["buy milk", "call bob"], 3] },
                { "kind": "useCallback", "value": "ƒ ", "deps": [] },
                { "kind": "useRef", "value": { "current": "ada" }, "deps": [] },
                { "kind": "effect", "value": "ƒ remember", "deps": ["ada"] },
            ],
        ])
    );
    let stamp = json_of(
        &log,
        "const stamp = await daebug.component('small.stamp');",
        "[stamp.name, stamp.state, stamp.owners.map((o) => o.name)]",
    );
    assert_eq!(stamp, json!(["Stamp", { "at": "10:00" }, ["App"]]));
}

#[test]
fn vue_gives_names_props_state_and_parents_from_its_instances() {
    let Some(dir) = deps() else { return };
    let app = Path::new(FIXTURES).join("vue");
    let files = vec![
        ("index.html".to_string(), read(&app.join("index.html"))),
        ("main.js".to_string(), read(&app.join("main.js"))),
        (
            "vue.esm-browser.js".to_string(),
            read(&dir.join("node_modules/vue/dist/vue.esm-browser.js")),
        ),
    ];
    let world = world(&files);
    let log = world.log("todo-");
    ask(&log, "await daebug.waitFor('li.row')");
    let reply = ask(&log, "daebug.component(document.querySelector('li.row'))");
    println!("{reply}");

    let row = json_of(&log, "const row = await daebug.component('li.row');", "row");
    assert_eq!(
        row,
        json!({
            "framework": "vue",
            "name": "Row",
            "source": "src/components/Row.vue",
            "props": { "label": "milk", "done": false },
            "state": { "hovered": false, "upper": "MILK" },
            "hooks": [
                { "kind": "ref", "name": "hovered", "value": false, "deps": null },
                { "kind": "computed", "name": "upper", "value": "MILK", "deps": null },
            ],
            "owner": { "name": "TodoList", "source": "src/components/TodoList.vue" },
            "owners": [
                { "name": "TodoList", "source": "src/components/TodoList.vue" },
                { "name": "App", "source": "src/App.vue" },
            ],
        })
    );
    let list = json_of(
        &log,
        "const list = await daebug.component('ul');",
        "[list.name, list.props, list.state, list.hooks.map((h) => h.kind)]",
    );
    assert_eq!(
        list,
        json!([
            "TodoList",
            { "filter": "all" },
            { "todos": [{ "label": "milk", "done": false }, { "label": "eggs", "done": true }], "count": 2 },
            ["reactive", "ref"],
        ])
    );
    // Options API data is state too; the root has no owner.
    let root = json_of(
        &log,
        "const root = await daebug.component('h1');",
        "[root.name, root.state, root.owner]",
    );
    assert_eq!(root, json!(["App", { "title": "Todo" }, null]));
}

/// Svelte 5's development build says where each element was written and
/// which components rendered it; props and state stay inside its compiled
/// code, and the object says so.
#[test]
fn svelte_gives_names_sources_and_owners_and_says_what_it_cannot() {
    let Some(files) = bundled("svelte") else {
        return;
    };
    let world = world(&files);
    let log = world.log("counts-");
    ask(&log, "await daebug.waitFor('button.count')");
    let reply = ask(
        &log,
        "daebug.component(document.querySelector('button.count'))",
    );
    println!("{reply}");
    let counter = json_of(
        &log,
        "const counter = await daebug.component('button.count');",
        "counter",
    );
    assert_eq!(
        counter,
        json!({
            "framework": "svelte",
            "name": "Counter",
            "source": "src/Counter.svelte:7:3",
            "props": null,
            "state": null,
            "hooks": [],
            "owner": { "name": "App", "source": "src/App.svelte:7:3" },
            "owners": [{ "name": "App", "source": "src/App.svelte:7:3" }],
            "note": "Svelte 5 keeps a component's props and state inside its compiled code",
        })
    );
}

#[test]
fn a_worker_has_component_and_says_why_it_cannot() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Kit</title></head><body>\
                 <script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            ("worker.js", "import '/daebug.js?name=crunch';\n"),
        ],
        "index.html",
    );
    let log = world.log("crunch-");
    let reply = ask(&log, "daebug.component(self)");
    assert!(
        reply.contains(
            "```JSON\n{\n  \"framework\": null,\n  \"reason\": \"daebug.component() reads a page's elements; this realm (worker) has no DOM\"\n}\n```"
        ),
        "{reply}"
    );
}

/// A Node process, as the user runs it (`node --import …/daebug-node.mjs`).
#[test]
fn a_node_process_has_component_and_says_why_it_cannot() {
    let root = TempDir::new("components-node");
    write_files(
        &root.path().join("app"),
        &[("idle.js", "setInterval(() => {}, 1000);\n")],
    );
    let (_hub, _) = support::node::node_hub(&root);
    let _idle = NodeProcess::start(
        &node(22),
        root.path(),
        &root.path().join("app"),
        &[],
        "idle.js",
        &[],
    );
    let log = log_in(root.path(), "idle-");
    let reply = ask(&log, "daebug.component({})");
    assert!(
        reply.contains("\"reason\": \"daebug.component() reads a page's elements; this realm (node) has no DOM\""),
        "{reply}"
    );
}

/// `pick` answers with the same object `daebug.component` gives (awaited):
/// a person clicks the badge, whose component the bundle renamed.
#[test]
fn pick_answers_with_the_component_of_what_the_person_picked() {
    let Some(files) = bundled("react") else {
        return;
    };
    let root = TempDir::new("components");
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    write_files(root.path(), &files);
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    let mut tab = DevtoolsBrowser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "groceries-");
    log.write(
        Write::Append,
        "\n```js\nconst picked = await daebug.pick('Which badge?');\n\
         const same = await daebug.component(picked.element);\n\
         JSON.stringify([picked.tag, picked.source, picked.component, JSON.stringify(picked.component) === JSON.stringify(same)])\n```\n",
    );
    tab.wait_until(
        "the pick's banner",
        "!!document.querySelector('daebug-panels')?.shadowRoot?.querySelector('.hint')",
    );
    tab.click("document.querySelector('.badge-item')");
    let text = wait_for(&log.path, "the pick's reply", |t| {
        t.contains("> **human** answered") && t.trim_end().ends_with(support::FOOTER)
    });
    let reply = last_exchange(&text);
    println!("{reply}");
    assert_eq!(
        returned(reply),
        json!([
            "span",
            "src/badge/Item.jsx:3:10",
            {
                "framework": "react",
                "name": "Item",
                "bundledName": "Item2",
                "source": "src/badge/Item.jsx:3:10",
                "props": { "n": 2 },
                "state": [],
                "hooks": [],
                "owner": { "name": "Badge", "source": "src/badge/Badge.jsx:6:7" },
                "owners": [
                    { "name": "Badge", "source": "src/badge/Badge.jsx:6:7" },
                    { "name": "App", "source": "src/App.jsx:14:9" },
                ],
            },
            true,
        ])
    );
    // The person's line names the component and where it was written.
    assert!(
        reply.contains("> **human** answered \"Which badge?\" at ")
            && reply.contains(
                "\"component\": {\n    \"framework\": \"react\",\n    \"name\": \"Item\",\n    \"source\": \"src/badge/Item.jsx:3:10\"\n  }"
            ),
        "{reply}"
    );
}
