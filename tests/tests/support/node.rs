//! Node processes run as the user runs them:
//! `node --import ./debug/daebug-node.mjs app.js`, their output kept and
//! shown when a test fails.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::DEADLINE;

/// A Node of major version `major`: `DAEBUG_NODE<major>` (scripts/test.sh
/// sets it when it installed one from the npm registry), else `node` on
/// the PATH when it is that version.
pub fn node(major: u32) -> PathBuf {
    if let Some(p) = std::env::var_os(format!("DAEBUG_NODE{major}")) {
        return PathBuf::from(p);
    }
    let found = Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .is_some_and(|v| v.trim().starts_with(&format!("v{major}.")));
    assert!(
        found,
        "no Node {major}: run scripts/test.sh (it installs one) or set DAEBUG_NODE{major}"
    );
    PathBuf::from("node")
}

/// A running Node process.
pub struct NodeProcess {
    child: Child,
    output: Arc<Mutex<String>>,
}

impl NodeProcess {
    /// `node <flags> --import <root>/debug/daebug-node.mjs <script>` in
    /// `cwd`, with `env` added.
    pub fn start(
        node: &Path,
        root: &Path,
        cwd: &Path,
        flags: &[&str],
        script: &str,
        env: &[(&str, &str)],
    ) -> NodeProcess {
        let loader = root.join("debug").join("daebug-node.mjs");
        let mut cmd = Command::new(node);
        cmd.args(flags)
            .arg("--import")
            .arg(&loader)
            .arg(script)
            .current_dir(cwd)
            .envs(env.iter().copied())
            .env_remove("NODE_OPTIONS");
        NodeProcess::spawn(cmd)
    }

    /// `cmd` run with its output kept (`daebug run -- node …`).
    pub fn spawn(mut cmd: Command) -> NodeProcess {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run node");
        let output = kept_output(&mut child);
        NodeProcess { child, output }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything it printed so far (stdout and stderr).
    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Waits until it printed `needle`.
    pub fn wait_output(&self, needle: &str) -> String {
        let end = Instant::now() + DEADLINE;
        loop {
            let out = self.output();
            if out.contains(needle) {
                return out;
            }
            assert!(
                Instant::now() < end,
                "node never printed {needle:?}; printed:\n{out}"
            );
            // A pipe has no event to block on with a deadline: the poll
            // interval of this bounded wait.
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// Its exit status, once it ended by itself within the deadline.
    pub fn exit(&mut self) -> ExitStatus {
        let output = self.output.clone();
        super::exit_within(&mut self.child, DEADLINE, || {
            format!("node printed:\n{}", output.lock().unwrap())
        })
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        // A `node --watch` has a child of its own: end the group's leader
        // with SIGTERM first, which it passes on.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .stderr(Stdio::null())
            .status();
        let end = Instant::now() + std::time::Duration::from_secs(2);
        while Instant::now() < end && self.child.try_wait().ok().flatten().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("----- node's output -----\n{}", self.output());
        }
    }
}

/// Express 5 from the npm registry, into the test's own app folder;
/// `None` (with the reason printed) when npm cannot install it.
pub fn install_express(app: &Path) -> Option<()> {
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
            "--loglevel=error",
            "express@5.1.0",
        ])
        .current_dir(app)
        .output();
    match out {
        Ok(o) if o.status.success() && app.join("node_modules/express").exists() => Some(()),
        Ok(o) => {
            eprintln!(
                "skipped: npm could not install express@5.1.0: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("skipped: no npm to install express@5.1.0: {e}");
            None
        }
    }
}

/// A hub on `root` (`--port 0`) once it has written the Node loader
/// there (`debug/daebug-node.mjs`, with its URL): the hub and its base URL.
pub fn node_hub(root: &super::TempDir) -> (super::Running, String) {
    let mut hub = super::Running::start(&["--port", "0"], root);
    let base = super::base_of(&hub.line_with("serving"));
    super::wait_for(
        &root.path().join("debug/daebug-node.mjs"),
        "the Node loader",
        |t| t.contains(&base),
    );
    (hub, base)
}

/// Everything `child` prints on stdout and stderr (both piped), kept as it
/// comes by a thread for each.
pub fn kept_output(child: &mut std::process::Child) -> Arc<Mutex<String>> {
    let output = Arc::new(Mutex::new(String::new()));
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let kept = output.clone();
        std::thread::spawn(move || {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
    }
    output
}
