//! A fresh folder with an app as people start one, none of whose files
//! mention daebug (docs/zero-edits.md, "One command"): a Vite 7 page with a
//! module worker, and an Express 5 API server behind Vite's `server.proxy`;
//! `npm run dev` starts both (a small `dev.js`, as `concurrently` would).
//! And daebug from npm: `scripts/npm-pack.sh` with a given hub, installed
//! from its tarballs into a tools folder of its own (what `npx daebug`
//! runs). Shared by `tests/zero_edits.rs` and the benchmark.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::TempDir;

/// The app's files (name, text).
pub const FILES: [(&str, &str); 8] = [
    (
        "package.json",
        r##"{
  "name": "shop",
  "private": true,
  "type": "module",
  "scripts": { "dev": "node dev.js" },
  "dependencies": { "express": "5.1.0" },
  "devDependencies": { "vite": "7.1.12" }
}
"##,
    ),
    (
        "dev.js",
        r##"// Starts the API server and Vite's dev server; stops both together.
import { spawn } from "node:child_process";

const start = (script) => spawn(process.execPath, [script], { stdio: "inherit" });
const children = [start("server.js"), start("node_modules/vite/bin/vite.js")];
let code = 0;
for (const child of children) {
  child.on("exit", (c) => {
    code ||= c ?? 0;
    for (const other of children) other.kill("SIGTERM");
    if (children.every((k) => k.exitCode !== null || k.signalCode !== null)) process.exit(code);
  });
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => children.forEach((child) => child.kill(signal)));
}
"##,
    ),
    (
        "server.js",
        r##"import express from "express";

const port = Number(process.env.API_PORT ?? 3001);
export const orders = [];
const app = express();
app.post("/api/orders", express.json(), (req, res) => {
  orders.push(req.body);
  console.log(`order ${JSON.stringify(req.body)}`);
  res.status(201).json({ count: orders.length });
});
app.listen(port, "127.0.0.1", () => console.log(`api on ${port}`));
"##,
    ),
    (
        "vite.config.js",
        r##"const api = Number(process.env.API_PORT ?? 3001);
export default {
  server: {
    port: Number(process.env.PORT ?? 5173),
    strictPort: true,
    proxy: { "/api": `http://127.0.0.1:${api}` },
  },
};
"##,
    ),
    (
        "index.html",
        r##"<!doctype html>
<html>
  <head><title>Shop</title></head>
  <body>
    <button id="order">Order</button>
    <p id="result"></p>
    <p id="doubled"></p>
    <script type="module" src="/main.js"></script>
  </body>
</html>
"##,
    ),
    (
        "main.js",
        r##"const worker = new Worker(new URL("./prices.js", import.meta.url), { type: "module", name: "prices" });
worker.onmessage = (e) => (document.querySelector("#doubled").textContent = `doubled: ${e.data}`);
worker.postMessage(21);

document.querySelector("#order").addEventListener("click", async () => {
  const res = await fetch("/api/orders", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ item: "tea" }),
  });
  const { count } = await res.json();
  document.querySelector("#result").textContent = `orders: ${count}`;
});
"##,
    ),
    (
        "prices.js",
        r##"export const rate = 2;
self.onmessage = (e) => self.postMessage(e.data * rate);
"##,
    ),
    (".gitignore", "node_modules\n"),
];

/// `npm <args>` in `dir`; `None` (with a `skipped:` line) when npm is
/// missing or cannot reach the registry.
pub fn npm(dir: &Path, args: &[&str]) -> Option<()> {
    let out = Command::new("npm")
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .args(args)
        .current_dir(dir)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(()),
        Ok(o) => {
            eprintln!(
                "skipped: npm {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("skipped: no npm: {e}");
            None
        }
    }
}

/// The app written into `dir` and its pinned packages installed.
pub fn write_app(dir: &Path) -> Option<()> {
    super::write_files(dir, &FILES);
    npm(dir, &["install"])
}

