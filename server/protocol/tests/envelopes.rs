//! Golden JSON for the WebSocket envelopes: the exact bytes are the
//! contract between the hub and every adapter build.

use daebug_protocol::{
    BackgroundEvent, EventType, HubMsg, JobError, JobId, JobProgress, JobResult, Level, Outcome,
    RealmKind, RealmMsg, Value,
};
use serde::{de::DeserializeOwned, Serialize};
use std::fmt::Debug;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(msg: &T, golden: &str) {
    assert_eq!(serde_json::to_string(msg).expect("serialize"), golden);
    let back: T = serde_json::from_str(golden).expect("deserialize");
    assert_eq!(&back, msg);
}

fn tick() -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Console,
        level: Level::Log,
        source: None,
        ts: "10:00:01".into(),
        message: "tick".into(),
        stack: None,
    }
}

#[test]
fn hello() {
    round_trip(
        &RealmMsg::Hello {
            version: 1,
            kind: RealmKind::Page,
            name: "Shop".into(),
            url: "http://127.0.0.1:8302/".into(),
            id: "3f2a".into(),
            jobs: vec![],
            tab: String::new(),
            navigation: None,
            pid: None,
        },
        r#"{"type":"hello","version":1,"kind":"page","name":"Shop","url":"http://127.0.0.1:8302/","id":"3f2a"}"#,
    );
    // The first hello of a reloaded document says so.
    round_trip(
        &RealmMsg::Hello {
            version: 1,
            kind: RealmKind::Page,
            name: "Shop".into(),
            url: "http://127.0.0.1:8302/".into(),
            id: "3f2a".into(),
            jobs: vec![],
            tab: String::new(),
            navigation: Some("reload".into()),
            pid: None,
        },
        r#"{"type":"hello","version":1,"kind":"page","name":"Shop","url":"http://127.0.0.1:8302/","id":"3f2a","navigation":"reload"}"#,
    );
    // A new worker of tab 3f2a: no id of its own yet.
    round_trip(
        &RealmMsg::Hello {
            version: 1,
            kind: RealmKind::Worker,
            name: "w.js".into(),
            url: "http://127.0.0.1:8302/w.js".into(),
            id: String::new(),
            jobs: vec![],
            tab: "3f2a".into(),
            navigation: Some("start".into()),
            pid: None,
        },
        r#"{"type":"hello","version":1,"kind":"worker","name":"w.js","url":"http://127.0.0.1:8302/w.js","id":"","tab":"3f2a","navigation":"start"}"#,
    );
    round_trip(
        &RealmMsg::Hello {
            version: 1,
            kind: RealmKind::Worker,
            name: "w.js".into(),
            url: "http://127.0.0.1:8302/w.js".into(),
            id: "91bc".into(),
            jobs: vec![JobId(7)],
            tab: String::new(),
            navigation: None,
            pid: None,
        },
        r#"{"type":"hello","version":1,"kind":"worker","name":"w.js","url":"http://127.0.0.1:8302/w.js","id":"91bc","jobs":[7]}"#,
    );
    // A Node process: its entry script's path and its pid.
    round_trip(
        &RealmMsg::Hello {
            version: 1,
            kind: RealmKind::Node,
            name: "server.js".into(),
            url: "/srv/app/server.js".into(),
            id: String::new(),
            jobs: vec![],
            tab: String::new(),
            navigation: Some("start".into()),
            pid: Some(4121),
        },
        r#"{"type":"hello","version":1,"kind":"node","name":"server.js","url":"/srv/app/server.js","id":"","navigation":"start","pid":4121}"#,
    );
}

