//! Capture (README, "What the log shows besides replies"): what the page and the browser see reaches the log,
//! from the page's first line on. Real hub, headless Chromium, pages and
//! module workers.

mod support;

use support::{wait_for, World, Write};

/// A page whose inline classic scripts log, time, reject and throw before
/// the adapter's WebAssembly has loaded, and a module worker whose first
/// line logs: the loader (injected first in `<head>`) kept it all.
#[test]
fn what_a_page_and_a_worker_do_before_the_adapter_loads_is_in_the_log() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Early</title>\
                 <script>var tagName = 'not an element'; console.log('early log'); console.time('boot'); console.timeEnd('boot');\
                 Promise.reject(new Error('early rejection'));</script>\
                 <script>throw new Error('early throw')</script></head>\
                 <body><script>new Worker('/worker.js', { type: 'module' })</script></body></html>",
            ),
            (
                "worker.js",
                "import '/daebug.js?name=first-worker';\nconsole.log('worker first line');\nfetch('/worker-missing.json');\n",
            ),
        ],
        "index.html",
    );
    let page = world.log("early-");
    let text = wait_for(&page.path, "the page's early events", |t| {
        t.contains("early log") && t.contains("early rejection") && t.contains("early throw")
    });
    for want in [
        "```Text console.log\nearly log\n```",
        "```Text console.timeEnd\nboot: ",
        "```Error unhandledrejection\nError: early rejection",
        "```Error window.onerror\nError: early throw",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let worker = world.log("first-worker-");
    wait_for(&worker.path, "the worker's first line and request", |t| {
        t.contains("```Text console.log\nworker first line\n```")
            && t.contains("/worker-missing.json → 404 Not Found ")
    });
}

/// Dialogs return at once and are recorded; a block queues answers; a
/// dialog from a click handler the block triggers does not freeze the
/// page either. With `?dialogs=native` the browser's own stay.
#[test]
fn dialogs_are_answered_at_once_and_recorded() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Dialogs</title></head><body>\
                 <button id=del onclick=\"this.dataset.answer = confirm('Delete item?')\">Delete</button>\
                 <iframe src=native.html></iframe></body></html>",
            ),
            (
                "native.html",
                "<!doctype html><html><head><script src=\"/daebug.js?dialogs=native&name=native\"></script>\
                 <title>Native</title></head><body></body></html>",
            ),
        ],
        "index.html",
    );
    let log = world.log("dialogs-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nalert('Saved');\nconst a = confirm('Sure?');\ndaebug.dialogs.answer(false);\ndaebug.dialogs.answer('Bo');\nconst b = confirm('Really?');\nconst c = prompt('Name?', 'Ann');\nconst d = prompt('Age?', '7');\ndel.click();\nalert(42);\nconst e = prompt('n', 7);\n[a, b, c, d, del.dataset.answer, e]\n```\n",
        1,
    );
    assert!(
        text.contains("```JSON\n[true,false,\"Bo\",\"7\",\"true\",\"7\"]\n```"),
        "{text}"
    );
    for want in [
        "```Text dialog\nalert(\"Saved\")\n```",
        "```Text dialog\nconfirm(\"Sure?\") → true\n```",
        "```Text dialog\nconfirm(\"Really?\") → false\n```",
        "```Text dialog\nprompt(\"Name?\", \"Ann\") → \"Bo\"\n```",
        "```Text dialog\nprompt(\"Age?\", \"7\") → \"7\"\n```",
        "```Text dialog\nconfirm(\"Delete item?\") → true\n```",
        "```Text dialog\nalert(\"42\")\n```",
        "```Text dialog\nprompt(\"n\", \"7\") → \"7\"\n```",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let native = world.log("native-");
    let text = native.exchange(
        Write::Append,
        // The toolkit is there; its dialogs are not.
        "\n```js\n[String(confirm).includes('[native code]'), typeof daebug.dialogs]\n```\n",
        1,
    );
    assert!(
        text.contains("```JSON\n[true,\"undefined\"]\n```"),
        "{text}"
    );
}

