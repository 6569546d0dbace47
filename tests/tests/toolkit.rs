//! The toolkit every block sees as `daebug` (docs/log-format.md, "The
//! toolkit"), with the real hub and headless Chromium: `waitFor` in a page
//! and a module worker, `reload` and the block queued behind it, `module`
//! against a dev server that loaded it with a `?t=` query, `realm`, and a
//! page that has a global `daebug` of its own.

mod support;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use support::{base_of, log_in, serve_files, Browser, Log, Running, TempDir, World, Write};

const PAGE: &str = "<!doctype html><html><head><title>Kit</title></head><body></body></html>";

/// The last block the agent wrote in `text`, and its reply.
fn last_exchange(text: &str) -> &str {
    &text[text.rfind("> **agent** to ").expect("a reply")..]
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    last_exchange(&text).to_string()
}

#[test]
fn wait_for_finds_an_element_added_later_and_times_out_clearly() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("kit-");
    let reply = ask(
        &log,
        "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<b id=\"late\">hi</b>'), 300);\n\
         const t0 = performance.now();\n\
         const el = await daebug.waitFor('#late');\n\
         `${el.tagName} ${el.textContent} waited=${performance.now() - t0 >= 250}`",
    );
    assert!(reply.contains("\"B hi waited=true\""), "{reply}");

    let reply = ask(&log, "await daebug.waitFor('#save', { timeout: 300 })");
    assert!(
        reply.contains("Error: waitFor(\"#save\"): no element matched within 300 ms"),
        "{reply}"
    );
    let reply = ask(
        &log,
        "await daebug.waitFor(() =>\n    window.neverThere, { timeout: 200 })",
    );
    assert!(
        reply.contains("waitFor(() => window.neverThere): no truthy value within 200 ms"),
        "{reply}"
    );
    // A function's truthy value, also through a promise.
    let reply = ask(
        &log,
        "setTimeout(() => window.ready = { n: 7 }, 100);\n\
         (await daebug.waitFor(async () => window.ready)).n",
    );
    assert!(reply.contains("```JSON\n7\n```"), "{reply}");
}

#[test]
fn wait_for_polls_a_function_in_a_module_worker() {
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
    let reply = ask(
        &log,
        "setTimeout(() => self.ready = 42, 200);\n\
         `${await daebug.waitFor(() => self.ready)} ${daebug.realm.kind} ${daebug.realm.stem}`",
    );
    assert!(
        reply.contains(&format!("\"42 worker {}\"", log.stem)),
        "{reply}"
    );
    let reply = ask(&log, "await daebug.waitFor('#x')");
    assert!(
        reply.contains("waitFor(\"#x\"): a worker has no document; pass a function"),
        "{reply}"
    );
    let reply = ask(&log, "daebug.reload()");
    assert!(reply.contains("daebug.reload() reloads a page"), "{reply}");
}

