//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

pub mod cdp;
pub mod fresh_app;
pub mod node;
pub mod pixels;
pub mod python;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Path to a freshly built `daebug` binary, built once per test process.
///
/// Runs `cargo build -p daebug --bin daebug` with the same profile as this
/// test and reads the executable's path from Cargo's JSON messages.
pub fn daebug_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(build_daebug)
}

fn build_daebug() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "daebug", "--bin", "daebug"])
        .arg("--message-format=json-render-diagnostics")
        .arg("--manifest-path")
        .arg(&manifest)
        .stderr(Stdio::inherit());
    if !cfg!(debug_assertions) {
        cmd.arg("--release");
    }
    let out = cmd.output().expect("run cargo build for daebug");
    assert!(out.status.success(), "cargo build -p daebug failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "daebug")
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported no daebug executable")
}

/// A scratch directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let path =
            std::env::temp_dir().join(format!("daebug-e2e-{label}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub const DEADLINE: Duration = Duration::from_secs(20);

/// A running `daebug` whose stdout lines arrive on a channel. Everything it
/// prints (stdout and stderr) is also kept, and shown if the test fails.
pub struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    /// Every line of both streams, in order of arrival; draining stderr
    /// also keeps a chatty hub from blocking on a full pipe.
    output: Arc<Mutex<Vec<String>>>,
}

impl Running {
    pub fn start(args: &[&str], root: &TempDir) -> Running {
        let mut child = Command::new(daebug_bin())
            .args(args)
            .arg("--root")
            .arg(root.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run daebug");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let output = Arc::new(Mutex::new(Vec::new()));
        let (tx, lines) = mpsc::channel();
        let kept = output.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line.clone());
                let _ = tx.send(line);
            }
        });
        let kept = output.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line);
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
            output,
        }
    }

    /// The hub's process id (for benchmarks reading `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// All the hub printed so far.
    pub fn output(&self) -> String {
        self.output.lock().unwrap().join("\n")
    }

    /// The first stdout line containing `needle`.
    pub fn line_with(&mut self, needle: &str) -> String {
        let end = Instant::now() + DEADLINE;
        if let Some(l) = self.seen.iter().find(|l| l.contains(needle)) {
            return l.clone();
        }
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if l.contains(needle) {
                        return l;
                    }
                }
                Err(_) => panic!("no line with {needle:?}; saw {:?}", self.seen),
            }
        }
    }

    /// SIGTERM, then the exit status within the deadline.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(ok.success());
        exit_within(&mut self.child, DEADLINE, || {
            "daebug did not stop on SIGTERM".into()
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("----- daebug's output -----\n{}", self.output());
        }
    }
}

/// `http://127.0.0.1:N` from the startup line.
pub fn base_of(line: &str) -> String {
    let start = line.find("http://").expect("url in line");
    let url = &line[start..];
    let end = url[7..].find('/').map_or(url.len(), |i| i + 7);
    url[..end].to_string()
}

// ----- browser and logs -------------------------------------------------

/// Polls are frequent but this long at most.
const WAIT: Duration = Duration::from_secs(30);

/// How long a realm has to connect the first time: a browser that starts
/// cold (WebKit's MiniBrowser under xvfb) on a busy 2-core machine has
/// been seen to take over 30 s.
const CONNECT_WAIT: Duration = Duration::from_secs(90);

/// The browser engines the tests open pages in: one seam
/// ([`Browser::open_in`]), each engine's command line in [`launch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Debian's `chromium`, headless (V8).
    Chromium,
    /// Debian's `firefox-esr`, headless (SpiderMonkey).
    Firefox,
    /// WebKitGTK's `MiniBrowser` (Debian's `libwebkit2gtk-4.1-0`) under
    /// `xvfb-run` (JavaScriptCore).
    WebKit,
}

impl Engine {
    /// A label for temp dirs and messages.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
            Engine::WebKit => "webkit",
        }
    }
}

/// WebKitGTK's MiniBrowser, where Debian puts it for this machine.
fn minibrowser() -> Option<PathBuf> {
    ["x86_64-linux-gnu", "aarch64-linux-gnu"]
        .iter()
        .map(|arch| PathBuf::from(format!("/usr/lib/{arch}/webkit2gtk-4.1/MiniBrowser")))
        .find(|p| p.exists())
}

