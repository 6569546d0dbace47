//! Properties of the log engine over generated logs and event sequences:
//! it never panics, every line the agent wrote survives every transition in
//! order, and there is never more than one footer.

use daebug_core::engine::markdown::{blocks, Block};
use daebug_core::engine::template::{new_log, FOOTER};
use daebug_core::engine::{
    apply, ClockTime, Config, Input, JobError, JobId, JobProgress, JobResult, LogEngine, Millis,
    Now, Outcome, Value,
};
use daebug_core::prepare::Verbatim;
use daebug_protocol::{BackgroundEvent, EventType, Level};
use proptest::prelude::*;

fn config() -> Config {
    Config {
        preparer: std::sync::Arc::new(Verbatim),
        ..Config::default()
    }
}

/// One line an agent might write.
fn agent_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{1,12}".prop_map(|s| format!("note {s}")),
        Just("```js".to_string()),
        Just("```".to_string()),
        Just("~~~".to_string()),
        Just("````ts timeout=5s".to_string()),
        Just("````".to_string()),
        Just("```json".to_string()),
        Just("> **agent** to shop-3f2a at 10:00:00".to_string()),
        Just("> **bob** to shop-3f2a at 10:00:01".to_string()),
        Just("".to_string()),
        "[a-z0-9+() ]{1,10}".prop_map(|s| format!("x = {s}")),
    ]
}

/// A chunk: some lines, joined with LF or CRLF, maybe without a final newline.
fn chunk() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(agent_line(), 1..12)
}

#[derive(Debug, Clone)]
enum Step {
    /// Lines, and whether the last one ends with a newline.
    Append(Vec<String>, bool),
    Result {
        ok: bool,
        text: String,
    },
    Progress(u8),
    Background(u8),
    Tick(u32),
    Late,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (chunk(), any::<bool>()).prop_map(|(lines, eol)| Step::Append(lines, eol)),
        3 => (any::<bool>(), "[a-z`~>*\n ]{0,30}").prop_map(|(ok, text)| Step::Result { ok, text }),
        1 => (0u8..14).prop_map(Step::Progress),
        1 => (0u8..14).prop_map(Step::Background),
        1 => (0u32..70_000).prop_map(Step::Tick),
        1 => Just(Step::Late),
    ]
}

fn event(i: u8) -> BackgroundEvent {
    BackgroundEvent {
        kind: EventType::Console,
        level: Level::Log,
        source: None,
        ts: "10:00:00".into(),
        message: format!("event {i} ```"),
        stack: None,
    }
}

fn footers(text: &str) -> usize {
    blocks(text, 0)
        .filter(|b| matches!(b, Block::Line(l) if l.text == FOOTER))
        .count()
}

/// Whether `needles` appear in `hay` in order (as whole lines).
fn in_order(hay: &[&str], needles: &[String]) -> Result<(), String> {
    let mut it = hay.iter();
    for n in needles {
        if !it.any(|h| h == n) {
            return Err(n.clone());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn agent_text_survives_and_one_footer(steps in prop::collection::vec(step(), 1..24), crlf in any::<bool>()) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut engine = LogEngine::new("shop-3f2a", config());
        let mut text = new_log("shop-3f2a").replace('\n', eol);
        // Every line the agent wrote that has content, in order.
        let mut written: Vec<String> = Vec::new();
        let mut mono = 0u64;
        for step in steps {
            mono += 100;
            let now = Now { mono: Millis(mono), clock: ClockTime { hour: 10, minute: 0, second: (mono / 1000 % 60) as u8 } };
            let input = match step {
                Step::Append(mut lines, final_eol) => {
                    // Text that does not end with a newline ends with the
                    // agent's own unfinished line (the hub writes whole
                    // lines): the first appended line continues it.
                    let partial = text.rsplit('\n').next().unwrap_or("").to_string();
                    if !partial.is_empty() {
                        if written.last() == Some(&partial) {
                            written.pop();
                        }
                        lines[0] = format!("{partial}{}", lines[0]);
                        text.truncate(text.len() - partial.len());
                    }
                    let n = lines.len();
                    for (i, l) in lines.iter().enumerate() {
                        text.push_str(l);
                        if i + 1 < n || final_eol {
                            text.push_str(eol);
                        }
                        if !l.trim().is_empty() {
                            written.push(l.clone());
                        }
                    }
                    Input::FileChanged
                }
                Step::Result { ok, text: t } => {
                    let job = engine.running().unwrap_or(JobId(0));
                    let outcome = if ok {
                        Outcome::Ok(Value::Text(t))
                    } else {
                        Outcome::Error(JobError { name: "Error".into(), message: t, stack: None })
                    };
                    Input::Result(JobResult { job, outcome, events: vec![event(1)], dropped: 0, limited: 0, duration_ms: 5 })
                }
                Step::Progress(n) => Input::Progress(JobProgress { job: engine.running().unwrap_or(JobId(0)), events: (0..n).map(event).collect(), dropped: 0, limited: 0, elapsed_ms: 0 }),
                Step::Background(n) => Input::Background { events: (0..n).map(event).collect(), dropped: 1, limited: 0, over_rate: 0 },
                Step::Tick(ms) => {
                    mono += ms as u64;
                    Input::Tick
                }
                Step::Late => Input::Result(JobResult { job: JobId(1), outcome: Outcome::Ok(Value::Json("1".into())), events: vec![], dropped: 0, limited: 0, duration_ms: 99_000 }),
            };
            let now = Now { mono: Millis(mono), ..now };
            let out = engine.handle(&text, input, now);
            text = apply(&text, &out.edits);
            prop_assert!(footers(&text) <= 1, "more than one footer:\n{}", text);
            let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
            if let Err(missing) = in_order(&lines, &written) {
                return Err(TestCaseError::fail(format!("agent line {missing:?} lost or reordered:\n{text}")));
            }
            if crlf {
                prop_assert!(!text.replace("\r\n", "").contains('\n'), "a bare LF in a CRLF log:\n{:?}", text);
            }
        }
    }

    #[test]
    fn never_panics_on_any_text(text in "(?s).{0,400}", extra in prop::collection::vec(any::<u8>(), 0..8)) {
        let mut engine = LogEngine::new("s", config());
        let mut text = text;
        for (i, b) in extra.into_iter().enumerate() {
            let now = Now { mono: Millis(i as u64 * 7_000), clock: ClockTime::default() };
            let input = match b % 5 {
                0 => Input::FileChanged,
                1 => Input::Startup,
                2 => Input::Tick,
                3 => Input::Result(JobResult { job: engine.running().unwrap_or(JobId(1)), outcome: Outcome::Ok(Value::Json("[1]".into())), events: vec![], dropped: 0, limited: 0, duration_ms: 1 }),
                _ => Input::Progress(JobProgress { job: engine.running().unwrap_or(JobId(1)), events: vec![event(b)], dropped: 0, limited: 0, elapsed_ms: 0 }),
            };
            let out = engine.handle(&text, input, now);
            text = apply(&text, &out.edits);
            if b % 3 == 0 {
                text.push_str("\n```js\n1\n```\n");
            }
        }
    }
}
