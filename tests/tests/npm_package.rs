//! From npm (docs/zero-edits.md, "From npm"): `scripts/npm-pack.sh` packs
//! `daebug` and this machine's `@daebug/<platform>-<arch>` (with the hub
//! this test built); installed from those tarballs into a fresh folder,
//! `npx daebug` runs the hub (its arguments and exit code passed through),
//! and `daebug/vite` makes a Vite 7 dev server's page a realm with no edit
//! to the app (skipped, saying why, when npm cannot install Vite).

mod support;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::fresh_app::{self, npm};
use support::{daebug_bin, log_in, wait_for, write_files, Browser, Write};

/// A command whose output (both streams) is kept; killed on drop.
struct Spawned {
    child: Child,
    output: Arc<Mutex<String>>,
}

impl Spawned {
    fn start(cmd: &mut Command) -> Spawned {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let output = Arc::new(Mutex::new(String::new()));
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        for stream in [
            Box::new(out) as Box<dyn std::io::Read + Send>,
            Box::new(err),
        ] {
            let kept = output.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let mut k = kept.lock().unwrap();
                    k.push_str(&line);
                    k.push('\n');
                }
            });
        }
        Spawned { child, output }
    }

    /// SIGINT to it (`group`: to its process group, as a terminal's
    /// Ctrl-C goes), then its exit status.
    fn interrupt(&mut self, group: bool) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let target = if group { format!("-{pid}") } else { pid };
        let sent = Command::new("kill")
            .args(["-INT", "--", &target])
            .status()
            .expect("kill");
        assert!(sent.success());
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < end, "it did not stop on SIGINT");
            // An exit has no event to block on with a deadline: the poll
            // interval of this bounded wait.
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until its output has `needle`; the output.
    fn wait_output(&self, needle: &str) -> String {
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.output.lock().unwrap().clone();
            if out.contains(needle) {
                return out;
            }
            assert!(Instant::now() < end, "no {needle:?} in:\n{out}");
            // Output arrives on the reader threads: the poll interval of
            // this bounded wait.
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("----- output -----\n{}", self.output.lock().unwrap());
        }
    }
}

#[test]
fn npx_daebug_runs_the_hub_and_the_vite_plugin_tags_the_page() {
    // The two tarballs, installed into a fresh folder (the app's).
    let Some(tools) = fresh_app::daebug_from_npm(daebug_bin()) else {
        return;
    };
    let app = &tools.dir;
    let bin = tools.bin();

    // Arguments and the exit code pass through.
    let v = Command::new(&bin)
        .arg("--version")
        .output()
        .expect("npx daebug --version");
    assert!(
        v.status.success() && String::from_utf8_lossy(&v.stdout).starts_with("daebug "),
        "{v:?}"
    );
    let code = |b: &Path| {
        Command::new(b)
            .arg("--no-such-flag")
            .output()
            .expect("a bad flag")
            .status
            .code()
    };
    assert_eq!(code(&bin), code(daebug_bin()), "the hub's own exit code");
    assert_ne!(code(&bin), Some(0));

    // `npx daebug --root .` serves.
    let mut hub = Spawned::start(
        Command::new(&bin)
            .args(["--root", ".", "--port", "0"])
            .current_dir(app.path()),
    );
    hub.wait_output("serving . at http://127.0.0.1:");
    // Ctrl-C reaches the hub through the wrapper, which ends as it did
    // (a clean stop: 0).
    let status = hub.interrupt(false);
    assert!(status.success(), "{status:?}");
    assert!(
        !app.path().join("debug/.hub").exists(),
        "the hub stopped cleanly"
    );

    // `daebug/vite`: an app whose files never mention daebug.
    if npm(app.path(), &["install", "vite@7.1.12"]).is_none() {
        return;
    }
    write_files(
        app.path(),
        &[
            ("index.html", "<!doctype html><html><head><title>Shop</title></head><body><script type=\"module\" src=\"/main.js\"></script></body></html>"),
            ("main.js", "document.body.append('ready');\n"),
            ("vite.config.mjs", "import daebug from 'daebug/vite';\nexport default { plugins: [daebug({ port: 0 })] };\n"),
        ],
    );
    let vite = Spawned::start(
        Command::new(app.path().join("node_modules/.bin/vite"))
            .process_group(0)
            // Plain text (CI=true turns Vite's colours on).
            .env("NO_COLOR", "1")
            .env_remove("FORCE_COLOR")
            .args(["--port", "0", "--host", "127.0.0.1"])
            .current_dir(app.path()),
    );
    let out = strip_colours(&vite.wait_output("ready in"));
    let out = match out.contains("Local:") {
        true => out,
        false => strip_colours(&vite.wait_output("Local")),
    };
    let url = out
        .split("Local:")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("vite's URL")
        .to_string();
    assert!(
        out.contains("daebug: started the hub at http://127.0.0.1:"),
        "{out}"
    );
    let _page = Browser::open(&url);
    let log = log_in(app.path(), "shop-");
    let text = log.exchange(
        Write::Append,
        "\n```js\nawait daebug.waitFor(() => document.body.textContent);\n[document.title, document.body.textContent]\n```\n",
        1,
    );
    assert!(
        text.contains("```JSON\n[\"Shop\",\"ready\"]\n```"),
        "{text}"
    );
    for f in ["index.html", "main.js"] {
        let s = std::fs::read_to_string(app.path().join(f)).unwrap();
        assert!(!s.contains("daebug"), "{f} is the app's own: {s}");
    }
    wait_for(
        &app.path().join("debug.md"),
        "the page in the registry",
        |t| t.contains(&log.stem),
    );
    // The hub the plugin started stops with Vite on a Ctrl-C (it is in
    // the terminal's process group): its log says so.
    let mut vite = vite;
    vite.interrupt(true);
    wait_for(&log.path, "the hub stopped", |t| {
        t.contains("> **hub** stopped at")
    });
}

/// `text` without ANSI colour codes (`\x1b[…m`).
fn strip_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        out.push_str(&rest[..at]);
        rest = rest[at..].find('m').map_or("", |m| &rest[at + m + 1..]);
    }
    out + rest
}