/// The command that opens `url` in `engine` with a fresh profile in
/// `profile`, writing page console messages to its output.
fn launch(engine: Engine, url: &str, profile: &Path) -> Command {
    let need = |path: &Path, what: &str| {
        assert!(
            path.exists(),
            "these tests need {what} (scripts/test.sh installs it)"
        );
    };
    match engine {
        Engine::Chromium => {
            let chromium = Path::new("/usr/bin/chromium");
            need(chromium, "Debian's chromium");
            let mut cmd = Command::new(chromium);
            cmd.args(CHROMIUM_FLAGS)
                // A page may open a window (a duplicated tab, in tests).
                .arg("--disable-popup-blocking")
                // Page and worker console messages, on stderr.
                .args(["--enable-logging=stderr", "--v=0"])
                .arg(format!("--user-data-dir={}", profile.display()))
                .arg(url);
            cmd
        }
        Engine::Firefox => {
            let firefox = Path::new("/usr/bin/firefox-esr");
            need(firefox, "Debian's firefox-esr");
            // No first-run pages, no updates; console messages on stdout.
            let prefs = [
                ("browser.shell.checkDefaultBrowser", "false"),
                ("browser.startup.homepage_override.mstone", "\"ignore\""),
                ("browser.aboutwelcome.enabled", "false"),
                ("datareporting.policy.dataSubmissionEnabled", "false"),
                ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
                ("app.update.disabledForTesting", "true"),
                ("network.captive-portal-service.enabled", "false"),
                ("dom.disable_open_during_load", "false"),
                ("devtools.console.stdout.content", "true"),
            ];
            let user_js: String = prefs
                .iter()
                .map(|(k, v)| format!("user_pref(\"{k}\", {v});\n"))
                .collect();
            std::fs::write(profile.join("user.js"), user_js).expect("write user.js");
            let mut cmd = Command::new(firefox);
            cmd.args(["--headless", "--no-remote", "--profile"])
                .arg(profile)
                .arg(url);
            cmd
        }
        Engine::WebKit => {
            let minibrowser = minibrowser();
            need(
                minibrowser.as_deref().unwrap_or(Path::new("/MiniBrowser")),
                "WebKitGTK's MiniBrowser (libwebkit2gtk-4.1-0)",
            );
            need(Path::new("/usr/bin/xvfb-run"), "xvfb-run (xvfb)");
            let mut cmd = Command::new("/usr/bin/xvfb-run");
            // Not `--private`: MiniBrowser's private window ignores the
            // settings given on its command line, console messages on
            // stdout included (a page's `console.log` never reached
            // `Browser::console`); the profile is fresh for each browser.
            cmd.arg("-a")
                .arg(minibrowser.unwrap())
                .arg("--enable-write-console-messages-to-stdout=true")
                .arg(url)
                // Its caches and data in the profile, not the user's home.
                .env("XDG_CACHE_HOME", profile.join("cache"))
                .env("XDG_DATA_HOME", profile.join("data"));
            cmd
        }
    }
}

/// A headless browser on one URL; killed on drop (its whole process
/// group: Firefox's content processes, `xvfb-run`'s server and browser).
/// Its console messages go to a file, shown if the test fails.
pub struct Browser {
    child: Child,
    engine: Engine,
    profile: TempDir,
}

impl Browser {
    /// Headless Chromium on `url`.
    pub fn open(url: &str) -> Browser {
        Browser::open_in(Engine::Chromium, url)
    }

    /// `engine` on `url`, with a fresh profile.
    pub fn open_in(engine: Engine, url: &str) -> Browser {
        use std::os::unix::process::CommandExt;
        let profile = TempDir::new(engine.name());
        let output = || {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(profile.path().join("output.log"))
                .map_or(Stdio::null(), Stdio::from)
        };
        let child = launch(engine, url, profile.path())
            .stdout(output())
            .stderr(output())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", engine.name()));
        Browser {
            child,
            engine,
            profile,
        }
    }

