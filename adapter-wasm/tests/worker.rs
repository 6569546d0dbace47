//! In-worker tests: the same adapter runs in a dedicated Web Worker, driven
//! through headless Chromium by `wasm-bindgen-test-runner`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod common;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
fn runs_in_a_dedicated_worker() {
    let global = js_sys::global();
    assert!(global.is_instance_of::<web_sys::DedicatedWorkerGlobalScope>());
    assert!(!global.is_instance_of::<web_sys::Window>());
    assert_eq!(daebug_adapter::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
async fn values_are_walked_in_a_worker_without_a_dom() {
    use daebug_adapter::reply::Rendered;
    use daebug_adapter::values::{show, WalkLimits};
    common::install_values();
    let v = js_sys::Function::new_no_args(
        "class Job { constructor() { this.done = new Set(['a']) } }; return [new Job(), self.name]",
    )
    .call0(&wasm_bindgen::JsValue::UNDEFINED)
    .expect("runs");
    let got = show(&v, WalkLimits::default()).await;
    match got {
        Rendered::Text(t) => assert!(t.starts_with(r#"[Job { done: Set(1) {"a"} }, "#), "{t}"),
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test]
fn capture_works_in_a_worker() {
    use daebug_adapter::buffer::{BufferLimits, EventBuffer};
    use daebug_adapter::capture::Capture;
    use std::cell::RefCell;
    use std::rc::Rc;
    let buffer = Rc::new(RefCell::new(EventBuffer::new(BufferLimits::default())));
    common::install_loader();
    let capture = Capture::install(buffer.clone()).expect("install in a worker");
    js_sys::Function::new_no_args(
        "console.log('from the worker'); self.dispatchEvent(new ErrorEvent('error', { message: 'boom' }))",
    )
    .call0(&wasm_bindgen::JsValue::UNDEFINED)
    .expect("runs");
    drop(capture);
    let batch = buffer.borrow_mut().flush().expect("events");
    let got: Vec<_> = batch
        .events
        .iter()
        .map(|e| (e.source.clone(), e.message.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (None, "from the worker".to_string()),
            (Some("self.onerror".to_string()), "boom".to_string()),
        ]
    );
}
