//! Background capture in the realm: console calls and global errors go
//! into the [`EventBuffer`], and the page behaves as before.
//!
//! [`Capture`] is a RAII object (as in gloo): installing it wraps
//! `console.log/info/warn/error/debug` (each wrapper records, then calls
//! the original with the same `this` and arguments and returns its result)
//! and listens to `error` and `unhandledrejection` on the global scope,
//! Window or Worker alike. Dropping it puts the originals back (unless
//! someone wrapped them again since) and removes the listeners.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use daebug_protocol::{BackgroundEvent, EventType, Level};
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::buffer::EventBuffer;
use crate::inspect::{render, Rendered};
use crate::walk::{cut_string, walk_now, WalkLimits};

/// The buffer shared by the capture hooks and the link that sends it.
pub type Shared = Rc<RefCell<EventBuffer>>;

/// The console methods that are wrapped, and their levels.
const METHODS: [(&str, Level); 5] = [
    ("log", Level::Log),
    ("info", Level::Info),
    ("warn", Level::Warn),
    ("error", Level::Error),
    ("debug", Level::Debug),
];

/// Console arguments are shown smaller than completion values.
const ARG_LIMITS: WalkLimits = WalkLimits {
    depth: 2,
    items: 20,
    string: 2_000,
};

/// Characters kept of an error's message and stack.
pub const ERROR_TEXT: usize = 10_000;

thread_local! {
    /// Nesting of capture calls: a console call made while an argument is
    /// formatted (a Proxy trap that logs) is passed through, not captured,
    /// so capture can never recurse without end.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// A listener on the global scope.
type Listener = Closure<dyn FnMut(JsValue)>;

/// Installed capture; see the module docs.
pub struct Capture {
    console: JsValue,
    /// Each method's original function and the wrapper put in its place.
    wrapped: Vec<(&'static str, JsValue, JsValue)>,
    global: JsValue,
    listeners: Vec<(&'static str, Listener)>,
    /// Kept alive while the wrappers may call it.
    _sink: Closure<dyn FnMut(JsValue, Array)>,
}

/// `"window.onerror"` in a page, `"self.onerror"` in a worker.
fn error_source(global: &JsValue) -> &'static str {
    match Reflect::has(global, &"document".into()) {
        Ok(true) => "window.onerror",
        _ => "self.onerror",
    }
}

/// The realm's local time, `HH:MM:SS`.
fn clock() -> String {
    let d = js_sys::Date::new_0();
    format!(
        "{:02}:{:02}:{:02}",
        d.get_hours(),
        d.get_minutes(),
        d.get_seconds()
    )
}

/// Milliseconds for the buffer's cadences.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// Console arguments as one message: strings as they are, anything else
/// as JSON or inspect text, separated by spaces.
pub fn message_of(args: &Array) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| match cut_string(&a, ARG_LIMITS.string) {
            Some((s, len)) if len > ARG_LIMITS.string => {
                format!("{s}... ({} more characters)", len - ARG_LIMITS.string)
            }
            Some((s, _)) => s,
            None => match render(&walk_now(&a, ARG_LIMITS)) {
                Rendered::Json(j) => j,
                Rendered::Text(t) => t,
            },
        })
        .collect();
    parts.join(" ")
}

/// `Name: message` and the stack of a thrown value, or its inspect text.
fn thrown(value: &JsValue) -> (String, Option<String>) {
    if value.is_instance_of::<js_sys::Error>() {
        let get = |k: &str| {
            Reflect::get(value, &k.into())
                .ok()
                .and_then(|v| cut_string(&v, ERROR_TEXT))
                .map(|(s, _)| s)
        };
        let name = get("name").unwrap_or_else(|| "Error".into());
        let message = get("message").unwrap_or_default();
        return (format!("{name}: {message}"), get("stack"));
    }
    let text = match render(&walk_now(value, ARG_LIMITS)) {
        Rendered::Json(j) => j,
        Rendered::Text(t) => t,
    };
    (text, None)
}

fn push(buffer: &Shared, event: BackgroundEvent) {
    // Formatting is done before this borrow, so a nested capture (from a
    // trap run while formatting) has already released it.
    if let Ok(mut b) = buffer.try_borrow_mut() {
        b.push(event, now_ms());
    }
}

/// Runs `f` unless a capture is already under way on this thread.
fn guarded(f: impl FnOnce()) {
    let depth = DEPTH.with(|d| d.get());
    if depth > 0 {
        return;
    }
    DEPTH.with(|d| d.set(depth + 1));
    f();
    DEPTH.with(|d| d.set(depth));
}

