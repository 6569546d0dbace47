//! The adapter writes and reads the envelopes by hand (through the
//! browser's JSON); here every kind is checked against the protocol
//! crate's serde format, so the two can never drift apart.
#![cfg(target_arch = "wasm32")]

use daebug_adapter::codec::{decode, encode};
use daebug_protocol::{
    BackgroundEvent, EventType, HubMsg, JobError, JobId, JobProgress, JobResult, Level, Outcome,
    RealmKind, RealmMsg, Value,
};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn events() -> Vec<BackgroundEvent> {
    vec![
        BackgroundEvent {
            kind: EventType::Console,
            level: Level::Warn,
            source: None,
            ts: "10:00:01".into(),
            message: "careful \"quoted\" \u{1f47e}".into(),
            stack: None,
        },
        BackgroundEvent {
            kind: EventType::Error,
            level: Level::Error,
            source: Some("unhandledrejection".into()),
            ts: "10:00:02".into(),
            message: "RangeError: nope".into(),
            stack: Some("RangeError: nope\n    at f (app.js:1:1)".into()),
        },
    ]
}

#[wasm_bindgen_test]
fn every_realm_message_is_what_serde_would_write() {
    let messages = vec![
        RealmMsg::Hello {
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
        RealmMsg::Hello {
            version: 1,
            kind: RealmKind::Worker,
            name: "w.js".into(),
            url: "http://h/w.js".into(),
            id: String::new(),
            jobs: vec![JobId(1_795_335_068_046_000), JobId(2)],
            tab: "3f2a".into(),
            navigation: None,
            pid: None,
        },
        RealmMsg::Started { job: JobId(3) },
        RealmMsg::Progress(JobProgress {
            job: JobId(3),
            events: events(),
            dropped: 4,
            limited: 900,
            elapsed_ms: 1200,
        }),
        RealmMsg::Result(JobResult {
            job: JobId(3),
            outcome: Outcome::Ok(Value::Json("{\"a\":1}".into())),
            events: events(),
            dropped: 0,
            limited: 0,
            duration_ms: 3,
        }),
        RealmMsg::Result(JobResult {
            job: JobId(4),
            outcome: Outcome::Ok(Value::Text("Map(0) {}".into())),
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 0,
        }),
        RealmMsg::Result(JobResult {
            job: JobId(5),
            outcome: Outcome::Error(JobError {
                name: "TypeError".into(),
                message: "x".into(),
                stack: None,
            }),
            events: vec![],
            dropped: 1,
            limited: 0,
            duration_ms: 16,
        }),
        RealmMsg::Result(JobResult {
            job: JobId(6),
            outcome: Outcome::Error(JobError {
                name: "Error".into(),
                message: "y".into(),
                stack: Some("Error: y\n    at <anonymous>:1:1".into()),
            }),
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 1,
        }),
        RealmMsg::Background {
            events: events(),
            dropped: 7,
            limited: 12,
        },
        RealmMsg::Pong { seq: 9 },
        RealmMsg::Image(daebug_protocol::RealmImage {
            job: JobId(3),
            label: "chart \"a\"".into(),
            mime: "image/png".into(),
            width: 300,
            height: 150,
            bytes: 3,
            data: Some("AAEC".into()),
            error: None,
        }),
        RealmMsg::Image(daebug_protocol::RealmImage {
            job: JobId(3),
            label: "value".into(),
            mime: String::new(),
            width: 0,
            height: 0,
            bytes: 0,
            data: None,
            error: Some("no\nread".into()),
        }),
        RealmMsg::Reloading,
        RealmMsg::Leaving {
            navigated_to: Some("http://127.0.0.1:8302/next \"page\"".into()),
        },
        RealmMsg::Leaving { navigated_to: None },
        RealmMsg::Hello {
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
        RealmMsg::Exiting { code: -1 },
        RealmMsg::Flush { seq: 3 },
        RealmMsg::Person {
            json: r#"{"type":"answered","title":"Checkout \"form\"","value":{"n":1}}"#.into(),
        },
    ];
    for msg in messages {
        let ours: serde_json::Value = serde_json::from_str(&encode(&msg)).expect("JSON");
        let serde = serde_json::to_value(&msg).expect("serde");
        assert_eq!(ours, serde, "{msg:?}");
        // And the hub reads it back as the same message.
        let back: RealmMsg = serde_json::from_value(ours).expect("the hub reads it");
        assert_eq!(back, msg);
    }
}

#[wasm_bindgen_test]
fn every_hub_message_is_read_as_serde_wrote_it() {
    let messages = vec![
        HubMsg::Welcome {
            version: 1,
            stem: "shop-3f2a".into(),
            id: "3f2a".into(),
        },
        HubMsg::Job {
            job: JobId(1_795_335_068_046_001),
            code: "return 1 + 1\n".into(),
            timeout_ms: 60_000,
            depth: None,
            full: false,
        },
        HubMsg::Job {
            job: JobId(9),
            code: "return x".into(),
            timeout_ms: 60_000,
            depth: Some(8),
            full: true,
        },
        HubMsg::Cancel { job: JobId(3) },
        HubMsg::Ping { seq: 1 },
        HubMsg::Flushed { seq: 4 },
        HubMsg::Person {
            json: r#"{"id":1,"handler":0,"event":"submit"}"#.into(),
        },
        HubMsg::Error {
            message: "malformed message".into(),
        },
        HubMsg::Bye {
            reason: "the hub is shutting down".into(),
        },
    ];
    for msg in messages {
        let text = serde_json::to_string(&msg).expect("serde");
        assert_eq!(decode(&text), Ok(msg));
    }
    assert!(decode("not json").is_err());
    assert!(decode(r#"{"type":"launch"}"#).is_err());
    assert!(decode(r#"{"type":"job","job":"x"}"#).is_err());
}

#[wasm_bindgen_test]
fn a_pages_to_json_hooks_do_not_change_the_envelopes() {
    js_sys::eval("Array.prototype.toJSON = function () { return 'arr' }; Object.prototype.toJSON = function () { return 'obj' }").unwrap();
    let msg = RealmMsg::Background {
        events: events(),
        dropped: 1,
        limited: 0,
    };
    let text = encode(&msg);
    js_sys::eval("delete Array.prototype.toJSON; delete Object.prototype.toJSON").unwrap();
    let back: RealmMsg = serde_json::from_str(&text).expect("the hub reads it");
    assert_eq!(back, msg);
}
