//! The `daebug` command line, run as a real process.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::{daebug_bin, TempDir};

const DEADLINE: Duration = Duration::from_secs(20);

/// A running `daebug` whose stdout lines arrive on a channel.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(args: &[&str], root: &TempDir) -> Running {
        let mut child = Command::new(daebug_bin())
            .args(args)
            .arg("--root")
            .arg(root.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run daebug");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// The first stdout line containing `needle`.
    fn line_with(&mut self, needle: &str) -> String {
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
    fn terminate(mut self) -> std::process::ExitStatus {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(ok.success());
        let end = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < end, "daebug did not stop on SIGTERM");
            // Polling a child process has no event to wait on; a short
            // yield between checks keeps the loop from spinning.
            std::thread::yield_now();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `http://127.0.0.1:N` from the startup line.
fn base_of(line: &str) -> String {
    let start = line.find("http://").expect("url in line");
    let url = &line[start..];
    let end = url[7..].find('/').map_or(url.len(), |i| i + 7);
    url[..end].to_string()
}

fn get(base: &str, path: &str) -> String {
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}

#[test]
fn serves_prints_the_script_tag_and_stops_cleanly_on_sigterm() {
    let root = TempDir::new("cli");
    let mut hub = Running::start(&["--port", "0"], &root);
    let base = base_of(&hub.line_with("serving"));
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert_ne!(base, "http://127.0.0.1:0");
    let tag = hub.line_with("<script");
    assert_eq!(
        tag.trim(),
        format!(r#"<script type="module" src="{base}/daebug.js"></script>"#)
    );
    let adapter = get(&base, "/daebug.js");
    assert!(adapter.starts_with("HTTP/1.1 200"), "{adapter}");
    let registry = root.path().join("debug.md");
    assert!(registry.exists());

    let status = hub.terminate();
    assert!(status.success(), "{status:?}");
    let text = std::fs::read_to_string(&registry).expect("registry");
    assert!(text.contains("The hub stopped at "), "{text}");
    assert!(text.contains("--port 0"), "the restart command: {text}");
}

#[test]
fn a_busy_port_names_the_port_and_the_way_out() {
    let root = TempDir::new("busy");
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let out = Command::new(daebug_bin())
        .args(["--port", &port, "--root"])
        .arg(root.path())
        .output()
        .expect("run daebug");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("port {port}")) && stderr.contains("--port"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn beyond_loopback_a_token_is_generated_and_printed() {
    let root = TempDir::new("token");
    let mut hub = Running::start(&["--port", "0", "--host", "0.0.0.0"], &root);
    let tag = hub.line_with("<script");
    assert!(tag.contains("/daebug.js?token="), "{tag}");
    let token = tag
        .split("token=")
        .nth(1)
        .unwrap()
        .trim_end_matches(r#""></script>"#);
    assert_eq!(token.len(), 32, "{tag}");
    assert!(hub.terminate().success());
}

#[test]
fn missing_root_is_an_error() {
    let root = TempDir::new("missing");
    let out = Command::new(daebug_bin())
        .arg("--root")
        .arg(root.path().join("nope"))
        .output()
        .expect("run daebug");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("root"), "{stderr}");
}