/// The console's command-line helpers (docs/log-format.md, "Evaluation") where they apply: in a
/// page all of them (its own `$` wins), in a module worker those that
/// need no document (`$`, `$$`, `$x` are not there).
#[test]
fn the_console_helpers_in_a_page_and_a_module_worker() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Kit</title></head><body>\
                 <ul><li>a</li><li>b</li></ul>\
                 <script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            ("worker.js", "import '/daebug.js?name=crunch';\n"),
        ],
        "index.html",
    );
    let page = world.log("kit-");
    let reply = ask(
        &page,
        "[$$('li').map((li) => li.textContent), $('li').textContent, $x('count(//li)'), keys({ a: 1 }), values({ b: 2 })]",
    );
    assert!(reply.contains(r#"[["a","b"],"a",2,["a"],[2]]"#), "{reply}");
    ask(&page, "6 * 7");
    let reply = ask(&page, "$_ + 1");
    assert!(reply.contains("```JSON\n43\n```"), "{reply}");
    ask(&page, "document.querySelector('ul')");
    let reply = ask(&page, "$0.children.length");
    assert!(reply.contains("```JSON\n2\n```"), "{reply}");
    // The page's own `$` wins.
    let reply = ask(&page, "window.$ = (s) => 'mine ' + s;\n'set'");
    assert!(reply.contains("\"set\""), "{reply}");
    let reply = ask(&page, "$('li')");
    assert!(reply.contains("\"mine li\""), "{reply}");

    let worker = world.log("crunch-");
    let reply = ask(
        &worker,
        "[typeof $, typeof $$, typeof $x, keys({ w: 1 }), values({ w: 3 })]",
    );
    assert!(
        reply.contains(r#"["undefined","undefined","undefined",["w"],[3]]"#),
        "{reply}"
    );
    // Those that need no document, and a worker is an event target.
    let reply = ask(
        &worker,
        "monitorEvents(self, 'message'); unmonitorEvents(self);\n[typeof copy, typeof inspect, typeof monitorEvents, typeof getEventListeners, typeof $_]",
    );
    assert!(
        reply.contains(r#"["function","function","function","undefined","object"]"#),
        "{reply}"
    );
}

#[test]
fn the_realm_names_its_log_and_sleep_waits() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("kit-");
    let reply = ask(
        &log,
        "const t0 = performance.now(); await daebug.sleep(120);\n\
         const { stem, kind, url } = daebug.realm;\n\
         `${stem} ${kind} ${url} slept=${performance.now() - t0 >= 100}`",
    );
    let want = format!("\"{} page {}/index.html slept=true\"", log.stem, world.base);
    assert!(reply.contains(&want), "{want}\n{reply}");
}

#[test]
fn a_reload_replies_first_and_the_next_block_runs_in_the_new_document() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("kit-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nsessionStorage.t0 = performance.timeOrigin;\ndaebug.reload()\n```\n\
         \n```js\n`${performance.timeOrigin > Number(sessionStorage.t0)} ${performance.getEntriesByType('navigation')[0].type}`\n```\n",
        2,
    );
    let first = &text[text.find("daebug.reload()").unwrap()..];
    assert!(first.contains("```JSON\n\"reloaded\"\n```"), "{text}");
    // Run by the new document: never sent to the old one (which would have
    // answered `false navigate`, or had it reported as interrupted).
    assert!(
        last_exchange(&text).contains("```JSON\n\"true reload\"\n```"),
        "{text}"
    );
    // Issue 26: the `reloaded` line stands where the new document began:
    // after the reload's reply, a blank line around it, before the block
    // that ran in the new document (not glued to that block's reply).
    let line = text.find(" reloaded at ").expect("a reloaded line");
    let check = text
        .find("${performance.timeOrigin")
        .expect("the check block");
    let reloaded_reply = text.find("\"reloaded\"").unwrap();
    assert!(reloaded_reply < line && line < check, "{text}");
    let line_start = text[..line].rfind('\n').unwrap() + 1;
    assert!(text[..line_start].ends_with("```\n\n"), "{text}");
    let line_end = line + text[line..].find('\n').unwrap() + 1;
    assert!(text[line_end..].starts_with("\n```js\n"), "{text}");
}

/// Issue 26: `daebug eval` of `daebug.reload()` answers once the page is
/// back, with the `reloaded` line; the next call's answer does not carry
/// it, and runs in the new document.
#[test]
fn a_door_reload_is_answered_with_the_new_document_and_the_next_call_runs_there() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("kit-");
    let eval = |code: &str| {
        let out = std::process::Command::new(support::daebug_bin())
            .args(["eval", &log.stem, code, "--root"])
            .arg(world.root.path())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run daebug eval");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = eval("sessionStorage.t0 = performance.timeOrigin; daebug.reload()");
    assert!(first.contains("\"reloaded\""), "{first}");
    assert!(first.contains(" reloaded at "), "{first}");
    let second = eval("performance.timeOrigin > Number(sessionStorage.t0)");
    assert!(second.contains("```JSON\ntrue\n```"), "{second}");
    assert!(!second.contains(" reloaded at "), "{second}");
}

/// Milliseconds since the epoch, as the page's `Date.now()`.
fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// The time from `daebug.reload()` in a block to the reply of the block
/// queued behind it on disk, as the agent sees it. Printed with
/// `--nocapture`.
#[test]
fn reload_to_the_next_reply_takes_this_long() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("kit-");
    let mut times = Vec::new();
    for round in 0..5 {
        log.write(
            Write::Append,
            &format!(
                "\n```js\nsessionStorage.at = Date.now(); daebug.reload()\n```\n\
                 \n```js\n'round {round}: ' + sessionStorage.at\n```\n"
            ),
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        // The value (`"round N: <ms>"`), not the block's own code nor an
        // executing placeholder.
        let marker = format!("\"round {round}: ");
        let at = loop {
            let text = log.text();
            let value = text.rfind(&marker).map(|i| &text[i + marker.len()..]);
            let digits: String = value
                .unwrap_or_default()
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if !digits.is_empty() {
                break epoch_ms() - digits.parse::<u128>().unwrap();
            }
            assert!(Instant::now() < deadline, "no reply:\n{text}");
            std::thread::sleep(Duration::from_millis(1));
        };
        times.push(at);
        support::wait_for(&log.path, "idle", |t| {
            t.trim_end().ends_with(support::FOOTER)
        });
    }
    times.sort_unstable();
    println!(
        "daebug.reload() → next block's reply on disk: median {} ms, max {} ms ({times:?})",
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

#[test]
fn module_finds_the_instance_a_dev_server_query_loaded_and_warns_for_a_fresh_copy() {
    let root = TempDir::new("kit-vite");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    // As Vite after a hot update: the page imports the module with `?t=`.
    let app = serve_files(vec![
        (
            "/",
            format!(
                "<!doctype html><html><head><title>Vite</title>\
                 <script type=module src=\"{base}/daebug.js?name=vite\"></script>\
                 <script type=module>const m = await import('/src/store.js?t=1795411554870'); \
                 m.items.push('from the page'); window.pageStore = m;</script>\
                 </head><body></body></html>"
            ),
        ),
        ("/src/store.js", "export const items = [];\n".to_string()),
        (
            "/src/other.js",
            "export const name = 'other';\n".to_string(),
        ),
    ]);
    let _browser = Browser::open(&format!("{app}/"));
    let log = log_in(root.path(), "vite-");
    let reply = ask(
        &log,
        "await daebug.waitFor(() => window.pageStore);\n\
         const store = await daebug.module('/src/store.js');\n\
         `${store === window.pageStore} ${store.items.join()}`",
    );
    assert!(
        reply.contains("\"true from the page\""),
        "the page's instance:\n{reply}"
    );
    assert!(!reply.contains("fresh copy"), "{reply}");
    // What a plain `import` gives instead: the copy the issue was about.
    let reply = ask(&log, "import { items } from '/src/store.js';\nitems.length");
    assert!(reply.contains("```JSON\n0\n```"), "{reply}");

    let reply = ask(&log, "(await daebug.module('./src/other.js')).name");
    assert!(reply.contains("```JSON\n\"other\"\n```"), "{reply}");
    assert!(
        reply.contains(
            "```Text console.warn\ndaebug.module(\"./src/other.js\"): the page has not loaded it; this is a fresh copy"
        ),
        "{reply}"
    );
}

#[test]
fn a_page_with_its_own_daebug_keeps_it_and_blocks_see_the_toolkit() {
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>Kit</title>\
             <script>window.daebug = { mine: true }</script></head><body></body></html>",
        )],
        "index.html",
    );
    let log = world.log("kit-");
    let reply = ask(
        &log,
        "daebug.dialogs.answer(false);\n\
         `${window.daebug.mine} ${typeof window.daebug.waitFor} ${typeof daebug.waitFor} ${daebug.realm.kind} ${confirm('sure?')}`",
    );
    assert!(
        reply.contains("\"true undefined function page false\""),
        "{reply}"
    );
    // In a page without one, the toolkit is the global `daebug` too.
    let plain = World::new(&[("index.html", PAGE)], "index.html");
    let log = plain.log("kit-");
    let reply = ask(
        &log,
        "window.daebug === daebug && typeof window.daebug.module",
    );
    assert!(reply.contains("\"function\""), "{reply}");
}

