//! The hub for real: bound on loopback with a temp root, driven by a fake
//! realm over a real WebSocket and by writing the log files as an agent.

mod support;

use support::footer_last;

use std::time::Duration;

use daebug_protocol::{
    BackgroundEvent, EventType, HubMsg, JobError, JobProgress, JobResult, Level, Outcome,
    RealmKind, RealmMsg,
};
use support::{append, js, save_atomically, ws_status, FakeRealm, TestHub};
use tokio_tungstenite::tungstenite::Message;

fn log_event(message: &str) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Console,
        level: Level::Log,
        source: None,
        ts: "10:00:00".into(),
        message: message.into(),
        stack: None,
    }
}

#[tokio::test]
async fn request_dispatch_result_reply() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "3f2a").await;
    assert_eq!(realm.stem, "shop-3f2a");
    let log = hub.log("shop-3f2a");
    let text = hub.wait_file(&log, footer_last).await;
    assert!(text.starts_with("# 👾 shop-3f2a\n"), "{text}");
    hub.wait_file(&hub.registry(), |t| {
        t.contains("* [shop-3f2a](debug/shop-3f2a.md) (http://") && t.contains("state: idle")
    })
    .await;

    append(&log, &js("1 + 1"));
    let (job, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = (1 + 1)\n");
    let running = hub.wait_file(&log, |t| t.contains("executing (0s")).await;
    assert!(
        running.contains("> **agent** to shop-3f2a at "),
        "{running}"
    );
    hub.wait_file(&hub.registry(), |t| t.contains("state: executing"))
        .await;

    realm.ok(job, "2", 3).await;
    let done = hub
        .wait_file(&log, |t| {
            t.contains("(3ms)\n```JSON\n2\n```\n") && footer_last(t)
        })
        .await;
    assert!(!done.contains("executing ("), "{done}");
    hub.wait_file(&hub.registry(), |t| t.contains("state: completed"))
        .await;
}

#[tokio::test]
async fn progress_swaps_the_region() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0001").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await ticks()"));
    let (job, _) = realm.job().await;
    for n in 1..=2 {
        let events = (1..=n).map(|i| log_event(&format!("tick {i}"))).collect();
        realm
            .send(&RealmMsg::Progress(JobProgress {
                job,
                events,
                dropped: 0,
                limited: 0,
                elapsed_ms: 10,
            }))
            .await;
        let want = format!("tick {n}\n```\nexecuting (");
        hub.wait_file(&log, |t| t.contains(&want)).await;
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        text.matches("tick 1").count(),
        1,
        "swapped, not appended:\n{text}"
    );
    realm.ok(job, "null", 20).await;
    hub.wait_file(&log, |t| t.contains("(20ms)") && footer_last(t))
        .await;
}

#[tokio::test]
async fn background_only_events_are_flushed_above_the_footer() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0002").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    realm
        .send(&RealmMsg::Background {
            events: vec![log_event("hello from a timer")],
            dropped: 0,
            limited: 0,
        })
        .await;
    let text = hub
        .wait_file(&log, |t| t.contains("hello from a timer") && footer_last(t))
        .await;
    assert!(text.contains("> **shop-0002** background at "), "{text}");
}

/// A realm sending events as fast as it can: the hub keeps 200 a second,
/// says how many it dropped, and writes the log a few times, not once per
/// message; a job still answers at once after the flood.
#[tokio::test]
async fn a_flood_of_background_events_is_bounded_and_counted() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "00f1").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    let started = std::time::Instant::now();
    for i in 0..1_000 {
        realm
            .send(&RealmMsg::Background {
                events: vec![log_event(&format!("flood {i}"))],
                dropped: 0,
                limited: 0,
            })
            .await;
    }
    let sent_in = started.elapsed();
    let text = hub
        .wait_file(&log, |t| {
            t.contains("events dropped: over 200 per second)") && footer_last(t)
        })
        .await;
    let blocks = text.matches("> **shop-00f1** background at ").count();
    // Sent within a second or so: a handful of writes at 4 a second.
    let bound = 2 + 4 * (sent_in.as_secs() as usize + 1);
    assert!(
        blocks <= bound,
        "{blocks} background writes for {sent_in:?}:\n{text}"
    );
    append(&log, "```js\n1\n```\n");
    let (job, _) = realm.job().await;
    realm.ok(job, "1", 1).await;
    hub.wait_file(&log, |t| t.contains("```JSON\n1\n```")).await;
}

