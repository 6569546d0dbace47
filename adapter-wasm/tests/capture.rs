//! Background capture in a real page, attached to the loader's console
//! wrappers (`adapter-shim/hooks.js`): calls are recorded and still reach
//! the original; global errors and unhandled rejections are recorded;
//! dropping the capture stops both.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use daebug_adapter::buffer::{BufferLimits, EventBuffer};
use daebug_adapter::capture::{Capture, Shared};
use daebug_protocol::{EventType, Level};
use js_sys::Function;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

mod common;

wasm_bindgen_test_configure!(run_in_browser);

fn run(body: &str) -> JsValue {
    Function::new_no_args(body)
        .call0(&JsValue::UNDEFINED)
        .expect("the case's code runs")
}

fn shared() -> Shared {
    Rc::new(RefCell::new(EventBuffer::new(BufferLimits {
        flush_at: 1_000,
        ..BufferLimits::default()
    })))
}

fn drained(buffer: &Shared) -> Vec<(EventType, Level, Option<String>, String)> {
    buffer
        .borrow_mut()
        .flush()
        .map(|b| {
            b.events
                .into_iter()
                .map(|e| (e.kind, e.level, e.source, e.message))
                .collect()
        })
        .unwrap_or_default()
}

#[wasm_bindgen_test]
fn console_calls_are_recorded_and_still_reach_the_original() {
    // A stand-in for the browser's console.log that remembers its calls.
    run("window.__seen = []; window.__orig = console.log; window.__stand_in = function (...a) { window.__seen.push([this === console, ...a]); return 'kept' }; console.log = window.__stand_in");
    let buffer = shared();
    common::install_loader();
    let capture = Capture::install(buffer.clone()).expect("install");
    let ret = run("return console.log('loaded', 3, {items: [1, 2]})");
    assert_eq!(
        ret.as_string().as_deref(),
        Some("kept"),
        "return value passes through"
    );
    assert_eq!(
        run("return JSON.stringify(window.__seen)")
            .as_string()
            .unwrap(),
        r#"[[true,"loaded",3,{"items":[1,2]}]]"#,
        "the original got the same this and arguments"
    );
    run("console.warn('careful'); console.error(new Map([[1, 2]])); console.info('i'); console.debug('d')");
    let events = drained(&buffer);
    assert_eq!(
        events,
        vec![
            (
                EventType::Console,
                Level::Log,
                None,
                r#"loaded 3 {"items":[1,2]}"#.into()
            ),
            (EventType::Console, Level::Warn, None, "careful".into()),
            (
                EventType::Console,
                Level::Error,
                None,
                "Map(1) {1 => 2}".into()
            ),
            (EventType::Console, Level::Info, None, "i".into()),
            (EventType::Console, Level::Debug, None, "d".into()),
        ]
    );
    drop(capture);
    run("window.__seen = []; console.log('after')");
    assert!(drained(&buffer).is_empty(), "nothing recorded after drop");
    assert_eq!(
        run("const n = window.__seen.length; console.log = window.__orig; return n").as_f64(),
        Some(1.0),
        "the loader's wrapper stays and passes the call through"
    );
}

#[wasm_bindgen_test]
fn global_errors_and_unhandled_rejections_are_recorded() {
    let buffer = shared();
    common::install_loader();
    let capture = Capture::install(buffer.clone()).expect("install");
    run("window.dispatchEvent(new ErrorEvent('error', { message: 'Uncaught TypeError: x is undefined', error: new TypeError('x is undefined') }))");
    run("const p = Promise.reject(new RangeError('nope')); p.catch(() => {}); window.dispatchEvent(new PromiseRejectionEvent('unhandledrejection', { promise: p, reason: new RangeError('nope') }))");
    run("const p = Promise.reject(42); p.catch(() => {}); window.dispatchEvent(new PromiseRejectionEvent('unhandledrejection', { promise: p, reason: 42 }))");
    let events = drained(&buffer);
    assert_eq!(
        events,
        vec![
            (
                EventType::Error,
                Level::Error,
                Some("window.onerror".into()),
                "TypeError: x is undefined".into()
            ),
            (
                EventType::Error,
                Level::Error,
                Some("unhandledrejection".into()),
                "RangeError: nope".into()
            ),
            (
                EventType::Error,
                Level::Error,
                Some("unhandledrejection".into()),
                "42".into()
            ),
        ]
    );
    drop(capture);
    run("window.dispatchEvent(new ErrorEvent('error', { message: 'late' }))");
    assert!(drained(&buffer).is_empty(), "listeners removed on drop");
}