impl Capture {
    /// Wraps the console and listens for global errors, recording into
    /// `buffer`.
    pub fn install(buffer: Shared) -> Result<Capture, JsValue> {
        let global: JsValue = js_sys::global().into();
        let console = Reflect::get(&global, &"console".into())?;

        let sink_buffer = buffer.clone();
        let sink = Closure::<dyn FnMut(JsValue, Array)>::new(move |level: JsValue, args: Array| {
            guarded(|| {
                // Over the rate limit: counted, and not even formatted.
                let admitted = sink_buffer
                    .try_borrow_mut()
                    .is_ok_and(|mut b| b.admit(now_ms()));
                if !admitted {
                    return;
                }
                let level = match level.as_string().as_deref() {
                    Some("info") => Level::Info,
                    Some("warn") => Level::Warn,
                    Some("error") => Level::Error,
                    Some("debug") => Level::Debug,
                    _ => Level::Log,
                };
                let event = BackgroundEvent {
                    kind: EventType::Console,
                    level,
                    source: None,
                    ts: clock(),
                    message: message_of(&args),
                    stack: None,
                };
                if let Ok(mut b) = sink_buffer.try_borrow_mut() {
                    b.store(event, now_ms());
                }
            })
        });
        // The wrapper is JavaScript so that `this`, the arguments and the
        // return value pass through untouched, and so that nothing our
        // side does can throw into the page's call.
        // `new Function` throws on pages whose CSP forbids eval: then
        // there is no console capture, but the adapter still runs.
        let function_ctor: Function = Reflect::get(&global, &"Function".into())?.dyn_into()?;
        let make: Function = Reflect::construct(
            &function_ctor,
            &Array::of2(
                &"orig, sink, level".into(),
                &"return function (...args) { try { sink(level, args) } catch (e) {} return orig.apply(this, args) }".into(),
            ),
        )?
        .dyn_into()?;
        let mut wrapped = Vec::new();
        for (name, _) in METHODS {
            let original = Reflect::get(&console, &name.into())?;
            if !original.is_function() {
                continue;
            }
            let wrapper = make.call3(
                &JsValue::UNDEFINED,
                &original,
                sink.as_ref(),
                &JsValue::from_str(name),
            )?;
            Reflect::set(&console, &name.into(), &wrapper)?;
            wrapped.push((name, original, wrapper));
        }

        let source = error_source(&global);
        let on_error = {
            let buffer = buffer.clone();
            Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
                guarded(|| {
                    let get =
                        |k: &str| Reflect::get(&event, &k.into()).unwrap_or(JsValue::UNDEFINED);
                    let error = get("error");
                    let (message, stack) = if error.is_undefined() || error.is_null() {
                        (get("message").as_string().unwrap_or_default(), None)
                    } else {
                        thrown(&error)
                    };
                    push(
                        &buffer,
                        BackgroundEvent {
                            kind: EventType::Error,
                            level: Level::Error,
                            source: Some(source.into()),
                            ts: clock(),
                            message,
                            stack,
                        },
                    );
                })
            })
        };
        let on_rejection = {
            let buffer = buffer.clone();
            Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
                guarded(|| {
                    let reason =
                        Reflect::get(&event, &"reason".into()).unwrap_or(JsValue::UNDEFINED);
                    let (message, stack) = thrown(&reason);
                    push(
                        &buffer,
                        BackgroundEvent {
                            kind: EventType::Error,
                            level: Level::Error,
                            source: Some("unhandledrejection".into()),
                            ts: clock(),
                            message,
                            stack,
                        },
                    );
                })
            })
        };
        let mut capture = Capture {
            console,
            wrapped,
            global,
            listeners: Vec::new(),
            _sink: sink,
        };
        for (kind, listener) in [("error", on_error), ("unhandledrejection", on_rejection)] {
            capture.listen(kind, listener)?;
        }
        Ok(capture)
    }

    fn listen(&mut self, kind: &'static str, listener: Listener) -> Result<(), JsValue> {
        let add: Function = Reflect::get(&self.global, &"addEventListener".into())?.dyn_into()?;
        add.call2(&self.global, &kind.into(), listener.as_ref())?;
        self.listeners.push((kind, listener));
        Ok(())
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        for (name, original, wrapper) in &self.wrapped {
            // Put the original back only where ours is still in place: a
            // wrapper installed on top of ours keeps working (ours then
            // just passes through).
            let current = Reflect::get(&self.console, &(*name).into()).unwrap_or_default();
            if js_sys::Object::is(&current, wrapper) {
                let _ = Reflect::set(&self.console, &(*name).into(), original);
            }
        }
        if let Ok(remove) = Reflect::get(&self.global, &"removeEventListener".into())
            .and_then(|f| f.dyn_into::<Function>())
        {
            for (kind, listener) in &self.listeners {
                let _ = remove.call2(&self.global, &(*kind).into(), listener.as_ref());
            }
        }
    }
}
