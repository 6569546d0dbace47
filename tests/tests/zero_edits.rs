//! Zero edits, one command (README, "Run it"; docs/zero-edits.md, "One
//! command"): in a fresh folder with a Vite 7 app (a page and its module
//! worker) and an Express 5 server behind Vite's proxy, none of whose
//! files mention daebug, `npx daebug --root . --proxy URL -- npm run dev`
//! (daebug from its npm tarballs) makes the page, the worker and the
//! server realms, each with a log that answers a block; a person's click
//! reaches the server and its log shows it; npm's own process is no
//! realm. Ctrl-C stops it all; then the app's own `npm run dev` runs as
//! without daebug. Skipped, saying why, when npm cannot install the app.
//! Also without npm: the hub runs the command given, passes a SIGTERM on
//! and exits with the command's status.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::cdp::DevtoolsBrowser;
use support::fresh_app::{self, Group};
use support::node::node;
use support::{daebug_bin, log_in, stems_in, wait_for, Log, TempDir, Write};

/// How long `npm run dev` may take to be ready on a busy machine.
const START: Duration = Duration::from_secs(90);

/// Appends one block and returns the realm's reply.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").expect("the block")..].to_string()
}

/// Nothing on `port` answers any more.
fn closed(port: u16) -> bool {
    std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
        && std::net::TcpStream::connect(("::1", port)).is_err()
}

#[test]
fn one_command_makes_the_page_its_worker_and_the_server_realms() {
    let Some(tools) = fresh_app::daebug_from_npm(daebug_bin()) else {
        return;
    };
    let app = TempDir::new("zero-edits");
    if fresh_app::write_app(app.path()).is_none() {
        return;
    }
    let (hub_port, vite_port, api_port) = (
        fresh_app::free_port(),
        fresh_app::free_port(),
        fresh_app::free_port(),
    );
    let env = fresh_app::dev_env(vite_port, api_port);
    let proxy = format!("http://localhost:{vite_port}");
    let mut run = Group::start(
        Command::new(tools.bin())
            .args(["--root", ".", "--port", &hub_port.to_string()])
            .args(["--proxy", &proxy, "--", "npm", "run", "dev"])
            .current_dir(app.path())
            .envs(env.iter().map(|(k, v)| (k, v))),
    );
    run.wait_output("ready in", START);
    run.wait_output(&format!("api on {api_port}"), START);

    let hub = format!("http://127.0.0.1:{hub_port}");
    let mut browser = DevtoolsBrowser::open(&format!("{hub}/"));
    browser.wait_until(
        "the worker's answer",
        "document.querySelector('#doubled')?.textContent === 'doubled: 42'",
    );

    let page = log_in(app.path(), "shop-");
    let reply = ask(&page, "[document.title, location.href]");
    assert!(reply.contains(&format!("[\"Shop\",\"{hub}/\"]")), "{reply}");
    let worker = log_in(app.path(), "prices-");
    let reply = ask(
        &worker,
        "[self.name, typeof document, (await import(self.location.href)).rate]",
    );
    assert!(reply.contains("[\"prices\",\"undefined\",2]"), "{reply}");
    let server = log_in(app.path(), "server-");
    let reply = ask(
        &server,
        "[(await import('./server.js')).orders.length, process.env.API_PORT]",
    );
    assert!(reply.contains(&format!("[0,\"{api_port}\"]")), "{reply}");

    // A person's click: the page's request goes through the hub and Vite
    // to Express, whose log shows what it printed.
    browser.click("document.querySelector('#order')");
    browser.wait_until(
        "the order's answer",
        "document.querySelector('#result')?.textContent === 'orders: 1'",
    );
    wait_for(&server.path, "the order in the server's log", |t| {
        t.contains("order {\"item\":\"tea\"}")
    });
    let reply = ask(&server, "(await import('./server.js')).orders");
    assert!(reply.contains("[{\"item\":\"tea\"}]"), "{reply}");

    // npm's own process only starts the app's: no realm of its own.
    let registry = std::fs::read_to_string(app.path().join("debug.md")).unwrap();
    let stems = stems_in(&registry);
    assert!(!stems.iter().any(|s| s.starts_with("npm-")), "{registry}");
    for (name, _) in fresh_app::FILES {
        let text = std::fs::read_to_string(app.path().join(name)).unwrap();
        assert!(!text.contains("daebug"), "{name} is the app's own: {text}");
    }

    // A terminal's Ctrl-C stops the app and the hub, which says so.
    run.signal("INT", true);
    assert!(
        std::fs::read_to_string(app.path().join("debug.md"))
            .unwrap()
            .contains("> The hub stopped at"),
        "the registry says the hub stopped"
    );
    assert!(!app.path().join("debug/.hub").exists());
    assert!(
        closed(vite_port) && closed(api_port),
        "nothing of the app is left running"
    );

    // The hub down: the app's own `npm run dev` runs as without daebug.
    let alone = Group::start(
        Command::new("npm")
            .args(["run", "dev"])
            .current_dir(app.path())
            .envs(env.iter().map(|(k, v)| (k, v))),
    );
    alone.wait_output("ready in", START);
    alone.wait_output(&format!("api on {api_port}"), START);
    browser.navigate(&format!("http://localhost:{vite_port}/"));
    browser.wait_until(
        "the worker's answer without daebug",
        "location.port === '{vite_port}' && document.querySelector('#doubled')?.textContent === 'doubled: 42'"
            .replace("{vite_port}", &vite_port.to_string())
            .as_str(),
    );
    browser.click("document.querySelector('#order')");
    browser.wait_until(
        "the order's answer without daebug",
        "document.querySelector('#result')?.textContent === 'orders: 1'",
    );
    let untouched = browser.eval(
        "[...document.scripts].some((s) => s.src.includes('daebug')) || Symbol.for('daebug.adapter') in globalThis",
    );
    assert_eq!(untouched, serde_json::json!(false));
    let out = alone.output();
    assert!(!out.contains("daebug"), "{out}");
}