    /// The console messages of the browser's pages and workers so far.
    pub fn console(&self) -> String {
        let marker = match self.engine {
            Engine::Firefox => "console.",
            Engine::Chromium | Engine::WebKit => "CONSOLE",
        };
        std::fs::read_to_string(self.profile.path().join("output.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(marker))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The group this browser leads (see `process_group(0)`), by its id.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!(
                "----- the browser console ({}) -----\n{}",
                self.engine.name(),
                self.console()
            );
        }
    }
}

/// Polls `path` until `pred` holds; panics with the file when the
/// deadline passes.
pub fn wait_for(path: &Path, what: &str, pred: impl Fn(&str) -> bool) -> String {
    daebug_test_files::wait_for_within(path, what, WAIT, pred)
}

/// `child`'s exit status once it ended, within `within`; else the test
/// fails with `what` it printed.
pub fn exit_within(
    child: &mut Child,
    within: Duration,
    what: impl Fn() -> String,
) -> std::process::ExitStatus {
    let end = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(Instant::now() < end, "it did not end; {}", what());
        // An exit has no event to block on with a deadline: the poll
        // interval of this bounded wait.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The stem of the first realm the registry lists.
pub fn stem_in(registry: &str) -> Option<String> {
    let start = registry.find("* [")? + 3;
    let end = registry[start..].find(']')? + start;
    Some(registry[start..end].to_string())
}

pub use daebug_test_files::append;

/// A second web server on another loopback port, like an app's own dev
/// server: `/` is `html`, `/worker.js` is `worker` (a module worker).
pub fn serve_app(html: String, worker: String) -> String {
    serve_files(vec![("/", html), ("/worker.js", worker)])
}

/// Another loopback web server, like a dev server (Vite) serving modules
/// under their source paths: each `(path, body)`, HTML for `.html` and
/// `/`, JavaScript otherwise (as Vite serves `/src/stats.ts`); 404 else.
pub fn serve_files(files: Vec<(&'static str, String)>) -> String {
    serve_routes(move |path| {
        let (_, body) = files.iter().find(|(p, _)| *p == path)?;
        let kind = match path == "/" || path.ends_with(".html") {
            true => "text/html",
            false => "text/javascript",
        };
        Some((kind, body.clone(), String::new()))
    })
}

/// A loopback server whose answer to a path (its query dropped) is
/// `route`'s: the content type, the body and extra header lines (each
/// ending `\r\n`); 404 when it gives none.
pub fn serve_routes(
    route: impl Fn(&str) -> Option<(&'static str, String, String)> + Send + 'static,
) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]);
            let path = request.split(' ').nth(1).unwrap_or("/");
            let path = path.split('?').next().unwrap_or(path);
            let Some((kind, body, extra)) = route(path) else {
                let _ = write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                continue;
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

/// The stems the registry lists.
pub fn stems_in(registry: &str) -> Vec<String> {
    registry
        .lines()
        .filter_map(|l| {
            let start = l.find("* [")? + 3;
            let end = l[start..].find(']')? + start;
            Some(l[start..end].to_string())
        })
        .collect()
}

// ----- a world: a hub serving pages, a browser, and their logs -----------

/// The end of a log whose realm is idle.
pub const FOOTER: &str = "execute against this page.";

/// A hub serving a temp root of pages, and a browser on one of them. On a
/// failing test, both print what they saw (see their `Drop`).
pub struct World {
    pub root: TempDir,
    pub base: String,
    pub hub: Running,
    pub browser: Browser,
}

impl World {
    /// Serves `files` (name, content) and opens `/{open}` in Chromium.
    pub fn new(files: &[(&str, &str)], open: &str) -> World {
        World::new_in(Engine::Chromium, files, open)
    }

    /// Serves `files` (name, content) and opens `/{open}` in `engine`.
    pub fn new_in(engine: Engine, files: &[(&str, &str)], open: &str) -> World {
        let root = TempDir::new("world");
        write_files(root.path(), files);
        let mut hub = Running::start(&["--port", "0"], &root);
        let base = base_of(&hub.line_with("serving"));
        let browser = Browser::open_in(engine, &format!("{base}/{open}"));
        World {
            root,
            base,
            hub,
            browser,
        }
    }

    /// The log of the realm whose stem starts with `prefix`, once it is
    /// listed and idle.
    pub fn log(&self, prefix: &str) -> Log {
        log_in(self.root.path(), prefix)
    }
}

/// The log of the realm under `root` whose stem starts with `prefix`, once
/// it is listed and idle.
pub fn log_in(root: &Path, prefix: &str) -> Log {
    let registry = root.join("debug.md");
    let listed = daebug_test_files::wait_for_within(
        &registry,
        &format!("a realm named {prefix}"),
        CONNECT_WAIT,
        |t| stems_in(t).iter().any(|s| s.starts_with(prefix)),
    );
    let stem = stems_in(&listed)
        .into_iter()
        .find(|s| s.starts_with(prefix))
        .unwrap();
    let path = root.join("debug").join(format!("{stem}.md"));
    wait_for(&path, "the log's footer", |t| {
        t.trim_end().ends_with(FOOTER)
    });
    Log { stem, path }
}

/// One realm's chat log.
pub struct Log {
    pub stem: String,
    pub path: PathBuf,
}

/// How an agent's tool puts a chunk into the log.
#[derive(Debug, Clone, Copy)]
pub enum Write {
    /// Opens for append and writes the chunk.
    Append,
    /// Writes the whole file again (truncate, then write).
    Rewrite,
    /// Writes a temp file beside it and renames it over the log.
    Rename,
}

impl Log {
    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap_or_default()
    }

    /// How many replies the realm has written.
    pub fn replies(&self, text: &str) -> usize {
        text.matches(&format!("> **{}** to ", self.stem)).count()
    }

    pub fn write(&self, how: Write, chunk: &str) {
        match how {
            Write::Append => append(&self.path, chunk),
            Write::Rewrite => daebug_test_files::rewrite(&self.path, &(self.text() + chunk)),
            Write::Rename => daebug_test_files::save_atomically(&self.path, &(self.text() + chunk)),
        }
    }

    /// Writes `chunk` and waits until `replies` more replies are written
    /// and the log is idle; returns the log's text (steps use markers of
    /// their own to find what they wrote).
    pub fn exchange(&self, how: Write, chunk: &str, replies: usize) -> String {
        let before = self.replies(&self.text());
        self.write(how, chunk);
        wait_for(&self.path, "the replies", |t| {
            self.replies(t) >= before + replies && t.trim_end().ends_with(FOOTER)
        })
    }
}

/// Writes `files` (path relative to `dir`, content) into `dir`, making
/// their folders.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (name, content) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("a file's folder")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
}