/// A message over the frame limit closes the socket with code 1009 and a
/// reason, and the log says so: never a bare reset.
#[tokio::test]
async fn a_message_over_the_limit_closes_with_1009_and_a_note() {
    let hub = TestHub::start_with(|c| c.max_frame = 64 * 1024).await;
    let mut realm = hub.realm("Shop", "0b16").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    let big = format!(
        "{{\"type\":\"background\",\"events\":[],\"pad\":\"{}\"}}",
        "x".repeat(1 << 20)
    );
    // The hub may close before the whole message is written.
    let _ = realm.ws_send_raw(Message::text(big)).await;
    let close = realm.closed().await.expect("a close frame");
    assert_eq!(u16::from(close.code), 1009);
    assert!(
        close.reason.contains("over the 64 KiB limit"),
        "{}",
        close.reason
    );
    let text = hub
        .wait_file(&log, |t| {
            t.contains("(WebSocket code 1009)") && footer_last(t)
        })
        .await;
    assert!(
        text.contains("the hub closed this realm's connection: a message of 1048"),
        "{text}"
    );
}

/// A hello over the frame limit gets the same close: code 1009 and a
/// reason (there is no log yet to note it in).
#[tokio::test]
async fn a_hello_over_the_limit_closes_with_1009() {
    use futures_util::{SinkExt, StreamExt};
    let hub = TestHub::start_with(|c| c.max_frame = 64 * 1024).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(hub.ws_url())
        .await
        .unwrap();
    let hello = format!(
        r#"{{"type":"hello","version":{},"kind":"page","name":"{}","url":"u","id":"0000"}}"#,
        daebug_protocol::PROTOCOL_VERSION,
        "x".repeat(1 << 20)
    );
    let _ = ws.send(Message::text(hello)).await;
    let end = tokio::time::Instant::now() + support::DEADLINE;
    let close = loop {
        match tokio::time::timeout_at(end, ws.next())
            .await
            .expect("a close within the deadline")
        {
            Some(Ok(Message::Close(frame))) => break frame.expect("a close frame with a code"),
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("no close frame, the connection failed: {e}"),
            None => panic!("no close frame, the connection ended"),
        }
    };
    assert_eq!(u16::from(close.code), 1009);
    assert!(
        close.reason.contains("over the 64 KiB limit"),
        "{}",
        close.reason
    );
}

#[tokio::test]
async fn timeout_then_late_result() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0003").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    append(&log, "```js timeout=300ms\nawait never()\n```\n");
    let (job, _) = realm.job().await;
    match realm.recv().await {
        HubMsg::Cancel { job: j } => assert_eq!(j, job),
        other => panic!("expected cancel, got {other:?}"),
    }
    hub.wait_file(&log, |t| {
        t.contains("(**TIMEOUT** after 0.3s)") && footer_last(t)
    })
    .await;
    // The realm keeps working for later jobs...
    append(&log, &js("2"));
    let (next, _) = realm.job().await;
    // ...and a result arriving after the timeout is appended as late.
    realm.ok(job, "\"late\"", 1500).await;
    realm.ok(next, "2", 1).await;
    let text = hub
        .wait_file(&log, |t| {
            t.contains("(late, ") && t.contains("(1ms)") && footer_last(t)
        })
        .await;
    assert!(text.contains("\"late\""), "{text}");
}

#[tokio::test]
async fn chunk_appended_while_running_is_queued() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0004").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("first()"));
    let (first, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = ((0, first)())\n");
    hub.wait_file(&log, |t| t.contains("executing (")).await;
    append(&log, &format!("\nand then\n{}", js("second()")));
    // Nothing is dispatched while the first job runs.
    let text = hub.wait_file(&log, |t| t.contains("second()")).await;
    assert!(text.contains("and then"), "{text}");
    realm.ok(first, "1", 5).await;
    let (second, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = ((0, second)())\n");
    realm.ok(second, "2", 6).await;
    let text = hub
        .wait_file(&log, |t| t.contains("(6ms)") && footer_last(t))
        .await;
    let a = text.find("(5ms)").expect("first reply");
    let b = text.find("and then").expect("prose kept");
    let c = text.find("(6ms)").expect("second reply");
    assert!(a < b && b < c, "in order:\n{text}");
}

#[tokio::test]
async fn reload_keeps_the_stem_and_a_duplicated_tab_gets_its_own() {
    let hub = TestHub::start().await;
    let realm = hub.realm("Shop", "abcd").await;
    assert_eq!(realm.stem, "shop-abcd");
    // A duplicated tab copies sessionStorage: same id while the first is live.
    let twin = hub.realm("Shop", "abcd").await;
    assert_ne!(twin.id, "abcd");
    assert_ne!(twin.stem, "shop-abcd");
    assert!(
        hub.log(&twin.stem).exists() || {
            hub.wait_file(&hub.log(&twin.stem), footer_last).await;
            true
        }
    );
    realm.close().await;
    hub.wait_file(&hub.registry(), |t| {
        t.lines()
            .any(|l| l.contains("[shop-abcd]") && l.ends_with("state: disconnected"))
    })
    .await;
    // The reload comes back with the same id: same stem, same log.
    let again = hub.realm("Shop (reloaded title)", "abcd").await;
    assert_eq!(again.stem, "shop-abcd");
    assert_eq!(again.id, "abcd");
    hub.wait_file(&hub.registry(), |t| {
        t.lines()
            .any(|l| l.contains("[shop-abcd]") && l.ends_with("state: idle"))
    })
    .await;
}

#[tokio::test]
async fn request_to_a_disconnected_realm_waits_for_it() {
    let hub = TestHub::start().await;
    let realm = hub.realm("Shop", "0005").await;
    let log = hub.log("shop-0005");
    hub.wait_file(&log, footer_last).await;
    realm.close().await;
    hub.wait_file(&hub.registry(), |t| t.contains("state: disconnected"))
        .await;
    append(&log, &js("document.title"));
    hub.wait_file(&log, |t| {
        t.contains("executing (0s; page disconnected, waiting for it to come back)")
    })
    .await;
    let mut back = hub.realm("Shop", "0005").await;
    let (job, code) = back.job().await;
    assert_eq!(support::block(&code), "$daebug$result = (document.title)\n");
    hub.wait_file(&log, |t| t.contains("executing (0s)\n"))
        .await;
    back.ok(job, "\"Shop\"", 2).await;
    hub.wait_file(&log, |t| {
        t.contains("(2ms)\n```JSON\n\"Shop\"") && footer_last(t)
    })
    .await;
}

#[tokio::test]
async fn reload_mid_job_reports_it_interrupted() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0006").await;
    let log = hub.log("shop-0006");
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await longTask()"));
    let _ = realm.job().await;
    realm.close().await;
    hub.wait_file(&log, |t| t.contains("page disconnected, waiting"))
        .await;
    // The page reloaded: it runs nothing of the old job.
    let _back = hub.realm("Shop", "0006").await;
    let text = hub
        .wait_file(&log, |t| t.contains("(**ERROR** after ") && footer_last(t))
        .await;
    assert!(text.contains("Interrupted: the page reloaded"), "{text}");
}