/// daebug installed from npm tarballs packed with `binary`.
pub struct Tools {
    pub dir: TempDir,
    /// The packed tarballs (`daebug` and the platform's).
    pub tarballs: Vec<PathBuf>,
}

impl Tools {
    /// `node_modules/.bin/daebug`: what `npx daebug` runs.
    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("node_modules/.bin/daebug")
    }
}

/// Packs daebug with `binary` and installs it into a folder of its own;
/// `None` (said why) without npm.
pub fn daebug_from_npm(binary: &Path) -> Option<Tools> {
    let dir = TempDir::new("npm-tools");
    let packs = dir.path().join("packs");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let packed = Command::new(repo.join("scripts/npm-pack.sh"))
        .arg(binary)
        .arg(&packs)
        .output()
        .expect("run scripts/npm-pack.sh");
    if !packed.status.success() {
        let err = String::from_utf8_lossy(&packed.stderr);
        if err.contains("npm") && err.contains("not found") {
            eprintln!("skipped: no npm to pack with: {err}");
            return None;
        }
        panic!("scripts/npm-pack.sh failed: {err}");
    }
    let tarballs: Vec<PathBuf> = std::fs::read_dir(&packs)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tgz"))
        .collect();
    assert_eq!(tarballs.len(), 2, "{tarballs:?}");
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name":"tools","private":true}"#,
    )
    .unwrap();
    let mut args = vec!["install".to_string()];
    args.extend(tarballs.iter().map(|t| t.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    npm(dir.path(), &args)?;
    Some(Tools { dir, tarballs })
}

/// A port free at the time of asking.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The environment of `npm run dev`: Node 22 first on the PATH (a Node
/// realm needs it), Vite's and the API's ports, plain output.
pub fn dev_env(vite_port: u16, api_port: u16) -> Vec<(String, String)> {
    let node = super::node::node(22);
    let path = match node.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => format!(
            "{}:{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
        None => std::env::var("PATH").unwrap_or_default(),
    };
    vec![
        ("PATH".into(), path),
        ("PORT".into(), vite_port.to_string()),
        ("API_PORT".into(), api_port.to_string()),
        ("NO_COLOR".into(), "1".into()),
    ]
}

/// A command in a process group of its own (as a terminal runs one), its
/// output (both streams) kept; the whole group killed on drop.
pub struct Group {
    child: Child,
    output: Arc<Mutex<String>>,
}

impl Group {
    pub fn start(cmd: &mut Command) -> Group {
        use std::os::unix::process::CommandExt;
        let mut child = cmd
            .process_group(0)
            .env_remove("NODE_OPTIONS")
            .env_remove("FORCE_COLOR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let output = super::node::kept_output(&mut child);
        Group { child, output }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Waits (up to `within`) until its output has `needle`.
    pub fn wait_output(&self, needle: &str, within: Duration) -> String {
        let end = Instant::now() + within;
        loop {
            let out = self.output();
            if out.contains(needle) {
                return out;
            }
            assert!(Instant::now() < end, "no {needle:?} in:\n{out}");
            // Output arrives on the reader threads: the poll interval of
            // this bounded wait.
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `signal` (`INT`, `TERM`) to the group (a terminal's Ctrl-C) or to
    /// the leader alone; its exit status once it ended.
    pub fn signal(&mut self, signal: &str, group: bool) -> ExitStatus {
        let pid = self.child.id().to_string();
        let target = if group { format!("-{pid}") } else { pid };
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), "--", &target])
            .status()
            .expect("kill");
        assert!(sent.success());
        self.exit(Duration::from_secs(30))
    }

    /// Its exit status once it ended by itself, within `within`.
    pub fn exit(&mut self, within: Duration) -> ExitStatus {
        let output = self.output.clone();
        super::exit_within(&mut self.child, within, || {
            format!("printed:\n{}", output.lock().unwrap())
        })
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("----- output -----\n{}", self.output());
        }
    }
}
