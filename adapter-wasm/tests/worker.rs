//! In-worker tests: the same adapter runs in a dedicated Web Worker, driven
//! through headless Chromium by `wasm-bindgen-test-runner`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

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
    use daebug_adapter::inspect::{render, Rendered};
    use daebug_adapter::walk::{walk, Limits};
    let v = js_sys::Function::new_no_args(
        "class Job { constructor() { this.done = new Set(['a']) } }; return [new Job(), self.name]",
    )
    .call0(&wasm_bindgen::JsValue::UNDEFINED)
    .expect("runs");
    let got = render(&walk(&v, Limits::default()).await);
    match got {
        Rendered::Text(t) => assert!(t.starts_with(r#"[Job { done: Set(1) {"a"} }, "#), "{t}"),
        other => panic!("{other:?}"),
    }
}
