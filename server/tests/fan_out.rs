//! Blocks other doors submit, and the fan-out log `debug/all.md`, against
//! the saves agents make: whole-file writes from a read older than the
//! hub's last write (docs/log-format.md, "Every realm at once", "Stale
//! saves"). Before/after cases in `fixtures/engine/85-*.md` and `86-*.md`.

use daebug_core::engine::template::new_log;
use daebug_core::engine::{apply, ClockTime, Config, Effect, Input, LogEngine, Millis, Now};

fn input(kind: &str, payload: &str) -> Input {
    let mut obj: serde_json::Map<String, serde_json::Value> = if payload.trim().is_empty() {
        serde_json::Map::new()
    } else {
        serde_json::from_str(payload).unwrap()
    };
    obj.insert("type".into(), kind.into());
    serde_json::from_value(serde_json::Value::Object(obj)).unwrap()
}

fn now(ms: u64) -> Now {
    Now {
        mono: Millis(ms),
        clock: ClockTime::parse("10:00:00").unwrap(),
    }
}

/// An engine and its log's text.
struct Log {
    engine: LogEngine,
    text: String,
}

impl Log {
    fn new(stem: &str, fan_out: bool, text: &str) -> Log {
        let config = Config {
            fan_out,
            ..Config::default()
        };
        Log {
            engine: LogEngine::new(stem, config),
            text: text.to_string(),
        }
    }

    fn step(&mut self, ms: u64, kind: &str, payload: &str) -> Vec<Effect> {
        let out = self
            .engine
            .handle(&self.text, input(kind, payload), now(ms));
        self.text = apply(&self.text, &out.edits);
        out.effects
    }
}

const SUBMIT: &str = r#"{"ticket":7,"agent":"agent","info":"js","code":"location.href\n"}"#;

#[test]
fn a_late_realm_reply_in_all_md_is_written_once() {
    let mut log = Log::new(
        "all",
        true,
        &format!("{}```js timeout=1s\n1\n```\n", new_log("all")),
    );
    log.step(0, "file_changed", "");
    log.step(10, "fanned_out", r#"{"job":1,"stems":["a-1","b-2"]}"#);
    log.step(20, "answer", r#"{"job":1,"stem":"a-1","reply":"> **a-1** to agent at 10:00:00 (1ms)\n```JSON\n1\n```\n","ok":true}"#);
    log.step(7000, "tick", "");
    log.step(8000, "answer", r#"{"job":1,"stem":"b-2","reply":"> **b-2** to agent at 10:00:00 (**TIMEOUT** after 1.0s)\n```Error\nTimeoutError: x\n```\n","ok":false}"#);
    log.step(9000, "file_changed", "");
    log.step(9100, "file_changed", "");
    assert_eq!(log.text.matches("> **b-2**").count(), 1, "{}", log.text);
    assert!(
        log.text
            .contains("> **all** to agent at 10:00:00 (late)\n> **b-2**"),
        "{}",
        log.text
    );
}

#[test]
fn a_save_from_before_a_finished_submission_gets_it_back() {
    let mut log = Log::new("shop-3f2a", false, &new_log("shop-3f2a"));
    log.step(0, "file_changed", "");
    let before = log.text.clone();
    log.step(100, "submit", SUBMIT);
    log.step(
        200,
        "result",
        r#"{"job": 1, "outcome": {"ok": {"json": "\"x\""}}, "duration_ms": 2}"#,
    );
    let done = log.text.clone();
    // The agent saves from its read before the submission, adding a block.
    log.text = format!("{before}```js\n'mine'\n```\n");
    let effects = log.step(300, "file_changed", "");
    let dispatched = effects
        .iter()
        .filter(|e| matches!(e, Effect::Dispatch { .. }))
        .count();
    assert_eq!(dispatched, 1, "{effects:?}");
    let footer_at = done.rfind("> Write code").unwrap();
    assert!(log.text.starts_with(&done[..footer_at]), "{}", log.text);
    assert!(
        log.text
            .contains("```js\n'mine'\n```\n\n> **shop-3f2a** to agent"),
        "{}",
        log.text
    );
}

#[test]
fn a_save_from_before_a_running_submission_keeps_it_running() {
    let mut log = Log::new("shop-3f2a", false, &new_log("shop-3f2a"));
    log.step(0, "file_changed", "");
    let before = log.text.clone();
    log.step(100, "submit", SUBMIT);
    let running = log.text.clone();
    log.text = format!("{before}```js\n'mine'\n```\n");
    let effects = log.step(300, "file_changed", "");
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Answered { .. } | Effect::Cancel { .. })),
        "{effects:?}\n{}",
        log.text
    );
    assert!(log.text.starts_with(running.trim_end()), "{}", log.text);
    assert!(
        log.text.ends_with("executing (0s)\n\n```js\n'mine'\n```\n"),
        "{}",
        log.text
    );
    // Its result is its reply, and the agent's block runs next.
    let effects = log.step(
        400,
        "result",
        r#"{"job": 1, "outcome": {"ok": {"json": "\"x\""}}, "duration_ms": 2}"#,
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Answered { ticket: 7, .. })),
        "{effects:?}"
    );
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Dispatch { .. })),
        "{effects:?}"
    );
}

#[test]
fn a_running_block_a_save_removed_is_answered_below_the_head() {
    let mut log = Log::new("shop-3f2a", false, &new_log("shop-3f2a"));
    log.step(0, "file_changed", "");
    let before = log.text.clone();
    log.text.push_str("```js\nlocation.href\n```\n");
    log.step(100, "file_changed", "");
    log.text = format!("{before}```js\n'mine'\n```\n");
    log.step(300, "file_changed", "");
    let head = new_log("shop-3f2a");
    let head = &head[..head.rfind("> Write code").unwrap()];
    assert!(log.text.starts_with(head), "{}", log.text);
    assert!(
        log.text.contains("was edited or removed from the log"),
        "{}",
        log.text
    );
}

#[test]
fn a_fan_out_job_whose_block_is_removed_keeps_the_replies_it_gathered() {
    let mut log = Log::new(
        "all",
        true,
        &format!("{}```js timeout=1s\n1\n```\n", new_log("all")),
    );
    log.step(0, "file_changed", "");
    log.step(10, "fanned_out", r#"{"job":1,"stems":["a-1","b-2"]}"#);
    log.step(20, "answer", r#"{"job":1,"stem":"a-1","reply":"> **a-1** to agent at 10:00:00 (1ms)\n```JSON\n1\n```\n","ok":true}"#);
    let i = log.text.find("> **agent** to all").unwrap();
    log.text.truncate(i);
    log.step(30, "file_changed", "");
    assert!(log.text.contains("> **a-1** to agent"), "{}", log.text);
}

#[test]
fn a_crlf_log_gets_a_crlf_submission() {
    let mut log = Log::new(
        "shop-3f2a",
        false,
        &new_log("shop-3f2a").replace('\n', "\r\n"),
    );
    log.step(0, "file_changed", "");
    log.step(
        100,
        "submit",
        r#"{"ticket":7,"agent":"agent","info":"js","code":"a\r\nb\n"}"#,
    );
    log.step(
        200,
        "result",
        r#"{"job": 1, "outcome": {"ok": {"json": "1"}}, "duration_ms": 2}"#,
    );
    assert!(
        !log.text.replace("\r\n", "").contains('\n'),
        "{:?}",
        log.text
    );
}
