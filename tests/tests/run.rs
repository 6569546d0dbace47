//! `daebug run -- <command…>` (README, "Connect … a Node process"): the
//! command runs with the Node loader in `NODE_OPTIONS`, so a server and
//! the Node child it starts are both realms, with the user's own
//! `NODE_OPTIONS` kept; the command is the process (its pid, its exit
//! status, its signals); with no hub, or a hub that died, the command
//! runs unchanged after one line saying so. Node 22 (support/node.rs).

mod support;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

use support::node::{node, NodeProcess};
use support::{base_of, daebug_bin, log_in, wait_for, write_files, Log, Running, TempDir, Write};

const SERVER: &str = r#"const http = require("node:http");
const { spawn } = require("node:child_process");
globalThis.who = "the server";
const child = spawn(process.execPath, ["child.js"], { stdio: "inherit" });
const server = http.createServer((req, res) => res.end("ok"));
server.listen(0, "127.0.0.1", () => console.log("server listening on " + server.address().port));
process.on("SIGTERM", () => { child.kill(); process.exit(0); });
"#;

const CHILD: &str = r#"globalThis.who = "the child";
console.log("child up");
setInterval(() => {}, 1000);
"#;

/// `daebug run --root <root> -- <command…>` in `cwd`, with `env` added.
fn daebug_run(root: &Path, cwd: &Path, command: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(daebug_bin());
    cmd.arg("run")
        .arg("--root")
        .arg(root)
        .arg("--")
        .arg(node(22))
        .args(command)
        .current_dir(cwd)
        .env_remove("NODE_OPTIONS")
        .envs(env.iter().copied());
    cmd
}

/// Appends one block and returns the reply it got.
fn ask(log: &Log, code: &str) -> String {
    let text = log.exchange(Write::Append, &format!("\n```js\n{code}\n```\n"), 1);
    text[text.rfind("> **agent** to ").expect("a reply")..].to_string()
}

/// A hub on a temp root with the app's files in `app/`, once it has
/// written the Node loader.
fn hub_with(files: &[(&str, &str)]) -> (TempDir, Running) {
    let root = TempDir::new("run");
    write_files(&root.path().join("app"), files);
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    wait_for(
        &root.path().join("debug/daebug-node.mjs"),
        "the Node loader",
        |t| t.contains(&base),
    );
    (root, hub)
}

#[test]
fn a_server_and_the_node_child_it_starts_are_both_realms() {
    let (root, _hub) = hub_with(&[("server.js", SERVER), ("child.js", CHILD)]);
    let app = root.path().join("app");
    let run = NodeProcess::spawn(daebug_run(
        root.path(),
        &app,
        &["server.js"],
        &[("NODE_OPTIONS", "--max-old-space-size=300")],
    ));
    run.wait_output("server listening on ");
    run.wait_output("child up");

    let server = log_in(root.path(), "server-");
    let reply = ask(&server, "[who, process.pid, process.env.NODE_OPTIONS]");
    assert!(reply.contains("\"the server\""), "{reply}");
    // The command is this very process (exec), not a child of `daebug run`.
    assert!(reply.contains(&format!("{},", run.pid())), "{reply}");
    // The loader first, as a file URL; the user's own option kept.
    let url = format!(
        "--import=file://{}/debug/daebug-node.mjs --max-old-space-size=300",
        root.path().display()
    );
    assert!(reply.contains(&url), "{reply}");

    let child = log_in(root.path(), "child-");
    let reply = ask(&child, "[who, process.argv[1].endsWith('child.js')]");
    assert!(reply.contains("\"the child\""), "{reply}");
    assert!(reply.contains("true"), "{reply}");
}

#[test]
fn the_exit_status_and_signals_are_the_commands() {
    let (root, _hub) = hub_with(&[
        ("exit.js", "setTimeout(() => process.exit(7), 50);\n"),
        (
            "wait.js",
            "console.log('waiting'); setInterval(() => {}, 1000);\n",
        ),
    ]);
    let app = root.path().join("app");
    let status = daebug_run(root.path(), &app, &["exit.js"], &[])
        .status()
        .expect("run");
    assert_eq!(status.code(), Some(7));

    let mut waiting = NodeProcess::spawn(daebug_run(root.path(), &app, &["wait.js"], &[]));
    waiting.wait_output("waiting");
    log_in(root.path(), "wait-");
    let sent = Command::new("kill")
        .args(["-INT", &waiting.pid().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let status = waiting.exit();
    // SIGINT is 2 on every Unix this runs on.
    assert_eq!(status.signal(), Some(2), "{status:?}");
}

#[test]
fn without_a_hub_the_command_runs_unchanged() {
    const SHOW: &str =
        "console.log('options: ' + (process.env.NODE_OPTIONS ?? 'none')); process.exitCode = 5;\n";
    // No hub ever ran here.
    let root = TempDir::new("run-nohub");
    write_files(&root.path().join("app"), &[("show.js", SHOW)]);
    let app = root.path().join("app");
    let out = daebug_run(root.path(), &app, &["show.js"], &[])
        .output()
        .expect("run");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(5), "{stdout}{stderr}");
    assert_eq!(stdout, "options: none\n");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no hub is running for") && stderr.contains("without daebug"),
        "{stderr}"
    );

    // A hub that died: its debug/.hub and loader are left, nothing answers.
    let (root, hub) = hub_with(&[("show.js", SHOW)]);
    drop(hub);
    assert!(root.path().join("debug/.hub").exists());
    let app = root.path().join("app");
    let out = daebug_run(
        root.path(),
        &app,
        &["show.js"],
        &[("NODE_OPTIONS", "--no-warnings")],
    )
    .output()
    .expect("run");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(5), "{stdout}{stderr}");
    assert_eq!(stdout, "options: --no-warnings\n");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("did not answer") && stderr.contains("without daebug"),
        "{stderr}"
    );
}
