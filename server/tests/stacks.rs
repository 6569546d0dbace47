//! Stacks the hub writes, for real: a fake realm sends stacks as Chromium
//! writes them; the hub drops daebug's frames and maps page scripts'
//! frames through the maps its own file server serves (an esbuild fixture).

mod support;

use support::footer_last;

use daebug_protocol::{BackgroundEvent, EventType, JobError, JobResult, Level, Outcome, RealmMsg};
use support::{append, js, TestHub};

const STATS_JS: &str = include_str!("../../tests/tests/fixtures/sourcemap/dist/stats.js");
const STATS_MAP: &str = include_str!("../../tests/tests/fixtures/sourcemap/dist/stats.js.map");

fn error_event(message: &str, stack: String) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Error,
        level: Level::Error,
        source: Some("window.onerror".into()),
        ts: "10:00:00".into(),
        message: message.into(),
        stack: Some(stack),
    }
}

async fn hub_with_fixture() -> TestHub {
    let hub = TestHub::start().await;
    let dist = hub.root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("stats.js"), STATS_JS).unwrap();
    std::fs::write(dist.join("stats.js.map"), STATS_MAP).unwrap();
    hub
}

#[tokio::test]
async fn a_reply_is_cleaned_and_mapped() {
    let hub = hub_with_fixture().await;
    let mut realm = hub.realm("Shop", "5101").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    append(&log, &js("stats.load({ values: [] })"));
    let (job, _) = realm.job().await;
    let base = format!("http://{}", hub.addr);
    realm
        .send(&RealmMsg::Result(JobResult {
            job,
            outcome: Outcome::Error(JobError {
                name: "Error".into(),
                message: "no values".into(),
                stack: Some(format!(
                    "Error: no values\n    at Object.load ({base}/dist/stats.js:11:11)\n    at eval (daebug-cell-{job}:3:7)\n    at {base}/daebug_adapter.js:99:30\n    at __wbg_call_40b0 ({base}/daebug_adapter.js:98:58)\n    at {base}/daebug_adapter_bg.wasm:wasm-function[810]:0x23117"
                )),
            }),
            events: vec![],
            dropped: 0,
            limited: 0,
            duration_ms: 1,
        }))
        .await;
    let text = hub
        .wait_file(&log, |t| t.contains("Error: no values") && footer_last(t))
        .await;
    assert!(
        text.contains(
            "Error: no values\n    at Object.load (src/stats.ts:22:11)\n    at <cell>:1:1\n```"
        ),
        "{text}"
    );
    assert!(!text.contains("daebug_adapter"), "{text}");
}

/// An event whose map must be fetched is written before the events the
/// realm sent after it: order holds while the hub waits for the map.
#[tokio::test]
async fn events_keep_their_order_while_a_map_is_fetched() {
    let hub = hub_with_fixture().await;
    let mut realm = hub.realm("Shop", "5102").await;
    let log = hub.log(&realm.stem);
    hub.wait_file(&log, footer_last).await;
    let base = format!("http://{}", hub.addr);
    let mapped = error_event(
        "Error: first",
        format!("Error: first\n    at load ({base}/dist/stats.js:11:11)"),
    );
    let unmapped = error_event(
        "Error: second",
        "Error: second\n    at x (<anonymous>:1:1)".into(),
    );
    for events in [vec![mapped], vec![unmapped]] {
        realm
            .send(&RealmMsg::Background {
                events,
                dropped: 0,
                limited: 0,
            })
            .await;
    }
    let text = hub
        .wait_file(&log, |t| t.contains("Error: second") && footer_last(t))
        .await;
    let first = text.find("at load (src/stats.ts:22:11)");
    let second = text.find("Error: second");
    assert!(first.is_some() && first < second, "{text}");
}