#[tokio::test]
async fn reconnect_mid_job_still_running_keeps_waiting() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0007").await;
    let log = hub.log("shop-0007");
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await slow()"));
    let (job, _) = realm.job().await;
    realm.close().await;
    hub.wait_file(&log, |t| t.contains("page disconnected, waiting"))
        .await;
    // Only the network dropped: the realm still runs the job.
    let mut back = FakeRealm::connect(&hub, RealmKind::Page, "Shop", "0007", vec![job]).await;
    hub.wait_file(&log, |t| t.contains("executing (0s)\n"))
        .await;
    back.ok(job, "42", 900).await;
    let text = hub
        .wait_file(&log, |t| t.contains("(900ms)") && footer_last(t))
        .await;
    assert!(!text.contains("ERROR"), "{text}");
}

#[tokio::test]
async fn malformed_frames_get_an_error_and_the_realm_keeps_working() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "0008").await;
    let log = hub.log("shop-0008");
    hub.wait_file(&log, footer_last).await;
    for bad in [
        "not json",
        r#"{"type":"nonsense"}"#,
        r#"{"type":"result","job":"x"}"#,
    ] {
        realm.send_raw(Message::text(bad)).await;
        match realm.recv().await {
            HubMsg::Error { message } => assert!(message.contains("malformed"), "{message}"),
            other => panic!("expected an error envelope, got {other:?}"),
        }
    }
    realm.send_raw(Message::binary(vec![1u8, 2, 3])).await;
    assert!(matches!(realm.recv().await, HubMsg::Error { .. }));
    // An error outcome is rendered, too: the connection is still good.
    append(&log, &js("boom()"));
    let (job, _) = realm.job().await;
    realm
        .send(&RealmMsg::Result(JobResult {
            job,
            outcome: Outcome::Error(JobError {
                name: "ReferenceError".into(),
                message: "boom is not defined".into(),
                stack: Some("ReferenceError: boom is not defined\n    at <cell>:1:1".into()),
            }),
            events: Vec::new(),
            dropped: 0,
            limited: 0,
            duration_ms: 4,
        }))
        .await;
    hub.wait_file(&log, |t| {
        t.contains("(**ERROR** after 4ms)") && t.contains("boom is not defined") && footer_last(t)
    })
    .await;
}

#[tokio::test]
async fn hello_with_wrong_version_is_refused_with_a_reason() {
    let hub = TestHub::start().await;
    let (mut ws, _) = tokio_tungstenite::connect_async(hub.ws_url())
        .await
        .unwrap();
    use futures_util::{SinkExt, StreamExt};
    ws.send(Message::text(
        r#"{"type":"hello","version":99,"kind":"page","name":"x","url":"u","id":"0000"}"#,
    ))
    .await
    .unwrap();
    let Some(Ok(Message::Text(t))) = ws.next().await else {
        panic!("expected an error frame")
    };
    assert!(t.contains("protocol version"), "{t}");
}