/// In a module worker, `daebug.module()` of the worker's own entry module
/// (by its path, or its exact URL with the query a dev server gives it)
/// is the worker's instance: its top-level code does not run again and its
/// private state is the one the worker uses. `{ fresh: true }` asks for a
/// fresh copy, and the reply says its code ran again.
#[test]
fn module_in_a_worker_is_its_own_entry_instance_unless_fresh_is_asked() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Kit</title></head><body>\
                 <script>new Worker('/src/stats.worker.js?worker_file&type=module', { type: 'module' })</script></body></html>",
            ),
            (
                "src/stats.worker.js",
                "import '/daebug.js?name=stats';\n\
                 self.runs = (self.runs || 0) + 1;\n\
                 let total = 0;\n\
                 self.onmessage = () => {};\n\
                 export function add(n) { total += n; return total; }\n",
            ),
        ],
        "index.html",
    );
    let log = world.log("stats-");
    let reply = ask(
        &log,
        "const m = await daebug.module('/src/stats.worker.js');\n\
         const handler = self.onmessage;\n\
         [self.runs, m.add(2), m.add(3)]",
    );
    assert!(reply.contains("```JSON\n[1,2,5]\n```"), "{reply}");
    assert!(!reply.contains("fresh copy"), "{reply}");
    let reply = ask(
        &log,
        "const same = await daebug.module(self.location.href);\n\
         [self.runs, same.add(1), self.onmessage === handler]",
    );
    assert!(reply.contains("```JSON\n[1,6,true]\n```"), "{reply}");
    let reply = ask(
        &log,
        "const fresh = await daebug.module('/src/stats.worker.js', { fresh: true });\n\
         [self.runs, fresh.add(1), fresh === m]",
    );
    assert!(reply.contains("```JSON\n[2,1,false]\n```"), "{reply}");
    assert!(
        reply.contains("daebug.module(\"/src/stats.worker.js\", { fresh: true }): a fresh copy, as asked: its top-level code ran again"),
        "{reply}"
    );
}

