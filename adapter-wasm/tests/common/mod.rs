//! What the in-browser tests share: the loader's pieces taken into use, as
//! `daebug.js` has them before the adapter starts (these tests run the
//! adapter's parts without a loader).
#![cfg(target_arch = "wasm32")]

use js_sys::{Function, Reflect, Symbol};
use wasm_bindgen::JsValue;

/// What the hub splices into a loader (`http/assets.rs`), then `body`.
fn loader_pieces(body: &str) -> Function {
    Function::new_no_args(&format!(
        "{}\n{}\n{}\n{}\n{}\n{body}",
        include_str!("../../../adapter-shim/hooks.js"),
        include_str!("../../../adapter-shim/values.js"),
        include_str!("../../../adapter-shim/pictures.js"),
        include_str!("../../../adapter-shim/toolkit.js"),
        include_str!("../../../adapter-shim/person.js"),
    ))
}

/// Makes `values` from `adapter-shim/values.js` and installs it.
#[allow(dead_code)] // each test file uses what it needs
pub fn install_values() {
    let make = loader_pieces("return values;")
        .call0(&JsValue::NULL)
        .expect("values.js defines values");
    daebug_adapter::values::install(&make);
}

/// The loader's first line: `hooks()` wraps the console (over whatever
/// is there now) and is kept where the adapter finds it; and `values`.
#[allow(dead_code)]
pub fn install_loader() {
    let early = loader_pieces("return hooks();")
        .call0(&JsValue::NULL)
        .expect("hooks() runs");
    Reflect::set(
        &js_sys::global(),
        &Symbol::for_("daebug.early").into(),
        &early,
    )
    .expect("kept on the global object");
    install_values();
}
