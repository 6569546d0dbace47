//! MCP through the client most agents' tools use: the official Python SDK
//! (`tests/benches/mcp_client.py`, in a venv under `target/pyenv`, made
//! here when missing). `list_realms` (no page work: the transport's floor)
//! and `eval` of `1+1` on both transports, all sides alive at once, taking
//! turns; with `DAEBUG_BENCH_PEER` set (a command that starts
//! chrome-devtools-mcp `--slim` attached to a browser, and
//! `DAEBUG_BENCH_PEER_TOOL` / `_ARGS`), the peer's call takes its turn too.
//! A bench, never a test: the peer needs the network to install.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::support::{daebug_bin, World};
use super::Row;

const ROUNDS: usize = 30;

/// The venv's python with `mcp` installed, or why there is none.
fn python() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/pyenv");
    let python = venv.join("bin/python");
    let has_mcp = |p: &Path| {
        Command::new(p)
            .args(["-c", "import mcp"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_mcp(&python) {
        return Ok(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "mcp"])
            .status()
            .is_ok_and(|s| s.success());
    match made && has_mcp(&python) {
        true => Ok(python),
        false => Err("no python3 with the `mcp` package (pip install mcp)".into()),
    }
}

pub fn mcp_python(rows: &mut Vec<Row>) {
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            rows.push(Row {
                what: "MCP with the Python SDK client".into(),
                value: format!("not measured: {why}"),
                goal: "—".into(),
            });
            return;
        }
    };
    let world = World::new(
        &[(
            "index.html",
            "<!doctype html><html><head><title>MCP</title></head><body></body></html>",
        )],
        "index.html",
    );
    let log = world.log("mcp-");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/mcp_client.py");
    let stdio = format!(
        "{} mcp --attach --root {}",
        daebug_bin().display(),
        world.root.path().display()
    );
    let mut cmd = Command::new(&python);
    cmd.arg(&script)
        .args(["--realm", &log.stem, "--n", &ROUNDS.to_string()])
        .args(["--http", &format!("{}/mcp", world.base)])
        .args(["--stdio", &stdio]);
    let peer = std::env::var("DAEBUG_BENCH_PEER").ok();
    if let Some(peer) = &peer {
        cmd.args(["--peer", peer]);
        cmd.args([
            "--peer-tool",
            &std::env::var("DAEBUG_BENCH_PEER_TOOL").unwrap_or("evaluate_script".into()),
        ]);
        cmd.args([
            "--peer-args",
            &std::env::var("DAEBUG_BENCH_PEER_ARGS")
                .unwrap_or(r#"{"function": "() => 1+1"}"#.into()),
        ]);
    }
    let out = cmd.output().expect("run the Python MCP client");
    assert!(
        out.status.success(),
        "the Python MCP client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the client's JSON");
    let cell = |side: &str, tool: &str| {
        let t = &report[side][tool];
        format!(
            "{:.2} / {:.2} ms; {} tokens",
            t["median_ms"].as_f64().unwrap_or(f64::NAN),
            t["p99_ms"].as_f64().unwrap_or(f64::NAN),
            t["chars"].as_u64().unwrap_or(0).div_ceil(4)
        )
    };
    for (side, name) in [
        ("http", "streamable HTTP (`/mcp`)"),
        ("stdio", "stdio (`daebug mcp --attach`)"),
    ] {
        for tool in ["list_realms", "eval"] {
            let what = match tool {
                "eval" => "`eval` of `1+1` in a page",
                _ => "`list_realms` (no page work: the floor)",
            };
            rows.push(Row {
                what: format!(
                    "MCP over {name}, the Python SDK client: {what}, median / p99 of {ROUNDS}; reply tokens (characters ÷ 4)"
                ),
                value: cell(side, tool),
                goal: match tool {
                    "eval" => "≤ the floor + 0.5 ms".into(),
                    _ => "—".into(),
                },
            });
        }
    }
    // Tokens a call costs, small and large (characters ÷ 4).
    let tokens = |side: &str, tool: &str| {
        report[side][tool]["chars"]
            .as_u64()
            .unwrap_or(0)
            .div_ceil(4)
    };
    rows.push(Row {
        what: "MCP tokens a call returns (characters ÷ 4): `list_realms` (one realm); `eval` of `1+1`; `eval` of 300 objects; the same with `budget: 300`; `read_log` by default (the last 200 lines of this bench's log)".into(),
        value: format!(
            "{}; {}; {}; {}; {}",
            tokens("http", "list_realms"),
            tokens("http", "eval"),
            tokens("http", "eval_large"),
            tokens("http", "eval_large_budget"),
            tokens("http", "read_log")
        ),
        goal: "a budget bounds a reply".into(),
    });
    if peer.is_some() {
        let tool = std::env::var("DAEBUG_BENCH_PEER_TOOL").unwrap_or("evaluate_script".into());
        rows.push(Row {
            what: format!("the peer (`DAEBUG_BENCH_PEER`), the same client: `{tool}` of `1+1`, median / p99 of {ROUNDS}"),
            value: cell("peer", &tool),
            goal: "daebug's slower transport ≤ half of it".into(),
        });
    }
}
