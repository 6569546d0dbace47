//! Sessions with the real hub and a fake realm: a worker keeps its log
//! across its page's reloads, new documents get a lifecycle line, and a
//! realm that left gets a `closed` line after its grace.

mod support;

use daebug_protocol::{RealmKind, RealmMsg, PROTOCOL_VERSION};
use support::{FakeRealm, TestHub};

fn hello(
    kind: RealmKind,
    name: &str,
    url: &str,
    id: &str,
    tab: &str,
    nav: Option<&str>,
) -> RealmMsg {
    RealmMsg::Hello {
        version: PROTOCOL_VERSION,
        kind,
        name: name.into(),
        url: url.into(),
        id: id.into(),
        jobs: vec![],
        tab: tab.into(),
        navigation: nav.map(String::from),
        pid: None,
    }
}

fn worker(tab: &str) -> RealmMsg {
    hello(
        RealmKind::Worker,
        "w.js",
        "http://127.0.0.1:5173/w.js",
        "",
        tab,
        Some("start"),
    )
}

fn count(text: &str, what: &str) -> usize {
    text.lines().filter(|l| l.contains(what)).count()
}

async fn disconnected(hub: &TestHub, stem: &str) {
    let link = format!("[{stem}]");
    hub.wait_file(&hub.registry(), |t| {
        t.lines()
            .any(|l| l.contains(&link) && l.ends_with("state: disconnected"))
    })
    .await;
}

#[tokio::test]
async fn a_worker_keeps_its_log_across_its_pages_reloads_and_a_second_one_gets_its_own() {
    let hub = TestHub::start().await;
    let first = FakeRealm::connect_with(&hub, worker("3f2a")).await;
    let stem = first.stem.clone();
    assert!(stem.starts_with("w-js-"), "{stem}");
    // A second live worker of the same script in the same tab.
    let second = FakeRealm::connect_with(&hub, worker("3f2a")).await;
    assert_ne!(second.stem, stem);
    // Another tab's worker.
    let other = FakeRealm::connect_with(&hub, worker("beef")).await;
    assert_ne!(other.stem, stem);
    assert_ne!(other.stem, second.stem);
    let second_stem = second.stem.clone();

    let mut current = first;
    for reload in 1..=3 {
        current.close().await;
        disconnected(&hub, &stem).await;
        current = FakeRealm::connect_with(&hub, worker("3f2a")).await;
        assert_eq!(current.stem, stem, "reload {reload}");
        let text = hub
            .wait_file(&hub.log(&stem), |t| count(t, "reloaded at ") == reload)
            .await;
        assert!(
            text.contains(" — http://127.0.0.1:5173/w.js (bindings of earlier blocks are gone)\n"),
            "{text}"
        );
    }
    // The second instance's log heard of none of it.
    let text = std::fs::read_to_string(hub.log(&second_stem)).unwrap();
    assert_eq!(count(&text, "reloaded at "), 0, "{text}");
}

#[tokio::test]
async fn a_pages_new_documents_get_a_line_and_a_reconnect_none() {
    let hub = TestHub::start().await;
    let base = "http://127.0.0.1:5173";
    let page = |url: &str, nav: Option<&str>| {
        hello(
            RealmKind::Page,
            "Shop",
            &format!("{base}{url}"),
            "0a0a",
            "",
            nav,
        )
    };
    // The first document: no line (the log is new).
    let realm = FakeRealm::connect_with(&hub, page("/", Some("navigate"))).await;
    let log = hub.log(&realm.stem);
    let stem = realm.stem.clone();
    // The same document reconnecting (a dropped socket): no line.
    realm.close().await;
    disconnected(&hub, &stem).await;
    let realm = FakeRealm::connect_with(&hub, page("/", None)).await;
    realm.close().await;
    disconnected(&hub, &stem).await;
    let realm = FakeRealm::connect_with(&hub, page("/", Some("reload"))).await;
    hub.wait_file(&log, |t| count(t, "reloaded at ") == 1).await;
    realm.close().await;
    disconnected(&hub, &stem).await;
    let _realm = FakeRealm::connect_with(&hub, page("/cart", Some("navigate"))).await;
    let text = hub.wait_file(&log, |t| t.contains(" navigated at ")).await;
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with(&format!("> **{stem}** ")))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].ends_with(&format!(" — {base}/ (bindings of earlier blocks are gone)")),
        "{text}"
    );
    assert!(lines[1].ends_with(&format!(" to {base}/cart")), "{text}");
}

#[tokio::test]
async fn a_page_that_left_and_did_not_come_back_is_closed() {
    let hub = TestHub::start().await;
    let mut realm = FakeRealm::connect_with(
        &hub,
        hello(
            RealmKind::Page,
            "Shop",
            "http://127.0.0.1:5173/",
            "0b0b",
            "",
            Some("navigate"),
        ),
    )
    .await;
    let log = hub.log(&realm.stem);
    realm.send(&RealmMsg::Leaving { navigated_to: None }).await;
    realm.close().await;
    // Within the 5 s grace and the 10 s deadline.
    let text = hub.wait_file(&log, |t| t.contains(" closed at ")).await;
    assert_eq!(count(&text, " closed at "), 1, "{text}");
}