#[tokio::test]
async fn foreign_origin_and_host_are_refused() {
    let hub = TestHub::start().await;
    assert_eq!(ws_status(&hub, &[]).await, 101, "non-browser client");
    assert_eq!(
        ws_status(&hub, &[("Origin", "http://localhost:5173")]).await,
        101
    );
    assert_eq!(
        ws_status(&hub, &[("Origin", "https://evil.example")]).await,
        403
    );
    let (code, _) = hub.get("/", &[]).await;
    assert_eq!(code, 200);
    let (code, body) = support::http_get(hub.addr, "/", &[("Host", "evil.example")]).await;
    assert_eq!(code, 403, "{body}");
    let (code, _) = support::http_get(hub.addr, "/ws", &[("Host", "evil.example:80")]).await;
    assert_eq!(code, 403);
}

/// Issue 26: what a stranger's probe found. A WebSocket upgrade with two
/// `Origin` headers (an allowed one first) and a request with two `Host`
/// headers are refused with 400 and the reason; every refusal is
/// `nosniff`.
#[tokio::test]
async fn repeated_origin_or_host_is_refused_and_refusals_are_nosniff() {
    let hub = TestHub::start().await;
    let host = format!("Host: {}\r\n", hub.addr);
    let upgrade = "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
                   Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let cases: [(&str, String, u16, &str); 4] = [
        (
            "an upgrade with an allowed Origin, then a foreign one",
            format!(
                "{upgrade}{host}Origin: http://localhost:5173\r\nOrigin: https://evil.example\r\n"
            ),
            400,
            "2 Origin headers",
        ),
        (
            "a request with two Hosts",
            format!("GET / HTTP/1.1\r\n{host}{host}"),
            400,
            "2 Host headers",
        ),
        (
            "an upgrade from a foreign origin",
            format!("{upgrade}{host}Origin: https://evil.example\r\n"),
            403,
            "refused the WebSocket",
        ),
        (
            "a file that is not there",
            format!("GET /missing.txt HTTP/1.1\r\n{host}"),
            404,
            "",
        ),
    ];
    for (what, head, code, says) in cases {
        let text = support::raw_request(hub.addr, &head).await;
        let status: u16 = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        assert_eq!(status, code, "{what}: {text}");
        assert!(text.contains(says), "{what}: {text}");
        assert!(
            text.to_ascii_lowercase()
                .contains("x-content-type-options: nosniff"),
            "{what}: {text}"
        );
    }
    // One allowed Origin still upgrades.
    assert_eq!(
        ws_status(&hub, &[("Origin", "http://localhost:5173")]).await,
        101
    );
}

#[tokio::test]
async fn logs_registry_and_dotfiles_are_not_served() {
    let hub = TestHub::start().await;
    let root = hub.root.path();
    std::fs::write(root.join(".env"), "SECRET=1").unwrap();
    std::fs::write(
        root.join("index.html"),
        "<!doctype html><html><head><title>Shop</title></head><body>hi</body></html>",
    )
    .unwrap();
    let _realm = hub.realm("Shop", "0009").await;
    hub.wait_file(&hub.log("shop-0009"), footer_last).await;
    for path in [
        "/debug.md",
        "/debug/shop-0009.md",
        "/.env",
        "/../etc/passwd",
        "/%2e%2e/etc/passwd",
    ] {
        let (code, body) = hub.get(path, &[]).await;
        assert_eq!(code, 404, "{path}: {body}");
        assert!(
            !body.contains("SECRET") && !body.contains("👾"),
            "{path}: {body}"
        );
    }
    let (code, body) = hub.get("/index.html", &[]).await;
    assert_eq!(code, 200);
    let tag = r#"<script src="/daebug.js"></script>"#;
    assert!(body.contains(tag), "{body}");
    let (code, body) = hub.get("/daebug.js", &[]).await;
    assert_eq!(code, 200, "{body}");
}

#[tokio::test]
async fn an_editors_atomic_save_while_a_job_runs_loses_nothing() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "000a").await;
    let log = hub.log("shop-000a");
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await work()"));
    let (job, _) = realm.job().await;
    let running = hub.wait_file(&log, |t| t.contains("executing (")).await;
    // The agent's editor rewrites the whole file: a note added at the top
    // and a new chunk at the bottom, saved as temp file + rename.
    let edited = running.replacen("\n\n", "\n\n(agent's note, added while the job ran)\n\n", 1)
        + &format!("\n{}", js("afterwards()"));
    save_atomically(&log, &edited);
    realm.ok(job, "\"done\"", 7).await;
    let (next, code) = realm.job().await;
    assert_eq!(
        support::block(&code),
        "$daebug$result = ((0, afterwards)())\n"
    );
    realm.ok(next, "1", 8).await;
    let text = hub
        .wait_file(&log, |t| t.contains("(8ms)") && footer_last(t))
        .await;
    assert!(
        text.contains("(agent's note, added while the job ran)"),
        "{text}"
    );
    assert!(text.contains("(7ms)\n```JSON\n\"done\"\n```"), "{text}");
    assert_eq!(text.matches("afterwards()").count(), 1, "{text}");
}

