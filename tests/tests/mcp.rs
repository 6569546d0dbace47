//! The MCP door with real parts: the SDK's own client over streamable
//! HTTP at `/mcp` of a running hub, and over stdio of `daebug mcp`, each
//! with a headless Chromium page whose log records what the tools did;
//! the official Python SDK on both transports; a single result answered
//! as plain JSON; an eval's flood of console calls as a digest within its
//! budget.

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

/// The SDK's client over streamable HTTP at the hub's `/mcp`, initialized.
fn http_client(rt: &tokio::runtime::Runtime, base: &str) -> Client {
    rt.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(format!("{base}/mcp"));
        ClientConfig::default()
            .serve(transport)
            .await
            .expect("MCP initialize over HTTP")
    })
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
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    post_mcp(base, &format!("Origin: {origin}\r\n"), body)
}

/// A raw POST of `body` to `/mcp` with `headers` (each ending `\r\n`),
/// accepting JSON or an event stream as the spec has clients do: the
/// whole answer, head and body.
fn post_mcp(base: &str, headers: &str, body: &str) -> String {
    let addr = base.trim_start_matches("http://");
    let mut tcp = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        tcp,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{headers}\
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

    // A single result, to a client that accepts JSON or an event stream,
    // is plain JSON: no stream to frame it in, no session to keep.
    let one = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"eval","arguments":{"realm":"realm","code":"1+1"}}}"#;
    let answer = post_mcp(&world.base, "", one);
    let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
    assert!(head.starts_with("HTTP/1.1 200"), "{answer}");
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("\r\ncontent-type: application/json\r\n"),
        "{answer}"
    );
    assert!(!head.contains("mcp-session-id"), "{answer}");
    let json: serde_json::Value = serde_json::from_str(body).expect("one JSON body");
    assert_eq!(json["id"], 3, "{json}");
    let text = json["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("```JSON\n2\n```"), "{json}");

    let rt = runtime();
    let client = http_client(&rt, &world.base);

    let after_eval = rt.block_on(async {
        let tools = client.list_all_tools().await.expect("tools/list");
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(names, ["eval", "list_realms", "read_log", "run_tests"]);
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

/// `daebug mcp <args>` as an MCP client's child process: the client, the
/// first stderr line containing `needle` (stdout is MCP's), and every
/// stderr line once the process has ended.
async fn spawn_mcp(
    args: &[&std::ffi::OsStr],
    needle: &'static str,
) -> (Client, String, tokio::task::JoinHandle<Vec<String>>) {
    let mut cmd = tokio::process::Command::new(daebug_bin());
    cmd.arg("mcp").args(args);
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn daebug mcp");
    let mut lines = BufReader::new(stderr.expect("stderr")).lines();
    let (tx, found) = tokio::sync::oneshot::channel();
    let kept = tokio::spawn(async move {
        let mut tx = Some(tx);
        let mut seen = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(needle) {
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
    let line = tokio::time::timeout(DEADLINE, found)
        .await
        .unwrap_or_else(|_| panic!("a line with {needle:?} within the deadline"))
        .unwrap_or_else(|_| panic!("a line with {needle:?} before daebug mcp ended"));
    (client, line, kept)
}

#[test]
fn mcp_over_stdio_with_an_in_process_hub() {
    let root = TempDir::new("mcp-stdio");
    std::fs::write(root.path().join("index.html"), PAGE).unwrap();
    let rt = runtime();

    let (client, base, stderr) = rt.block_on(async {
        let args = [
            "--root".as_ref(),
            root.path().as_os_str(),
            "--port".as_ref(),
            "0".as_ref(),
        ];
        // The hub says where it serves on stderr.
        let (client, line, stderr) = spawn_mcp(&args, "serving").await;
        (client, base_of(&line), stderr)
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
            seen.iter().any(|l| l.contains("starting a hub in-process")),
            "{}",
            seen.join("\n")
        );
        assert!(
            seen.iter().any(|l| l.contains("hub stopped")),
            "{}",
            seen.join("\n")
        );
    });
}

/// `daebug mcp --root <a running hub's root>` attaches to that hub
/// (through its `debug/.hub`) instead of starting a second one: the tools
/// reach the page, the eval is in the page's log under an `mcp` header,
/// refusals read as in-process ones, and the hub outlives the session.
#[test]
fn mcp_over_stdio_attached_to_a_running_hub() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let stem = log.stem.clone();
    let hub_file = world.root.path().join("debug/.hub");
    let pid_of_hub = || -> u64 {
        let text = std::fs::read_to_string(&hub_file).expect("debug/.hub");
        let hub: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        hub["pid"].as_u64().expect("pid")
    };
    assert_eq!(pid_of_hub(), u64::from(world.hub.pid()));
    let rt = runtime();

    let (client, attached, stderr) = rt.block_on(async {
        let args = ["--root".as_ref(), world.root.path().as_os_str()];
        spawn_mcp(&args, "attached").await
    });
    assert!(attached.contains(&world.base), "{attached}");

    let answer = rt.block_on(async {
        let realms = call(&client, "list_realms", serde_json::json!({})).await;
        assert!(!is_error(&realms));
        assert!(
            text_of(&realms).contains(&format!("{stem}  page  ")),
            "{}",
            text_of(&realms)
        );

        let answer = call(
            &client,
            "eval",
            serde_json::json!({"realm": "realm", "code": "40 + 2", "timeout": "5s"}),
        )
        .await;
        assert!(!is_error(&answer), "{}", text_of(&answer));
        assert!(
            text_of(&answer).contains("```JSON\n42\n```"),
            "{}",
            text_of(&answer)
        );

        let thrown = call(
            &client,
            "eval",
            serde_json::json!({"realm": stem, "code": "throw new Error('far-boom')"}),
        )
        .await;
        assert!(is_error(&thrown), "{}", text_of(&thrown));
        assert!(
            text_of(&thrown).contains("far-boom"),
            "{}",
            text_of(&thrown)
        );

        // The same words as the in-process door's.
        let missing = call(
            &client,
            "eval",
            serde_json::json!({"realm": "nothing-here", "code": "1"}),
        )
        .await;
        assert!(is_error(&missing));
        assert_eq!(
            text_of(&missing),
            "no realm is named or starts with `nothing-here`; call list_realms to see the realms"
        );
        let bad = call(
            &client,
            "eval",
            serde_json::json!({"realm": stem, "code": "1", "lang": "py"}),
        )
        .await;
        assert!(is_error(&bad));
        assert_eq!(text_of(&bad), "unknown lang `py`: use js or ts");

        let tail = call(
            &client,
            "read_log",
            serde_json::json!({"realm": stem, "tail": 3}),
        )
        .await;
        assert!(!is_error(&tail), "{}", text_of(&tail));
        assert_eq!(text_of(&tail).lines().count(), 3, "{}", text_of(&tail));
        text_of(&answer)
    });

    let text = wait_for(&log.path, "the mcp block and its reply", |t| {
        t.contains(&format!("> **mcp** to {stem}")) && t.contains("40 + 2")
    });
    assert!(text.contains(answer.trim()), "{text}\n---\n{answer}");
    // No second hub: the first one still holds the root, alone.
    assert_eq!(pid_of_hub(), u64::from(world.hub.pid()));

    // The session ends with stdin; the hub runs on.
    rt.block_on(async {
        client.cancel().await.expect("close stdio");
        let seen = tokio::time::timeout(DEADLINE, stderr)
            .await
            .expect("daebug mcp exits once stdin closes")
            .expect("stderr reader");
        assert!(
            !seen.iter().any(|l| l.contains("serving")),
            "{}",
            seen.join("\n")
        );
    });
    let after = log.exchange(support::Write::Append, "\n```js\n'still here'\n```\n", 1);
    assert!(after.contains("still here"), "{after}");
    assert_eq!(pid_of_hub(), u64::from(world.hub.pid()));
}

/// `daebug mcp --attach` with no hub: exit status 3, saying where it looked.
#[test]
fn mcp_attach_without_a_hub() {
    let root = TempDir::new("mcp-attach");
    let out = std::process::Command::new(daebug_bin())
        .args(["mcp", "--attach", "--root"])
        .arg(root.path())
        .stdin(Stdio::null())
        .output()
        .expect("run daebug mcp");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("debug/.hub"), "{stderr}");
}

/// `read_log` as a budget of tokens, through the SDK's client over HTTP:
/// its last 200 lines by default and how many it left out; a cursor that
/// reads exactly what was added since, across a save from an older read
/// and a history moved to its file; a digest of a console flood over the
/// budget.
#[test]
fn read_log_spends_a_budget_of_tokens() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let stem = log.stem.clone();
    let rt = runtime();
    let client = http_client(&rt, &world.base);
    let read = |args: serde_json::Value| -> (String, String) {
        let result = rt.block_on(call(&client, "read_log", args));
        assert!(!is_error(&result), "{}", text_of(&result));
        let text = text_of(&result);
        let cursor = text
            .lines()
            .last()
            .and_then(|l| l.strip_prefix("(cursor "))
            .and_then(|l| l.split_once(':'))
            .map(|(c, _)| c.to_string())
            .unwrap_or_else(|| panic!("no cursor line: {text}"));
        (text, cursor)
    };
    let eval = |code: &str| {
        let result = rt.block_on(call(
            &client,
            "eval",
            serde_json::json!({"realm": stem, "code": code}),
        ));
        assert!(!is_error(&result), "{}", text_of(&result));
    };
    let footer_last = |t: &str| t.trim_end().ends_with("execute against this page.");

    // 300 lines of the agent's prose: the default read is the last 200.
    let prose: String = (0..300).map(|i| format!("note {i}\n")).collect();
    log.write(support::Write::Append, &format!("\n{prose}"));
    wait_for(&log.path, "the footer below the prose", |t| {
        t.contains("note 299") && footer_last(t)
    });
    let (text, cursor) = read(serde_json::json!({"realm": stem}));
    let whole = log.text();
    let left_out = whole.lines().count() - 200;
    assert!(
        text.starts_with(&format!("({left_out} earlier lines left out")),
        "{left_out}: {text}"
    );
    let shown: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(shown.len(), 201, "200 lines and the cursor line");
    assert!(whole.ends_with(&(shown[..200].join("\n") + "\n")));

    // Only what was added since.
    eval("1+1");
    let (added, cursor) = {
        let (t, c) = read(serde_json::json!({"realm": stem, "since": cursor}));
        (t, c)
    };
    assert!(
        added.starts_with(&format!("> **mcp** to {stem} at ")),
        "{added}"
    );
    assert!(added.contains("```JSON\n2\n```"), "{added}");
    assert!(!added.contains("note 299"), "{added}");
    let (nothing, _) = read(serde_json::json!({"realm": stem, "since": cursor}));
    assert!(nothing.contains("nothing was added"), "{nothing}");

    // A save from an older read (without the 1+1 reply) with a new block:
    // the hub puts the reply back; the cursor still reads only the new.
    let before = whole.clone();
    daebug_test_files::rewrite(&log.path, &format!("{before}\n```js\n3+3\n```\n"));
    wait_for(&log.path, "the 3+3 reply, the 1+1 reply put back", |t| {
        t.contains("```JSON\n6\n```") && t.contains("```JSON\n2\n```") && footer_last(t)
    });
    let (added, _) = read(serde_json::json!({"realm": stem, "since": cursor}));
    assert!(
        added.contains("3+3") && added.contains("```JSON\n6\n```"),
        "{added}"
    );
    assert!(!added.contains("1+1"), "{added}");
    assert!(!added.contains("no longer in the log"), "{added}");

    // Past 4 MiB the history moves to its file: what follows still reads
    // from the cursor.
    let filler: String =
        "filler line of the agent's notes, long enough to fill a log\n".repeat(80_000);
    log.write(support::Write::Append, &format!("\n{filler}"));
    wait_for(&log.path, "the history moved", |t| {
        t.contains("Earlier history of this log") && footer_last(t)
    });
    let (_, cursor) = read(serde_json::json!({"realm": stem, "tail": 1, "budget": 100_000}));
    eval("7+7");
    let (added, _) = read(serde_json::json!({"realm": stem, "since": cursor}));
    assert!(
        added.starts_with(&format!("> **mcp** to {stem} at ")),
        "{added}"
    );
    assert!(added.contains("```JSON\n14\n```"), "{added}");
    assert!(!added.contains("filler"), "{added}");

    // A flood of 5,000 console lines, over a budget: the digest.
    eval("let n = 0; const t = setInterval(() => { for (let i = 0; i < 100; i++) console.log('tick'); if (++n === 50) clearInterval(t) }, 10); 'started'");
    wait_for(&log.path, "the flood written", |t| {
        t.matches(&format!("> **{stem}** background at ")).count() >= 3 && footer_last(t)
    });
    let (digest, _) = read(serde_json::json!({"realm": stem, "tail": 400, "budget": 150}));
    assert!(digest.starts_with("(digest: "), "{digest}");
    let body = digest
        .lines()
        .filter(|l| !l.starts_with("(cursor "))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        body.chars().count().div_ceil(4) <= 150,
        "{} tokens: {digest}",
        body.len() / 4
    );
    assert!(digest.contains("× tick"), "{digest}");
    assert!(digest.contains("not shown"), "{digest}");
    assert!(digest.contains(&format!("debug/{stem}.md")), "{digest}");
    // The HTTP API reads the log the same way: a digest within the budget
    // that counts by kind what the log shows and what it only counts.
    let (status, body) = support::http(
        &world.base,
        "GET",
        &format!("/api/realms/{stem}/log?tail=400&budget=150&format=json"),
        &[],
        "",
    );
    assert_eq!(status, 200, "{body}");
    let read: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(read["digest"], true, "{read}");
    let text = read["text"].as_str().unwrap_or("");
    assert!(text.starts_with("(digest: "), "{text}");
    assert!(text.chars().count().div_ceil(4) <= 150, "{text}");
    assert!(
        text.contains(" shown (") && text.contains(" console.log"),
        "{text}"
    );
    assert!(text.contains(" not shown, only counted"), "{text}");
    drop(client);
}

/// The flood's code: 5,000 `console.log` calls of three messages, then a
/// value.
const FLOOD: &str =
    "for (let i = 0; i < 5000; i++) console.log(`cart ${i % 3}: 3 items, total 42.00 EUR`); 'done'";

/// An `eval` whose reply is over its `budget` comes as a digest within
/// it: every event counted (those the realm sent by kind, and those it
/// only counted), the distinct messages with their repeats, the outcome,
/// and where the whole reply is; the log keeps the reply itself.
#[test]
fn an_eval_over_its_budget_is_a_digest_of_its_events() {
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let stem = log.stem.clone();
    let rt = runtime();
    let client = http_client(&rt, &world.base);
    let budget = 150;
    let result = rt.block_on(call(
        &client,
        "eval",
        serde_json::json!({"realm": stem, "code": FLOOD, "budget": budget}),
    ));
    assert!(!is_error(&result), "{}", text_of(&result));
    let digest = text_of(&result);
    assert!(
        digest.chars().count().div_ceil(4) <= budget,
        "{} characters:\n{digest}",
        digest.chars().count()
    );
    assert!(digest.starts_with("(digest of a reply of "), "{digest}");
    assert!(digest.contains("value: done"), "{digest}");
    // The realm sent 50 (its cap for a block), of 5,000.
    assert!(
        digest.contains("5,000 events: 50 sent (50 console.log); 4,950 not sent, only counted"),
        "{digest}"
    );
    assert!(
        digest.contains("3 distinct messages of those sent:"),
        "{digest}"
    );
    for n in 0..3 {
        assert!(
            digest.contains(&format!("× cart {n}: 3 items, total 42.00 EUR")),
            "{digest}"
        );
    }
    let text = log.text();
    let header = digest
        .split_once(", the reply `")
        .and_then(|(_, h)| h.split_once("`)"))
        .map(|(h, _)| h)
        .unwrap_or_else(|| panic!("no reply header: {digest}"));
    assert!(
        header.starts_with(&format!("> **{stem}** to mcp at ")),
        "{digest}"
    );
    assert!(text.contains(header), "{header:?} is not in\n{text}");
    assert!(digest.contains(&format!("debug/{stem}.md")), "{digest}");
    // Within its budget, the reply as the log has it.
    let whole = rt.block_on(call(
        &client,
        "eval",
        serde_json::json!({"realm": stem, "code": "'done'", "budget": budget}),
    ));
    let whole = text_of(&whole);
    assert!(
        whole.starts_with(&format!("> **{stem}** to mcp at ")),
        "{whole}"
    );
    let text = wait_for(&log.path, "the second reply", |t| t.contains(&whole));
    assert!(text.contains(&whole), "{whole}");
    drop(client);
}

/// The official Python SDK's client (`tests/benches/mcp_client.py`, the
/// bench's) on both transports at once, streamable HTTP at `/mcp` and
/// stdio of `daebug mcp --attach`: the tools answer it, a flood under a
/// budget comes as a digest either way, and `tools/list` is as small as
/// chrome-devtools-mcp `--slim`'s.
#[test]
fn the_python_sdk_on_both_transports() {
    let python = support::python::python_sdk().unwrap_or_else(|why| panic!("{why}"));
    let world = World::new(&[("index.html", PAGE)], "index.html");
    let log = world.log("realm-");
    let stem = log.stem.clone();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/mcp_client.py");
    let stdio = format!(
        "{} mcp --attach --root {}",
        daebug_bin().display(),
        world.root.path().display()
    );
    let out = std::process::Command::new(python)
        .arg(&script)
        .args(["--realm", &stem, "--n", "1", "--warm", "0", "--texts"])
        .args(["--http", &format!("{}/mcp", world.base)])
        .args(["--stdio", &stdio])
        .stdin(Stdio::null())
        .output()
        .expect("run the Python client");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the client's JSON");
    for side in ["http", "stdio"] {
        let text = |tool: &str| {
            report[side][tool]["text"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        assert!(text("list_realms").contains(&stem), "{side}: {report}");
        assert!(text("eval").contains("```JSON\n2\n```"), "{side}: {report}");
        // The realm's rate limit is per second: the second side's flood
        // may find it spent, every event counted and none sent, and its
        // reply then fits the budget as it is.
        let flood = text("eval_flood_budget");
        assert!(flood.chars().count().div_ceil(4) <= 150, "{side}: {flood}");
        match flood.starts_with("(digest of a reply of ") {
            true => assert!(
                flood.contains("5,000 events: ") && flood.contains(" not sent, only counted"),
                "{side}: {flood}"
            ),
            false => assert!(
                side == "stdio"
                    && flood.contains("5,000 background events dropped at the 100/s limit"),
                "{side}: {flood}"
            ),
        }
        if side == "http" {
            assert!(
                flood.contains("3 distinct messages of those sent:"),
                "{flood}"
            );
        }
        let listed = report["tools_list"][side]
            .as_u64()
            .expect("tools/list size");
        assert!(listed <= 1_014, "{side}: tools/list is {listed} characters");
    }
    let text = log.text();
    // Each side: `1+1`, the large value twice, the flood.
    assert_eq!(
        text.matches(&format!("> **mcp** to {stem} at ")).count(),
        2 * 4,
        "{text}"
    );
}
