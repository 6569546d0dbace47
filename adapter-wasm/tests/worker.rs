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