#[test]
fn realm_messages() {
    round_trip(
        &RealmMsg::Started { job: JobId(3) },
        r#"{"type":"started","job":3}"#,
    );
    round_trip(
        &RealmMsg::Progress(JobProgress {
            job: JobId(3),
            events: vec![tick()],
            dropped: 0,
            limited: 0,
            elapsed_ms: 1200,
        }),
        r#"{"type":"progress","job":3,"events":[{"type":"console","level":"log","ts":"10:00:01","message":"tick"}],"dropped":0,"elapsed_ms":1200}"#,
    );
    round_trip(
        &RealmMsg::Result(JobResult {
            job: JobId(3),
            outcome: Outcome::Ok(Value::Json("2".into())),
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 3,
        }),
        r#"{"type":"result","job":3,"outcome":{"ok":{"json":"2"}},"events":[],"dropped":0,"duration_ms":3}"#,
    );
    round_trip(
        &RealmMsg::Result(JobResult {
            job: JobId(4),
            outcome: Outcome::Error(JobError {
                name: "TypeError".into(),
                message: "x is undefined".into(),
                stack: Some("TypeError: x is undefined\n    at <cell>:1:1".into()),
            }),
            events: vec![],
            dropped: 2,
            limited: 0,
            duration_ms: 16,
        }),
        r#"{"type":"result","job":4,"outcome":{"error":{"name":"TypeError","message":"x is undefined","stack":"TypeError: x is undefined\n    at <cell>:1:1"}},"events":[],"dropped":2,"duration_ms":16}"#,
    );
    round_trip(
        &RealmMsg::Result(JobResult {
            job: JobId(5),
            outcome: Outcome::Ok(Value::Text("Map(1) {\"a\" => 1}".into())),
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 0,
        }),
        r#"{"type":"result","job":5,"outcome":{"ok":{"text":"Map(1) {\"a\" => 1}"}},"events":[],"dropped":0,"duration_ms":0}"#,
    );
    round_trip(
        &RealmMsg::Background {
            events: vec![tick()],
            dropped: 5,
            limited: 0,
        },
        r#"{"type":"background","events":[{"type":"console","level":"log","ts":"10:00:01","message":"tick"}],"dropped":5}"#,
    );
    round_trip(&RealmMsg::Pong { seq: 9 }, r#"{"type":"pong","seq":9}"#);
    round_trip(&RealmMsg::Reloading, r#"{"type":"reloading"}"#);
    round_trip(
        &RealmMsg::Exiting { code: 1 },
        r#"{"type":"exiting","code":1}"#,
    );
    round_trip(&RealmMsg::Flush { seq: 2 }, r#"{"type":"flush","seq":2}"#);
    round_trip(
        &RealmMsg::Person { json: "{}".into() },
        r#"{"type":"person","json":"{}"}"#,
    );
}

#[test]
fn hub_messages() {
    round_trip(
        &HubMsg::Welcome {
            version: 1,
            stem: "shop-3f2a".into(),
            id: "3f2a".into(),
        },
        r#"{"type":"welcome","version":1,"stem":"shop-3f2a","id":"3f2a"}"#,
    );
    round_trip(
        &HubMsg::Job {
            job: JobId(3),
            code: "1 + 1\n".into(),
            timeout_ms: 60000,
            depth: None,
            full: false,
        },
        r#"{"type":"job","job":3,"code":"1 + 1\n","timeout_ms":60000}"#,
    );
    // Fence options `depth=8` and `full` travel only when given, so a job
    // frame of the first version is still one.
    round_trip(
        &HubMsg::Job {
            job: JobId(4),
            code: "x".into(),
            timeout_ms: 60000,
            depth: Some(8),
            full: true,
        },
        r#"{"type":"job","job":4,"code":"x","timeout_ms":60000,"depth":8,"full":true}"#,
    );
    round_trip(
        &HubMsg::Cancel { job: JobId(3) },
        r#"{"type":"cancel","job":3}"#,
    );
    round_trip(&HubMsg::Ping { seq: 1 }, r#"{"type":"ping","seq":1}"#);
    round_trip(&HubMsg::Flushed { seq: 2 }, r#"{"type":"flushed","seq":2}"#);
    round_trip(
        &HubMsg::Person { json: "{}".into() },
        r#"{"type":"person","json":"{}"}"#,
    );
    round_trip(
        &HubMsg::Error {
            message: "malformed message".into(),
        },
        r#"{"type":"error","message":"malformed message"}"#,
    );
    round_trip(
        &HubMsg::Bye {
            reason: "the hub is shutting down".into(),
        },
        r#"{"type":"bye","reason":"the hub is shutting down"}"#,
    );
}

#[test]
fn optional_fields_may_be_left_out_by_a_realm() {
    let hello: RealmMsg =
        serde_json::from_str(r#"{"type":"hello","version":1,"kind":"page","name":"x","url":"u"}"#)
            .unwrap();
    assert!(
        matches!(hello, RealmMsg::Hello { ref id, ref jobs, ref tab, ref navigation, .. } if id.is_empty() && jobs.is_empty() && tab.is_empty() && navigation.is_none())
    );
    let progress: RealmMsg = serde_json::from_str(r#"{"type":"progress","job":1}"#).unwrap();
    assert_eq!(
        progress,
        RealmMsg::Progress(JobProgress {
            job: JobId(1),
            events: vec![],
            dropped: 0,
            limited: 0,
            elapsed_ms: 0
        })
    );
}

#[test]
fn unknown_or_malformed_messages_are_errors_not_panics() {
    for bad in [
        "",
        "null",
        "[]",
        r#"{"type":"launch_missiles"}"#,
        r#"{"type":"result","job":"three"}"#,
        r#"{"type":"hello","version":1}"#,
        r#"{"kind":"page"}"#,
    ] {
        assert!(serde_json::from_str::<RealmMsg>(bad).is_err(), "{bad}");
    }
}

/// The person channel's inner messages, as the panel module writes them.
#[cfg(feature = "door")]
#[test]
fn person_news_and_acts() {
    use daebug_protocol::person::{PersonAct, PersonNews, Waiting};
    let news: PersonNews = serde_json::from_str(
        r#"{"type":"waiting","waits":[{"id":1,"kind":"panel","title":"Checkout","view":null},
            {"id":2,"kind":"ask","title":"Go?","view":{"ui":[{"t":"button","p":{"onClick":{"$h":0}},"c":["Yes"]}]}}]}"#,
    )
    .expect("waiting");
    let PersonNews::Waiting { waits } = news else {
        panic!("{news:?}")
    };
    assert_eq!(
        waits[0],
        Waiting {
            id: 1,
            kind: "panel".into(),
            title: "Checkout".into(),
            view: serde_json::Value::Null
        }
    );
    assert_eq!(waits[1].view["ui"][0]["p"]["onClick"]["$h"], 0);
    let news: PersonNews =
        serde_json::from_str(r#"{"type":"answered","title":"Go?","value":"Yes"}"#)
            .expect("answered");
    assert_eq!(
        news,
        PersonNews::Answered {
            title: "Go?".into(),
            value: serde_json::json!("Yes")
        }
    );
    let act: PersonAct =
        serde_json::from_str(r#"{"id":2,"handler":0,"event":"click","value":null}"#).expect("act");
    assert_eq!((act.id, act.handler, act.event.as_str()), (2, 0, "click"));
}
