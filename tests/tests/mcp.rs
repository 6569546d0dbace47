//! The MCP door with real parts: the SDK's own client over streamable
//! HTTP at `/mcp` of a running hub, and over stdio of `daebug mcp`, each
//! with a headless Chromium page whose log records what the tools did.

mod support;

use std::io::{Read, Write as _};
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use support::{base_of, daebug_bin, log_in, wait_for, Browser, TempDir, World, DEADLINE};
use tokio::io::{AsyncBufReadExt, BufReader};

const PAGE: &str = "<!doctype html><html><head><title>Realm</title></head><body></body></html>";

type Client = RunningService<RoleClient, ClientConfig>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

async fn call(client: &Client, tool: &str, args: serde_json::Value) -> CallToolResult {
    let args = match args {
        serde_json::Value::Object(map) => map,
        other => panic!("arguments must be an object: {other}"),
    };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    tokio::time::timeout(DEADLINE, client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("{tool} did not answer within {DEADLINE:?}"))
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The result's text (its one text block).
fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("")
}

fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// A raw POST to `/mcp`, as a page's `fetch` would send it with `origin`.
fn post_with_origin(base: &str, origin: &str) -> String {
    let addr = base.trim_start_matches("http://");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let mut tcp = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        tcp,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    tcp.set_read_timeout(Some(DEADLINE)).expect("timeout");
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    answer
}

#[test]
fn mcp_over_streamable_http() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let stem = log.stem.clone();

    // A page of a foreign origin cannot call a tool; our guard answers.
    let refused = post_with_origin(&world.base, "https://evil.example");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(refused.contains("refused Origin"), "{refused}");

    let rt = runtime();
    let url = format!("{}/mcp", world.base);
    let client: Client = rt.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(url);
        ClientConfig::default()
            .serve(transport)
            .await
            .expect("MCP initialize over HTTP")
    });

    let after_eval = rt.block_on(async {
        let tools = client.list_all_tools().await.expect("tools/list");
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(names, ["eval", "list_realms", "read_log"]);
        for tool in &tools {
            let description = tool.description.as_deref().unwrap_or_default();
            assert!(!description.trim().is_empty(), "{}", tool.name);
        }

        let realms = call(&client, "list_realms", serde_json::json!({})).await;
        assert!(!is_error(&realms));
        assert!(text_of(&realms).contains(&stem), "{}", text_of(&realms));

        let two = call(
            &client,
            "eval",
            serde_json::json!({"realm": "realm", "code": "1+1"}),
        )
        .await;
        assert!(!is_error(&two), "{}", text_of(&two));
        assert!(
            text_of(&two).contains("```JSON\n2\n```"),
            "{}",
            text_of(&two)
        );
        text_of(&two)
    });

    let text = wait_for(&log.path, "the mcp block and its reply", |t| {
        t.contains(&format!("> **mcp** to {stem}")) && t.contains("```JSON\n2\n```")
    });
    assert!(
        text.contains(after_eval.trim()),
        "{text}\n---\n{after_eval}"
    );

    rt.block_on(async {
        let thrown = call(
            &client,
            "eval",
            serde_json::json!({"realm": stem, "code": "throw new Error('mcp-boom')", "timeout": 5}),
        )
        .await;
        assert!(is_error(&thrown), "{}", text_of(&thrown));
        assert!(
            text_of(&thrown).contains("mcp-boom"),
            "{}",
            text_of(&thrown)
        );

        let missing = call(
            &client,
            "eval",
            serde_json::json!({"realm": "nothing-here", "code": "1"}),
        )
        .await;
        assert!(is_error(&missing));
        assert!(
            text_of(&missing).contains("list_realms"),
            "{}",
            text_of(&missing)
        );

        let tail = call(
            &client,
            "read_log",
            serde_json::json!({"realm": stem, "tail": 3}),
        )
        .await;
        assert!(!is_error(&tail), "{}", text_of(&tail));
        let tail = text_of(&tail);
        assert_eq!(tail.lines().count(), 3, "{tail}");
        let whole = log.text();
        assert!(
            whole.ends_with(&tail),
            "{tail:?} is not the end of\n{whole}"
        );
    });

    // The hub stops with the session and its stream still open: they end
    // when shutdown begins, not after the grace for stuck connections.
    let pid = world.hub.pid().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let end = std::time::Instant::now() + DEADLINE;
    while !world.hub.output().contains("hub stopped") {
        assert!(std::time::Instant::now() < end, "the hub did not stop");
        // The hub's exit has no event to block on here: the poll interval.
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let output = world.hub.output();
    assert!(!output.contains("still open"), "{output}");
    drop(client);
}

#[test]
fn mcp_over_stdio_with_an_in_process_hub() {
    let root = TempDir::new("mcp-stdio");
    std::fs::write(root.path().join("index.html"), PAGE).unwrap();
    let rt = runtime();

    let (client, base, stderr) = rt.block_on(async {
        let mut cmd = tokio::process::Command::new(daebug_bin());
        cmd.arg("mcp")
            .arg("--root")
            .arg(root.path())
            .args(["--port", "0"]);
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn daebug mcp");
        // The hub says where it serves on stderr (stdout is MCP's).
        let mut lines = BufReader::new(stderr.expect("stderr")).lines();
        let (tx, serving) = tokio::sync::oneshot::channel();
        let kept = tokio::spawn(async move {
            let mut tx = Some(tx);
            let mut seen = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("serving") {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(line.clone());
                    }
                }
                seen.push(line);
            }
            seen
        });
        let client: Client = ClientConfig::default()
            .serve(transport)
            .await
            .expect("MCP initialize over stdio");
        let line = tokio::time::timeout(DEADLINE, serving)
            .await
            .expect("the serving line within the deadline")
            .expect("the serving line");
        (client, base_of(&line), kept)
    });

    let _browser = Browser::open(&format!("{base}/index.html"));
    let log = log_in(root.path(), "realm-");
    let stem = log.stem.clone();

    rt.block_on(async {
        let realms = call(&client, "list_realms", serde_json::json!({})).await;
        assert!(text_of(&realms).contains(&stem), "{}", text_of(&realms));
        let answer = call(
            &client,
            "eval",
            serde_json::json!({"realm": stem, "code": "const n: number = 20; n + 22", "lang": "ts"}),
        )
        .await;
        assert!(!is_error(&answer), "{}", text_of(&answer));
        assert!(
            text_of(&answer).contains("```JSON\n42\n```"),
            "{}",
            text_of(&answer)
        );
    });
    let text = log.text();
    assert!(text.contains(&format!("> **mcp** to {stem}")), "{text}");

    // Closing stdin stops the hub: the registry says so, and the process ends.
    rt.block_on(async {
        client.cancel().await.expect("close stdio");
        let seen = tokio::time::timeout(DEADLINE, stderr)
            .await
            .expect("daebug mcp exits once stdin closes")
            .expect("stderr reader");
        assert!(
            seen.iter().any(|l| l.contains("hub stopped")),
            "{}",
            seen.join("\n")
        );
    });
}