#[tokio::test]
async fn an_unanswering_realm_becomes_unresponsive() {
    let hub = TestHub::start_with(|c| {
        c.ping_every = Duration::from_millis(50);
        c.unresponsive_after = Duration::from_millis(200);
    })
    .await;
    let mut realm = hub.realm("Shop", "000b").await;
    realm.answer_pings = false;
    let log = hub.log("shop-000b");
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("while (true) {}"));
    let _ = realm.job().await;
    hub.wait_file(&hub.registry(), |t| t.contains("state: unresponsive"))
        .await;
    hub.wait_file(&log, |t| t.contains("stopped answering (busy in a loop?)"))
        .await;
}

#[tokio::test]
async fn shutdown_says_goodbye_and_marks_the_registry_stopped() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "000c").await;
    hub.wait_file(&hub.log("shop-000c"), footer_last).await;
    let registry = hub.registry();
    let log = hub.log("shop-000c");
    let root = hub.stop().await;
    assert!(matches!(realm.recv().await, HubMsg::Bye { .. }));
    let text = std::fs::read_to_string(&registry).unwrap();
    assert!(text.contains("The hub stopped at "), "{text}");
    assert!(text.contains("`daebug --root test`"), "{text}");
    assert!(text.contains("state: disconnected"), "{text}");
    // The log's last line says so, above the footer.
    let text = std::fs::read_to_string(&log).unwrap();
    let stop = text.rfind("> **hub** stopped at ").expect("the stop line");
    let mut after = text[stop..].lines().filter(|l| !l.is_empty());
    let line = after.next().unwrap();
    let at = line.trim_start_matches("> **hub** stopped at ");
    assert!(at.len() == 8 && at.as_bytes()[2] == b':', "{text}");
    assert_eq!(after.count(), 1, "only the footer after it: {text}");
    assert!(footer_last(&text), "{text}");
    drop(root);
}

#[tokio::test]
async fn restart_closes_a_region_left_by_a_hub_that_died() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "000d").await;
    let log = hub.log("shop-000d");
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await forever()"));
    let _ = realm.job().await;
    hub.wait_file(&log, |t| t.contains("executing (")).await;
    // The hub goes away with the job still running (as if it died: the
    // region is left in the file), then a new hub starts on the same root.
    let root = hub.stop().await;
    let text = std::fs::read_to_string(root.path().join("debug/shop-000d.md")).unwrap();
    assert!(text.contains("executing ("), "{text}");
    // The last line says the hub stopped, after the open region.
    assert!(
        text.trim_end()
            .rsplit('\n')
            .next()
            .unwrap()
            .starts_with("> **hub** stopped at "),
        "{text}"
    );
    let hub = TestHub::start_in(root, |_| {}).await;
    let text = hub
        .wait_file(&hub.log("shop-000d"), |t| {
            t.contains("(**ERROR** result lost)") && footer_last(t)
        })
        .await;
    assert!(text.contains("the hub stopped"), "{text}");
}

#[tokio::test]
async fn heartbeats_do_not_rewrite_the_registry() {
    use std::os::unix::fs::MetadataExt;
    let hub = TestHub::start_with(|c| c.ping_every = Duration::from_millis(20)).await;
    let mut realm = hub.realm("Shop", "000e").await;
    let before = hub
        .wait_file(&hub.registry(), |t| t.contains("[shop-000e]"))
        .await;
    let inode = std::fs::metadata(hub.registry()).unwrap().ino();
    realm.answer_pings(10).await;
    // Every hub write is a rename of a new file: a rewrite changes the inode.
    assert_eq!(std::fs::metadata(hub.registry()).unwrap().ino(), inode);
    assert_eq!(std::fs::read_to_string(hub.registry()).unwrap(), before);
}

#[tokio::test]
async fn a_hub_with_a_token_refuses_realms_without_it() {
    let hub = TestHub::start_with(|c| c.token = Some("s3cret".into())).await;
    assert_eq!(ws_status(&hub, &[]).await, 401);
    let status = |url: String| async move {
        match tokio_tungstenite::connect_async(url).await {
            Ok((_, resp)) => resp.status().as_u16(),
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(status(format!("{}?token=guess", hub.ws_url())).await, 401);
    assert_eq!(status(format!("{}?token=s3cret", hub.ws_url())).await, 101);
    let (code, body) = hub.get("/", &[]).await;
    assert_eq!(code, 401, "{body}");
    assert!(!body.contains("s3cret"), "{body}");
}

#[tokio::test]
async fn the_default_timeout_comes_from_the_config() {
    let hub = TestHub::start_with(|c| c.default_timeout = Duration::from_millis(250)).await;
    let mut realm = hub.realm("Shop", "000f").await;
    let log = hub.log("shop-000f");
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await never()"));
    let (job, _) = realm.job().await;
    assert!(matches!(realm.recv().await, HubMsg::Cancel { job: j } if j == job));
    hub.wait_file(&log, |t| t.contains("(**TIMEOUT** after 0.3s)"))
        .await;
}

#[tokio::test]
async fn a_busy_port_is_a_clear_error() {
    let hub = TestHub::start().await;
    let config = daebug::config::HubConfig::new(hub.root.path(), hub.addr.port());
    match daebug::app::Hub::bind(config).await {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(&hub.addr.port().to_string()) && msg.contains("--port"),
                "{msg}"
            );
        }
        Ok(_) => panic!("bound a busy port"),
    }
}