#[wasm_bindgen_test]
fn a_console_call_from_inside_formatting_cannot_recurse() {
    let buffer = shared();
    common::install_loader();
    let _capture = Capture::install(buffer.clone()).expect("install");
    // Formatting this argument runs a trap that logs again.
    run("const p = new Proxy({}, { ownKeys(t) { console.log('from the trap'); return Reflect.ownKeys(t) } }); console.log(p)");
    let events = drained(&buffer);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].3, "{}");
}

#[wasm_bindgen_test]
fn a_revoked_proxy_in_a_console_call_leaves_capture_working() {
    let buffer = shared();
    common::install_loader();
    let _capture = Capture::install(buffer.clone()).expect("install");
    // (The browser's own console.log may throw for a revoked proxy; that
    // is the page's call, unchanged. Ours must record and keep working.)
    run("const p = Proxy.revocable({}, {}); p.revoke(); try { console.log('before', p.proxy) } catch (e) {} console.log('after')");
    let events = drained(&buffer);
    let messages: Vec<&str> = events.iter().map(|e| e.3.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[1], "after");
}

/// Every console method records an event named by its method, as the
/// log's fence info will show it (docs/log-format.md).
#[wasm_bindgen_test]
fn every_console_method_is_recorded_by_name() {
    let buffer = shared();
    common::install_loader();
    let capture = Capture::install(buffer.clone()).expect("install");
    run("console.count('a'); console.count('a'); console.countReset('a'); console.count('a');\
         console.assert(1 === 1, 'fine'); console.assert(1 === 2, 'math', 3);\
         console.time('t'); console.timeLog('t', 'step'); console.timeEnd('t');\
         console.group('outer'); console.log('inside'); console.groupCollapsed(); console.info('deeper'); console.groupEnd(); console.groupEnd(); console.log('outside');\
         console.table([{ a: 1, b: 'x' }, { a: 2 }]); console.dir({ k: [1] });\
         (function traced() { console.trace('here') })()");
    let events: Vec<_> = buffer.borrow_mut().flush().unwrap().events;
    let shown: Vec<(Option<String>, String)> = events
        .iter()
        .map(|e| (e.source.clone(), e.message.clone()))
        .collect();
    let src = |s: &str| Some(s.to_string());
    assert_eq!(shown[0], (src("console.count"), "a: 1".into()));
    assert_eq!(shown[1], (src("console.count"), "a: 2".into()));
    assert_eq!(shown[2], (src("console.count"), "a: 1".into()));
    assert_eq!(
        shown[3],
        (src("console.assert"), "Assertion failed: math 3".into())
    );
    assert_eq!(events[3].level, Level::Error);
    assert_eq!(shown[4].0, src("console.timeLog"));
    assert!(
        shown[4].1.starts_with("t: ") && shown[4].1.ends_with(" ms step"),
        "{:?}",
        shown[4]
    );
    assert_eq!(shown[5].0, src("console.timeEnd"));
    assert!(
        shown[5].1.starts_with("t: ") && shown[5].1.ends_with(" ms"),
        "{:?}",
        shown[5]
    );
    assert_eq!(shown[6], (src("console.group"), "outer".into()));
    assert_eq!(shown[7], (None, "  inside".into()));
    assert_eq!(
        shown[8],
        (
            src("console.groupCollapsed"),
            "  console.groupCollapsed".into()
        )
    );
    assert_eq!(shown[9], (None, "    deeper".into()));
    assert_eq!(events[9].level, Level::Info);
    assert_eq!(shown[10], (None, "outside".into()));
    assert_eq!(shown[11].0, src("console.table"));
    assert!(
        shown[11].1.contains("│ (index) │ a │ b   │"),
        "{}",
        shown[11].1
    );
    assert!(
        shown[11].1.contains("│ 0       │ 1 │ 'x' │"),
        "{}",
        shown[11].1
    );
    assert_eq!(shown[12].0, src("console.dir"));
    assert!(shown[12].1.contains("\"k\""), "{}", shown[12].1);
    assert_eq!(shown[13], (src("console.trace"), "here".into()));
    let stack = events[13].stack.clone().unwrap_or_default();
    // It starts at the caller: no frame of the wrapper or the adapter's glue
    // before it (the frames below are this test harness's).
    assert!(
        stack.lines().next().is_some_and(|l| l.contains("traced")),
        "{stack}"
    );
    assert!(!stack.contains("__wbg_"), "{stack}");
    assert_eq!(events.len(), 14, "{shown:?}");
    drop(capture);
}
