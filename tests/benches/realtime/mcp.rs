//! MCP through the client most agents' tools use: the official Python SDK
//! (`tests/benches/mcp_client.py`, in a venv under `target/pyenv` made by
//! `support::python`). `list_realms` (no page work: the transport's floor)
//! and `eval` of `1+1` on both transports, and the peer, chrome-devtools-mcp
//! `--slim` `evaluate` of `1+1` in a headless Chromium it starts: all sides
//! alive at once, taking turns. The peer is installed here from npm, pinned
//! ([`PEER`], into `target/peer`), when missing; `DAEBUG_BENCH_PEER` names
//! another command (with `DAEBUG_BENCH_PEER_TOOL` / `_ARGS`), `none` none.
//! A bench, never a test: the peer needs the network to install.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::stages::{stage_cells, wait_hub_times};
use super::support::python::python_sdk;
use super::support::{daebug_bin, World, CHROMIUM_FLAGS};
use super::Row;

const ROUNDS: usize = 30;

/// The peer, pinned so every run measures the same one.
const PEER: &str = "chrome-devtools-mcp@1.11.0";

/// The command that starts the peer, with its tool and its arguments for
/// `1+1`, or why there is none.
fn peer() -> Result<(String, String, String), String> {
    let tool = std::env::var("DAEBUG_BENCH_PEER_TOOL").unwrap_or("evaluate".into());
    let args = std::env::var("DAEBUG_BENCH_PEER_ARGS").unwrap_or(r#"{"script": "1+1"}"#.into());
    match std::env::var("DAEBUG_BENCH_PEER").ok().as_deref() {
        Some("none") => return Err("DAEBUG_BENCH_PEER=none".into()),
        Some(command) => return Ok((command.to_string(), tool, args)),
        None => {}
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/peer");
    let bin: PathBuf = dir.join("node_modules/.bin/chrome-devtools-mcp");
    if !bin.exists() {
        let installed = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(PEER)
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !installed || !bin.exists() {
            return Err(format!("npm could not install {PEER}"));
        }
    }
    // Its own headless Chromium, started as the tests start theirs.
    let chrome_args: String = CHROMIUM_FLAGS
        .iter()
        .filter(|f| **f != "--headless")
        .map(|f| format!(" --chromeArg={f}"))
        .collect();
    let command = format!(
        "{} --slim --headless --isolated --usageStatistics false --executablePath /usr/bin/chromium{chrome_args}",
        bin.display()
    );
    Ok((command, tool, args))
}

pub fn mcp_python(rows: &mut Vec<Row>) {
    let python = match python_sdk() {
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
    let world = super::stages::timed_world("MCP");
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
    let peer = peer();
    match &peer {
        Ok((command, tool, args)) => {
            cmd.args(["--peer", command, "--peer-tool", tool, "--peer-args", args]);
        }
        Err(why) => rows.push(Row {
            what: "the peer, chrome-devtools-mcp `--slim`".into(),
            value: format!("not measured: {why}"),
            goal: "—".into(),
        }),
    }
    let out = cmd.output().expect("run the Python MCP client");
    assert!(
        out.status.success(),
        "the Python MCP client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the client's JSON");
    let median =
        |side: &str, tool: &str| report[side][tool]["median_ms"].as_f64().unwrap_or(f64::NAN);
    let tokens = |side: &str, tool: &str| {
        report[side][tool]["chars"]
            .as_u64()
            .unwrap_or(0)
            .div_ceil(4)
    };
    let cell = |side: &str, tool: &str| {
        format!(
            "{:.2} / {:.2} ms; {} tokens",
            median(side, tool),
            report[side][tool]["p99_ms"].as_f64().unwrap_or(f64::NAN),
            tokens(side, tool)
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
            let (value, goal) = match tool {
                "eval" => (
                    format!(
                        "{}; the floor + {:.2} ms",
                        cell(side, tool),
                        median(side, "eval") - median(side, "list_realms")
                    ),
                    "≤ the floor + 0.5 ms",
                ),
                _ => (cell(side, tool), "—"),
            };
            rows.push(Row {
                what: format!(
                    "MCP over {name}, the Python SDK client: {what}, median / p99 of {ROUNDS}; reply tokens (characters ÷ 4)"
                ),
                value,
                goal: goal.into(),
            });
        }
    }
    stages(rows, &world, &log.stem, &report);
    rows.push(Row {
        what: "MCP tokens a call returns (characters ÷ 4): `list_realms` (one realm); `eval` of `1+1`; `eval` of 300 objects; the same with `budget: 300`; 5,000 `console.log` calls of 3 messages with `budget: 150`; `read_log` by default (the last 200 lines of this bench's log)".into(),
        value: format!(
            "{}; {}; {}; {}; {}; {}",
            tokens("http", "list_realms"),
            tokens("http", "eval"),
            tokens("http", "eval_large"),
            tokens("http", "eval_large_budget"),
            tokens("http", "eval_flood_budget"),
            tokens("http", "read_log")
        ),
        goal: "a budget bounds a reply".into(),
    });
    let listed = |side: &str| report["tools_list"][side].as_u64().unwrap_or(0);
    rows.push(Row {
        what: "MCP `tools/list`, characters of its tools' JSON as sent: daebug's four tools (HTTP; stdio); the peer's".into(),
        value: match &peer {
            Ok(_) => format!("{}; {}; {}", listed("http"), listed("stdio"), listed("peer")),
            Err(_) => format!("{}; {}; not measured", listed("http"), listed("stdio")),
        },
        goal: "≤ chrome-devtools-mcp `--slim`'s".into(),
    });
    if let Ok((_, tool, _)) = &peer {
        let slower = median("http", "eval").max(median("stdio", "eval"));
        rows.push(Row {
            what: format!("the peer (chrome-devtools-mcp `--slim`, or `DAEBUG_BENCH_PEER`), the same client: `{tool}` of `1+1`, median / p99 of {ROUNDS}; daebug's slower transport's `eval` against it"),
            value: format!("{}; {:.2}× its time", cell("peer", tool), slower / median("peer", tool)),
            goal: "daebug's slower transport ≤ half of it (0.50×)".into(),
        });
    }
}

/// A call as the client timed it: side, tool, start and end (wall µs).
struct Wall<'a> {
    side: &'a str,
    tool: &'a str,
    start: f64,
    end: f64,
}

/// An in-process tool call's moments (`timing door=mcp …` lines).
struct ToolTimes {
    entered: f64,
    left: f64,
}

fn tool_times(output: &str) -> Vec<ToolTimes> {
    output
        .lines()
        .filter_map(|l| l.split_once("timing door=mcp ").map(|(_, rest)| rest))
        .map(|rest| {
            let field = |name: &str| super::stages::timing_field(rest, name);
            ToolTimes {
                entered: field("entered"),
                left: field("left"),
            }
        })
        .collect()
}

/// Where an `eval` of `1+1` spends its time on each transport, against
/// the floor: the client's calls (wall clock) set against the hub's
/// timing lines, a job each `eval`, in order; over HTTP, the tool's own
/// moments in the hub too (over stdio the tool runs in `daebug mcp`).
fn stages(rows: &mut Vec<Row>, world: &World, stem: &str, report: &serde_json::Value) {
    let walls: Vec<Wall> = report["walls"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|w| Wall {
                    side: w[0].as_str().unwrap_or(""),
                    tool: w[1].as_str().unwrap_or(""),
                    start: w[2].as_f64().unwrap_or(0.0),
                    end: w[3].as_f64().unwrap_or(0.0),
                })
                .collect()
        })
        .unwrap_or_default();
    let daebug = |w: &&Wall| w.side == "http" || w.side == "stdio";
    let jobs: Vec<&Wall> = walls
        .iter()
        .filter(daebug)
        .filter(|w| w.tool.starts_with("eval"))
        .collect();
    let hub = wait_hub_times(world, stem, jobs.len());
    // The in-process tool calls: HTTP's `list_realms` and evals.
    let timed: Vec<&Wall> = walls
        .iter()
        .filter(|w| w.side == "http" && (w.tool == "list_realms" || w.tool.starts_with("eval")))
        .collect();
    let tools = tool_times(&world.hub.output());
    let tools = &tools[tools.len().saturating_sub(timed.len())..];
    let tool_of = |w: &Wall| {
        timed
            .iter()
            .position(|t| std::ptr::eq(*t, w))
            .and_then(|i| tools.get(i))
    };
    for (side, name) in [
        ("http", "streamable HTTP (`/mcp`)"),
        ("stdio", "stdio (`daebug mcp --attach`)"),
    ] {
        let evals: Vec<Vec<f64>> = jobs
            .iter()
            .zip(&hub)
            .filter(|(w, _)| w.side == side && w.tool == "eval")
            .map(|(w, h)| {
                let mut stages = vec![h.heard - w.start];
                if let Some(t) = tool_of(w) {
                    stages = vec![t.entered - w.start, h.heard - t.entered];
                }
                stages.extend([h.sent - h.heard, h.result - h.sent, h.answered - h.result]);
                match tool_of(w) {
                    Some(t) => stages.extend([t.left - h.answered, w.end - t.left]),
                    None => stages.push(w.end - h.answered),
                }
                stages.push(w.end - w.start);
                stages
            })
            .collect();
        let names: &[&str] = match side {
            "http" => &[
                "call → the tool entered (the SDK, HTTP, rmcp)",
                "→ the log's task has it (the realm resolved, the block submitted)",
                "→ the job sent",
                "→ the result back (the realm's round trip)",
                "→ the reply written, the door told",
                "→ the tool left (the reply's result made)",
                "→ the client has it (rmcp, HTTP, the SDK)",
                "in all",
            ],
            _ => &[
                "call → the log's task has it (the SDK, stdio, `daebug mcp`, the HTTP API)",
                "→ the job sent",
                "→ the result back (the realm's round trip)",
                "→ the reply written, the door told",
                "→ the client has it (the HTTP API, `daebug mcp`, stdio, the SDK)",
                "in all",
            ],
        };
        let mut cells = stage_cells(&evals, names);
        if side == "http" {
            // The floor: `list_realms`, the same way in and out.
            let floor: Vec<Vec<f64>> = timed
                .iter()
                .filter(|w| w.tool == "list_realms")
                .filter_map(|w| tool_of(w).map(|t| (w, t)))
                .map(|(w, t)| vec![t.entered - w.start, t.left - t.entered, w.end - t.left])
                .collect();
            let floor = stage_cells(
                &floor,
                &[
                    "the floor, `list_realms`: call → the tool entered",
                    "→ the tool left (the directory asked)",
                    "→ the client has it",
                ],
            );
            cells = format!("{cells}<br>{floor}");
        }
        rows.push(Row {
            what: format!("where the time of an MCP `eval` of `1+1` over {name} goes, the Python SDK client (medians of {}, µs)", evals.len()),
            value: cells,
            goal: "—".into(),
        });
    }
}
