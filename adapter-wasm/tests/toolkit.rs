//! The toolkit in a real page (headless Chromium): where it is kept, what
//! its drop leaves, `waitFor` on a selector and its timeout, a page's
//! own `daebug` left alone, and pictures kept with their job.
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

/// A function of the loader's, made here from its source as the loader
/// carries it (`adapter-shim/`).
fn loaders(source: &str, name: &str) -> JsValue {
    let body = format!("{source}\nreturn {name};");
    Function::new_no_args(&body).call0(&JsValue::NULL).unwrap()
}

fn install() -> Toolkit {
    let buffer = Rc::new(RefCell::new(EventBuffer::new(BufferLimits::default())));
    let make = loaders(include_str!("../../adapter-shim/toolkit.js"), "toolkit");
    Toolkit::install(
        &make,
        buffer,
        Rc::default(),
        true,
        None,
        Rc::default(),
        Rc::default(),
    )
    .expect("installed")
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

#[wasm_bindgen_test]
async fn a_picture_waits_with_its_job_and_none_is_taken_outside_one() {
    use daebug_adapter::pictures::{Asked, Pictures};
    use daebug_protocol::JobId;
    let pictures = Pictures::new(loaders(
        include_str!("../../adapter-shim/pictures.js"),
        "pictures",
    ));
    let make = Function::new_no_args(
        "const c = document.createElement('canvas'); c.width = 3; c.height = 2; return c",
    );
    let canvas = make.call0(&JsValue::NULL).unwrap();
    let err = pictures
        .ask(None, Asked::Image, canvas.clone(), JsValue::UNDEFINED)
        .unwrap_err();
    assert!(get(&err, "message")
        .as_string()
        .unwrap()
        .contains("works inside a block"));
    let shown = pictures
        .ask(
            Some(JobId(7)),
            Asked::Image,
            canvas.clone(),
            JsValue::UNDEFINED,
        )
        .unwrap();
    pictures.value(&canvas, JobId(7));
    pictures.value(&JsValue::from(5), JobId(7));
    assert!(pictures.take(JobId(8)).await.is_empty(), "another job's");
    let sent = pictures.take(JobId(7)).await;
    assert_eq!(sent.len(), 2, "the asked one and the value");
    assert_eq!((sent[0].width, sent[0].height), (3, 2));
    assert_eq!(sent[0].mime, "image/png");
    // Base64 of a PNG starts with its signature.
    assert!(sent[0].data.as_deref().unwrap().starts_with("iVBORw0KGgo"));
    let described = JsFuture::from(Promise::from(shown)).await.unwrap();
    assert_eq!(get(&described, "label"), "canvas");
    assert!(pictures.take(JobId(7)).await.is_empty(), "taken once");
}