/// A file named `debug` where the logs' folder goes is refused by
/// `bind`, before anything says the hub is serving, and left as it was.
#[tokio::test]
async fn a_file_named_debug_is_a_clear_error_at_bind() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("debug");
    std::fs::write(&file, "my notes").unwrap();
    let Err(e) = daebug::app::Hub::bind(daebug::config::HubConfig::new(root.path(), 0)).await
    else {
        panic!("bound with a file named debug");
    };
    let msg = e.to_string();
    assert!(
        msg.contains("debug is a file") && msg.contains("move or rename the file"),
        "{msg}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "my notes");
}

/// A `debug` that links to nothing is a clear error at bind, before the
/// hub says it is serving.
#[cfg(unix)]
#[tokio::test]
async fn a_broken_debug_link_is_a_clear_error_at_bind() {
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.path().join("gone"), root.path().join("debug")).unwrap();
    let Err(e) = daebug::app::Hub::bind(daebug::config::HubConfig::new(root.path(), 0)).await
    else {
        panic!("bound with a broken debug link");
    };
    assert!(e.to_string().contains("debug is a link to nothing"), "{e}");
}

/// A `debug` that is a link to a folder is that folder, not "a file".
#[cfg(unix)]
#[tokio::test]
async fn a_debug_link_to_a_folder_keeps_the_logs_there() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.path().join("debug")).unwrap();
    let hub = TestHub::start_in(root, |_| {}).await;
    let mut realm = hub.realm("Shop", "11b0").await;
    let log = elsewhere.path().join(format!("{}.md", realm.stem));
    hub.one_job(&mut realm, &log).await;
}

/// A hub killed mid-write leaves its temp files (`.<name>.<pid>-<seq>.tmp`)
/// in `debug/`, in `debug/archive/` and, for the registry, in the root. The
/// next hub removes them when it starts, and nothing else: not a log, not
/// a rescued save, not another program's temp file.
#[tokio::test]
async fn temp_files_a_killed_hub_left_are_removed_at_start() {
    let root = tempfile::tempdir().unwrap();
    let (top, debug) = (root.path().to_owned(), root.path().join("debug"));
    std::fs::create_dir_all(debug.join("archive")).unwrap();
    const LOG: &str = "# 👾 shop-3f2a\n\nnotes of an earlier session\n\n\
        > Write code in a fenced JS block below to execute against this page.\n";
    // pid 0 is never a running hub's.
    let leftovers = [
        debug.join(".shop-3f2a.md.0-4.tmp"),
        debug.join("archive/.shop-3f2a-2.txt.0-5.tmp"),
        top.join(".debug.md.0-6.tmp"),
    ];
    let kept = [
        (debug.join("shop-3f2a.md"), LOG),
        (debug.join("shop-3f2a.rescued-1795.md"), "a rescued save"),
        (debug.join(".notes.md.swp"), "an editor's swap file"),
        (debug.join(".notes.md.tmp"), "an editor's temp file"),
        (debug.join("archive/shop-3f2a-2.txt"), "an archived reply"),
        (
            top.join(".index.html.0-1.tmp"),
            "the project's, not the hub's",
        ),
    ];
    for p in &leftovers {
        std::fs::write(p, "half written").unwrap();
    }
    for (p, text) in &kept {
        std::fs::write(p, text).unwrap();
    }
    let hub = TestHub::start_in(root, |_| {}).await;
    for p in &leftovers {
        assert!(!p.exists(), "{} is still there", p.display());
    }
    for (p, text) in &kept {
        let now = std::fs::read_to_string(p).unwrap_or_default();
        assert_eq!(now, *text, "{}", p.display());
    }
    drop(hub);
}