/// Around a reload the log keeps the order and time things happened in
/// (issue 40): the new document's first console line (before the check
/// block began in it) stands above the check, its later one in the
/// check's reply, and the check's reply is not dated before the
/// `reloaded` line above it. Several reloads, as the race was rare.
#[test]
fn around_a_reload_lines_keep_their_order_and_time() {
    const VITE_LIKE: &str = "<!doctype html><html><head><title>Kit</title></head><body>\
        <script>console.log('[vite] connecting...'); setTimeout(() => console.log('[vite] connected.'), 40);</script>\
        </body></html>";
    let world = World::new(&[("index.html", VITE_LIKE)], "index.html");
    let log = world.log("kit-");
    // The first document's lines are in before the first append (a line
    // the hub has not heard of yet when a block is appended is written
    // after that block's reply).
    support::wait_for(&log.path, "the first document's lines", |t| {
        t.contains("[vite] connected.")
    });
    let secs = |hms: &str| -> u32 {
        hms.split(':')
            .map(|n| n.parse::<u32>().unwrap())
            .fold(0, |a, n| a * 60 + n)
    };
    for round in 0..3 {
        let text = log.exchange(
            Write::Append,
            &format!(
                "\n```js\ndaebug.reload()\n```\n\n```js\nawait daebug.sleep(150);\n{round}\n```\n"
            ),
            2,
        );
        let from = text.rfind("daebug.reload()").unwrap();
        let t = &text[from..];
        let line = t.find(" reloaded at ").expect("a reloaded line");
        // Each of the new document's lines once.
        assert_eq!(
            t.matches("[vite] connecting...").count(),
            1,
            "round {round}:\n{text}"
        );
        assert_eq!(
            t.matches("[vite] connected.").count(),
            1,
            "round {round}:\n{t}"
        );
        let check = t.find(&format!("\n{round}\n```")).expect("the check");
        let connecting = t.find("[vite] connecting...").expect("connecting");
        let connected = t.find("[vite] connected.").expect("connected");
        // Both before the check, or the second while it ran: never after
        // it, nor in reverse.
        assert!(
            line < connecting && connecting < connected,
            "round {round}:\n{t}"
        );
        let line_at = &t[line + 13..line + 21];
        let reply = t[check..].find(" to agent at ").unwrap() + check + 13;
        assert!(
            secs(&t[reply..reply + 8]) >= secs(line_at),
            "round {round}:\n{t}"
        );
    }
}
