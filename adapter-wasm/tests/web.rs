//! In-browser tests: run by `wasm-bindgen-test-runner` in headless Chromium
//! (`cargo test -p daebug-adapter --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn version_is_exported() {
    assert_eq!(daebug_adapter::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn runs_in_a_window_with_a_document() {
    let global = js_sys::global();
    assert!(global.is_instance_of::<web_sys::Window>());
    let window: web_sys::Window = global.unchecked_into();
    let document = window.document().expect("a window has a document");
    document.set_title("daebug adapter test");
    assert_eq!(document.title(), "daebug adapter test");
}

#[wasm_bindgen_test]
fn truncation_works_in_wasm() {
    let (kept, omitted) = daebug_adapter::truncate::keep_first_last((0..20).collect(), 2, 8);
    assert_eq!(kept.len(), 10);
    assert_eq!(omitted, 10);
}

#[wasm_bindgen_test]
fn event_buffer_works_in_wasm() {
    use daebug_adapter::buffer::{BufferLimits, EventBuffer, Outgoing};
    use daebug_protocol::{BackgroundEvent, EventType, Level};
    let mut buf = EventBuffer::new(BufferLimits::default());
    for n in 0..5 {
        buf.push(
            BackgroundEvent {
                kind: EventType::Console,
                level: Level::Log,
                source: None,
                ts: String::new(),
                message: format!("e{n}"),
                stack: None,
            },
            js_sys::Date::now() as u64,
        );
    }
    match buf.poll(js_sys::Date::now() as u64) {
        Some(Outgoing::Background(b)) => assert_eq!(b.events.len(), 5),
        other => panic!("{other:?}"),
    }
}

/// `?name=` bytes that are no UTF-8 decode as `String::from_utf8_lossy`
/// would, by the realm's `TextDecoder` (a leading byte order mark kept).
#[wasm_bindgen_test]
fn a_query_value_decodes_bad_utf8_as_rust_would() {
    let raw = "%EF%BB%BFa%FF%E2%82b%C3%A9%F0%9F%98";
    let url = format!("http://h/x.js?name={raw}");
    let expected =
        String::from_utf8_lossy(b"\xEF\xBB\xBFa\xFF\xE2\x82b\xC3\xA9\xF0\x9F\x98").into_owned();
    assert_eq!(
        daebug_adapter::identity::query_param(&url, "name").as_deref(),
        Some(expected.as_str())
    );
}