// ----- races and damage: the hub must never write over the agent -------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appends_during_a_progress_storm_lose_nothing() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "1020").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await work()"));
    let (job, _) = realm.job().await;
    hub.wait_file(&log, |t| t.contains("executing (")).await;
    // Every progress frame makes the hub rewrite the file; the agent
    // appends at the same time from another thread.
    let path = log.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..300 {
            append(&path, &format!("\nline-{i:04}\n"));
            std::thread::yield_now();
        }
    });
    let mut n = 0;
    while !writer.is_finished() {
        n += 1;
        realm
            .send(&RealmMsg::Progress(JobProgress {
                job,
                events: vec![log_event(&format!("tick {n}"))],
                dropped: 0,
                limited: 0,
                elapsed_ms: 1,
            }))
            .await;
        tokio::task::yield_now().await;
    }
    writer.join().unwrap();
    realm.ok(job, "1", 1).await;
    // Lines the agent wrote into a file the hub was replacing are
    // rescued shortly after: wait for all of them (the deadline fails the
    // test and prints the file if one is lost).
    let all = |t: &str| (0..300).all(|i| t.contains(&format!("line-{i:04}\n")));
    let text = hub
        .wait_file(&log, |t| t.contains("(1ms)") && footer_last(t) && all(t))
        .await;
    assert_eq!(text.matches("line-0000").count(), 1, "{n} progress frames");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncate_then_write_save_loses_nothing() {
    use std::io::Write;
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "1001").await;
    let log = hub.log(&realm.stem);
    let before = hub.wait_file(&log, footer_last).await;
    let wanted = before + "a note from the agent\n" + &js("2");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&log)
        .unwrap();
    // The file is now empty, as between `open(O_TRUNC)` and `write` of a
    // slow writer (a shell's `cat > log`): the hub sees the empty file.
    hub.wait_file(&log, str::is_empty).await;
    support::wait_for_hub_to_look(&hub).await;
    f.write_all(wanted.as_bytes()).unwrap();
    drop(f);
    let (job, code) = realm.job().await;
    assert_eq!(support::block(&code), "$daebug$result = (2)\n");
    realm.ok(job, "2", 1).await;
    let text = hub
        .wait_file(&log, |t| t.contains("(1ms)") && footer_last(t))
        .await;
    assert!(text.contains("a note from the agent"), "{text}");
    assert!(text.starts_with("# 👾 shop-1001\n"), "{text}");
}

#[tokio::test]
async fn an_emptied_log_is_started_afresh_when_the_realm_speaks() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "1002").await;
    let log = hub.log("shop-1002");
    hub.wait_file(&log, footer_last).await;
    std::fs::write(&log, "").unwrap();
    realm
        .send(&RealmMsg::Background {
            events: vec![log_event("after the reset")],
            dropped: 0,
            limited: 0,
        })
        .await;
    let text = hub
        .wait_file(&log, |t| t.contains("after the reset") && footer_last(t))
        .await;
    assert!(text.starts_with("# 👾 shop-1002\n"), "{text}");
}

#[tokio::test]
async fn other_files_in_debug_are_left_alone_and_a_deleted_log_stays_deleted() {
    let hub = TestHub::start().await;
    let _realm = hub.realm("Shop", "1003").await;
    let log = hub.log("shop-1003");
    hub.wait_file(&log, footer_last).await;
    let notes = hub.root.path().join("debug/notes.md");
    std::fs::write(&notes, js("not for the hub")).unwrap();
    std::fs::remove_file(&log).unwrap();
    // A later log change proves the hub has handled the events above.
    let other = hub.realm("Cart", "1004").await;
    let other_log = hub.log(&other.stem);
    hub.wait_file(&other_log, footer_last).await;
    append(&other_log, "\nprose only\n");
    hub.wait_file(&other_log, |t| t.contains("prose only") && footer_last(t))
        .await;
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        js("not for the hub")
    );
    assert!(!log.exists(), "a deleted log came back");
}

#[tokio::test]
async fn a_deleted_debug_folder_comes_back_and_is_watched() {
    let hub = TestHub::start().await;
    std::fs::remove_dir_all(hub.root.path().join("debug")).unwrap();
    let mut realm = hub.realm("Shop", "1005").await;
    let log = hub.log(&realm.stem);
    hub.one_job(&mut realm, &log).await;
}

#[tokio::test]
async fn a_reconnect_before_the_drop_was_noticed_continues_the_log() {
    let hub = TestHub::start().await;
    let mut old = hub.realm("Shop", "1030").await;
    let log = hub.log(&old.stem);
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("await slow()"));
    let (job, _) = old.job().await;
    // The old socket still looks open to the hub; the realm is back on a
    // new one and says it still runs the job.
    let mut back = FakeRealm::connect(&hub, RealmKind::Page, "Shop", "1030", vec![job]).await;
    assert_eq!(back.stem, "shop-1030");
    back.ok(job, "42", 900).await;
    hub.wait_file(&log, |t| t.contains("(900ms)") && footer_last(t))
        .await;
    drop(old);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_does_not_wait_on_silent_or_half_open_clients() {
    use tokio::io::AsyncWriteExt;
    let hub = TestHub::start().await;
    let (_silent, _) = tokio_tungstenite::connect_async(hub.ws_url())
        .await
        .unwrap();
    let mut half = tokio::net::TcpStream::connect(hub.addr).await.unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    // `stop` fails the test unless the hub is down within the deadline.
    hub.stop().await;
}

