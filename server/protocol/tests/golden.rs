//! Golden JSON for the wire types: the exact bytes are the contract.

use daebug_protocol::{BackgroundEvent, EventType, Level, PROTOCOL_VERSION};

fn round_trip(event: &BackgroundEvent, golden: &str) {
    let json = serde_json::to_string(event).expect("serialize");
    assert_eq!(json, golden);
    let back: BackgroundEvent = serde_json::from_str(golden).expect("deserialize");
    assert_eq!(&back, event);
}

#[test]
fn protocol_version_is_one() {
    assert_eq!(PROTOCOL_VERSION, 1);
}

#[test]
fn background_error_event_golden() {
    let event = BackgroundEvent {
        kind: EventType::Error,
        level: Level::Error,
        source: Some("window.onerror".to_owned()),
        ts: "10:00:05".to_owned(),
        message: "TypeError: x is undefined".to_owned(),
        stack: Some("TypeError: x is undefined\n    at load (app.js:3:7)".to_owned()),
    };
    round_trip(
        &event,
        r#"{"type":"error","level":"error","source":"window.onerror","ts":"10:00:05","message":"TypeError: x is undefined","stack":"TypeError: x is undefined\n    at load (app.js:3:7)"}"#,
    );
}

#[test]
fn background_console_event_omits_source_and_stack() {
    let event = BackgroundEvent {
        kind: EventType::Console,
        level: Level::Log,
        source: None,
        ts: "10:00:01".to_owned(),
        message: "loaded 3 items".to_owned(),
        stack: None,
    };
    round_trip(
        &event,
        r#"{"type":"console","level":"log","ts":"10:00:01","message":"loaded 3 items"}"#,
    );
}

#[test]
fn every_level_and_kind_has_a_lowercase_name() {
    let levels = [
        (Level::Debug, "debug"),
        (Level::Log, "log"),
        (Level::Info, "info"),
        (Level::Warn, "warn"),
        (Level::Error, "error"),
    ];
    for (level, name) in levels {
        assert_eq!(serde_json::to_value(level).unwrap(), name);
    }
    assert_eq!(serde_json::to_value(EventType::Console).unwrap(), "console");
    assert_eq!(serde_json::to_value(EventType::Error).unwrap(), "error");
    assert_eq!(serde_json::to_value(EventType::Browser).unwrap(), "browser");
}