/// One HTTP/1.1 request to the hub at `base` (an agent's call, as `curl`
/// makes it): the status and the body.
pub fn http(base: &str, method: &str, path: &str, headers: &[&str], body: &str) -> (u16, String) {
    use std::io::{Read, Write as _};
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    write!(s, "{head}\r\n{body}").expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    let status = out[9..12].parse().expect("status");
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// How every test starts Debian's Chromium headless as root (the
/// machine's closed network refuses its background connections).
pub const CHROMIUM_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// No file under `root` holds `secret`: what the hub wrote (`debug.md`,
/// `debug/`, its archives). The test's own program under `root/app` is
/// left out.
pub fn no_file_holds(root: &Path, secret: &str) {
    fn walk(dir: &Path, secret: &str, top: bool) {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let path = entry.path();
            if top && path.file_name().is_some_and(|n| n == "app") {
                continue;
            }
            if path.is_dir() {
                walk(&path, secret, false);
                continue;
            }
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
            assert!(
                !text.contains(secret),
                "{} holds the secret:\n{text}",
                path.display()
            );
        }
    }
    walk(root, secret, true);
}

/// The `Text network` summary of the last reply in `text`.
pub fn network_summary(text: &str) -> String {
    let reply = &text[text.rfind("> **agent** to ").expect("a reply")..];
    reply
        .split("```Text network\n")
        .nth(1)
        .and_then(|s| s.split("\n```").next())
        .unwrap_or_default()
        .to_string()
}