/// Failed requests (fetch and XHR, 404 and no answer) and resources that
/// fail to load are `Text network` events, and under each reply the
/// requests its job started are listed; a CSP violation is `Error csp`
/// and a deprecation the browser reports is `Text report`.
#[test]
fn requests_resources_and_the_browser_reports_reach_the_log() {
    let world = World::new(
        &[
            (
                "index.html",
                "<!doctype html><html><head><title>Net</title>\
                 <meta http-equiv=\"Content-Security-Policy\" content=\"img-src 'self'\"></head>\
                 <body><img src=\"/early-missing.png\"></body></html>",
            ),
            ("data.json", "{\"ok\": true}"),
        ],
        "index.html",
    );
    let log = world.log("net-");
    wait_for(&log.path, "the early image", |t| {
        t.contains("img http://") && t.contains("/early-missing.png failed to load")
    });
    let text = log.exchange(
        Write::Append,
        "\n```js\nconst a = await fetch('/missing.json').then((r) => r.status);\nconst b = await fetch('data.json').then((r) => r.json());\nconst c = await fetch('http://127.0.0.1:1/').catch((e) => e.name);\nconst d = await new Promise((done) => {\n  const x = new XMLHttpRequest();\n  x.open('GET', '/gone.txt');\n  x.onloadend = () => done(x.status);\n  x.send();\n});\n[a, b.ok, c, d]\n```\n",
        1,
    );
    let base = &world.base;
    assert!(
        text.contains("```JSON\n[404,true,\"TypeError\",404]\n```"),
        "{text}"
    );
    // Each failure once: in the job's summary, not also as an event.
    let reply = &text[text.rfind("```JSON\n[404").unwrap()..];
    for want in [
        format!("GET {base}/missing.json → 404 Not Found "),
        format!("GET {base}/gone.txt → 404 Not Found "),
        "GET http://127.0.0.1:1/ → failed: TypeError: Failed to fetch (".into(),
    ] {
        assert_eq!(reply.matches(&want).count(), 1, "{want}\n{text}");
    }
    // The job's summary: every request it started, in order.
    let summary = reply
        .split("```Text network\n")
        .last()
        .and_then(|s| s.split("\n```").next())
        .unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(lines.len(), 4, "{summary}");
    assert!(
        lines[1].starts_with(&format!("GET {base}/data.json → 200 OK {{\"ok\":true}} (")),
        "{summary}"
    );

    // A request the page leaves unhandled stays unhandled: the hook does
    // not swallow the page's rejection.
    log.exchange(
        Write::Append,
        "\n```js\nfetch('http://127.0.0.1:1/unhandled'); 'sent'\n```\n",
        1,
    );
    wait_for(&log.path, "the page's unhandled rejection", |t| {
        t.contains("```Error unhandledrejection\nTypeError: Failed to fetch")
    });

    // A CSP violation and a deprecation report.
    let text = log.exchange(
        Write::Append,
        "\n```js\nconst img = document.createElement('img');\nimg.src = 'http://localhost:1/blocked.png';\ndocument.body.append(img);\nconst x = new XMLHttpRequest();\nx.open('GET', '/data.json', false);\nx.send();\n'reported'\n```\n",
        1,
    );
    assert!(text.contains("```JSON\n\"reported\"\n```"), "{text}");
    wait_for(&log.path, "the CSP violation", |t| {
        t.contains("```Error csp\nRefused img-src http://localhost:1/blocked.png (policy: img-src 'self')\n```")
    });
    let text = wait_for(&log.path, "a deprecation report", |t| {
        t.contains("```Text report\ndeprecation: ")
    });
    assert!(
        text.contains("Synchronous `XMLHttpRequest` on the main thread"),
        "{text}"
    );
    assert!(!text.contains("csp-violation"), "{text}");
}

/// The console's format specifiers (docs/log-format.md, "Format
/// specifiers"), as Chromium's console prints them: `%c` takes its CSS and
/// prints nothing, `%d`/`%i` are integers (`parseInt`), `%f` a float, `%s`
/// a string, `%o`/`%O` the value shown, `%%` a `%`; the arguments left
/// over follow, separated by spaces. Before the adapter loads (kept by the
/// loader) and from a block alike.
#[test]
fn format_specifiers_are_substituted_as_the_console_does() {
    let calls = "console.info('%cDownload', 'font-weight:bold');\
         console.log('%d items', 4.7);\
         console.log('%i|%f|%s|%o|%O|%d', '12px', '3.5e1', 'str', 'str', { a: 1 }, -4.7);\
         console.warn('100%% done%c!', 'color:red', 'extra', 2);\
         console.log('again: %s', '%d', 3.9);\
         console.log('%d and %s', 1);\
         console.assert(false, 'n=%d', 7.9);\
         console.group('%cGroup %s', 'color:red', 'one'); console.groupEnd();\
         console.log('kept: %x %', 5);";
    let world = World::new(
        &[(
            "index.html",
            &format!(
                "<!doctype html><html><head><title>Format</title><script>{calls}</script></head><body></body></html>"
            ),
        )],
        "index.html",
    );
    let log = world.log("format-");
    let wants = [
        "```Text console.info\nDownload\n```",
        "```Text console.log\n4 items\n```",
        "```Text console.log\n12|35|str|\"str\"|{\"a\":1}|-4\n```",
        "```Text console.warn\n100% done! extra 2\n```",
        "```Text console.log\nagain: 3\n```",
        "```Text console.log\n1 and %s\n```",
        "```Error console.assert\nAssertion failed: n=7\n```",
        "```Text console.group\nGroup one\n```",
        "```Text console.log\nkept: %x % 5\n```",
    ];
    let early = wait_for(&log.path, "the page's formatted calls", |t| {
        t.contains("kept: %x")
    });
    for want in wants {
        assert!(early.contains(want), "{want}\n{early}");
    }
    assert!(!early.contains("font-weight"), "{early}");
    let text = log.exchange(Write::Append, &format!("\n```js\n{calls}\n```\n"), 1);
    let reply = &text[text.rfind(&format!("> **{}** to ", log.stem)).unwrap()..];
    for want in wants {
        assert!(reply.contains(want), "{want}\n{reply}");
    }
    assert!(!reply.contains("font-weight"), "{reply}");
}
