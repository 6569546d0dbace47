//! With no hub, every README recipe leaves the app exactly as it is
//! without daebug (docs/zero-edits.md, "With the hub down"): differential
//! tests, each running the same app twice, once with daebug's lines (the
//! tag in a page and in an iframe, a module and a classic worker's line,
//! blob:, data: and service workers, the line the hub adds to a service
//! worker) pointing at a hub that is not running, once with no line of
//! daebug at all, and comparing what the app itself says (its console, its
//! output and exit status). In Chromium, Firefox and WebKit, and for Node:
//! `node --import` the loader and `daebug run`; and Vite with the plugin
//! and no hub it can start (skipped, saying why, when npm cannot install
//! Vite).

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::node::{node, node_hub};
use support::{daebug_bin, serve_files, write_files, Browser, Engine, TempDir, DEADLINE};

/// A loopback URL nothing listens on: the hub, down.
fn dead_hub() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    format!("http://127.0.0.1:{port}")
}

/// The app: a page that starts a module, a classic, two `blob:` and a
/// `data:` worker, a service worker and an iframe, and fetches; each says
/// what it saw to the page, which prints it as `app[…]`. With `hub`, each
/// recipe's daebug line names it.
fn app(hub: Option<&str>) -> Vec<(&'static str, String)> {
    let tag = hub.map_or(String::new(), |h| {
        format!(r#"<script src="{h}/daebug.js"></script>"#)
    });
    // README, "A worker that still needs the line": first lines.
    let module_line = hub.map_or(String::new(), |h| {
        format!("import(\"{h}/daebug.js\").catch(() => {{}});\n")
    });
    let classic_line = hub.map_or(String::new(), |h| {
        format!("try {{ importScripts(\"{h}/daebug.js\"); }} catch {{}}\n")
    });
    // What the hub adds after a classic service worker's last line
    // (`server/src/http/service_worker.rs`), here from a hub that is down.
    let sw_line = hub.map_or(String::new(), |h| {
        format!("\n;try {{ importScripts(\"{h}/daebug-sw.js\"); }} catch {{}}\n")
    });
    let page = format!(
        r#"<!doctype html><html><head><title>App</title>{tag}</head><body><script>
const said = (e) => console.log("app[" + e.data + "]");
console.log("app[page " + document.title + " " + typeof daebug + "]");
window.onmessage = said;
new Worker("/w/mod.js", {{ type: "module", name: "mod" }}).onmessage = said;
new Worker("/w/classic.js", {{ name: "classic" }}).onmessage = said;
const src = "postMessage('blob ' + (self.name || 'untyped') + ' ' + location.protocol)";
new Worker(URL.createObjectURL(new Blob([src], {{ type: "text/javascript" }})), {{ name: "typed" }}).onmessage = said;
new Worker(URL.createObjectURL(new Blob([src]))).onmessage = said;
new Worker("data:text/javascript,postMessage('data ' + location.protocol)").onmessage = said;
navigator.serviceWorker.onmessage = said;
navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then((r) => r.active.postMessage("ping"), (e) => console.log("app[sw failed " + e + "]"));
fetch("/data.json").then((r) => r.json()).then((j) => console.log("app[fetch " + j.ok + "]"));
const f = document.createElement("iframe");
f.src = "/frame.html";
document.body.append(f);
</script></body></html>"#
    );
    let frame = format!(
        r#"<!doctype html><html><head><title>Frame</title>{tag}</head><body><script>
parent.postMessage("frame " + document.title + " " + typeof daebug, "*");
</script></body></html>"#
    );
    vec![
        ("/index.html", page),
        ("/frame.html", frame),
        (
            "/w/mod.js",
            format!(
                "{module_line}import {{ rel }} from './rel.mjs';\npostMessage('module ' + rel + ' ' + new URL(import.meta.url).pathname);\n"
            ),
        ),
        ("/w/rel.mjs", "export const rel = 'rel';\n".into()),
        (
            "/w/classic.js",
            format!("{classic_line}importScripts('rel.js');\npostMessage('classic ' + self.rel + ' ' + location.pathname);\n"),
        ),
        ("/w/rel.js", "self.rel = 'rel';\n".into()),
        (
            "/sw.js",
            format!("self.addEventListener('message', (e) => e.source.postMessage('sw ' + e.data + ' ' + location.pathname));{sw_line}"),
        ),
        ("/data.json", r#"{"ok":true}"#.into()),
    ]
}

/// What every engine's run says, with or without daebug.
const SAID: [&str; 10] = [
    "page App undefined",
    "frame Frame undefined",
    "module rel /w/mod.js",
    "classic rel /w/classic.js",
    "blob typed blob:",
    "blob untyped blob:",
    "data data:",
    "sw ping /sw.js",
    "fetch true",
    // Sorted in with the rest: the count, so a run that said more fails.
    "(9 lines)",
];

/// The app's own lines (`app[…]`) in `engine`, once `want` of them came,
/// sorted (workers answer in any order), with their count.
fn run_app(engine: Engine, files: Vec<(&'static str, String)>, want: usize) -> BTreeSet<String> {
    let app = serve_files(files);
    let browser = Browser::open_in(engine, &format!("{app}/index.html"));
    let end = Instant::now() + DEADLINE * 3;
    loop {
        let console = browser.console();
        let lines: Vec<String> = console
            .lines()
            .filter_map(|l| {
                let start = l.find("app[")? + 4;
                let len = l[start..].find(']')?;
                Some(l[start..start + len].to_string())
            })
            .collect();
        let mut said: BTreeSet<String> = lines.iter().cloned().collect();
        if said.len() >= want || Instant::now() > end {
            said.insert(format!("({} lines)", lines.len()));
            return said;
        }
        // The browser's output has no event to block on: the poll interval.
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The app with daebug's lines and a hub that is down says exactly what
/// it says with none.
fn the_app_runs_as_without_daebug(engine: Engine) {
    let expected: BTreeSet<String> = SAID.iter().map(|s| s.to_string()).collect();
    let want = SAID.len() - 1;
    let without = run_app(engine, app(None), want);
    assert_eq!(without, expected, "the app itself, in {}", engine.name());
    let with = run_app(engine, app(Some(&dead_hub())), want);
    assert_eq!(with, without, "with daebug's lines and no hub");
}

#[test]
fn in_chromium_with_the_hub_down_the_app_runs_as_without_daebug() {
    the_app_runs_as_without_daebug(Engine::Chromium);
}

#[test]
fn in_firefox_with_the_hub_down_the_app_runs_as_without_daebug() {
    the_app_runs_as_without_daebug(Engine::Firefox);
}

#[test]
fn in_webkit_with_the_hub_down_the_app_runs_as_without_daebug() {
    the_app_runs_as_without_daebug(Engine::WebKit);
}

/// A Node program: what it prints, an HTTP server's round trip, its exit
/// status.
const PROGRAM: &str = r#"import http from "node:http";
console.log("start", process.argv.length);
const server = http.createServer((req, res) => res.end("served " + req.url));
server.listen(0, "127.0.0.1", async () => {
  const r = await fetch(`http://127.0.0.1:${server.address().port}/x`);
  console.log(await r.text());
  console.error("to stderr");
  server.close();
  process.exitCode = 3;
});
"#;

/// Its stdout, its stderr without daebug's one line, and its exit code;
/// and daebug's lines.
fn outcome(cmd: &mut Command) -> ((String, String, Option<i32>), Vec<String>) {
    let out = cmd.output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (ours, theirs): (Vec<&str>, Vec<&str>) =
        stderr.lines().partition(|l| l.starts_with("daebug:"));
    (
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            theirs.join("\n"),
            out.status.code(),
        ),
        ours.into_iter().map(String::from).collect(),
    )
}

/// `node --import ./debug/daebug-node.mjs` (the loader a hub wrote, the
/// hub gone since) and `daebug run -- node` with no hub: the program's
/// output and status are its own, and daebug says one line.
#[test]
fn a_node_program_runs_as_without_daebug() {
    let root = TempDir::new("hub-down-node");
    let app = root.path().join("app");
    write_files(&app, &[("program.mjs", PROGRAM)]);
    let node = node(22);
    let plain = |cmd: &mut Command| {
        cmd.current_dir(&app).env_remove("NODE_OPTIONS");
    };
    let (without, ours) = outcome(Command::new(&node).arg("program.mjs").tap(plain));
    assert!(ours.is_empty());
    assert_eq!(
        without,
        (
            "start 2\nserved /x\n".to_string(),
            "to stderr".to_string(),
            Some(3)
        )
    );

    // The loader a hub wrote; then the hub stops.
    let (hub, _) = node_hub(&root);
    assert!(hub.terminate().success());
    let loader = root.path().join("debug/daebug-node.mjs");
    let (with, ours) = outcome(
        Command::new(&node)
            .arg("--import")
            .arg(&loader)
            .arg("program.mjs")
            .tap(plain),
    );
    assert_eq!(with, without, "node --import the loader, no hub");
    assert_eq!(ours.len(), 1, "{ours:?}");

    // `daebug run` where no hub runs.
    let elsewhere = TempDir::new("hub-down-run");
    let (with, ours) = outcome(
        Command::new(daebug_bin())
            .arg("run")
            .arg("--root")
            .arg(elsewhere.path())
            .arg("--")
            .arg(&node)
            .arg("program.mjs")
            .tap(plain),
    );
    assert_eq!(with, without, "daebug run, no hub");
    assert_eq!(ours.len(), 1, "{ours:?}");
    assert!(!Path::new(&elsewhere.path().join("debug.md")).exists());
}

/// `f(cmd)` then `cmd`, to set a command up in one expression.
trait Tap {
    fn tap(&mut self, f: impl Fn(&mut Self)) -> &mut Self;
}

impl Tap for Command {
    fn tap(&mut self, f: impl Fn(&mut Self)) -> &mut Self {
        f(self);
        self
    }
}

/// Vite serving `dir` with `config` until dropped: its `Local:` URL and
/// its output so far.
struct Vite {
    child: std::process::Child,
    out: std::path::PathBuf,
}

impl Vite {
    fn start(dir: &Path, config: &str, env: &[(&str, &str)]) -> (Vite, String) {
        use std::os::unix::process::CommandExt;
        let out = dir.join(format!("{config}.out"));
        let file = std::fs::File::create(&out).expect("vite's output file");
        let child = Command::new(dir.join("node_modules/.bin/vite"))
            .args(["--config", config, "--port", "0", "--host", "127.0.0.1"])
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env_remove("FORCE_COLOR")
            // No binary to start a hub with: the platform package is not
            // installed, and no other is named.
            .env_remove("DAEBUG_BINARY")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(file.try_clone().expect("clone"))
            .stderr(file)
            .process_group(0)
            .spawn()
            .expect("start vite");
        let vite = Vite { child, out };
        let end = Instant::now() + DEADLINE * 3;
        let url = loop {
            let text = vite.output();
            if let Some(url) = text
                .split("Local:")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
            {
                break url.trim_end_matches('/').to_string();
            }
            assert!(Instant::now() < end, "vite did not start:\n{text}");
            // Vite's output has no event to block on: the poll interval.
            std::thread::sleep(Duration::from_millis(50));
        };
        (vite, url)
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }
}

impl Drop for Vite {
    fn drop(&mut self) {
        // Its process group (see `process_group(0)`), by its id.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

/// `daebug/vite` when no hub runs and none can start (no binary): one
/// warning, and every page and module Vite serves is what it serves
/// without the plugin.
#[test]
fn vite_with_the_plugin_and_no_hub_serves_as_without_it() {
    let app = TempDir::new("hub-down-vite");
    let with =
        "import daebug from 'daebug/vite';\nexport default { plugins: [daebug({ port: 0 })] };\n";
    write_files(
        app.path(),
        &[
            ("package.json", r#"{"name":"app","private":true,"type":"module"}"#),
            ("index.html", "<!doctype html><html><head><title>Shop</title></head><body><script type=\"module\" src=\"/main.js\"></script></body></html>"),
            ("main.js", "document.body.append('ready');\n"),
            ("plain.config.mjs", "export default {};\n"),
            ("daebug.config.mjs", with),
        ],
    );
    let installed = Command::new("npm")
        .args([
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "install",
            "vite@7.1.12",
        ])
        .current_dir(app.path())
        .output();
    match installed {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            eprintln!(
                "skipped: npm install vite: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            return;
        }
        Err(e) => {
            eprintln!("skipped: no npm: {e}");
            return;
        }
    }
    // The package as npm would install it (its platform binary aside:
    // none here, so no hub can start).
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../npm/daebug");
    let installed = app.path().join("node_modules/daebug");
    for file in ["package.json", "index.js", "vite.js"] {
        std::fs::create_dir_all(&installed).expect("mkdir");
        std::fs::copy(package.join(file), installed.join(file)).expect("copy the package");
    }
    let served = |url: &str| {
        ["/", "/index.html", "/main.js"]
            .map(|path| support::http(url, "GET", path, &["Accept: text/html,*/*"], ""))
    };
    let (plain, url) = Vite::start(app.path(), "plain.config.mjs", &[]);
    let without = served(&url);
    drop(plain);
    let (vite, url) = Vite::start(app.path(), "daebug.config.mjs", &[]);
    let with = served(&url);
    assert_eq!(
        with, without,
        "what Vite serves, with the plugin and no hub"
    );
    assert!(without[0].1.contains("<title>Shop</title>"), "{without:?}");
    let out = vite.output();
    let ours: Vec<&str> = out.lines().filter(|l| l.contains("daebug")).collect();
    assert_eq!(ours.len(), 1, "{out}");
    assert!(ours[0].contains("daebug: no hub ("), "{out}");
    assert!(!app.path().join("debug.md").exists());
}