#[tokio::test]
async fn a_job_that_timed_out_while_the_realm_was_away_is_cancelled_when_it_returns() {
    let hub = TestHub::start().await;
    let mut realm = hub.realm("Shop", "1040").await;
    let log = hub.log("shop-1040");
    hub.wait_file(&log, footer_last).await;
    append(&log, "```js timeout=200ms\nawait slow()\n```\n");
    let (job, _) = realm.job().await;
    realm.close().await;
    hub.wait_file(&log, |t| {
        t.contains("(**TIMEOUT** after 0.2s)") && footer_last(t)
    })
    .await;
    // Back on a new connection, still running the job: it is told to stop.
    let mut back = FakeRealm::connect(&hub, RealmKind::Page, "Shop", "1040", vec![job]).await;
    match back.recv().await {
        HubMsg::Cancel { job: j } => assert_eq!(j, job),
        other => panic!("expected a cancel, got {other:?}"),
    }
}

/// docs/log-format.md, "The registry": a block written into `debug.md` does not run there; it is
/// answered with a note naming the page logs, and kept when the registry
/// is written again (another realm connects).
#[tokio::test]
async fn a_block_in_the_registry_is_answered_and_kept() {
    let hub = TestHub::start().await;
    let _realm = hub.realm("Shop", "000b").await;
    hub.wait_file(&hub.registry(), |t| t.contains("shop-000b"))
        .await;
    append(&hub.registry(), "\n```js\ndocument.title\n```\n");
    let note = "blocks do not run in debug.md; append this one at the bottom of a page's log: [shop-000b](debug/shop-000b.md)";
    let text = hub.wait_file(&hub.registry(), |t| t.contains(note)).await;
    assert!(
        text.contains("```js\ndocument.title\n```\n\n> **daebug** at "),
        "{text}"
    );
    let _other = hub.realm("Cart", "000c").await;
    let text = hub
        .wait_file(&hub.registry(), |t| t.contains("cart-000c"))
        .await;
    assert!(text.contains("```js\ndocument.title\n```\n"), "{text}");
    assert_eq!(text.matches(note).count(), 1, "{text}");
}

/// A log's head names what kind of realm it talks to: a page, a worker,
/// a Node process.
#[tokio::test]
async fn a_logs_head_names_its_realms_kind() {
    let hub = TestHub::start().await;
    for (kind, name, says) in [
        (RealmKind::Page, "Shop", "a live page. Add a fenced JavaScript block at the bottom and the connected page will run it"),
        (RealmKind::Worker, "stats.worker.js", "a live worker. Add a fenced JavaScript block at the bottom and the connected worker will run it"),
        (RealmKind::Node, "server.js", "a live Node process. Add a fenced JavaScript block at the bottom and the connected process will run it"),
    ] {
        let realm = FakeRealm::connect(&hub, kind, name, "", Vec::new()).await;
        let text = hub.wait_file(&hub.log(&realm.stem), footer_last).await;
        let intro = text.lines().nth(1).unwrap();
        assert!(intro.contains(says), "{kind:?}: {text}");
    }
}

/// The registry's `last` and the doors' are the same: when the realm
/// last did something (connected, answered a block), not its last
/// heartbeat, which the doors give as `heard` (the registry is not
/// rewritten for heartbeats, so a heartbeat time there would lag).
#[tokio::test]
async fn the_registry_and_the_doors_say_the_same_last() {
    let hub = TestHub::start_with(|c| c.ping_every = Duration::from_millis(50)).await;
    let mut realm = hub.realm("Shop", "000f").await;
    let log = hub.log("shop-000f");
    hub.wait_file(&log, footer_last).await;
    let last_of = |text: &str| {
        let line = text.lines().find(|l| l.contains("[shop-000f]")).unwrap();
        line[line.find(" last ").unwrap() + 6..][..8].to_string()
    };
    let api_field = |body: &str, field: &str| {
        let at = body.find(&format!("\"{field}\":\"")).unwrap() + field.len() + 4;
        body[at..at + 8].to_string()
    };
    // Heartbeats for two seconds (the clock polled, not slept).
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(2) {
        realm.answer_pings(1).await;
    }
    let registry = std::fs::read_to_string(hub.registry()).unwrap();
    let (_, body) = hub.get("/api/realms", &[]).await;
    assert_eq!(
        api_field(&body, "last"),
        last_of(&registry),
        "{body}\n{registry}"
    );
    assert_ne!(
        api_field(&body, "heard"),
        api_field(&body, "last"),
        "{body}"
    );
    // A block answered: both say so, at the same time.
    append(&log, &js("1"));
    let (job, _) = realm.job().await;
    realm.ok(job, "1", 1).await;
    hub.wait_file(&log, |t| t.contains("(1ms)") && footer_last(t))
        .await;
    let registry = hub
        .wait_file(&hub.registry(), |t| t.contains("state: completed"))
        .await;
    let (_, body) = hub.get("/api/realms", &[]).await;
    assert_eq!(
        api_field(&body, "last"),
        last_of(&registry),
        "{body}\n{registry}"
    );
}