/// The one command's lifecycle with the cargo-built hub and a plain Node
/// script: the hub runs it as a realm once it serves, passes a signal on,
/// and exits with the command's status.
#[test]
fn the_hub_runs_the_command_and_exits_with_its_status() {
    let root = TempDir::new("beside");
    std::fs::write(
        root.path().join("wait.js"),
        "globalThis.who = 'beside'; console.log('waiting', process.env.NODE_OPTIONS); setInterval(() => {}, 1000);\n",
    )
    .unwrap();
    let node = node(22);
    let mut run = Group::start(
        Command::new(daebug_bin())
            .args(["--root", ".", "--port", "0", "--"])
            .arg(&node)
            .arg("wait.js")
            .current_dir(root.path()),
    );
    let out = run.wait_output("waiting", START);
    let loader = format!(
        "--import=file://{}/debug/daebug-node.mjs",
        root.path().canonicalize().unwrap().display()
    );
    assert!(out.contains(&loader), "{out}");
    let log = log_in(root.path(), "wait-");
    assert!(ask(&log, "who").contains("\"beside\""));
    // SIGTERM to the hub alone reaches the command, which Node ends with
    // that signal: the hub exits as a shell would say (128 + 15).
    let status = run.signal("TERM", false);
    assert_eq!(status.code(), Some(143), "{}", run.output());
    wait_for(&root.path().join("debug.md"), "the hub stopped", |t| {
        t.contains("> The hub stopped at")
    });

    // A command that ends by itself ends the hub with its code.
    let mut done = Group::start(
        Command::new(daebug_bin())
            .args(["--root", ".", "--port", "0", "--"])
            .arg(&node)
            .args(["-e", "process.exitCode = 7"])
            .current_dir(root.path()),
    );
    assert_eq!(done.exit(START).code(), Some(7), "{}", done.output());
    // One that cannot start: a shell's 127, and the hub stopped.
    let mut missing = Group::start(
        Command::new(daebug_bin())
            .args(["--root", ".", "--port", "0", "--", "no-such-command-here"])
            .current_dir(root.path()),
    );
    assert_eq!(
        missing.exit(START).code(),
        Some(127),
        "{}",
        missing.output()
    );
    assert!(missing
        .output()
        .contains("cannot run `no-such-command-here`"));
    assert!(!Path::new(&root.path().join("debug/.hub")).exists());
}
