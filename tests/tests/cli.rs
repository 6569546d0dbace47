//! The `daebug` command line, run as a real process.

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;

use support::{base_of, daebug_bin, Running, TempDir};

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
        format!(r#"<script src="{base}/daebug.js"></script>"#)
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

#[test]
fn a_file_named_debug_is_an_error_before_serving() {
    let root = TempDir::new("debugfile");
    std::fs::write(root.path().join("debug"), "my notes").unwrap();
    let out = Command::new(daebug_bin())
        .args(["--port", "0", "--root"])
        .arg(root.path())
        .output()
        .expect("run daebug");
    assert!(!out.status.success());
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!stdout.contains("serving"), "{stdout}");
    assert!(
        stderr.contains("debug is a file") && stderr.contains("move or rename"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(root.path().join("debug")).unwrap(),
        "my notes"
    );
}

#[test]
fn temp_files_a_killed_hub_left_are_removed_at_start() {
    let root = TempDir::new("leftovers");
    let debug = root.path().join("debug");
    std::fs::create_dir_all(&debug).unwrap();
    // pid 0 is never a running hub.
    let leftover = debug.join(".page-1a2b.md.0-4.tmp");
    std::fs::write(&leftover, "half a log").unwrap();
    std::fs::write(debug.join("page-1a2b.md"), "# 👾 page-1a2b\n").unwrap();
    let mut hub = Running::start(&["--port", "0"], &root);
    hub.line_with("serving");
    assert!(!leftover.exists());
    assert!(debug.join("page-1a2b.md").exists());
    assert!(hub.terminate().success());
}

/// `daebug … | head -1`: a reader that went away is no reason to stop
/// serving (the hub's start lines used to panic on the closed pipe).
#[test]
fn a_closed_stdout_does_not_stop_the_hub() {
    use std::io::BufRead;
    let root = TempDir::new("closed-stdout");
    // The pipe's read end is gone before the hub writes a line.
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(daebug_bin())
        .args(["--port", "0", "--root"])
        .arg(root.path())
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run daebug");
    let stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut base = None;
    for line in stderr.lines() {
        let line = line.expect("stderr line");
        assert!(!line.contains("panicked"), "{line}");
        if line.contains("serving") && line.contains("http://") {
            base = Some(base_of(&line));
            break;
        }
    }
    let base = base.expect("the hub said where it serves on stderr");
    let adapter = get(&base, "/daebug.js");
    assert!(adapter.starts_with("HTTP/1.1 200"), "{adapter}");
    assert!(
        child.try_wait().expect("status").is_none(),
        "the hub exited"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// A hub started again on the same root writes `debug.md` once: the
/// earlier hub's list is its own, not something the agent wrote to keep.
#[test]
fn a_restarted_hub_writes_the_registry_once() {
    let root = TempDir::new("restart");
    for _ in 0..3 {
        let mut hub = Running::start(&["--port", "0"], &root);
        hub.line_with("serving");
        let status = hub.terminate();
        assert!(status.success(), "{status:?}");
    }
    let text = std::fs::read_to_string(root.path().join("debug.md")).expect("registry");
    assert_eq!(text.matches("# 👾 daebug").count(), 1, "{text}");
    assert_eq!(text.matches("The hub stopped at ").count(), 1, "{text}");
}
