//! The `daebug` command line, run as a real process.

mod support;

use std::process::Command;
use support::{daebug_bin, TempDir};

#[test]
fn prints_url_and_script_tag() {
    let root = TempDir::new("cli");
    let out = Command::new(daebug_bin())
        .args(["--port", "0", "--root"])
        .arg(root.path())
        .output()
        .expect("run daebug");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "daebug failed: {out:?}");
    assert!(stdout.contains("http://127.0.0.1:0/"), "{stdout}");
    assert!(
        stdout.contains(r#"<script type="module" src="http://127.0.0.1:0/daebug.js"></script>"#),
        "{stdout}"
    );
}

#[test]
fn defaults_to_loopback_8302() {
    let root = TempDir::new("defaults");
    let out = Command::new(daebug_bin())
        .current_dir(root.path())
        .output()
        .expect("run daebug");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "daebug failed: {out:?}");
    assert!(
        stdout.contains("http://127.0.0.1:8302/daebug.js"),
        "{stdout}"
    );
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
