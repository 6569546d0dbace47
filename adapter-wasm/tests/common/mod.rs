//! What the in-browser tests share: the loader's `values.js` taken into
//! use, as `daebug.js` has the adapter do when it starts (these tests run
//! the adapter's parts without a loader).
#![cfg(target_arch = "wasm32")]

/// Makes `values` from `adapter-shim/values.js` and installs it.
pub fn install_values() {
    let make = js_sys::Function::new_no_args(concat!(
        include_str!("../../../adapter-shim/values.js"),
        "\nreturn values;"
    ))
    .call0(&wasm_bindgen::JsValue::NULL)
    .expect("values.js defines values");
    daebug_adapter::values::install(&make);
}
