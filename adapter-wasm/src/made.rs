//! Functions made from source text (`new Function(params, body)`), asked
//! through `Reflect`: on a page whose Content Security Policy forbids
//! `eval`, the browser's refusal comes back as an error the caller
//! answers with, instead of an exception thrown through the WebAssembly
//! (which `Function::new_*` would let escape).

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// `new Function(params, body)`, or the browser's refusal.
pub fn function(params: &str, body: &str) -> Result<Function, JsValue> {
    let ctor: Function = Reflect::get(&js_sys::global(), &"Function".into())?.dyn_into()?;
    Reflect::construct(&ctor, &Array::of2(&params.into(), &body.into()))?.dyn_into()
}
