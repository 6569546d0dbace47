//! The doors' round trip: `1+1` to one page through each way in — the log
//! file, `daebug eval` (a process a call), the HTTP API on a kept-alive
//! connection, MCP over streamable HTTP and MCP over the stdio of `daebug
//! mcp` attached to the running hub — and what the hub writes a call on
//! each (the log's reply is the same; the rest is the door's answer).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};

use super::stages::{stage_cells, wait_hub_times};
use super::support::{daebug_bin, wait_for, World, FOOTER};
use super::{ms, save_to_reply, wall_ms, written_bytes, Row, JOBS, WARM_UP};

/// The reply every path must bring back.
const TWO: &str = "```JSON\n2\n```";

type McpClient = RunningService<RoleClient, ClientConfig>;

pub fn doors(rows: &mut Vec<Row>) {
    let world = super::stages::timed_world("Doors");
    let log = world.log("doors-");
    let (stem, root) = (log.stem.clone(), world.root.path().to_path_buf());
    let pid = world.hub.pid();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");

    let http = reqwest::Client::new();
    let url = format!("{}/api/realms/{stem}/eval", world.base);
    let mcp_http: McpClient = rt.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", world.base));
        ClientConfig::default()
            .serve(transport)
            .await
            .expect("MCP initialize over HTTP")
    });
    let mcp_stdio: McpClient = rt.block_on(async {
        let mut cmd = tokio::process::Command::new(daebug_bin());
        cmd.args(["mcp", "--attach", "--root"]).arg(&root);
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn daebug mcp");
        ClientConfig::default()
            .serve(transport)
            .await
            .expect("MCP initialize over stdio")
    });

    let file = || save_to_reply(&log.path, &stem);
    let cli = || {
        let start = Instant::now();
        let out = Command::new(daebug_bin())
            .args(["eval", &stem, "1+1", "--root"])
            .arg(&root)
            .stdin(Stdio::null())
            .output()
            .expect("run daebug eval");
        let took = start.elapsed();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains(TWO), "{out:?}");
        took
    };
    let api = || {
        rt.block_on(async {
            let start = Instant::now();
            let res = http
                .post(&url)
                .json(&serde_json::json!({"code": "1+1"}))
                .send()
                .await
                .expect("POST eval");
            let reply: serde_json::Value = res.json().await.expect("JSON");
            let took = start.elapsed();
            assert!(
                reply["text"].as_str().is_some_and(|t| t.contains(TWO)),
                "{reply}"
            );
            took
        })
    };
    let over_http = || rt.block_on(eval_once(&mcp_http, &stem));
    let over_stdio = || rt.block_on(eval_once(&mcp_stdio, &stem));
    let paths: [(&str, &dyn Fn() -> Duration); 5] = [
        ("the log file (save → reply on disk)", &file),
        ("`daebug eval` (a process a call)", &cli),
        ("the HTTP API (`POST …/eval`, kept-alive)", &api),
        ("MCP over streamable HTTP (`/mcp`)", &over_http),
        ("MCP over stdio (`daebug mcp` attached)", &over_stdio),
    ];

    for _ in 0..WARM_UP {
        for (_, call) in &paths {
            call();
        }
    }
    // The paths take turns on one log, so each sees the same log sizes
    // (a small log's write is the whole file) and the same machine. What
    // the hub writes from one call's start to the next's is that call's.
    let mut times = vec![Vec::with_capacity(JOBS); paths.len()];
    // Each call's start and end on the wall clock (µs), for the stages.
    let mut walls = vec![Vec::with_capacity(JOBS); paths.len()];
    let mut written = vec![0u64; paths.len()];
    let mut mark = written_bytes(pid);
    let mut last: Option<usize> = None;
    for _ in 0..JOBS {
        for (i, (_, call)) in paths.iter().enumerate() {
            let now = written_bytes(pid);
            if let Some(prev) = last {
                written[prev] += now - mark;
            }
            mark = now;
            let start = wall_ms() * 1000.0;
            times[i].push(call());
            walls[i].push((start, wall_ms() * 1000.0));
            last = Some(i);
        }
    }
    // The last call's writes: until its log is idle again.
    wait_for(&log.path, "the log idle", |t| {
        t.trim_end().ends_with(FOOTER)
    });
    if let Some(prev) = last {
        written[prev] += written_bytes(pid) - mark;
    }

    for (((what, _), mut times), written) in paths.iter().zip(times).zip(written) {
        times.sort();
        let per_call = written / JOBS as u64;
        rows.push(Row {
            what: format!(
                "`1+1` to a page through {what}: round trip median / p99 of {JOBS}; bytes the hub writes a call"
            ),
            value: format!(
                "{} / {}; {:.1} KB",
                ms(times[JOBS / 2]),
                ms(times[JOBS * 99 / 100]),
                per_call as f64 / 1024.0
            ),
            goal: "—".into(),
        });
    }
    let whats = paths.map(|(what, _)| what);
    rt.block_on(async {
        let _ = mcp_http.cancel().await;
        let _ = mcp_stdio.cancel().await;
    });
    stages(rows, &world, &stem, &whats, walls);
}

/// Where each door's time goes: the calls took turns, one job each, so
/// the hub's timing lines of the log, last ones first, are theirs in turn.
fn stages(
    rows: &mut Vec<Row>,
    world: &World,
    stem: &str,
    whats: &[&str],
    walls: Vec<Vec<(f64, f64)>>,
) {
    let calls = whats.len() * JOBS;
    let hub = wait_hub_times(world, stem, calls);
    for (i, what) in whats.iter().enumerate() {
        let jobs: Vec<Vec<f64>> = walls[i]
            .iter()
            .enumerate()
            .map(|(n, (start, end))| {
                let h = &hub[n * whats.len() + i];
                // A door's call is over when its door has the answer; the
                // file's when the reply is written.
                let done = if h.answered > 0.0 {
                    h.answered
                } else {
                    h.written
                };
                vec![
                    h.heard - start,
                    h.sent - h.heard,
                    h.result - h.sent,
                    done - h.result,
                    end - done,
                    end - start,
                ]
            })
            .collect();
        let names = [
            "call → the log's task has it",
            "→ the job sent",
            "→ the result back (the realm's round trip)",
            "→ the reply written (and the door told)",
            "→ the caller has it",
            "in all",
        ];
        rows.push(Row {
            what: format!("where the time of a `1+1` through {what} goes (medians of {JOBS}, µs)"),
            value: stage_cells(&jobs, &names),
            goal: "—".into(),
        });
    }
}

/// One `eval` tool call of `1+1`; its round trip.
async fn eval_once(client: &McpClient, stem: &str) -> Duration {
    let args = serde_json::json!({"realm": stem, "code": "1+1"});
    let serde_json::Value::Object(args) = args else {
        unreachable!("an object")
    };
    let start = Instant::now();
    let result = client
        .call_tool(CallToolRequestParams::new("eval").with_arguments(args))
        .await
        .expect("eval over MCP");
    let took = start.elapsed();
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    assert!(
        result.is_error != Some(true) && text.contains(TWO),
        "{text}"
    );
    took
}
