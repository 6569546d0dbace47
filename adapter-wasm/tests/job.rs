//! Jobs in a real page: run once as an async function, timed in the realm,
//! values and errors rendered, and a job that never settles blocks nothing.
#![cfg(target_arch = "wasm32")]

use daebug_adapter::job::run;
use daebug_protocol::{Outcome, Value};
use wasm_bindgen_test::*;

mod common;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn a_value_is_returned_and_rendered() {
    common::install_values();
    let ran = run("return 1 + 1", None, false).await;
    assert_eq!(ran.outcome, Outcome::Ok(Value::Json("2".into())));
    let ran = run("const m = new Map([['a', 1]]); return m", None, false).await;
    assert_eq!(
        ran.outcome,
        Outcome::Ok(Value::Text(r#"Map(1) {"a" => 1}"#.into()))
    );
    let ran = run("window.__runs = (window.__runs || 0) + 1", None, false).await;
    assert_eq!(ran.outcome, Outcome::Ok(Value::Text("undefined".into())));
    assert_eq!(
        js_sys::eval("window.__runs").unwrap().as_f64(),
        Some(1.0),
        "the code ran exactly once"
    );
}

#[wasm_bindgen_test]
async fn top_level_await_and_the_duration_is_measured_in_the_realm() {
    common::install_values();
    let ran = run(
        "await new Promise(r => setTimeout(r, 30)); return 'done'",
        None,
        false,
    )
    .await;
    assert_eq!(ran.outcome, Outcome::Ok(Value::Json("\"done\"".into())));
    assert!(ran.duration_ms >= 25, "{}", ran.duration_ms);
}

#[wasm_bindgen_test]
async fn errors_are_reported_with_name_message_and_a_folded_stack() {
    common::install_values();
    let ran = run(
        "function inner() { throw new TypeError('x is undefined') }\ninner()",
        None,
        false,
    )
    .await;
    let Outcome::Error(e) = ran.outcome else {
        panic!("expected an error")
    };
    assert_eq!(
        (e.name.as_str(), e.message.as_str()),
        ("TypeError", "x is undefined")
    );
    let stack = e.stack.expect("a stack");
    // V8's syntax, or SpiderMonkey's (scripts/test-adapter-firefox.sh).
    assert!(
        stack.contains("at inner") || stack.contains("\ninner@") || stack.starts_with("inner@"),
        "{stack}"
    );
    assert!(
        !stack.contains("wasm://") && !stack.contains("__wbg_"),
        "{stack}"
    );

    let ran = run("throw 42", None, false).await;
    let Outcome::Error(e) = ran.outcome else {
        panic!("expected an error")
    };
    assert_eq!((e.name.as_str(), e.message.as_str()), ("Uncaught", "42"));

    let ran = run("return (", None, false).await;
    let Outcome::Error(e) = ran.outcome else {
        panic!("expected an error")
    };
    assert_eq!(e.name, "SyntaxError");
}

#[wasm_bindgen_test]
async fn a_job_that_never_settles_blocks_nothing() {
    common::install_values();
    wasm_bindgen_futures::spawn_local(async {
        let _ = run("await new Promise(() => {})", None, false).await;
        panic!("a never-settling job settled");
    });
    let ran = run("return 'next'", None, false).await;
    assert_eq!(ran.outcome, Outcome::Ok(Value::Json("\"next\"".into())));
}