#[tokio::test]
async fn fifty_reloads_of_a_page_with_a_worker_keep_the_registry_at_two_lines() {
    let hub = TestHub::start().await;
    let page = |nav| {
        hello(
            RealmKind::Page,
            "Shop",
            "http://127.0.0.1:5173/",
            "0d0d",
            "",
            Some(nav),
        )
    };
    let mut p = FakeRealm::connect_with(&hub, page("navigate")).await;
    let mut w = FakeRealm::connect_with(&hub, worker("0d0d")).await;
    let (page_stem, worker_stem) = (p.stem.clone(), w.stem.clone());
    for _ in 0..50 {
        p.close().await;
        w.close().await;
        disconnected(&hub, &page_stem).await;
        disconnected(&hub, &worker_stem).await;
        p = FakeRealm::connect_with(&hub, page("reload")).await;
        w = FakeRealm::connect_with(&hub, worker("0d0d")).await;
        assert_eq!(
            (p.stem.as_str(), w.stem.as_str()),
            (page_stem.as_str(), worker_stem.as_str())
        );
    }
    let text = hub
        .wait_file(&hub.log(&worker_stem), |t| count(t, "reloaded at ") == 50)
        .await;
    assert_eq!(count(&text, "reloaded at "), 50);
    let registry = std::fs::read_to_string(hub.registry()).unwrap();
    let listed = registry.lines().filter(|l| l.starts_with("* [")).count();
    println!(
        "registry after 50 reloads of a page with a worker: {listed} realm lines, {} lines in all",
        registry.lines().count()
    );
    assert_eq!(listed, 2, "{registry}");
}

fn node(pid: u32) -> RealmMsg {
    RealmMsg::Hello {
        version: PROTOCOL_VERSION,
        kind: RealmKind::Node,
        name: "server".into(),
        url: "/srv/app/server.js".into(),
        id: String::new(),
        jobs: vec![],
        tab: String::new(),
        navigation: Some("start".into()),
        pid: Some(pid),
    }
}

/// A Node process's last word: what it sent before a flush is in the log
/// when the hub answers, its exit is a line with its code (no `closed`
/// follows), and the next process of the same script says it restarted.
#[tokio::test]
async fn a_node_process_exits_flushed_and_restarts_in_the_same_log() {
    let hub = TestHub::start().await;
    let mut first = FakeRealm::connect_with(&hub, node(4121)).await;
    let stem = first.stem.clone();
    assert!(stem.starts_with("server-"), "{stem}");
    let registry = hub
        .wait_file(&hub.registry(), |t| t.contains("pid 4121"))
        .await;
    assert!(
        registry.contains(&format!(
            "* [{stem}](debug/{stem}.md) (node /srv/app/server.js pid 4121) last "
        )),
        "{registry}"
    );
    let log = hub.log(&stem);
    first
        .send(&RealmMsg::Background {
            events: vec![daebug_protocol::BackgroundEvent {
                kind: daebug_protocol::EventType::Error,
                level: daebug_protocol::Level::Error,
                source: Some("uncaughtException".into()),
                ts: "10:00:00".into(),
                message: "Error: boom".into(),
                stack: None,
            }],
            dropped: 0,
            limited: 0,
        })
        .await;
    first.send(&RealmMsg::Exiting { code: 1 }).await;
    first.send(&RealmMsg::Flush { seq: 7 }).await;
    loop {
        match first.recv().await {
            daebug_protocol::HubMsg::Flushed { seq } => {
                assert_eq!(seq, 7);
                break;
            }
            daebug_protocol::HubMsg::Ping { .. } => continue,
            other => panic!("unexpected {other:?}"),
        }
    }
    // Answered only once both are on disk: read at once, no waiting.
    let text = std::fs::read_to_string(&log).unwrap();
    let error = text
        .find("```Error uncaughtException\nError: boom\n")
        .expect(&text);
    let exited = text.find(&format!("> **{stem}** exited at ")).expect(&text);
    assert!(error < exited, "{text}");
    assert!(
        text[exited..]
            .lines()
            .next()
            .unwrap()
            .ends_with(" (code 1)"),
        "{text}"
    );
    first.close().await;
    disconnected(&hub, &stem).await;

    let second = FakeRealm::connect_with(&hub, node(4130)).await;
    assert_eq!(second.stem, stem);
    let text = hub.wait_file(&log, |t| t.contains(" restarted at ")).await;
    assert!(
        text.contains(&format!("> **{stem}** restarted at ")),
        "{text}"
    );
    assert!(text.contains(" (pid 4130)\n"), "{text}");
    assert_eq!(count(&text, " closed at "), 0, "{text}");
    assert_eq!(count(&text, " exited at "), 1, "{text}");
}
