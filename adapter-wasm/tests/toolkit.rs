//! The toolkit in a real page (headless Chromium): where it is kept, what
//! its drop leaves, `waitFor` on a selector and its timeout, and a page's
//! own `daebug` left alone.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use daebug_adapter::buffer::{BufferLimits, EventBuffer};
use daebug_adapter::toolkit::{Toolkit, SYMBOL_KEY};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn global() -> JsValue {
    js_sys::global().into()
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap()
}

fn install() -> Toolkit {
    let buffer = Rc::new(RefCell::new(EventBuffer::new(BufferLimits::default())));
    Toolkit::install(buffer, true).expect("installed")
}

fn kept() -> JsValue {
    Reflect::get(&global(), &js_sys::Symbol::for_(SYMBOL_KEY).into()).unwrap()
}

async fn call(object: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(object, method).dyn_into().unwrap();
    let array: js_sys::Array = args.iter().collect();
    let value = f.apply(object, &array)?;
    JsFuture::from(Promise::resolve(&value)).await
}

#[wasm_bindgen_test]
async fn wait_for_sees_an_element_added_later_and_drop_takes_it_all_away() {
    let toolkit = install();
    let daebug = get(&global(), "daebug");
    assert!(js_sys::Object::is(&daebug, &kept()));
    assert_eq!(get(&get(&daebug, "realm"), "kind"), "page");

    let document = get(&global(), "document");
    let body = get(&document, "body");
    let add = Function::new_with_args(
        "body",
        "setTimeout(() => { const b = document.createElement('b'); b.id = 'kit-late'; body.append(b) }, 50)",
    );
    add.call1(&JsValue::NULL, &body).unwrap();
    let found = call(&daebug, "waitFor", &["#kit-late".into()])
        .await
        .unwrap();
    assert_eq!(get(&found, "id"), "kit-late");

    let options = js_sys::Object::new();
    Reflect::set(&options, &"timeout".into(), &30.into()).unwrap();
    let err = call(&daebug, "waitFor", &["#kit-never".into(), options.into()])
        .await
        .unwrap_err();
    assert_eq!(
        get(&err, "message"),
        "waitFor(\"#kit-never\"): no element matched within 30 ms"
    );

    drop(toolkit);
    assert!(get(&global(), "daebug").is_undefined());
    assert!(kept().is_undefined());
}

#[wasm_bindgen_test]
fn a_pages_own_daebug_stays() {
    let mine = js_sys::Object::new();
    Reflect::set(&global(), &"daebug".into(), &mine).unwrap();
    let toolkit = install();
    assert!(js_sys::Object::is(&get(&global(), "daebug"), &mine));
    assert!(get(&kept(), "waitFor").is_function());
    drop(toolkit);
    assert!(js_sys::Object::is(&get(&global(), "daebug"), &mine));
    Reflect::delete_property(global().unchecked_ref::<js_sys::Object>(), &"daebug".into()).unwrap();
}
