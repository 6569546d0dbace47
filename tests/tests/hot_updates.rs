//! Hot updates (docs/log-format.md, "Hot updates"): what the page's dev
//! server says on its HMR socket reaches the page's log, a module update
//! as the hub's `hot-updated` line and a build error as `Error build`.
//! Real hub, headless Chromium, and a dev server speaking Vite's HMR
//! protocol (subprotocol `vite-hmr`, its messages as Vite 7 sends them).

mod support;

use std::net::TcpListener;

use support::{log_in, wait_for, write_files, Browser, Running, TempDir, Write};
use tungstenite::handshake::server::{Request, Response};

/// Vite's HMR socket: `connected`, then an update of `/src/Cart.tsx`,
/// then a build error, as Vite sends them; a later connection (a save
/// after the first) gets an update of `/src/Later.tsx` 100 ms after it
/// connects.
// tungstenite's handshake callback returns its own (large) error type.
#[allow(clippy::result_large_err)]
fn vite_hmr_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let agree = |_: &Request, mut res: Response| {
                    res.headers_mut()
                        .insert("sec-websocket-protocol", "vite-hmr".parse().unwrap());
                    Ok(res)
                };
                let Ok(mut ws) = tungstenite::accept_hdr(stream, agree) else {
                    return;
                };
                if n > 0 {
                    // The dev server's own pace, not the test waiting.
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    let later = r#"{"type":"update","updates":[{"type":"js-update","timestamp":2,"path":"/src/Later.tsx","acceptedPath":"/src/Later.tsx"}]}"#;
                    let _ = ws.send(tungstenite::Message::text(later));
                    while ws.read().is_ok() {}
                    return;
                }
                for m in [
                    r#"{"type":"connected"}"#,
                    r#"{"type":"update","updates":[{"type":"js-update","timestamp":1,"path":"/src/Cart.tsx","acceptedPath":"/src/Cart.tsx"},{"type":"css-update","timestamp":1,"path":"/src/cart.css","acceptedPath":"/src/cart.css"}]}"#,
                    r#"{"type":"error","err":{"message":"Unexpected token (3:7)","plugin":"vite:esbuild","id":"/app/src/Cart.tsx","loc":{"file":"/app/src/Cart.tsx","line":3,"column":7},"frame":"2 |  const total =\n3 |  return <ul\n  |        ^"}}"#,
                ] {
                    let _ = ws.send(tungstenite::Message::text(m));
                }
                // Stay open until the page goes.
                while ws.read().is_ok() {}
            });
        }
    });
    port
}

#[test]
fn a_vite_update_and_a_build_error_reach_the_log() {
    let root = TempDir::new("hot");
    let port = vite_hmr_server();
    let page = format!(
        "<!doctype html><html><head><title>Cart</title><script src=\"/daebug.js\"></script>\
         <script>new WebSocket('ws://127.0.0.1:{port}/?token=t0k', 'vite-hmr');</script></head><body></body></html>"
    );
    write_files(root.path(), &[("index.html", &page)]);
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = support::base_of(&hub.line_with("serving"));
    let _browser = Browser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "cart-");
    let text = wait_for(&log.path, "the build error", |t| {
        t.contains("```Error build\n")
    });
    let line = text
        .lines()
        .find(|l| l.contains(" hot-updated at "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with(&format!("> **{}** hot-updated at ", log.stem)),
        "{line}"
    );
    assert!(line.ends_with(": src/Cart.tsx, src/cart.css"), "{line}");
    assert!(
        text.contains(&format!("\n\n{line}\n\n> **")),
        "a paragraph of its own: {text}"
    );
    assert!(
        text.contains(
            "```Error build\n[vite:esbuild] Unexpected token (3:7)\n    at /app/src/Cart.tsx:3:7\n2 |  const total =\n3 |  return <ul\n  |        ^\n```"
        ),
        "{text}"
    );
    // The update line comes before the error, as the server said them.
    assert!(
        text.find(" hot-updated at ") < text.find("```Error build"),
        "{text}"
    );

    // `daebug.fresh()` waits for the next update (a second socket stands
    // for the save), and says so when none comes.
    let text = log.exchange(
        Write::Append,
        &format!(
            "\n```js\nconst next = daebug.fresh();\nnew WebSocket('ws://127.0.0.1:{port}/?token=t0k', 'vite-hmr');\nawait next\n```\n"
        ),
        1,
    );
    let reply = &text[text.rfind("> **agent** to ").unwrap()..];
    assert!(
        reply.contains("```JSON\n\"hot-updated: src/Later.tsx\"\n```"),
        "{reply}"
    );
    assert!(
        reply.contains(&format!("\n> **{}** hot-updated at ", log.stem))
            && reply.contains(": src/Later.tsx\n"),
        "the update in the reply, after it: {reply}"
    );
    let text = log.exchange(
        Write::Append,
        "\n```js\nawait daebug.fresh({ timeout: 200 })\n```\n",
        1,
    );
    let reply = &text[text.rfind("> **agent** to ").unwrap()..];
    assert!(
        reply.contains("no hot update within 200 ms (the dev server announced no change)"),
        "{reply}"
    );
}