#[test]
fn missing_ts_defaults_to_empty() {
    let back: BackgroundEvent =
        serde_json::from_str(r#"{"type":"console","level":"warn","message":"careful"}"#).unwrap();
    assert_eq!(back.ts, "");
    assert_eq!(back.source, None);
    assert_eq!(back.stack, None);
}

#[test]
fn image_golden_leaves_out_refused_data() {
    use daebug_protocol::{JobId, RealmImage, RealmMsg};
    let sent = RealmMsg::Image(RealmImage {
        job: JobId(7),
        label: "canvas".into(),
        mime: "image/png".into(),
        width: 300,
        height: 150,
        bytes: 3,
        data: Some("AAEC".into()),
        error: None,
    });
    let golden = r#"{"type":"image","job":7,"label":"canvas","mime":"image/png","width":300,"height":150,"bytes":3,"data":"AAEC"}"#;
    assert_eq!(serde_json::to_string(&sent).unwrap(), golden);
    assert_eq!(serde_json::from_str::<RealmMsg>(golden).unwrap(), sent);
    let refused = r#"{"type":"image","job":7,"label":"big","mime":"image/png","width":0,"height":0,"bytes":20000000}"#;
    match serde_json::from_str::<RealmMsg>(refused).unwrap() {
        RealmMsg::Image(i) => assert!(i.data.is_none() && i.bytes == 20_000_000),
        other => panic!("{other:?}"),
    }
}

#[test]
fn screenshot_golden() {
    use daebug_protocol::{HubMsg, JobId, RealmMsg, ScreenshotAnswer, ScreenshotAsk};
    let ask = RealmMsg::Screenshot(ScreenshotAsk {
        job: JobId(3),
        ask: 1,
        selector: Some("#box".into()),
    });
    let golden = r##"{"type":"screenshot","job":3,"ask":1,"selector":"#box"}"##;
    assert_eq!(serde_json::to_string(&ask).unwrap(), golden);
    assert_eq!(serde_json::from_str::<RealmMsg>(golden).unwrap(), ask);
    let whole = r#"{"type":"screenshot","job":3,"ask":2}"#;
    assert!(matches!(
        serde_json::from_str::<RealmMsg>(whole).unwrap(),
        RealmMsg::Screenshot(ScreenshotAsk { selector: None, .. })
    ));
    let saved = HubMsg::Screenshot(ScreenshotAnswer {
        ask: 1,
        path: Some("archive/shop-3f2a-1.png".into()),
        width: 50,
        height: 30,
        error: None,
    });
    let golden =
        r#"{"type":"screenshot","ask":1,"path":"archive/shop-3f2a-1.png","width":50,"height":30}"#;
    assert_eq!(serde_json::to_string(&saved).unwrap(), golden);
    assert_eq!(serde_json::from_str::<HubMsg>(golden).unwrap(), saved);
    let refused = r#"{"type":"screenshot","ask":2,"width":0,"height":0,"error":"no bridge"}"#;
    assert!(matches!(
        serde_json::from_str::<HubMsg>(refused).unwrap(),
        HubMsg::Screenshot(ScreenshotAnswer {
            path: None,
            error: Some(_),
            ..
        })
    ));
}

#[test]
fn inspect_golden() {
    use daebug_protocol::{HubMsg, Inspect, InspectAnswer, InspectAsk, RealmMsg};
    let ask = RealmMsg::Inspect(InspectAsk {
        ask: 4,
        what: Inspect::Listeners,
    });
    let golden = r#"{"type":"inspect","ask":4,"what":"listeners"}"#;
    assert_eq!(serde_json::to_string(&ask).unwrap(), golden);
    assert_eq!(serde_json::from_str::<RealmMsg>(golden).unwrap(), ask);
    let objects = r#"{"type":"inspect","ask":5,"what":"objects"}"#;
    assert!(matches!(
        serde_json::from_str::<RealmMsg>(objects).unwrap(),
        RealmMsg::Inspect(InspectAsk {
            what: Inspect::Objects,
            ..
        })
    ));
    // Logpoints, monitor and scopes in a page or a worker: a command of
    // the browser's debugger (docs/wire-protocol.md, "Inspecting").
    let command = RealmMsg::Inspect(InspectAsk {
        ask: 6,
        what: Inspect::Debugger,
    });
    let golden = r#"{"type":"inspect","ask":6,"what":"debugger"}"#;
    assert_eq!(serde_json::to_string(&command).unwrap(), golden);
    assert_eq!(serde_json::from_str::<RealmMsg>(golden).unwrap(), command);
    // An action's trusted input through the bridge (docs/actions.md).
    let input = RealmMsg::Inspect(InspectAsk {
        ask: 7,
        what: Inspect::Input,
    });
    let golden = r#"{"type":"inspect","ask":7,"what":"input"}"#;
    assert_eq!(serde_json::to_string(&input).unwrap(), golden);
    assert_eq!(serde_json::from_str::<RealmMsg>(golden).unwrap(), input);
    let done = HubMsg::Inspected(InspectAnswer {
        ask: 4,
        error: None,
    });
    let golden = r#"{"type":"inspected","ask":4}"#;
    assert_eq!(serde_json::to_string(&done).unwrap(), golden);
    assert_eq!(serde_json::from_str::<HubMsg>(golden).unwrap(), done);
    let refused = r#"{"type":"inspected","ask":5,"error":"no bridge"}"#;
    assert!(matches!(
        serde_json::from_str::<HubMsg>(refused).unwrap(),
        HubMsg::Inspected(InspectAnswer { error: Some(_), .. })
    ));
}
